/**
 * The built CLI (`deno task build` → dist/cli/main.js), which the npm package carries: built here
 * from the sources as they are, then driven as a real process through the paths a bundle could
 * break (its chunks, the Worker's launcher, the daemon started from the bundle itself, errors
 * decoded into the same codes, files read from the build's own src/ folder).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { Sandbox } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const BUNDLE = join(REPO, "dist", "cli", "main.js");

async function build(): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(REPO, "tools", "build.ts")],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

Deno.test("bundle: the built CLI lists, types, calls, runs scripts and fails like the sources", async () => {
  await build();
  await using box = await Sandbox.create(BUNDLE);
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  await box.write(
    "work/.mcpx/scripts/one-call.ts",
    '// One call.\nexport default async () => String(await fixture.echo({ text: "via bundle" }));\n',
  );

  const refresh = await box.mcpx(["refresh"]);
  assert.equal(refresh.code, 0, refresh.stderr);
  const ls = await box.json<{ namespaces: { namespace: string; tools: number }[] }>(["ls"]);
  assert.deepEqual(ls.namespaces.map((n) => [n.namespace, n.tools]), [["fixture", 11]]);
  const types = await box.mcpx(["types", "fixture"]);
  assert.match(types.stdout, /declare namespace fixture \{/);
  const hits = await box.json<{ hits: { fn: string }[] }>(["search", "echo"]);
  assert.equal(hits.hits[0].fn, "fixture.echo");

  const call = await box.mcpx(["call", "fixture.echo", "text=hi"]);
  assert.equal(call.code, 0, call.stderr);
  assert.equal(call.stdout.trim(), "hi");
  const run = await box.mcpx(["run", "one-call"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "via bundle");
  const exec = await box.mcpx(["exec", "return 6 * 7"]);
  assert.equal(exec.stdout.trim(), "42");

  // An error thrown in a lazily loaded chunk, or decoded from the daemon, keeps its code.
  const unknownTool = await box.mcpx(["call", "fixture.nope"]);
  assert.equal(unknownTool.code, 5, unknownTool.stderr); // TOOL_NOT_FOUND (lib/errors.ts)
  assert.match(unknownTool.stderr, /has no tool "nope"/);
  const usage = await box.mcpx(["lss"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /Unknown command "lss"/);
  const agents = await box.mcpx(["agents-md"]);
  assert.match(agents.stdout, /mcpx/, "AGENTS.md is read from the build");

  const stop = await box.mcpx(["stop"]);
  assert.equal(stop.code, 0, stop.stderr);
});
