// `mcpx events -f` decides JSON as every command does, by output.json from wherever it is set:
// MCPX_OUTPUT_JSON=1 prints JSON lines, --no-json prints text even where the environment says JSON.
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { Sandbox } from "../_helpers.ts";

const REPO = new URL("../../", import.meta.url).pathname;

/**
 * Runs `mcpx events -f` with `args` and `env` and calls a tool until the follower, connected by
 * then, prints a `call.finished` event; returns that line. One read is kept pending across the
 * rounds, so nothing it prints is lost.
 */
async function followedCall(
  box: Sandbox,
  args: string[],
  env: Record<string, string>,
): Promise<string> {
  const follower = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${REPO}/deno.json`, box.entry, "events", "-f", ...args],
    cwd: join(box.root, "work"),
    env: { ...box.env, ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = follower.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  try {
    let pending = lines.read();
    for (let round = 0; round < 120 && !/call\.finished.*\n/.test(seen); round++) {
      assert.equal((await box.mcpx(["call", "faulty.pid"])).code, 0);
      const next = await Promise.race([
        pending,
        new Promise<"later">((r) => setTimeout(() => r("later"), 500)),
      ]);
      if (next === "later") continue;
      if (next.done) break;
      seen += next.value;
      pending = lines.read();
    }
  } finally {
    follower.kill("SIGTERM");
    await follower.status;
    await lines.cancel().catch(() => {});
  }
  const line = seen.split("\n").find((l) => l.includes("call.finished"));
  assert.ok(line !== undefined, `no call.finished event in:\n${seen}`);
  return line;
}

Deno.test("events -f: MCPX_OUTPUT_JSON=1 prints JSON lines, --no-json prints text", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { faulty: faultyServer() } });
  assert.equal((await box.mcpx(["call", "faulty.pid"])).code, 0);

  const json = await followedCall(box, [], { MCPX_OUTPUT_JSON: "1" });
  const event = JSON.parse(json);
  assert.equal(event.type, "call.finished");
  assert.equal(event.data.tool, "pid");

  const text = await followedCall(box, ["--no-json"], { MCPX_OUTPUT_JSON: "1" });
  assert.match(text, /^\d+ \S+ call\.finished /);

  assert.equal((await box.mcpx(["stop"])).code, 0);
});
