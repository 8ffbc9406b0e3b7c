/**
 * Curation (docs/configuration.md, "Curating tools"): a server's `curate` block renames a tool,
 * fixes arguments (gone from its signature, always sent) and hides a parameter, and every surface
 * shows the curated tool: types, search, catalog, call, a script and /v1.
 */

import assert from "node:assert/strict";
import { echoArgsServer } from "../fixtures/servers.ts";
import { Sandbox } from "../_helpers.ts";

Deno.test("curate: a renamed tool with fixed and hidden parameters, on every surface", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      echo: {
        ...echoArgsServer(),
        mcpx: { curate: { echo_args: { rename: "echo", fixed: { n: 7 }, hide: ["b"] } } },
      },
    },
  });
  const refresh = await box.mcpx(["refresh"]);
  assert.equal(refresh.code, 0, refresh.stderr);

  const types = await box.mcpx(["types", "echo"]);
  assert.equal(types.code, 0, types.stderr);
  const sig = /^function echo\(.*$/m.exec(types.stdout)?.[0] ?? "";
  assert.match(sig, /\bs\?: string/, types.stdout);
  assert.doesNotMatch(sig, /\bn\?|\bb\?/, types.stdout);
  assert.doesNotMatch(types.stdout, /function echo_args\(/);
  const search = await box.json<{ hits: { fn: string }[] }>(["search", "arguments", "-n", "20"]);
  assert.equal(search.hits.some((h) => h.fn === "echo.echo"), true, JSON.stringify(search.hits));
  assert.equal(search.hits.some((h) => h.fn === "echo.echo_args"), false);
  const catalog = await box.json<{ text: string }>(["catalog"]);
  assert.match(catalog.text, /function echo\(/);

  // The fixed argument is sent; the caller cannot set it or the hidden one.
  const called = await box.json<
    { result?: unknown; structuredContent?: unknown; content: { text: string }[] }
  >(
    ["call", "echo.echo", "s=hi"],
  );
  assert.deepEqual(JSON.parse(called.content[0].text), { s: "hi", n: 7 });
  for (const arg of ["n=1", "b=true"]) {
    const refused = await box.mcpx(["call", "echo.echo", arg]);
    assert.equal(refused.code, 2, refused.stderr);
  }
  const old = await box.mcpx(["call", "echo.echo_args", "s=x"]);
  assert.notEqual(old.code, 0);
  assert.match(old.stderr, /has no tool "echo_args"/);

  const script = await box.mcpx([
    "exec",
    "console.log(JSON.stringify(await echo.echo({ s: 'sc' })))",
  ]);
  assert.equal(script.code, 0, script.stderr);
  assert.match(script.stdout, /\\"n\\":7|"n":7/, script.stdout);

  const health = await box.json<{ socket: string }>(["health"]);
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: health.socket } });
  try {
    const res = await fetch("http://mcpx/v1/call/echo/echo", {
      client,
      method: "POST",
      headers: { "content-type": "application/json", "x-mcpx-token": box.daemonToken(health) },
      body: JSON.stringify({ s: "v1" }),
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual(body.result, { s: "v1", n: 7 });
  } finally {
    client.close();
  }
});

Deno.test("curate: a malformed block is one line naming the field", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      echo: { ...echoArgsServer(), mcpx: { curate: { echo_args: { renme: "x" } } } },
    },
  });
  const r = await box.mcpx(["ls"]);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /"curate.echo_args": unknown field "renme": did you mean "rename"\?/);
  assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
});
