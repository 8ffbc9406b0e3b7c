/**
 * Completion of a prompt's arguments and a template's variables is the server's own, end to end:
 * `mcpx complete` and `mcpx serve`'s completion/complete (code mode) ask server-everything through
 * a real daemon, and answer with the values it offers, narrowed by the arguments already given.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { npmServer, Sandbox } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname;

Deno.test("completions: mcpx complete and code mode's completion/complete relay the server's values", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { everything: npmServer("server-everything") },
  });

  const cli = (...words: string[]) =>
    box.json<{ values: string[] }>(["complete", "everything.completable-prompt", ...words]);
  assert.deepEqual((await cli("department=S")).values, ["Sales", "Support"]);
  assert.deepEqual((await cli("name", "department=Engineering")).values, [
    "Alice",
    "Bob",
    "Charlie",
  ]);
  const text = await box.mcpx(["complete", "everything.completable-prompt", "department=E"]);
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stdout, "Engineering\n");
  const bad = await box.mcpx(["complete", "everything"]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /"everything" is neither <namespace\.prompt> nor/);

  const client = new Client({ name: "e2e", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", "--config", `${REPO}deno.json`, box.entry, "serve"],
      cwd: join(box.root, "work"),
      env: box.env,
      stderr: "pipe",
    }),
  );
  try {
    const complete = async (
      ref: Record<string, string>,
      name: string,
      value: string,
      context?: Record<string, string>,
    ) =>
      (await client.complete({
        ref: ref as never,
        argument: { name, value },
        ...(context ? { context: { arguments: context } } : {}),
      })).completion.values;
    const prompt = { type: "ref/prompt", name: "everything.completable-prompt" };
    assert.deepEqual(await complete(prompt, "department", ""), [
      "Engineering",
      "Sales",
      "Marketing",
      "Support",
    ]);
    assert.deepEqual(await complete(prompt, "name", "", { department: "Sales" }), [
      "David",
      "Eve",
      "Frank",
    ], "the values, not the prompt's argument names");
    assert.deepEqual(await complete(prompt, "name", "I", { department: "Marketing" }), ["Iris"]);
    const template = {
      type: "ref/resource",
      uri: "mcpx://everything/demo://resource/dynamic/text/{resourceId}",
    };
    assert.deepEqual(await complete(template, "resourceId", "7"), ["7"]);
    assert.deepEqual(await complete(template, "resourceId", "x"), []);
  } finally {
    await client.close();
  }
});
