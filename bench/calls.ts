/**
 * Call benchmark: what a tool call through mcpx costs, measured against what it costs without
 * mcpx, in the same session and against the real server-everything.
 *
 *     deno run -A bench/calls.ts [--runs 20] [--json]
 *
 * 1. In-daemon overhead: sequential `echo` calls from this process, interleaved, once over a
 *    direct SDK connection and once through the daemon's `POST /v1/call/<ns>/echo` over its unix
 *    socket. The difference of the medians is what the daemon adds to a call: HTTP, the lease,
 *    argument validation and the unwrapping. 1a reaches the same server both ways (it runs in
 *    Streamable HTTP mode on 127.0.0.1), which is the comparison the target is judged on; 1b gives
 *    each path its own stdio server, so it also carries the difference between two processes.
 * 2. Whole process: `mcpx call everything.echo message=x` against a warm daemon next to
 *    `deno run` of an empty module (as bench/startup.ts does); `--runs` rounds, interleaved.
 * 3. Concurrency: many calls at once, spread over sessions of an exclusive, session-scoped server,
 *    so each session's process serves its callers one at a time.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { connectServer } from "../lib/mcp/connect.ts";
import type { McpConnection } from "../lib/mcp/types.ts";
import { CALLER_HEADER, encodeCaller, wireRequest } from "../lib/daemon/wire.ts";
import { TOKEN_HEADER } from "../lib/daemon/guard.ts";
import { npmServer } from "../tests/_helpers.ts";
import {
  emptyArgs,
  ENTRY,
  formatTable,
  interruptible,
  type Isolated,
  makeIsolated,
  mcpxArgs,
  median,
  percentile,
  runDeno,
  teardown,
  timeRun,
  wholeNumber,
} from "./_shared.ts";

/** Sequential calls of each kind in section 1, after the warm-up calls. */
const SEQUENTIAL = 300;
const WARM_CALLS = 20;
/** Untimed rounds of section 2 before the timed ones. */
const WARMUP_ROUNDS = 3;
/** Section 3: calls fired at once, and the sessions they are spread over. */
const CONCURRENT = 200;
const SESSIONS = 8;

const ECHO_ARGS = { message: "x" };
const ECHO_TEXT = "Echo: x";
const CALL_TIMEOUT_MS = 10_000;

interface Options {
  runs: number;
  json: boolean;
}

interface Stats {
  medianMs: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

function options(): Options {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      runs: { type: "string", default: "20" },
      json: { type: "boolean", default: false },
    },
  });
  return { runs: wholeNumber("runs", values.runs, 1), json: values.json };
}

function stats(samples: number[]): Stats {
  return {
    medianMs: median(samples),
    p90Ms: percentile(samples, 0.9),
    p99Ms: percentile(samples, 0.99),
    maxMs: Math.max(...samples),
  };
}

/** The isolated user, its project (one configuration, two entries) and its daemon's socket. */
interface Environment extends Isolated {
  project: string;
  socket: string;
  /** The daemon's token header, which every `/v1` request carries. */
  token: Record<string, string>;
}

async function makeEnvironment(url: string): Promise<Omit<Environment, "socket" | "token">> {
  const isolated = await makeIsolated("mcpx-bench-calls-");
  const project = join(isolated.root, "project");
  await Deno.mkdir(project);
  const server = npmServer("server-everything");
  await Deno.writeTextFile(
    join(project, ".mcpx.json"),
    JSON.stringify({
      mcpServers: {
        everything: server,
        // The same warm server for the daemon and for the direct client: over HTTP both can
        // reach one process, so the comparison measures mcpx and nothing else.
        everything_http: { url },
        everything_s: {
          ...server,
          mcpx: { sharing: "exclusive", scope: "session", max: SESSIONS },
        },
      },
    }),
  );
  return { ...isolated, project };
}

/** The header that puts a call under `session`, as the CLI sends it. */
function callerHeader(e: Environment, session: string): Record<string, string> {
  const caller = { cwd: e.project, pid: Deno.pid, session };
  return { [CALLER_HEADER]: encodeCaller(caller) };
}

function expectEcho(text: string | undefined, what: string): void {
  if (text !== ECHO_TEXT) throw new Error(`${what} answered ${JSON.stringify(text)}`);
}

// --- 1. In-daemon overhead -----------------------------------------------------------------------

interface Overhead {
  direct: Stats;
  daemon: Stats;
  addedMedianMs: number;
  /** The median of the per-pair differences (each daemon call against its neighbouring direct one). */
  addedPairedMedianMs: number;
  directSamplesMs: number[];
  daemonSamplesMs: number[];
}

async function overhead(
  e: Environment,
  conn: McpConnection,
  namespace = "everything",
): Promise<Overhead> {
  const direct = async () => {
    const start = performance.now();
    const out = await conn.callTool("echo", ECHO_ARGS, { timeoutMs: CALL_TIMEOUT_MS });
    const ms = performance.now() - start;
    expectEcho(out.content?.[0]?.text, "direct echo");
    return ms;
  };
  const daemon = async () => {
    const start = performance.now();
    const res = await wireRequest(e.socket, "POST", `/v1/call/${namespace}/echo`, {
      body: ECHO_ARGS,
      headers: e.token,
    });
    const ms = performance.now() - start;
    if (res.status !== 200) throw new Error(`daemon echo: HTTP ${res.status}: ${res.text}`);
    expectEcho(JSON.parse(res.text).result, "daemon echo");
    return ms;
  };
  for (let i = 0; i < WARM_CALLS; i++) {
    await direct();
    await daemon();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    // Alternate which goes first, so neither always runs right after the other.
    if (i % 2) {
      b.push(await daemon());
      a.push(await direct());
    } else {
      a.push(await direct());
      b.push(await daemon());
    }
  }
  const sa = stats(a);
  const sb = stats(b);
  return {
    direct: sa,
    daemon: sb,
    addedMedianMs: sb.medianMs - sa.medianMs,
    addedPairedMedianMs: median(b.map((ms, i) => ms - a[i])),
    directSamplesMs: a,
    daemonSamplesMs: b,
  };
}

// --- 2. Whole process ----------------------------------------------------------------------------

interface ProcessCase {
  name: string;
  args: string[];
  cwd: string;
  /** At most this many times the empty script's median. */
  maxRatio?: number;
  aimRatio?: number;
}

interface ProcessRow {
  name: string;
  medianMs: number;
  p90Ms: number;
  minMs: number;
  ratio: number;
  target?: { text: string; met: boolean };
  samplesMs: number[];
}

async function wholeProcess(
  e: Environment,
  opts: Options,
  stopIfInterrupted: () => void,
): Promise<ProcessRow[]> {
  const all: ProcessCase[] = [
    { name: "empty deno run (baseline)", args: emptyArgs(e.root), cwd: e.root },
    {
      name: "mcpx call everything.echo message=x (warm)",
      args: mcpxArgs(["call", "everything.echo", "message=x"]),
      cwd: e.project,
      maxRatio: 2.5,
      aimRatio: 2.0,
    },
    { name: "mcpx status (warm daemon)", args: mcpxArgs(["status"]), cwd: e.project },
  ];
  expectEcho(
    (await runDeno(all[1].args, e.project, e.env)).trimEnd(),
    "`mcpx call everything.echo`",
  );
  const samples = all.map(() => [] as number[]);
  // Round-robin: every round runs each case once, so machine noise lands on all of them alike.
  for (let round = 0; round < WARMUP_ROUNDS + opts.runs; round++) {
    for (const [i, c] of all.entries()) {
      stopIfInterrupted();
      const ms = await timeRun(c.args, c.cwd, e.env);
      if (round >= WARMUP_ROUNDS) samples[i].push(ms);
    }
  }
  const base = median(samples[0]);
  return all.map((c, i) => {
    const s = samples[i];
    const medianMs = median(s);
    const ratio = medianMs / base;
    return {
      name: c.name,
      medianMs,
      p90Ms: percentile(s, 0.9),
      minMs: Math.min(...s),
      ratio,
      target: c.maxRatio === undefined ? undefined : {
        text: `<= ${c.maxRatio.toFixed(1)}x empty (aim ${c.aimRatio?.toFixed(1)}x)`,
        met: ratio <= c.maxRatio,
      },
      samplesMs: s,
    };
  });
}

// --- 3. Concurrency ------------------------------------------------------------------------------

interface Concurrent {
  calls: number;
  sessions: number;
  succeeded: number;
  failures: string[];
  /** Distinct `instance.pid`s that answered the burst. */
  pids: number[];
  /** Sessions whose calls were answered by more than one process. */
  splitSessions: string[];
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  wallMs: number;
  callsPerSecond: number;
  samplesMs: number[];
}

async function concurrent(e: Environment): Promise<Concurrent> {
  const path = "/v1/call/everything_s/echo";
  const call = async (session: string) => {
    const start = performance.now();
    try {
      const res = await wireRequest(e.socket, "POST", path, {
        body: ECHO_ARGS,
        headers: { ...e.token, ...callerHeader(e, session) },
        timeoutMs: 60_000,
      });
      const ms = performance.now() - start;
      if (res.status !== 200) return { session, ms, error: `HTTP ${res.status}: ${res.text}` };
      const out = JSON.parse(res.text);
      if (out.result !== ECHO_TEXT) {
        return { session, ms, error: `answered ${JSON.stringify(out.result)}` };
      }
      return { session, ms, pid: out.instance?.pid as number };
    } catch (err) {
      return { session, ms: performance.now() - start, error: (err as Error).message };
    }
  };
  const sessions = Array.from({ length: SESSIONS }, (_, i) => `s${i}`);
  // One call per session starts its process; the burst then measures calls, not start-ups.
  for (const warm of await Promise.all(sessions.map(call))) {
    if (warm.error) throw new Error(`warming session ${warm.session}: ${warm.error}`);
  }
  const start = performance.now();
  const results = await Promise.all(
    Array.from({ length: CONCURRENT }, (_, i) => call(sessions[i % SESSIONS])),
  );
  const wallMs = performance.now() - start;
  const bySession = new Map<string, Set<number>>();
  for (const r of results) {
    if (r.pid === undefined) continue;
    bySession.set(r.session, (bySession.get(r.session) ?? new Set()).add(r.pid));
  }
  const samples = results.map((r) => r.ms);
  const ok = results.filter((r) => r.error === undefined);
  return {
    calls: CONCURRENT,
    sessions: SESSIONS,
    succeeded: ok.length,
    failures: results.flatMap((r) => r.error ? [`${r.session}: ${r.error}`] : []),
    pids: [...new Set(ok.map((r) => r.pid!))].sort((x, y) => x - y),
    splitSessions: [...bySession].filter(([, pids]) => pids.size > 1).map(([s]) => s),
    p50Ms: median(samples),
    p99Ms: percentile(samples, 0.99),
    maxMs: Math.max(...samples),
    wallMs,
    callsPerSecond: CONCURRENT / (wallMs / 1000),
    samplesMs: samples,
  };
}

/** What section 3 must show; empty when it holds. */
function concurrentProblems(c: Concurrent): string[] {
  const problems: string[] = [];
  if (c.succeeded !== c.calls) {
    problems.push(
      `${c.calls - c.succeeded} of ${c.calls} concurrent calls failed, first: ${c.failures[0]}`,
    );
  }
  if (c.pids.length !== c.sessions) {
    problems.push(`${c.pids.length} distinct instance pids served the calls, not ${c.sessions}`);
  }
  if (c.splitSessions.length) {
    problems.push(`sessions served by more than one process: ${c.splitSessions.join(", ")}`);
  }
  return problems;
}

// --- Report --------------------------------------------------------------------------------------

function report(
  opts: Options,
  o: Overhead,
  oh: Overhead,
  rows: ProcessRow[],
  c: Concurrent,
  problems: string[],
): void {
  if (opts.json) {
    console.log(JSON.stringify(
      {
        runs: opts.runs,
        warmup: WARMUP_ROUNDS,
        deno: Deno.version.deno,
        overhead: { sequentialCalls: SEQUENTIAL, warmCalls: WARM_CALLS, ...o },
        overheadSameServer: { sequentialCalls: SEQUENTIAL, warmCalls: WARM_CALLS, ...oh },
        wholeProcess: { baselineMedianMs: rows[0].medianMs, cases: rows },
        concurrent: c,
        problems,
      },
      null,
      2,
    ));
    return;
  }
  const ms3 = (n: number) => n.toFixed(3);
  const ms1 = (n: number) => n.toFixed(1);
  console.log(
    `runs: ${opts.runs} (+${WARMUP_ROUNDS} warmup), deno ${Deno.version.deno}, ${ENTRY}, ` +
      `${SEQUENTIAL} sequential echo calls each way, ${CONCURRENT} concurrent over ${SESSIONS} sessions`,
  );
  console.log(
    `\n1. in-daemon overhead: ${SEQUENTIAL} sequential echo calls each, interleaved ` +
      `(after ${WARM_CALLS} warm-up calls each)`,
  );
  const row = (name: string, s: Stats) => [name, ms3(s.medianMs), ms3(s.p90Ms), ms3(s.p99Ms)];
  const section = (title: string, x: Overhead, direct: string, path: string, target: boolean) => {
    console.log(title);
    console.log(formatTable([
      ["path", "median_ms", "p90_ms", "p99_ms", "target"],
      [...row(direct, x.direct), ""],
      [...row(path, x.daemon), ""],
      [
        "added by the daemon (b - a)",
        ms3(x.addedMedianMs),
        ms3(x.daemon.p90Ms - x.direct.p90Ms),
        ms3(x.daemon.p99Ms - x.direct.p99Ms),
        target ? `< 1 ms at the median: ${x.addedMedianMs < 1 ? "met" : "MISSED"}` : "",
      ],
    ]));
  };
  section(
    "1a. the same warm server (server-everything over Streamable HTTP on 127.0.0.1):",
    oh,
    "(a) direct SDK callTool over HTTP",
    "(b) daemon POST /v1/call/everything_http/echo",
    true,
  );
  section(
    "\n1b. stdio: the direct client and the daemon each run their own server-everything:",
    o,
    "(a) direct SDK callTool over stdio",
    "(b) daemon POST /v1/call/everything/echo",
    false,
  );
  console.log(
    `\n2. whole process, warm daemon: ${opts.runs} runs each, interleaved; ` +
      `baseline (empty deno run) median ${ms1(rows[0].medianMs)} ms`,
  );
  console.log(formatTable([
    ["case", "median_ms", "p90_ms", "min_ms", "ratio_vs_empty", "target"],
    ...rows.map((r) => [
      r.name,
      ms1(r.medianMs),
      ms1(r.p90Ms),
      ms1(r.minMs),
      `${r.ratio.toFixed(2)}x`,
      r.target ? `${r.target.text}: ${r.target.met ? "met" : "MISSED"}` : "",
    ]),
  ]));
  console.log(
    `\n3. ${c.calls} concurrent calls to everything_s.echo ` +
      `(exclusive, session scope, max ${SESSIONS}) over ${c.sessions} warm sessions`,
  );
  console.log(formatTable([
    ["ok", "pids", "p50_ms", "p99_ms", "max_ms", "wall_ms", "calls_per_s", "check"],
    [
      `${c.succeeded}/${c.calls}`,
      String(c.pids.length),
      ms1(c.p50Ms),
      ms1(c.p99Ms),
      ms1(c.maxMs),
      ms1(c.wallMs),
      c.callsPerSecond.toFixed(0),
      concurrentProblems(c).length ? "FAILED" : `all ok, ${c.sessions} processes`,
    ],
  ]));
  for (const p of problems) console.log(`problem: ${p}`);
}

// --- Main ----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const opts = options();
  const { startHttpEverything } = await import("../lib/mcp/_testing.ts");
  const shared = await startHttpEverything("streamableHttp");
  const base = await makeEnvironment(shared.url);
  const env = base.env;
  let conn: McpConnection | undefined;
  let httpConn: McpConnection | undefined;
  /** Stops everything this run started and removes its files; resolves to what went wrong. */
  const stop = async () => {
    const problems: string[] = [];
    await conn?.close().catch((err) => problems.push(`closing the direct connection: ${err}`));
    await httpConn?.close().catch((err) => problems.push(`closing the HTTP connection: ${err}`));
    await shared[Symbol.asyncDispose]();
    problems.push(...await teardown(base.root, env));
    return problems;
  };
  await interruptible(stop, async (stopIfInterrupted, cleanup) => {
    const health = JSON.parse(await runDeno(mcpxArgs(["--json", "start"]), base.project, env));
    // The token beside the socket (`<key>.sock` → `<key>.token`), wherever its key came from.
    const tokenFile = health.socket.replace(/\.sock$/, ".token");
    const e: Environment = {
      ...base,
      socket: health.socket,
      token: { [TOKEN_HEADER]: (await Deno.readTextFile(tokenFile)).trim() },
    };
    const server = npmServer("server-everything");
    conn = await connectServer({
      name: "everything",
      transport: "stdio",
      command: server.command,
      args: server.args,
      env: {},
      cwd: e.project,
      headers: {},
      protocol: "legacy",
    }, { startTimeoutMs: 30_000 });
    const o = await overhead(e, conn);
    httpConn = await connectServer({
      name: "everything_http",
      transport: "http",
      url: shared.url,
      args: [],
      env: {},
      headers: {},
      protocol: "legacy",
    }, { startTimeoutMs: 30_000 });
    const oh = await overhead(e, httpConn, "everything_http");
    stopIfInterrupted();
    const rows = await wholeProcess(e, opts, stopIfInterrupted);
    stopIfInterrupted();
    const c = await concurrent(e);
    stopIfInterrupted();
    const problems = concurrentProblems(c);
    problems.push(...await cleanup());
    report(opts, o, oh, rows, c, problems);
    if (problems.length) Deno.exitCode = 1;
  });
}

await main();
