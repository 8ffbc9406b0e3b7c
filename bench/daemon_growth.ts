/**
 * Daemon growth: whether what a busy daemon holds grows with the calls it serves (a leak), or
 * only looks so because V8 has not collected yet. The same load as bench/pool_pressure.ts (calls
 * of `f.echo` over unnamed sessions of an exclusive, session-scoped fixture server with `max`),
 * against a daemon started with `plumbing.memoryLog` (a `daemon.memory` record every `--every`
 * requests) and, unless `--no-gc`, `DENO_V8_FLAGS=--expose-gc`, so that each record is taken
 * after a full collection.
 *
 *     deno run -A bench/daemon_growth.ts [--calls 2000] [--sessions 16] [--max 4] [--every 250]
 *                                        [--no-gc] [--json]
 *
 * Printed per record: resident memory, V8's heap in use, the C heap (`[heap]` in
 * /proc/<pid>/smaps), other anonymous memory, mapped files, and the pools' tables (live
 * processes, queued callers, sessions remembered as having lost their process). Flat heap and
 * tables from one record to the next mean nothing is kept per call, process or session.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CALLER_HEADER, encodeCaller, wireRequest } from "../lib/daemon/wire.ts";
import { TOKEN_HEADER } from "../lib/daemon/guard.ts";
import type { MemoryRecord } from "../lib/daemon/memory.ts";
import { faultyServer } from "../tests/fixtures/servers.ts";
import {
  ENTRY,
  formatTable,
  interruptible,
  makeIsolated,
  mcpxArgs,
  runDeno,
  teardown,
  wholeNumber,
} from "./_shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "2000" },
    sessions: { type: "string", default: "16" },
    max: { type: "string", default: "4" },
    every: { type: "string", default: "250" },
    "no-gc": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});
const calls = wholeNumber("calls", values.calls, 1);
const sessions = wholeNumber("sessions", values.sessions, 1);
const max = wholeNumber("max", values.max, 1);
const every = wholeNumber("every", values.every, 1);

const isolated = await makeIsolated("mcpx-bench-growth-");
const project = join(isolated.root, "project");
await Deno.mkdir(project);
await Deno.writeTextFile(
  join(project, ".mcpx.json"),
  JSON.stringify({
    mcpServers: {
      f: {
        ...faultyServer(),
        mcpx: { sharing: "exclusive", scope: "session", max, queueTimeout: "60s" },
      },
    },
  }),
);
const env: Record<string, string> = {
  ...isolated.env,
  MCPX_PLUMBING_MEMORY_LOG: String(every),
  ...(values["no-gc"] ? {} : { DENO_V8_FLAGS: "--expose-gc" }),
};

await interruptible(() => teardown(isolated.root, env), async (_stopIfInterrupted, cleanup) => {
  const health = JSON.parse(await runDeno(mcpxArgs(["--json", "start"]), project, env));
  const dir = join(env.XDG_STATE_HOME, "mcpx", "daemons");
  const tokenName = Array.from(Deno.readDirSync(dir), (e) => e.name).find((n) =>
    n.endsWith(".token")
  )!;
  const token = (await Deno.readTextFile(join(dir, tokenName))).trim();
  let failed = 0;
  const call = async (session: string) => {
    const caller = { cwd: project, pid: Deno.pid, session, sessionMinted: true };
    const res = await wireRequest(health.socket, "POST", "/v1/call/f/echo", {
      body: { text: session },
      headers: { [TOKEN_HEADER]: token, [CALLER_HEADER]: encodeCaller(caller) },
      timeoutMs: 120_000,
    }).catch(() => undefined);
    if (res?.status !== 200) failed++;
  };
  const perSession = Math.ceil(calls / sessions);
  await Promise.all(Array.from({ length: sessions }, async (_, s) => {
    const n = Math.min(perSession, calls - s * perSession);
    for (let i = 0; i < n; i++) await call(`s${s}`);
  }));
  // The last record is written after its answer has gone.
  await new Promise((r) => setTimeout(r, 300));
  const records: MemoryRecord[] = [];
  const logDir = join(env.XDG_STATE_HOME, "mcpx", "logs");
  for await (const e of Deno.readDir(logDir)) {
    for (const line of (await Deno.readTextFile(join(logDir, e.name))).split("\n")) {
      if (line.includes('"daemon.memory"')) records.push(JSON.parse(line));
    }
  }
  records.sort((a, b) => a.requests - b.requests);
  const problems = await cleanup();
  if (failed) problems.push(`${failed} of ${calls} calls failed`);
  if (values.json) {
    console.log(JSON.stringify({ entry: ENTRY, calls, sessions, max, every, records, problems }));
  } else {
    const mib = (n: number) => (n / 1048576).toFixed(1);
    const kib = (n?: number) => (n === undefined ? "-" : (n / 1024).toFixed(1));
    console.log(
      `${ENTRY}; f: exclusive, session scope, max ${max}; ${sessions} sessions; ${
        values["no-gc"] ? "no forced collection" : "each record after a full collection"
      }; MiB`,
    );
    console.log(formatTable([
      ["requests", "rss", "heap used", "c heap", "anon", "files", "processes", "queue", "lost"],
      ...records.map((r) => [
        String(r.requests),
        mib(r.rss),
        mib(r.heapUsed),
        kib(r.cHeapKiB),
        kib(r.anonKiB),
        kib(r.fileKiB),
        String(r.tables.instances),
        String(r.tables.queue),
        String(r.tables.lost),
      ]),
    ]));
    for (const problem of problems) console.log(`problem: ${problem}`);
  }
  if (problems.length) Deno.exitCode = 1;
});
