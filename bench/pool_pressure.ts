/**
 * Pool pressure soak: many sessions over few processes, then stop/start cycles, against a real
 * daemon and the faulty.ts fixture server.
 *
 *     deno run -A bench/pool_pressure.ts [--calls 2000] [--sessions 16] [--max 4] [--cycles 20]
 *                                        [--json]
 *
 * 1. Pressure: `--calls` calls of `f.echo` spread over `--sessions` unnamed sessions (the kind
 *    `mcpx run` mints), each session making its calls one after another and all sessions at
 *    once, through `POST /v1/call/f/echo` on the daemon's socket; `f` is exclusive,
 *    session-scoped, with `max: --max`. Printed: failures, latency p50/p99/max (the wait in the
 *    queue included), the longest queue and oldest wait `/v1/status` showed, how many processes
 *    were stopped to make room and how many calls told their session so (`restarted`), and the
 *    daemon's resident memory before and after.
 * 2. Cycles: `--cycles` rounds of `mcpx start`, one call, `mcpx stop`; printed: the rounds whose
 *    stop needed a signal, and the processes left after each.
 *
 * It exits 1 when a call failed, a stop was forced, a process was left, or an eviction went
 * unreported.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CALLER_HEADER, encodeCaller, wireRequest } from "../lib/daemon/wire.ts";
import { TOKEN_HEADER } from "../lib/daemon/guard.ts";
import { faultyServer } from "../tests/fixtures/servers.ts";
import {
  ENTRY,
  formatTable,
  interruptible,
  makeIsolated,
  mcpxArgs,
  median,
  percentile,
  processesOf,
  runDeno,
  teardown,
  wholeNumber,
} from "./_shared.ts";

interface Options {
  calls: number;
  sessions: number;
  max: number;
  cycles: number;
  json: boolean;
}

function options(): Options {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      calls: { type: "string", default: "2000" },
      sessions: { type: "string", default: "16" },
      max: { type: "string", default: "4" },
      cycles: { type: "string", default: "20" },
      json: { type: "boolean", default: false },
    },
  });
  return {
    calls: wholeNumber("calls", values.calls, 1),
    sessions: wholeNumber("sessions", values.sessions, 1),
    max: wholeNumber("max", values.max, 1),
    cycles: wholeNumber("cycles", values.cycles, 0),
    json: values.json,
  };
}

/** Resident memory of `pid` in MiB, from /proc. */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
  return m ? Number(m[1]) / 1024 : NaN;
}

interface Daemon {
  pid: number;
  socket: string;
  token: Record<string, string>;
}

async function start(project: string, env: Record<string, string>): Promise<Daemon> {
  const health = JSON.parse(await runDeno(mcpxArgs(["--json", "start"]), project, env));
  // The daemon's files are named by its configuration (lib/paths.ts); this root holds one.
  const dir = join(env.XDG_STATE_HOME, "mcpx", "daemons");
  const names = Array.from(Deno.readDirSync(dir), (e) => e.name).filter((n) =>
    n.endsWith(".token")
  );
  if (names.length !== 1) throw new Error(`expected one daemon token in ${dir}, found ${names}`);
  const tokenFile = join(dir, names[0]);
  return {
    pid: health.pid,
    socket: health.socket,
    token: { [TOKEN_HEADER]: (await Deno.readTextFile(tokenFile)).trim() },
  };
}

interface Pressure {
  calls: number;
  failed: number;
  firstFailure?: string;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  wallMs: number;
  longestQueue: number;
  oldestWaitMs: number;
  evicted: number;
  restarted: number;
  rssStartMiB: number;
  rssEndMiB: number;
}

async function pressure(d: Daemon, project: string, opts: Options): Promise<Pressure> {
  const call = async (session: string) => {
    // An unnamed session: its process may be stopped to make room, and it is told.
    const caller = { cwd: project, pid: Deno.pid, session, sessionMinted: true };
    const t = performance.now();
    try {
      const res = await wireRequest(d.socket, "POST", "/v1/call/f/echo", {
        body: { text: session },
        headers: { ...d.token, [CALLER_HEADER]: encodeCaller(caller) },
        timeoutMs: 120_000,
      });
      const ms = performance.now() - t;
      if (res.status !== 200) return { ms, error: `HTTP ${res.status}: ${res.text}` };
      const out = JSON.parse(res.text);
      if (out.result !== session) return { ms, error: `answered ${JSON.stringify(out.result)}` };
      return { ms, restarted: out.restarted === true };
    } catch (err) {
      return { ms: performance.now() - t, error: (err as Error).message };
    }
  };
  // The first processes started, then the daemon's memory: what the soak must not grow.
  for (let s = 0; s < Math.min(opts.max, opts.sessions); s++) await call(`s${s}`);
  const rssStartMiB = rssMiB(d.pid);
  let longestQueue = 0;
  let oldestWaitMs = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const res = await wireRequest(d.socket, "GET", "/v1/status", {
        headers: d.token,
        timeoutMs: 10_000,
      }).catch(() => undefined);
      const row = res ? JSON.parse(res.text).servers?.[0] : undefined;
      if (row?.queue) {
        longestQueue = Math.max(longestQueue, row.queue.waiting);
        oldestWaitMs = Math.max(oldestWaitMs, row.queue.oldestWaitMs);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const perSession = Math.ceil(opts.calls / opts.sessions);
  const t = performance.now();
  const results = (await Promise.all(
    Array.from({ length: opts.sessions }, async (_, s) => {
      const out = [];
      const n = Math.min(perSession, opts.calls - s * perSession);
      for (let i = 0; i < n; i++) out.push(await call(`s${s}`));
      return out;
    }),
  )).flat();
  const wallMs = performance.now() - t;
  sampling = false;
  await sampler;
  const failures = results.filter((r) => r.error);
  const logDir = join(project, "..", "state", "mcpx", "logs");
  let evicted = 0;
  for await (const e of Deno.readDir(logDir)) {
    for (const line of (await Deno.readTextFile(join(logDir, e.name))).split("\n")) {
      if (line.includes('"server.evicted"')) evicted++;
    }
  }
  const samples = results.map((r) => r.ms);
  return {
    calls: results.length,
    failed: failures.length,
    ...(failures.length ? { firstFailure: failures[0].error } : {}),
    p50Ms: median(samples),
    p99Ms: percentile(samples, 0.99),
    maxMs: Math.max(...samples),
    wallMs,
    longestQueue,
    oldestWaitMs,
    evicted,
    restarted: results.filter((r) => r.restarted).length,
    rssStartMiB,
    rssEndMiB: rssMiB(d.pid),
  };
}

interface Cycles {
  rounds: number;
  forced: number;
  left: number[];
}

async function cycles(
  project: string,
  env: Record<string, string>,
  root: string,
  opts: Options,
): Promise<Cycles> {
  let forced = 0;
  const left: number[] = [];
  for (let i = 0; i < opts.cycles; i++) {
    await runDeno(mcpxArgs(["call", "f.echo", `text=${i}`]), project, env);
    const stop = JSON.parse(await runDeno(mcpxArgs(["--json", "stop"]), project, env));
    forced += stop.stopped.filter((s: { forced: boolean }) => s.forced).length;
    left.push(processesOf(root).length);
  }
  return { rounds: opts.cycles, forced, left };
}

async function main(): Promise<void> {
  const opts = options();
  const isolated = await makeIsolated("mcpx-bench-pool-");
  const project = join(isolated.root, "project");
  await Deno.mkdir(project);
  await Deno.writeTextFile(
    join(project, ".mcpx.json"),
    JSON.stringify({
      mcpServers: {
        f: {
          ...faultyServer(),
          mcpx: { sharing: "exclusive", scope: "session", max: opts.max, queueTimeout: "60s" },
        },
      },
    }),
  );
  const env = isolated.env;
  await interruptible(() => teardown(isolated.root, env), async (stopIfInterrupted, cleanup) => {
    const d = await start(project, env);
    const p = await pressure(d, project, opts);
    stopIfInterrupted();
    await runDeno(mcpxArgs(["stop"]), project, env);
    const c = await cycles(project, env, isolated.root, opts);
    const problems: string[] = [];
    if (p.failed) problems.push(`${p.failed} of ${p.calls} calls failed, first: ${p.firstFailure}`);
    if (p.restarted < p.evicted - opts.sessions) {
      // A session's last eviction may come after its last call: it is never told, rightly.
      problems.push(`${p.evicted} evictions but only ${p.restarted} calls were told`);
    }
    if (c.forced) problems.push(`${c.forced} of ${c.rounds} stops needed a signal`);
    if (c.left.some((n) => n > 0)) problems.push(`processes left after a stop: ${c.left}`);
    problems.push(...await cleanup());
    if (opts.json) {
      console.log(
        JSON.stringify({ entry: ENTRY, options: opts, pressure: p, cycles: c, problems }),
      );
    } else {
      const ms = (n: number) => n.toFixed(1);
      console.log(`${ENTRY}; f: exclusive, session scope, max ${opts.max}`);
      console.log(formatTable([
        ["calls", "sessions", "failed", "p50 ms", "p99 ms", "max ms", "wall s", "queue", "text"],
        [
          String(p.calls),
          String(opts.sessions),
          String(p.failed),
          ms(p.p50Ms),
          ms(p.p99Ms),
          ms(p.maxMs),
          (p.wallMs / 1000).toFixed(1),
          String(p.longestQueue),
          `oldest wait ${ms(p.oldestWaitMs)} ms`,
        ],
      ]));
      console.log(
        `recycled: ${p.evicted} processes stopped to make room, ${p.restarted} calls told their session`,
      );
      console.log(
        `daemon RSS: ${p.rssStartMiB.toFixed(1)} MiB at start, ${p.rssEndMiB.toFixed(1)} MiB after`,
      );
      console.log(
        `stop/start cycles: ${c.rounds}, forced ${c.forced}, processes left after each: max ${
          Math.max(0, ...c.left)
        }`,
      );
      for (const problem of problems) console.log(`problem: ${problem}`);
    }
    if (problems.length) Deno.exitCode = 1;
  });
}

await main();
