/**
 * A call whose arguments the tool's schema refuses says so as a sentence, from a script as from
 * the command line: server-everything's get_sum takes numbers, and a string for one is named
 * with what it takes, not the validator's `Instance type "string" is invalid`.
 */
import assert from "node:assert/strict";
import { npmServer, Sandbox } from "../_helpers.ts";

Deno.test('schema errors: a script and a JSON call read `"b" takes a number, not the string "2"`', async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { everything: npmServer("server-everything") },
  });
  // The tool's name as shown (get_sum or its wire name get-sum) is not what this test is about.
  const want =
    /Invalid arguments for everything\.get[-_]sum: "b" takes a number, not the string "2"/;

  const script = await box.mcpx(["exec", 'await everything.get_sum({ a: 1, b: "2" })']);
  assert.notEqual(script.code, 0, script.stdout);
  assert.match(script.stderr, want);
  assert.doesNotMatch(script.stderr, /Instance type|is invalid/);

  const call = await box.mcpx(["call", "everything.get_sum", '{"a": 1, "b": "2"}']);
  assert.equal(call.code, 2, call.stderr);
  assert.match(call.stderr, want);

  const fine = await box.mcpx(["call", "everything.get_sum", "a=1", "b=2"]);
  assert.equal(fine.code, 0, fine.stderr);
  await box.mcpx(["stop"]);
});
