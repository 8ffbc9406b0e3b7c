import assert from "node:assert/strict";
import { join } from "node:path";
import { npmCache, ONE_SERVER, Sandbox } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname;

Deno.test("install: `deno task install` installs the npm package under npm's prefix, and it works from any folder", async () => {
  await using box = await Sandbox.create();
  const prefix = join(box.root, "prefix");
  const install = await new Deno.Command(Deno.execPath(), {
    args: ["task", "install"],
    cwd: REPO,
    env: {
      ...Deno.env.toObject(),
      HOME: box.env.HOME,
      npm_config_prefix: prefix,
      npm_config_cache: npmCache(),
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const said = new TextDecoder().decode(install.stdout);
  assert.equal(install.code, 0, new TextDecoder().decode(install.stderr));
  assert.match(said, new RegExp(`installed: ${join(prefix, "bin", "mcpx")}`));
  const mcpx = join(prefix, "bin", "mcpx");
  // A copy, not a link into the checkout (tests/e2e/npm_package_test.ts runs one with the build
  // folder gone).
  const real = Deno.realPathSync(mcpx);
  assert.ok(real.startsWith(join(prefix, "lib", "node_modules", "mcpx-cli")), real);
  box.exec = mcpx;
  await box.write("elsewhere/.mcpx.json", ONE_SERVER);
  const health = await box.json<{ config: string }>(["health"], { cwd: "elsewhere" });
  assert.equal(health.config, join(box.root, "elsewhere/.mcpx.json"));
});
