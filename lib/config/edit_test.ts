import assert from "node:assert/strict";
import { addServers } from "./edit.ts";
import { McpxError } from "../errors.ts";

Deno.test("addServers() refuses a file that is not an object with an object mcpServers, in one line", async () => {
  for (
    const [text, why] of [["[]", /not a JSON object/], [
      '{"mcpServers": []}',
      /not an object/,
    ]] as const
  ) {
    await assert.rejects(
      () => addServers("/x/.mcpx.json", text, [{ name: "n", entry: { command: "x" } }]),
      (e) => e instanceof McpxError && e.code === "CONFIG_INVALID" && why.test(e.message),
    );
  }
  const kept = await addServers("/x/.mcpx.json", '{"a": 1} // note\n', [{ name: "n", entry: {} }]);
  assert.deepEqual(kept.added, ["n"]);
  assert.match(kept.text, /\/\/ note/);
});
