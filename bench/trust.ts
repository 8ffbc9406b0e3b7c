/**
 * What configuration trust costs a trusted project's commands (docs/security.md, "Repositories").
 * The other benches set MCPX_TRUST_ALL=1, which skips the trust file; a person's project is trusted
 * by a record instead, and each command then reads `<state>/trust.json` and hashes the
 * configuration (lib/config/trust.ts).
 *
 *     deno run -A bench/trust.ts [--runs 30]
 *
 * 1. Whole process: a warm `mcpx call names.delete` in a project trusted with `mcpx trust`, next to
 *    the same call with MCPX_TRUST_ALL=1, interleaved round by round: the medians and their ratio.
 * 2. The check alone: the two trust decisions a `call` makes (the primary configuration before it
 *    starts anything, and the same file as a settings layer), timed with performance.now() as the
 *    first thing a fresh process does (so WebCrypto starts cold, as in a command): the median over
 *    `--runs` processes, recorded against trust-all.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { namesServer } from "../tests/fixtures/servers.ts";
import {
  ENTRY,
  formatTable,
  interruptible,
  makeIsolated,
  mcpxArgs,
  median,
  REPO,
  runDeno,
  teardown,
  timeRun,
  wholeNumber,
} from "./_shared.ts";

const WARMUP_ROUNDS = 3;

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "30" } },
});
const runs = wholeNumber("runs", values.runs, 1);

const isolated = await makeIsolated("mcpx-bench-trust-");
const project = join(isolated.root, "project");
await Deno.mkdir(project);
const config = join(project, ".mcpx.json");
await Deno.writeTextFile(config, JSON.stringify({ mcpServers: { names: namesServer() } }, null, 2));
const recordedEnv = { ...isolated.env };
delete recordedEnv.MCPX_TRUST_ALL;
const allEnv = isolated.env;

/** A module that times the two trust decisions of a `call`, first thing in its process. */
const probe = join(isolated.root, "probe.ts");
await Deno.writeTextFile(
  probe,
  `const start = performance.now();
const { trustState } = await import(${JSON.stringify(join(REPO, "lib/config/trust.ts"))});
const loaded = performance.now();
const [path, stateDir, all] = Deno.args;
const text = Deno.readTextFileSync(path);
const options = { env: Deno.env.toObject(), stateDir, explicit: false, trustAll: all === "1" };
const t0 = performance.now();
for (let i = 0; i < 2; i++) {
  const state = await trustState(path, text, options);
  if (!state.trusted) throw new Error("not trusted: " + JSON.stringify(state));
}
console.log(JSON.stringify({ checkMs: performance.now() - t0, importMs: loaded - start }));
`,
);

await interruptible(() => teardown(isolated.root, isolated.env), async (stopIfInterrupted) => {
  await runDeno(mcpxArgs(["trust", config]), project, recordedEnv);
  const call = mcpxArgs(["call", "names.delete"]);
  const first = (await runDeno(call, project, recordedEnv)).trim();
  if (first !== "delete") throw new Error(`mcpx call names.delete printed ${first}`);

  // 1. Whole process, interleaved.
  const cases = [
    { name: "mcpx call names.delete, MCPX_TRUST_ALL=1", env: allEnv },
    { name: "mcpx call names.delete, trusted by record", env: recordedEnv },
  ];
  const samples = cases.map(() => [] as number[]);
  // Round-robin, the order swapped every round: what runs first in a round is not favoured.
  for (let round = 0; round < WARMUP_ROUNDS + runs; round++) {
    for (const i of round % 2 ? [1, 0] : [0, 1]) {
      const c = cases[i];
      stopIfInterrupted();
      const ms = await timeRun(call, project, c.env);
      if (round >= WARMUP_ROUNDS) samples[i].push(ms);
    }
  }
  const [all, recorded] = samples.map(median);

  // 2. The check alone, in fresh processes, interleaved.
  const state = join(isolated.root, "state", "mcpx");
  const checks = [[], []] as number[][];
  for (let round = 0; round < runs; round++) {
    for (const i of round % 2 ? [1, 0] : [0, 1]) {
      const flag = i === 0 ? "1" : "0";
      stopIfInterrupted();
      const out = await runDeno(
        ["run", "-A", "--no-config", probe, Deno.realPathSync(config), state, flag],
        project,
        recordedEnv,
      );
      checks[i].push(JSON.parse(out).checkMs);
    }
  }
  const [checkAll, checkRecorded] = checks.map(median);

  console.log(`trust bench (${ENTRY}), ${runs} runs each, medians\n`);
  console.log(formatTable([
    ["case", "median ms", "ratio"],
    [cases[0].name, all.toFixed(1), "1.00x"],
    [cases[1].name, recorded.toFixed(1), `${(recorded / all).toFixed(2)}x`],
    ["two trust decisions, MCPX_TRUST_ALL=1", checkAll.toFixed(3), "1.00x"],
    [
      "two trust decisions, trusted by record",
      checkRecorded.toFixed(3),
      `${(checkRecorded / checkAll).toFixed(2)}x`,
    ],
  ]));
  console.log(
    `\nwhole call: +${(recorded - all).toFixed(1)} ms with a record; the check alone: +${
      (checkRecorded - checkAll).toFixed(3)
    } ms (first thing in a fresh process)`,
  );
});
