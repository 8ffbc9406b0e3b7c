/**
 * The soak (issue 12, "Must show"): nothing lost, nothing left behind, under pressure.
 *
 * 1. 20 daemon stop/start cycles: a call starts the daemon, `mcpx stop` ends it; after each, the
 *    processes left are counted.
 * 2. 2,000 calls over 16 sessions against one exclusive, session-scoped server with `max: 4`
 *    (tests/fixtures/servers/faulty.ts), sent to the daemon's `/v1` as 16 concurrent callers.
 *    Each call reads back a value its session stored in its process: when it is gone the
 *    session's process was recycled, and the answer should have said so (`restarted`). Printed:
 *    failures, p50/p99 latency, the most calls seen waiting at once, recycled sessions (seen, and
 *    reported to their session), the daemon's RSS at the start and end, processes left.
 * 3. A 20 MB result through a script against `mcpx call` (bench/big_result.ts, run as it is).
 *
 *     deno run -A bench/soak.ts [--cycles 20] [--calls 2000] [--sessions 16] [--max 4]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { faultyServer } from "../tests/fixtures/servers.ts";
import {
  CONFIG,
  ENTRY,
  formatTable,
  makeIsolated,
  mcpxArgs,
  percentile,
  processesOf,
  REPO,
  runDeno,
  teardown,
  wholeNumber,
} from "./_shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    cycles: { type: "string", default: "20" },
    calls: { type: "string", default: "2000" },
    sessions: { type: "string", default: "16" },
    max: { type: "string", default: "4" },
    "skip-big": { type: "boolean", default: false },
    "time-cap": { type: "string", default: "600" },
  },
});
const cycles = wholeNumber("cycles", values.cycles!, 0);
const calls = wholeNumber("calls", values.calls!, 1);
const sessions = wholeNumber("sessions", values.sessions!, 1);
const max = wholeNumber("max", values.max!, 1);
/** Seconds after which no new call is sent (a broken pool can make each call wait 10 s). */
const timeCap = wholeNumber("time-cap", values["time-cap"]!, 1);

const box = await makeIsolated("mcpx-bench-soak-");
const work = join(box.root, "work");
await Deno.mkdir(work);
await Deno.writeTextFile(
  join(work, ".mcpx.json"),
  JSON.stringify({
    mcpServers: {
      fast: faultyServer(),
      leased: {
        ...faultyServer(),
        // Short timeouts: a call that cannot get a process fails in 10 s, not 90.
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
const mcpx = (args: string[]) => runDeno(mcpxArgs(args), work, box.env);

function rssKb(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
}

async function settle(): Promise<number[]> {
  const deadline = Date.now() + 3000;
  let left = processesOf(box.root);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = processesOf(box.root);
  }
  return left;
}

const lines: string[] = [];
const problems: string[] = [];
try {
  // 1. Stop/start cycles.
  let cycleFailures = 0;
  let cycleLeft = 0;
  const cycleStart = performance.now();
  for (let i = 0; i < cycles; i++) {
    try {
      const out = await mcpx(["call", "fast.echo", `text=cycle ${i}`]);
      if (out !== `cycle ${i}\n`) throw new Error(`printed ${JSON.stringify(out)}`);
      await mcpx(["stop"]);
    } catch (e) {
      cycleFailures++;
      problems.push(`cycle ${i}: ${(e as Error).message.split("\n")[0]}`);
    }
    cycleLeft += (await settle()).length;
  }
  const cycleMs = performance.now() - cycleStart;

  // 2. Calls over sessions, against max processes.
  const health = JSON.parse(await mcpx(["--json", "start"])) as { pid: number; socket: string };
  const state = join(box.env.XDG_STATE_HOME, "mcpx");
  // The only daemon of this isolated user: its files are the only ones there.
  const only = (dir: string, end: string) =>
    join(dir, [...Deno.readDirSync(dir)].find((e) => e.name.endsWith(end))!.name);
  const token = (await Deno.readTextFile(only(join(state, "daemons"), ".token"))).trim();
  const rssStart = rssKb(health.pid);
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: health.socket } });
  const post = async (session: string, tool: string, args: Record<string, unknown>) => {
    const res = await fetch(`http://mcpx/v1/call/leased/${tool}`, {
      method: "POST",
      client,
      headers: {
        "content-type": "application/json",
        "x-mcpx-token": token,
        // A session mcpx minted, as for a script run: its process may be given to another
        // session between its calls (a session the caller named never is), and it is told.
        "x-mcpx-caller": encodeURIComponent(
          JSON.stringify({ session, sessionMinted: true, cwd: work }),
        ),
      },
      body: JSON.stringify(args),
    });
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text) };
  };
  const latencies: number[] = [];
  /** The daemon's RSS after every 250 calls. */
  const rssAlong: number[] = [];
  const failures: string[] = [];
  let recycled = 0;
  let reported = 0;
  let mostWaiting = 0;
  let remaining = calls;
  let polling = true;
  const poller = (async () => {
    const args = mcpxArgs(["--json", "status"]);
    while (polling) {
      try {
        const status = JSON.parse(await runDeno(args, work, box.env));
        // Waiters as the daemon counts them: in the pool's queue, and per instance.
        let waiting = 0;
        for (const s of status.servers ?? []) {
          waiting += s.queue?.waiting ?? 0;
          for (const i of s.instances ?? []) waiting += i.waiting ?? 0;
        }
        mostWaiting = Math.max(mostWaiting, waiting);
      } catch { /* a status lost to load is no figure */ }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const callStart = performance.now();
  let capped = false;
  await Promise.all(Array.from({ length: sessions }, async (_, k) => {
    const session = `soak-${k}`;
    let stored = false;
    // Each session its share, so that sessions holding a process cannot use up the others'.
    let share = Math.floor(calls / sessions) + (k < calls % sessions ? 1 : 0);
    while (share-- > 0) {
      if (performance.now() - callStart > timeCap * 1000) {
        capped = true;
        break;
      }
      remaining--;
      const t0 = performance.now();
      try {
        const got = await post(session, "get", { key: "owner" });
        if (got.status !== 200) throw new Error(`HTTP ${got.status}: ${got.json?.detail}`);
        const value = JSON.stringify(got.json.result);
        const restarted = /"restarted":true/.test(got.text);
        if (stored && !value.includes(session)) {
          recycled++;
          if (restarted) reported++;
        }
        if (!value.includes(session)) {
          const set = await post(session, "set", { key: "owner", value: session });
          if (set.status !== 200) throw new Error(`HTTP ${set.status}: ${set.json?.detail}`);
          stored = true;
        }
        latencies.push(performance.now() - t0);
        if (latencies.length % 250 === 0) rssAlong.push(rssKb(health.pid));
      } catch (e) {
        failures.push(`${session}: ${(e as Error).message}`);
      }
    }
  }));
  const callMs = performance.now() - callStart;
  polling = false;
  await poller;
  client.close();
  const rssEnd = rssKb(health.pid);
  const log = (await Deno.readTextFile(only(join(state, "logs"), ".jsonl"))).split("\n")
    .filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const evicted = log.filter((r) => r.event === "server.evicted").length;
  const started = log.filter((r) => r.event === "server.start").length;
  await mcpx(["stop"]);
  const left = await settle();

  for (const f of failures.slice(0, 5)) problems.push(`call failed: ${f.split("\n")[0]}`);
  lines.push(
    `stop/start cycles: ${cycles} in ${
      (cycleMs / 1000).toFixed(1)
    } s, failures ${cycleFailures}, processes left after them ${cycleLeft}`,
  );
  lines.push(
    `calls: ${
      calls - remaining
    } of ${calls} over ${sessions} sessions (exclusive, scope session, max ${max}) in ${
      (callMs / 1000).toFixed(1)
    } s${capped ? ` (stopped sending after --time-cap ${timeCap} s)` : ""}`,
  );
  lines.push(formatTable([
    ["figure", "value", "note"],
    ["failures", String(failures.length), "aim 0"],
    [
      "p50 call ms",
      percentile(latencies, 0.5)?.toFixed(1) ?? "-",
      "a get (plus a set after a recycle)",
    ],
    ["p99 call ms", percentile(latencies, 0.99)?.toFixed(1) ?? "-", ""],
    ["most calls waiting at once", String(mostWaiting), "mcpx status, polled every 250 ms"],
    ["server processes started", String(started), `log: server.start`],
    ["evictions", String(evicted), "log: server.evicted"],
    ["sessions found recycled", String(recycled), "stored value gone"],
    ["of them reported to the session", String(reported), "answer said restarted: true; aim all"],
    ["daemon RSS at start, kB", String(rssStart), "before any server (or the SDK) loaded"],
    ["daemon RSS at end, kB", String(rssEnd), "aim flat: see the figures along"],
    ["processes left after stop", String(left.length), "aim 0"],
  ]));
  lines.push(
    `daemon RSS after every 250 calls, MB: ${rssAlong.map((k) => (k / 1024).toFixed(0)).join(" ")}`,
  );
} finally {
  for (const p of await teardown(box.root, box.env)) problems.push(p);
}

// 3. A 20 MB result through a script against `mcpx call`, as bench/big_result.ts measures it.
if (!values["skip-big"]) {
  const big = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", CONFIG, join(REPO, "bench", "big_result.ts"), "--runs", "3"],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(big.stdout);
  const ms = (name: RegExp) =>
    Number(text.split("\n").find((l) => name.test(l))?.match(/\s(\d+\.\d)\s/)?.[1]);
  const script = ms(/^mcpx run big/);
  const call = ms(/^mcpx call/);
  lines.push(
    `20 MB result: script ${script.toFixed(0)} ms, mcpx call ${call.toFixed(0)} ms, ratio ${
      (script / call).toFixed(2)
    }x (aim <= 1.5x; bench/big_result.ts --runs 3)`,
  );
}

console.log(`deno ${Deno.version.deno}, ${ENTRY}`);
for (const l of lines) console.log(l);
for (const p of problems) console.log(`problem: ${p}`);
