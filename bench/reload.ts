/**
 * What taking a configuration edit up in place saves (docs/daemon.md, "Configuration edits";
 * docs/decisions/2026-12-config-reload-in-place.md): `mcpx call f.pid` whole-process time
 *
 * - on a warm daemon, the file unchanged (the floor);
 * - after an edit that leaves the server's identity alone (its description), which the running
 *   daemon takes up in place, keeping the server's process;
 * - after `mcpx stop`, which is what a daemon that restarted on every edit would cost: a new
 *   daemon and a new server process;
 *
 * next to `deno run` of an empty module, and whether the server's pid survived each edit.
 *
 *     deno run -A bench/reload.ts [--runs 10]
 *
 * The server is tests/fixtures/servers/faulty.ts under this Deno (a small stdio server): a server
 * that takes longer to start, or holds state (a page, a login), loses more to a restart.
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

const iso = await makeIsolated("mcpx-bench-reload-");
const work = join(iso.root, "work");
await Deno.mkdir(work, { recursive: true });
const server = faultyServer();
let version = 0;
/** A new version of the file whose only change is the server's description. */
const edit = () =>
  Deno.writeTextFile(
    join(work, ".mcpx.json"),
    JSON.stringify({ mcpServers: { f: { ...server, description: `version ${++version}` } } }),
  );
await edit();
const call = ["call", "f.pid"];
const pid = async () => (await runDeno(mcpxArgs(call), work, iso.env)).trim();

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
  const restart = await time(mcpxArgs(call), stop);
  const first = await pid();
  const warm = await time(mcpxArgs(call));
  const inPlace = await time(mcpxArgs(call), edit);
  const kept = (await pid()) === first;
  const row = (name: string, ms: number) => [
    name,
    `${ms.toFixed(1)} ms`,
    `${(ms / empty).toFixed(2)}×`,
    `${(ms / warm).toFixed(2)}×`,
  ];
  console.log(`configuration edits, median of ${runs} runs (${ENTRY})\n`);
  console.log(formatTable([
    ["case", "median", "vs empty deno run", "vs warm call"],
    row("empty deno run", empty),
    row("call, warm daemon, file unchanged", warm),
    row("call after an edit, taken up in place", inPlace),
    row("call after mcpx stop (a restart)", restart),
  ]));
  console.log(
    `\nthe server's process survived ${runs + 1} edits: ${kept ? "yes" : "no"} (pid ${first})`,
  );
  console.log(`a restart costs ${(restart - inPlace).toFixed(1)} ms a call over the reload`);
  for (const p of await cleanup()) console.error(p);
});
