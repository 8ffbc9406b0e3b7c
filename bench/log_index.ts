/**
 * The log index (docs/log.md): the ingest rate of 1,000,000 synthetic records, the cost of
 * `mcpx log --limit 1` when nothing changed against `mcpx --help`, `stats calls` over the
 * million, and the index's size against the JSONL's.
 *
 *     deno run -A bench/log_index.ts [--records 1000000] [--runs 11]
 */
import { join } from "node:path";
import { INDEX_FILE, ingest, openIndex } from "../lib/logindex/index.ts";
import { stats } from "../lib/logindex/query.ts";

function flag(name: string, fallback: number): number {
  const i = Deno.args.indexOf(`--${name}`);
  const n = i >= 0 ? Number(Deno.args[i + 1]) : fallback;
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} takes a whole number >= 1`);
  return n;
}

const RECORDS = flag("records", 1_000_000);
const RUNS = flag("runs", 11);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const root = await Deno.makeTempDir({ prefix: "mcpx-bench-logidx-" });
const logs = join(root, "state", "mcpx", "logs");
await Deno.mkdir(logs, { recursive: true });

// Synthetic records shaped like the daemon's and the runs': a third are call.end.
const SEGMENT = 16 << 20;
const servers = ["fs", "git", "web", "db"];
const tools = ["read", "write", "list", "search", "fetch"];
let jsonlBytes = 0;
const enc = new TextEncoder();
const files = new Map<string, { index: number; size: number; chunks: string[] }>();
const start = Date.UTC(2026, 11, 1);
for (let i = 0; i < RECORDS; i++) {
  const ts = new Date(start + i * 37).toISOString();
  let r: Record<string, unknown>;
  let stem = "runs";
  if (i % 3 === 0) {
    stem = "daemon-bench";
    const server = servers[i % 4];
    r = {
      ts,
      level: i % 97 === 0 ? "warn" : "info",
      event: "call.end",
      id: `cal-${i.toString(16).padStart(16, "0")}`,
      parent: `run-${(i >> 6).toString(16).padStart(16, "0")}`,
      msg: `${server}.${tools[i % 5]} in ${(i * 7919) % 2000}ms`,
      template: "{server}.{tool} in {durationMs}ms",
      server,
      tool: tools[i % 5],
      durationMs: (i * 7919) % 2000,
      ok: i % 97 !== 0,
      instanceId: `ins-${(i % 8).toString(16).padStart(16, "0")}`,
      session: `s${i >> 10}`,
    };
  } else {
    r = {
      ts,
      level: i % 11 === 0 ? "debug" : "info",
      id: `run-${(i >> 6).toString(16).padStart(16, "0")}`,
      msg: `processed item ${i} of batch ${i >> 6}`,
      template: "processed item {item} of batch {batch}",
      item: i,
      batch: i >> 6,
    };
  }
  const line = JSON.stringify(r) + "\n";
  const f = files.get(stem) ?? { index: 0, size: 0, chunks: [] };
  files.set(stem, f);
  f.chunks.push(line);
  f.size += line.length;
  if (f.size >= SEGMENT || i === RECORDS - 1) {
    const name = f.index === 0 ? `${stem}.jsonl` : `${stem}.${f.index}.jsonl`;
    const bytes = enc.encode(f.chunks.join(""));
    await Deno.writeFile(join(logs, name), bytes, { append: true });
    jsonlBytes += bytes.length;
    if (f.size >= SEGMENT) f.index++;
    f.size = 0;
    f.chunks = [];
  }
}
for (const [stem, f] of files) {
  if (f.chunks.length) {
    const name = f.index === 0 ? `${stem}.jsonl` : `${stem}.${f.index}.jsonl`;
    const bytes = enc.encode(f.chunks.join(""));
    await Deno.writeFile(join(logs, name), bytes, { append: true });
    jsonlBytes += bytes.length;
  }
}

// 1. Ingest from scratch.
let t0 = performance.now();
const index = openIndex(logs);
const report = ingest(index);
const ingestMs = performance.now() - t0;
const ingested = report.records;

// 2. stats calls over the million (in process, the index open).
const callMs: number[] = [];
for (let i = 0; i < RUNS; i++) {
  t0 = performance.now();
  stats(index, "calls");
  callMs.push(performance.now() - t0);
}
index.close();
const indexBytes = (await Deno.stat(join(logs, INDEX_FILE))).size;

// 3. The CLI: `mcpx log --limit 1` (nothing changed) and `mcpx stats calls` against `mcpx --help`.
const main = new URL("../main.ts", import.meta.url).pathname;
const config = new URL("../deno.json", import.meta.url).pathname;
async function timed(args: string[]): Promise<number> {
  const t = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", config, main, ...args],
    env: { XDG_STATE_HOME: join(root, "state"), NO_COLOR: "1" },
    cwd: root,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (out.code !== 0) throw new Error(new TextDecoder().decode(out.stderr));
  return performance.now() - t;
}
await timed(["--help"]); // warm the module cache
await timed(["log", "--limit", "1"]);
const help: number[] = [];
const limit1: number[] = [];
const statsCli: number[] = [];
for (let i = 0; i < RUNS; i++) {
  help.push(await timed(["--help"]));
  limit1.push(await timed(["log", "--limit", "1"]));
  statsCli.push(await timed(["stats", "calls"]));
}
await Deno.remove(root, { recursive: true });

const f1 = (n: number) => n.toFixed(1);
console.log(`log index: ${ingested} records, ${(jsonlBytes / 2 ** 20).toFixed(1)} MiB of JSONL`);
console.log(
  `ingest from scratch     ${f1(ingestMs)} ms   ${
    Math.round(ingested / (ingestMs / 1000))
  } records/s   (aim >= 200000)`,
);
console.log(
  `index size              ${(indexBytes / 2 ** 20).toFixed(1)} MiB   ${
    (indexBytes / jsonlBytes).toFixed(2)
  }x the JSONL`,
);
console.log(`stats calls, in process ${f1(median(callMs))} ms median of ${RUNS}   (aim < 300)`);
console.log(`mcpx --help             ${f1(median(help))} ms median of ${RUNS}`);
console.log(
  `mcpx log --limit 1      ${f1(median(limit1))} ms   ${
    (median(limit1) / median(help)).toFixed(2)
  }x --help   (aim < 1.3x)`,
);
console.log(
  `mcpx stats calls        ${f1(median(statsCli))} ms   ${
    (median(statsCli) / median(help)).toFixed(2)
  }x --help`,
);
