/**
 * The soak (issue 12, "Must show"): nothing lost, nothing left behind, under pressure.
 *
 * 1. `--cycles` daemon stop/start cycles: a call starts the daemon, `mcpx --json stop` ends it;
 *    after each, the stops that needed a signal and the processes left are counted.
 * 2. `--calls` calls over `--sessions` sessions against one exclusive, session-scoped server with
 *    `max: --max` (tests/fixtures/servers/faulty.ts), sent to the daemon's `/v1` as that many
 *    concurrent callers, each session's calls one after another. The sessions are minted, as a
 *    script's are, so a session's process may be given to another between its calls. Each call
 *    reads back a value its session stored in its process: when it is gone the process was
 *    recycled, and the answer should have said so (`restarted`). Printed: failures, p50/p99
 *    latency (the wait in the queue included), the longest queue and oldest wait `/v1/status`
 *    showed, server starts and evictions, recycled sessions (seen, and told), the daemon's RSS
 *    cold (before any call), warm (after the first 10% of calls, `--warm`), along the run and at
 *    the end, and the processes left. "Flat" means the end is the warm figure, not the cold one.
 * 3. A 20 MB result through a script against `mcpx call` (bench/big_result.ts, run as it is).
 *
 *     deno run -A bench/soak.ts [--cycles 20] [--calls 2000] [--sessions 16] [--max 4]
 *                               [--warm 0.1] [--time-cap 600] [--skip-big] [--json]
 *
 * It exits 1 when a call or cycle failed, a stop was forced, a process was left, or a recycled
 * session was not told. bench/daemon_growth.ts runs the same load (`load`, below) against a
 * daemon that logs its memory after full collections.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CALLER_HEADER, encodeCaller, wireRequest } from "../lib/daemon/wire.ts";
import { TOKEN_HEADER } from "../lib/daemon/guard.ts";
import { faultyServer } from "../tests/fixtures/servers.ts";
import {
  CONFIG,
  ENTRY,
  formatTable,
  interruptible,
  makeIsolated,
  mcpxArgs,
  percentile,
  processesOf,
  REPO,
  runDeno,
  teardown,
  wholeNumber,
} from "./_shared.ts";

/** The soak's project: `fast` (shared, for the cycles) and `leased` (the pressure). */
export async function writeProject(root: string, max: number): Promise<string> {
  const project = join(root, "project");
  await Deno.mkdir(project);
  await Deno.writeTextFile(
    join(project, ".mcpx.json"),
    JSON.stringify({
      mcpServers: {
        fast: faultyServer(),
        leased: {
          ...faultyServer(),
          // Short timeouts: a call that cannot start a process fails in seconds, not minutes.
          mcpx: {
            sharing: "exclusive",
            scope: "session",
            max,
            callTimeout: "5s",
            startTimeout: "5s",
          },
        },
      },
    }),
  );
  return project;
}

/** A daemon the bench started: its pid, socket and the token header its `/v1` wants. */
export interface Daemon {
  pid: number;
  socket: string;
  token: Record<string, string>;
}

/** Starts the isolated user's daemon for `project` (`mcpx --json start`) and reads its token. */
export async function startDaemon(project: string, env: Record<string, string>): Promise<Daemon> {
  const health = JSON.parse(await runDeno(mcpxArgs(["--json", "start"]), project, env));
  // The daemon's files are named by its configuration (lib/paths.ts); this user has one.
  const dir = join(env.XDG_STATE_HOME, "mcpx", "daemons");
  const names = Array.from(Deno.readDirSync(dir), (e) => e.name).filter((n) =>
    n.endsWith(".token")
  );
  if (names.length !== 1) throw new Error(`expected one daemon token in ${dir}, found ${names}`);
  return {
    pid: health.pid,
    socket: health.socket,
    token: { [TOKEN_HEADER]: (await Deno.readTextFile(join(dir, names[0]))).trim() },
  };
}

/** Resident memory of `pid` in MiB, from /proc. */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
  return m ? Number(m[1]) / 1024 : NaN;
}

export interface LoadOptions {
  calls: number;
  sessions: number;
  /** The share of calls after which the warm RSS is taken. */
  warm: number;
  /** Seconds after which no new call is sent (a broken pool can make each call wait long). */
  timeCap: number;
}

export interface Load {
  sent: number;
  capped: boolean;
  failures: string[];
  latencies: number[];
  wallMs: number;
  longestQueue: number;
  oldestWaitMs: number;
  recycled: number;
  told: number;
  rssColdMiB: number;
  rssWarmMiB: number;
  /** The daemon's RSS after every 250 calls. */
  rssAlongMiB: number[];
  rssEndMiB: number;
}

/**
 * The soak's load: `calls` calls of `leased.get` (and a `leased.set` when the session's value is
 * gone) over `sessions` minted sessions, all at once, each session's calls one after another.
 */
export async function load(d: Daemon, project: string, opts: LoadOptions): Promise<Load> {
  const post = async (session: string, tool: string, args: Record<string, unknown>) => {
    const caller = { cwd: project, pid: Deno.pid, session, sessionMinted: true };
    const res = await wireRequest(d.socket, "POST", `/v1/call/leased/${tool}`, {
      body: args,
      headers: { ...d.token, [CALLER_HEADER]: encodeCaller(caller) },
      timeoutMs: 120_000,
    });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.text.split("\n")[0]}`);
    return JSON.parse(res.text) as { result: unknown; restarted?: boolean };
  };
  const rssColdMiB = rssMiB(d.pid);
  const warmAt = Math.max(1, Math.ceil(opts.calls * opts.warm));
  let rssWarmMiB = NaN;
  const rssAlongMiB: number[] = [];
  let longestQueue = 0;
  let oldestWaitMs = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const res = await wireRequest(d.socket, "GET", "/v1/status", {
        headers: d.token,
        timeoutMs: 10_000,
      }).catch(() => undefined);
      const row = res?.status === 200
        ? JSON.parse(res.text).servers?.find((s: { name?: string }) => s.name === "leased")
        : undefined;
      if (row?.queue) {
        longestQueue = Math.max(longestQueue, row.queue.waiting ?? 0);
        oldestWaitMs = Math.max(oldestWaitMs, row.queue.oldestWaitMs ?? 0);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const latencies: number[] = [];
  const failures: string[] = [];
  let sent = 0;
  let done = 0;
  let recycled = 0;
  let told = 0;
  let capped = false;
  const t = performance.now();
  await Promise.all(Array.from({ length: opts.sessions }, async (_, k) => {
    const session = `soak-${k}`;
    let stored = false;
    // Each session its share, so that sessions holding a process cannot use up the others'.
    let share = Math.floor(opts.calls / opts.sessions) + (k < opts.calls % opts.sessions ? 1 : 0);
    while (share-- > 0) {
      if (performance.now() - t > opts.timeCap * 1000) {
        capped = true;
        break;
      }
      sent++;
      const t0 = performance.now();
      try {
        const got = await post(session, "get", { key: "owner" });
        const mine = JSON.stringify(got.result).includes(session);
        if (stored && !mine) {
          recycled++;
          if (got.restarted === true) told++;
        }
        if (!mine) {
          await post(session, "set", { key: "owner", value: session });
          stored = true;
        }
        latencies.push(performance.now() - t0);
      } catch (e) {
        failures.push(`${session}: ${(e as Error).message}`);
      }
      done++;
      if (done === warmAt) rssWarmMiB = rssMiB(d.pid);
      if (done % 250 === 0) rssAlongMiB.push(rssMiB(d.pid));
    }
  }));
  const wallMs = performance.now() - t;
  sampling = false;
  await sampler;
  return {
    sent,
    capped,
    failures,
    latencies,
    wallMs,
    longestQueue,
    oldestWaitMs,
    recycled,
    told,
    rssColdMiB,
    rssWarmMiB,
    rssAlongMiB,
    rssEndMiB: rssMiB(d.pid),
  };
}

/** Waits up to 3 s for the isolated user's processes to be gone; those still there. */
async function settle(root: string): Promise<number[]> {
  const deadline = Date.now() + 3000;
  let left = processesOf(root);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = processesOf(root);
  }
  return left;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      cycles: { type: "string", default: "20" },
      calls: { type: "string", default: "2000" },
      sessions: { type: "string", default: "16" },
      max: { type: "string", default: "4" },
      warm: { type: "string", default: "0.1" },
      "time-cap": { type: "string", default: "600" },
      "skip-big": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  const cycles = wholeNumber("cycles", values.cycles, 0);
  const max = wholeNumber("max", values.max, 1);
  const warm = Number(values.warm);
  if (!(warm >= 0 && warm < 1)) throw new Error("--warm takes a share of the calls, 0 to 1");
  const opts: LoadOptions = {
    calls: wholeNumber("calls", values.calls, 1),
    sessions: wholeNumber("sessions", values.sessions, 1),
    warm,
    timeCap: wholeNumber("time-cap", values["time-cap"], 1),
  };
  const box = await makeIsolated("mcpx-bench-soak-");
  const project = await writeProject(box.root, max);
  const mcpx = (args: string[]) => runDeno(mcpxArgs(args), project, box.env);
  const problems: string[] = [];
  await interruptible(() => teardown(box.root, box.env), async (stopIfInterrupted, cleanup) => {
    // 1. Stop/start cycles.
    let cycleFailures = 0;
    let forced = 0;
    let cycleLeft = 0;
    const cycleStart = performance.now();
    for (let i = 0; i < cycles; i++) {
      stopIfInterrupted();
      try {
        const out = await mcpx(["call", "fast.echo", `text=cycle ${i}`]);
        if (out !== `cycle ${i}\n`) throw new Error(`printed ${JSON.stringify(out)}`);
        const stop = JSON.parse(await mcpx(["--json", "stop"]));
        forced += stop.stopped.filter((s: { forced: boolean }) => s.forced).length;
      } catch (e) {
        cycleFailures++;
        problems.push(`cycle ${i}: ${(e as Error).message.split("\n")[0]}`);
      }
      cycleLeft += (await settle(box.root)).length;
    }
    const cycleMs = performance.now() - cycleStart;

    // 2. Calls over sessions, against max processes.
    stopIfInterrupted();
    const d = await startDaemon(project, box.env);
    const l = await load(d, project, opts);
    const logDir = join(box.env.XDG_STATE_HOME, "mcpx", "logs");
    let evicted = 0;
    let started = 0;
    for await (const e of Deno.readDir(logDir)) {
      for (const line of (await Deno.readTextFile(join(logDir, e.name))).split("\n")) {
        if (line.includes('"server.evicted"')) evicted++;
        if (line.includes('"server.start"')) started++;
      }
    }
    await mcpx(["stop"]);
    const left = await settle(box.root);

    // 3. A 20 MB result through a script against `mcpx call`, as bench/big_result.ts measures it.
    let big: { scriptMs: number; callMs: number } | undefined;
    if (!values["skip-big"]) {
      stopIfInterrupted();
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--config",
          CONFIG,
          join(REPO, "bench", "big_result.ts"),
          "--runs",
          "3",
        ],
        stdout: "piped",
        stderr: "inherit",
      }).output();
      const text = new TextDecoder().decode(out.stdout);
      const ms = (name: RegExp) =>
        Number(text.split("\n").find((line) => name.test(line))?.match(/\s(\d+\.\d)\s/)?.[1]);
      big = { scriptMs: ms(/^mcpx run big/), callMs: ms(/^mcpx call/) };
      if (!(big.scriptMs > 0 && big.callMs > 0)) {
        problems.push("bench/big_result.ts printed no figures");
      }
    }

    if (cycleFailures === 0 && forced) {
      problems.push(`${forced} of ${cycles} stops needed a signal`);
    }
    if (cycleLeft) problems.push(`${cycleLeft} processes left after the stop/start cycles`);
    for (const f of l.failures.slice(0, 5)) problems.push(`call failed: ${f.split("\n")[0]}`);
    if (l.failures.length > 5) problems.push(`and ${l.failures.length - 5} more calls failed`);
    if (l.told < l.recycled) problems.push(`${l.recycled - l.told} recycled sessions not told`);
    if (left.length) problems.push(`${left.length} processes left after the last stop`);
    problems.push(...await cleanup());

    const p50 = percentile(l.latencies, 0.5);
    const p99 = percentile(l.latencies, 0.99);
    if (values.json) {
      console.log(JSON.stringify({
        entry: ENTRY,
        options: { cycles, max, ...opts },
        cycles: { rounds: cycles, ms: cycleMs, failures: cycleFailures, forced, left: cycleLeft },
        calls: {
          ...l,
          latencies: undefined,
          failures: l.failures.length,
          p50Ms: p50,
          p99Ms: p99,
          started,
          evicted,
          left: left.length,
        },
        big,
        problems,
      }));
    } else {
      const mib = (n: number) => n.toFixed(1);
      console.log(`deno ${Deno.version.deno}, ${ENTRY}`);
      console.log(
        `stop/start cycles: ${cycles} in ${
          (cycleMs / 1000).toFixed(1)
        } s, failures ${cycleFailures}, ` +
          `stops forced ${forced}, processes left after them ${cycleLeft}`,
      );
      console.log(
        `calls: ${l.sent} of ${opts.calls} over ${opts.sessions} sessions (exclusive, scope session, ` +
          `max ${max}) in ${(l.wallMs / 1000).toFixed(1)} s` +
          (l.capped ? ` (stopped sending after --time-cap ${opts.timeCap} s)` : ""),
      );
      console.log(formatTable([
        ["figure", "value", "note"],
        ["failures", String(l.failures.length), "aim 0"],
        [
          "p50 call ms",
          p50?.toFixed(1) ?? "-",
          "a get (plus a set after a recycle), queue included",
        ],
        ["p99 call ms", p99?.toFixed(1) ?? "-", ""],
        ["longest queue", String(l.longestQueue), "/v1/status, polled every 100 ms"],
        ["oldest wait ms", l.oldestWaitMs.toFixed(0), "/v1/status"],
        ["server processes started", String(started), "log: server.start, the cycles included"],
        ["evictions", String(evicted), "log: server.evicted"],
        ["sessions found recycled", String(l.recycled), "stored value gone"],
        ["of them told", String(l.told), "answer said restarted: true; aim all"],
        ["daemon RSS cold, MiB", mib(l.rssColdMiB), "before any call"],
        ["daemon RSS warm, MiB", mib(l.rssWarmMiB), `after ${opts.warm * 100}% of the calls`],
        ["daemon RSS at end, MiB", mib(l.rssEndMiB), "aim: the warm figure (flat)"],
        ["processes left after stop", String(left.length), "aim 0"],
      ]));
      console.log(`daemon RSS after every 250 calls, MiB: ${l.rssAlongMiB.map(mib).join(" ")}`);
      if (big) {
        console.log(
          `20 MB result: script ${big.scriptMs.toFixed(0)} ms, mcpx call ${
            big.callMs.toFixed(0)
          } ms, ` +
            `ratio ${
              (big.scriptMs / big.callMs).toFixed(2)
            }x (aim <= 1.5x; bench/big_result.ts --runs 3)`,
        );
      }
      for (const p of problems) console.log(`problem: ${p}`);
    }
  });
  if (problems.length) Deno.exitCode = 1;
}

if (import.meta.main) await main();
