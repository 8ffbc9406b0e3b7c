/**
 * Shell completion end to end: bash sources the script `mcpx completion bash` prints, with a real
 * `mcpx` on PATH, and completes namespaces, tools and scripts from the configuration.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { Sandbox } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("completion: bash completes tools, namespaces and scripts from the configuration", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  await box.write("work/.mcpx/scripts/shot-flow.ts", "// A script.\nexport default () => 1;\n");
  const bin = join(box.root, "bin");
  await box.write(
    "bin/mcpx",
    `#!/bin/sh\nexec "${Deno.execPath()}" run -A --config "${REPO}/deno.json" "${REPO}/main.ts" "$@"\n`,
  );
  await Deno.chmod(join(bin, "mcpx"), 0o755);
  const script = await box.write(
    "completion.bash",
    (await box.mcpx(["completion", "bash"])).stdout,
  );

  let extraEnv: Record<string, string> = {};
  const complete = async (...words: string[]) => {
    const out = await new Deno.Command("bash", {
      args: [
        "-c",
        `source "${script}"; COMP_WORDS=(${words.map((w) => `"${w}"`).join(" ")}); ` +
        `COMP_CWORD=${words.length - 1}; _mcpx; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      cwd: join(box.root, "work"),
      env: { ...box.env, ...extraEnv, PATH: `${bin}:${box.env.PATH}` },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout).split("\n").filter(Boolean).sort();
  };

  // Before any listing there are no tools to offer, and no error either.
  assert.deepEqual(await complete("mcpx", "call", "fixture.e"), []);
  await box.json(["refresh"]);
  assert.deepEqual(await complete("mcpx", "call", "fixture.e"), ["fixture.echo"]);
  assert.deepEqual(await complete("mcpx", "call", "fixture.fancy"), ["fixture.fancy_name"]);
  assert.deepEqual(
    await complete("mcpx", "types", "fix"),
    [
      "fixture",
      ...(await complete("mcpx", "call", "fixture.")),
    ].sort(),
  );
  assert.deepEqual(await complete("mcpx", "restart", "f"), ["fixture"]);
  assert.deepEqual(await complete("mcpx", "run", "shot"), ["shot-flow"]);
  assert.deepEqual(await complete("mcpx", "ca"), ["call", "candidates", "catalog"]);
  // JSON output asked for by the environment (as agents set it) does not reach a completion.
  extraEnv = { MCPX_OUTPUT_JSON: "1" };
  assert.deepEqual(await complete("mcpx", "restart", "f"), ["fixture"]);
  extraEnv = {};

  const none = await box.mcpx(["candidates", "tools"], { cwd: "." });
  assert.equal(none.code, 0, "no configuration: nothing to offer, and no error");
  assert.equal(none.stdout, "");
  assert.equal(none.stderr, "");
  await box.json(["stop"]);
});
