/**
 * A 20 MB tool result: how long a script takes to receive it through the generated client
 * (lib/runtime/client.ts), against `mcpx call` of the same tool and an empty `deno run`, each a
 * whole process on a warm daemon and server. Issue 12 item 7: the client once rebuilt its buffer
 * on every 64 KB read, and a script took 7-10 s where `mcpx call` took 0.49 s. The last line is
 * the ratio of the two medians, script over call (the aim: at most 1.5).
 *
 *     deno run -A bench/big_result.ts [--runs 5] [--mb 20]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { namesServer } from "../tests/fixtures/servers.ts";
import {
  emptyArgs,
  ENTRY,
  formatTable,
  makeIsolated,
  mcpxArgs,
  median,
  runDeno,
  teardown,
  timeRun,
  wholeNumber,
} from "./_shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "5" }, mb: { type: "string", default: "20" } },
});
const runs = wholeNumber("--runs", values.runs!, 1);
const mb = wholeNumber("--mb", values.mb!, 1);
// The tool `a_b` answers with its name ("a_b", 3 bytes) `repeat` times over.
const repeat = Math.round(mb * 1024 * 1024 / 3);
const box = await makeIsolated("mcpx-bench-big-");
const work = join(box.root, "work");
await Deno.mkdir(join(work, ".mcpx", "scripts"), { recursive: true });
await Deno.writeTextFile(
  join(work, ".mcpx.json"),
  JSON.stringify({ mcpServers: { names: namesServer() } }),
);
await Deno.writeTextFile(
  join(work, ".mcpx", "scripts", "big.ts"),
  `// Receives one big result and returns its length.
export default async () => String(await names.a_b({ repeat: ${repeat} })).length;
`,
);

const cases = [
  { name: "empty deno run (baseline)", args: emptyArgs(box.root) },
  { name: `mcpx run big (${mb} MB result in a script)`, args: mcpxArgs(["run", "big"]) },
  {
    name: `mcpx call names.a_b (${mb} MB result)`,
    args: mcpxArgs(["call", "names.a_b", `repeat=${repeat}`]),
  },
];
const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
try {
  await runDeno(mcpxArgs(["refresh"]), work, box.env);
  const length = (await runDeno(mcpxArgs(["run", "big"]), work, box.env)).trim();
  if (Number(length) !== repeat * 3) throw new Error(`the script received ${length} bytes`);
  for (let i = 0; i < runs; i++) {
    for (const c of cases) samples.get(c.name)!.push(await timeRun(c.args, work, box.env));
  }
} finally {
  for (const p of await teardown(box.root, box.env)) console.error(`problem: ${p}`);
}

const base = median(samples.get(cases[0].name)!);
console.log(`runs: ${runs}, deno ${Deno.version.deno}, ${ENTRY}`);
console.log(formatTable([
  ["case", "median_ms", "ratio_vs_empty"],
  ...cases.map((c) => {
    const m = median(samples.get(c.name)!);
    return [c.name, m.toFixed(1), `${(m / base).toFixed(2)}x`];
  }),
]));
const script = median(samples.get(cases[1].name)!);
const call = median(samples.get(cases[2].name)!);
console.log(`script/call: ${(script / call).toFixed(2)}x (aim: at most 1.50x)`);
