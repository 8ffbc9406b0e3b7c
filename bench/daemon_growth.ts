/**
 * Daemon growth: whether what a busy daemon holds grows with the calls it serves (a leak), or
 * only looks so because V8 has not collected yet. The soak's load (`load` in bench/soak.ts: calls
 * over minted sessions of an exclusive, session-scoped fixture server with `max`), against a
 * daemon started with `plumbing.memoryLog` (a `daemon.memory` record every `--every` requests)
 * and, unless `--no-gc`, `DENO_V8_FLAGS=--expose-gc`, so that each record is taken after a full
 * collection.
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
import type { MemoryRecord } from "../lib/daemon/memory.ts";
import {
  ENTRY,
  formatTable,
  interruptible,
  makeIsolated,
  teardown,
  wholeNumber,
} from "./_shared.ts";
import { load, startDaemon, writeProject } from "./soak.ts";

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
const project = await writeProject(isolated.root, max);
const env: Record<string, string> = {
  ...isolated.env,
  MCPX_PLUMBING_MEMORY_LOG: String(every),
  ...(values["no-gc"] ? {} : { DENO_V8_FLAGS: "--expose-gc" }),
};

await interruptible(() => teardown(isolated.root, env), async (_stopIfInterrupted, cleanup) => {
  const d = await startDaemon(project, env);
  const l = await load(d, project, { calls, sessions, warm: 0, timeCap: 3600 });
  const failed = l.failures.length;
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
