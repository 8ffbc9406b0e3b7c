/**
 * Output bound benchmark: what a big tool result costs the caller with `output.maxBytes` at its
 * default (100 KiB) and with it off (0), in the same session against a warm daemon.
 *
 *     deno run -A bench/output.ts [--runs 10] [--mb 20]
 *
 * For `mcpx call fixture.big bytes=<mb MiB>` (tests/fixtures/servers/faulty.ts --output-tools),
 * plain and with --json, it prints the bytes that reach stdout (what an agent would read; tokens
 * are bytes / 4) and the median wall time, spawn to exit, the bound's rounds interleaved with the
 * unbounded ones.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { faultyServer } from "../tests/fixtures/servers.ts";
import {
  ENTRY,
  formatTable,
  interruptible,
  makeIsolated,
  mcpxArgs,
  median,
  runDeno,
  teardown,
  wholeNumber,
} from "./_shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "10" }, mb: { type: "string", default: "20" } },
});
const runs = wholeNumber("runs", values.runs, 1);
const bytes = wholeNumber("mb", values.mb, 1) * 1024 * 1024;

const { root, env } = await makeIsolated("mcpx-bench-output-");
const work = join(root, "work");
await Deno.mkdir(work, { recursive: true });
await Deno.writeTextFile(
  join(work, ".mcpx.json"),
  JSON.stringify({ mcpServers: { fixture: faultyServer(["--output-tools"]) } }),
);

async function measure(args: string[], extra: Record<string, string>) {
  const start = performance.now();
  const out = await runDeno(mcpxArgs(args), work, { ...env, ...extra });
  return { ms: performance.now() - start, printed: new TextEncoder().encode(out).length };
}

await interruptible(() => teardown(root, env), async (stopIfInterrupted, cleanup) => {
  const call = ["call", "fixture.big", `bytes=${bytes}`];
  await runDeno(mcpxArgs(call), work, env); // starts the daemon and the server
  const cases: { name: string; args: string[]; env: Record<string, string> }[] = [
    { name: "mcpx call (bound 100 KiB)", args: call, env: {} },
    { name: "mcpx call (bound off)", args: call, env: { MCPX_OUTPUT_MAX_BYTES: "0" } },
    { name: "mcpx --json call (bound 100 KiB)", args: ["--json", ...call], env: {} },
    {
      name: "mcpx --json call (bound off)",
      args: ["--json", ...call],
      env: { MCPX_OUTPUT_MAX_BYTES: "0" },
    },
  ];
  const samples = cases.map(() => [] as number[]);
  const printed = cases.map(() => 0);
  for (let round = 0; round < runs; round++) {
    for (const [i, c] of cases.entries()) {
      stopIfInterrupted();
      const r = await measure(c.args, c.env);
      samples[i].push(r.ms);
      printed[i] = r.printed;
    }
  }
  console.log(
    `${ENTRY}; a ${values.mb} MiB text result, ${runs} interleaved runs each, warm daemon\n`,
  );
  const rows = [["case", "stdout_bytes", "tokens", "median_ms", "ratio_ms_vs_off"]];
  for (const [i, c] of cases.entries()) {
    const off = median(samples[i % 2 === 0 ? i + 1 : i]);
    rows.push([
      c.name,
      String(printed[i]),
      String(Math.round(printed[i] / 4)),
      median(samples[i]).toFixed(1),
      `${(median(samples[i]) / off).toFixed(2)}x`,
    ]);
  }
  console.log(formatTable(rows));
  for (const p of await cleanup()) console.error(p);
});
