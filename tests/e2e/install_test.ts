import assert from "node:assert/strict";
import { join } from "node:path";
import { ONE_SERVER, Sandbox } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname;

Deno.test("install: `deno task install` honours DENO_INSTALL_ROOT and the shim works from any folder", async () => {
  await using box = await Sandbox.create();
  const root = join(box.root, "install");
  const install = await new Deno.Command(Deno.execPath(), {
    args: ["task", "install"],
    cwd: REPO,
    env: { ...box.env, DENO_INSTALL_ROOT: root },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(install.code, 0, new TextDecoder().decode(install.stderr));
  // What is installed is a copy of the built CLI beside the shim: building again (the tests and
  // the benchmarks do) leaves it alone.
  const shim = Deno.readTextFileSync(join(root, "bin", "mcpx"));
  const copy = /\/bin\/\.mcpx-cli\/([0-9a-f]{16})\/main\.js/.exec(shim);
  assert.ok(copy, shim);
  assert.ok(!shim.includes("dist/cli"), shim);
  assert.ok(
    shim.includes("--v8-flags=--no-lazy"),
    `the shim runs with tools/cli_flags.ts: ${shim}`,
  );
  assert.equal(
    Deno.readTextFileSync(join(root, "bin", ".mcpx-cli", copy[1], "SOURCES")),
    Deno.readTextFileSync(join(REPO, "dist", "cli", "SOURCES")),
  );
  await box.write("elsewhere/.mcpx.json", ONE_SERVER);
  const run = await new Deno.Command(join(root, "bin", "mcpx"), {
    args: ["--json", "health"],
    cwd: join(box.root, "elsewhere"),
    env: { ...box.env, PATH: `${join(root, "bin")}:${box.env.PATH}` },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
  const health = JSON.parse(new TextDecoder().decode(run.stdout));
  assert.equal(health.config, join(box.root, "elsewhere/.mcpx.json"));
});
