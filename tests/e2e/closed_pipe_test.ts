/**
 * A reader that stops reading (`mcpx ls | head -1`, `mcpx call … | head -c 10`) ends mcpx
 * quietly: exit 0, nothing on stderr, no "internal error" and no stack trace.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { Sandbox } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname;

/**
 * Runs `mcpx args… | head -c 10` in a real shell pipeline and returns what head printed, and
 * mcpx's own stderr and exit status.
 */
async function headOf(box: Sandbox, args: string[]) {
  const err = join(box.root, "tmp", "err");
  const rc = join(box.root, "tmp", "rc");
  const out = await new Deno.Command("sh", {
    args: [
      "-c",
      '{ "$0" run -A --config "$CONFIG" "$ENTRY" "$@" 2>"$ERR"; echo $? >"$RC"; } | head -c 10',
      Deno.execPath(),
      ...args,
    ],
    cwd: join(box.root, "work"),
    env: { ...box.env, CONFIG: join(REPO, "deno.json"), ENTRY: box.entry, ERR: err, RC: rc },
    clearEnv: true,
    stdin: "null",
  }).output();
  return {
    first: new TextDecoder().decode(out.stdout),
    stderr: Deno.readTextFileSync(err),
    code: Number(Deno.readTextFileSync(rc)),
  };
}

Deno.test("a closed stdout: ls, call and --json call end quietly with status 0", async () => {
  await using box = await Sandbox.create();
  // Enough servers that `ls` writes far more than a pipe holds.
  const servers: Record<string, unknown> = { f: faultyServer(["--output-tools"]) };
  for (let i = 0; i < 3000; i++) servers[`unlisted_server_${i}`] = { command: "true" };
  await box.write("work/.mcpx.json", { mcpServers: servers });
  for (
    const args of [
      ["ls"],
      ["call", "f.big", "bytes=400000"],
      ["--json", "call", "f.big", "bytes=400000"],
    ]
  ) {
    const r = await headOf(box, args);
    assert.ok(r.first.length > 0, `${args.join(" ")}: printed something first`);
    assert.equal(r.stderr, "", `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.code, 0, args.join(" "));
  }
});
