/**
 * The structure figures issue reviews ask for, printed so anyone can redo them:
 * files over 800 lines, functions over 150 lines (and over 120 in lib/daemon/), and the
 * `duplicates` pair counts of lib/, launcher/ and tests/, and the circles of files and arrows
 * that run back up a floor of the import graph that tests/imports_test.ts holds at none
 * (tools/import_graph.ts: static, `import type` and lazy `load()` edges).
 *
 *     deno run -A tools/structure.ts [--json]
 */
import { cycles as graphCycles, fileGraph, upwardArrows } from "./import_graph.ts";

const repo = new URL("..", import.meta.url).pathname;
const json = Deno.args.includes("--json");

const run = async (command: string, args: string[], env: Record<string, string> = {}) => {
  const out = await new Deno.Command(command, { args, cwd: repo, env, stdout: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout);
};

const sources = (await run("git", ["ls-files", "lib/**.ts", "launcher/**.ts", "main.ts", "mod.ts"]))
  .split("\n").filter((f) => f && !f.endsWith("_test.ts") && !f.includes("/_testing"));

const big: { file: string; lines: number }[] = [];
for (const file of sources) {
  const lines = Deno.readTextFileSync(`${repo}${file}`).split("\n").length - 1;
  if (lines > 800) big.push({ file, lines });
}
big.sort((a, b) => b.lines - a.lines);

const config = await Deno.makeTempFile({ suffix: ".json" });
let lint: { diagnostics: { filename: string; message: string }[] };
try {
  Deno.writeTextFileSync(
    config,
    JSON.stringify({
      lint: {
        plugins: [new URL("./structure_plugin.ts", import.meta.url).href],
        rules: { tags: [], include: ["structure/function-size"] },
      },
    }),
  );
  lint = JSON.parse(
    await run("deno", ["lint", "--config", config, "--json", ...sources], {
      MCPX_STRUCTURE_MIN_LINES: "121",
    }),
  );
} finally {
  Deno.removeSync(config);
}
const functions = lint.diagnostics.map((d) => {
  const [name, lines] = d.message.split(" ");
  return { file: new URL(d.filename).pathname.slice(repo.length), name, lines: Number(lines) };
}).sort((a, b) => b.lines - a.lines);
const over150 = functions.filter((f) => f.lines > 150);
const daemonOver120 = functions.filter((f) => f.file.startsWith("lib/daemon/"));

/** All pairs, and those not marked boilerplate (mostly operation declarations, whose shared shape
 * is the table's point). */
const pairs = async (dir: string) => {
  const text = await run("duplicates", ["--repo", dir, "--most", "200", "--seconds", "200"]);
  const lines = text.split("\n");
  const all = Number(
    lines[0].match(/(\d+) pairs?/)?.[1] ?? (lines[0].startsWith("no duplicates") ? 0 : NaN),
  );
  // Rows past --most 200 are not listed, so they count as not boilerplate (said, not hidden).
  const boilerplate = lines.filter((l) => /^D\d+ .* boilerplate/.test(l)).length;
  return { all, notBoilerplate: all - boilerplate };
};
const duplicates = {
  lib: await pairs("lib"),
  launcher: await pairs("launcher"),
  tests: await pairs("tests"),
};

const graph = fileGraph();
const cycles = graphCycles(graph);
const upward = upwardArrows(graph);

const figures = {
  cycles: cycles.map((c) => c.length),
  upwardArrows: upward,
  filesOver800: big,
  functionsOver150: over150,
  daemonFunctionsOver120: daemonOver120,
  duplicatePairs: duplicates,
};
if (json) console.log(JSON.stringify(figures, null, 2));
else {
  console.log(
    `circles of files (static, type and load() edges): ${cycles.length}` +
      (cycles.length ? ` (imports in each: ${cycles.map((c) => c.length).join(", ")})` : ""),
  );
  for (const cycle of cycles) console.log(`  ${cycle.join("; ")}`);
  console.log(`arrows from operations/ or scripts/ up to surfaces/ or tui/: ${upward.length}`);
  for (const why of upward) console.log(`  ${why}`);
  console.log(`files over 800 lines: ${big.length}`);
  for (const f of big) console.log(`  ${f.lines} ${f.file}`);
  console.log(`functions over 150 lines: ${over150.length}`);
  for (const f of over150) console.log(`  ${f.lines} ${f.name} (${f.file})`);
  console.log(`functions over 120 lines in lib/daemon/: ${daemonOver120.length}`);
  for (const f of daemonOver120) console.log(`  ${f.lines} ${f.name} (${f.file})`);
  console.log(
    "duplicates pairs (all / not boilerplate): " +
      Object.entries(duplicates).map(([dir, n]) => `${dir} ${n.all} / ${n.notBoilerplate}`)
        .join(", "),
  );
}
