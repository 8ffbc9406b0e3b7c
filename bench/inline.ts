/**
 * The inline rung's cost (docs/daemon.md, "The ladder"): `mcpx call f.echo` whole-process time
 * when a daemon already answers on its socket, against `--inline`, where every command hosts
 * the daemon and starts the server itself, and against a cold spawn (the daemon stopped before
 * each run), next to `deno run` of an empty module in the same session.
 *
 *     deno run -A bench/inline.ts [--runs 10]
 *
 * The server is tests/fixtures/servers/faulty.ts under this Deno (a small stdio server).
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  emptyArgs,
  ENTRY,
  formatTable,
  interruptible,
  makeIsolated,
  mcpxArgs,
  median,
  runDeno,
  teardown,
  timeRun,
  wholeNumber,
} from "./_shared.ts";
import { faultyServer } from "../tests/fixtures/servers.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "10" } },
});
const runs = wholeNumber("--runs", values.runs!, 1);

const iso = await makeIsolated("mcpx-bench-inline-");
const work = join(iso.root, "work");
await Deno.mkdir(work, { recursive: true });
const server = faultyServer();
await Deno.writeTextFile(join(work, ".mcpx.json"), JSON.stringify({ mcpServers: { f: server } }));
const call = ["call", "f.echo", "text=x"];

await interruptible(() => teardown(iso.root, iso.env), async (stopIfInterrupted, cleanup) => {
  const time = async (args: string[], before?: () => Promise<unknown>) => {
    const samples: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      await before?.();
      stopIfInterrupted();
      const ms = await timeRun(args, work, iso.env);
      if (i > 0) samples.push(ms); // the first run warms Deno's caches
    }
    return median(samples);
  };
  const stop = () => runDeno(mcpxArgs(["stop", "--all"]), work, iso.env);
  const empty = await time(emptyArgs(iso.root));
  const inline = await time(mcpxArgs(["--inline", ...call]), stop);
  const cold = await time(mcpxArgs(call), stop);
  await runDeno(mcpxArgs(["start"]), work, iso.env);
  const socket = await time(mcpxArgs(call));
  const row = (name: string, ms: number) => [
    name,
    `${ms.toFixed(1)} ms`,
    `${(ms / empty).toFixed(2)}×`,
    `${(ms / socket).toFixed(2)}×`,
  ];
  console.log(`inline rung, median of ${runs} runs (${ENTRY})\n`);
  console.log(formatTable([
    ["case", "median", "vs empty deno run", "vs socket rung"],
    row("empty deno run", empty),
    row("call, socket rung (warm daemon)", socket),
    row("call, spawn rung (cold daemon)", cold),
    row("call, inline rung", inline),
  ]));
  console.log(`\ninline costs ${(inline - socket).toFixed(1)} ms a command over the socket rung`);
  for (const p of await cleanup()) console.error(p);
});
