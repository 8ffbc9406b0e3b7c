/**
 * Prompts, resources and gateway mode against the real server-everything: `mcpx prompts` and
 * `mcpx resources` on the command line and in a script (`<ns>.$prompts()` and the rest), and the SDK's client through `mcpx serve --expose`
 * (stdio, bridged to the daemon's `/mcp/<ns>`): lists, a call, a prompt, a resource, progress
 * relayed on the client's token, a cancellation reaching mcpx's lease of the server.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { daemonLog, npmServer, Sandbox, until } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname;

async function project(box: Sandbox) {
  await box.write("work/.mcpx.json", {
    mcpServers: { everything: npmServer("server-everything") },
  });
}

Deno.test("mcpx prompts and mcpx resources: list, get, read; binary described, not inlined", async () => {
  await using box = await Sandbox.create();
  await project(box);
  const listed = await box.json<{ prompts: { namespace: string; name: string }[] }>(["prompts"]);
  const names = listed.prompts.map((p) => `${p.namespace}.${p.name}`);
  assert.ok(names.includes("everything.simple-prompt"), names.join(" "));
  assert.ok(names.includes("everything.args-prompt"), names.join(" "));

  const got = await box.json<{ messages: { role: string; content: { text: string } }[] }>(
    ["prompts", "everything.args-prompt", "city=Paris"],
  );
  assert.equal(got.messages[0].role, "user");
  assert.match(got.messages[0].content.text, /Paris/);

  const res = await box.json<{
    resources: { namespace: string; uri: string }[];
    templates: { namespace: string; uriTemplate: string }[];
  }>(["resources"]);
  assert.ok(res.resources.length > 0);
  assert.ok(res.resources.every((r) => r.namespace === "everything"));
  assert.ok(
    res.templates.some((t) => t.uriTemplate === "demo://resource/dynamic/blob/{resourceId}"),
    JSON.stringify(res.templates),
  );

  const text = await box.mcpx(["resources", `everything/${res.resources[0].uri}`]);
  assert.equal(text.code, 0, text.stderr);
  assert.ok(text.stdout.length > 0);

  const blob = await box.json<{ contents: Record<string, unknown>[] }>(
    ["resources", "everything/demo://resource/dynamic/blob/1"],
  );
  assert.equal(blob.contents[0].binary, true);
  assert.equal(typeof blob.contents[0].size, "number");
  assert.equal(blob.contents[0].blob, undefined, "not inlined without --raw");
  const raw = await box.json<{ contents: Record<string, unknown>[] }>(
    ["resources", "everything/demo://resource/dynamic/blob/1", "--raw"],
  );
  assert.equal(typeof raw.contents[0].blob, "string");

  const script = await box.mcpx([
    "exec",
    [
      "const ps = await everything.$prompts();",
      "const p = await everything.$prompt('args-prompt', { city: 'Lima' });",
      "const { resources, templates } = await everything.$resources();",
      "const [c] = await everything.$read(resources[0].uri);",
      "const [b] = await everything.$read('demo://resource/dynamic/blob/1');",
      "console.log(JSON.stringify({ n: ps.length, p: p.messages[0].content.text,",
      "  r: resources.length > 0, t: templates.length > 0, text: typeof c.text, binary: b.binary }));",
    ].join("\n"),
  ]);
  assert.equal(script.code, 0, script.stderr);
  const seen = JSON.parse(script.stdout.trim().split("\n").at(-1)!);
  assert.equal(seen.n, listed.prompts.length, "a script sees the same prompts");
  assert.match(seen.p, /Lima/);
  assert.deepEqual([seen.r, seen.t, seen.text, seen.binary], [true, true, "string", true]);

  const bad = await box.mcpx(["prompts", "nodot"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /is not <namespace.prompt>/);
});

function exposeTransport(box: Sandbox) {
  return new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      "--config",
      `${REPO}deno.json`,
      box.entry,
      "serve",
      "--expose",
      "everything",
    ],
    cwd: join(box.root, "work"),
    env: box.env,
    stderr: "pipe",
  });
}

Deno.test("mcpx serve --expose over stdio in the 2026-07-28 era too", async () => {
  await using box = await Sandbox.create();
  await project(box);
  const client = new Client({ name: "e2e", version: "1" }, {
    versionNegotiation: { mode: "auto" },
  });
  await client.connect(exposeTransport(box));
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    assert.ok((await client.listTools()).tools.some((t) => t.name === "echo"));
    const echo = await client.callTool({ name: "echo", arguments: { message: "modern" } });
    assert.deepEqual(echo.content, [{ type: "text", text: "Echo: modern" }]);
  } finally {
    await client.close();
  }
});

Deno.test("mcpx serve --expose everything: the SDK's client reaches the server verbatim", async () => {
  await using box = await Sandbox.create();
  await project(box);
  const client = new Client({ name: "e2e", version: "1" });
  const transport = exposeTransport(box);
  await client.connect(transport);
  // Every progress notification mcpx writes, seen on the wire: the SDK's Client runs a
  // notification's handler a microtask after it reads it but settles a response at once, so a
  // report read in the same chunk as the call's answer never reaches `onprogress` (its own limit).
  const wire: unknown[] = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message) => {
    const m = message as { method?: string; params?: Record<string, unknown> };
    if (m.method === "notifications/progress") {
      const { progressToken: _token, ...rest } = m.params!;
      wire.push(rest);
    }
    deliver(message);
  };
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("echo"), `original names: ${names.join(" ")}`);
    assert.ok(!names.some((n) => n.startsWith("mcpx_")), "no code-mode tools");

    const echo = await client.callTool({ name: "echo", arguments: { message: "hi" } });
    assert.deepEqual(echo.content, [{ type: "text", text: "Echo: hi" }]);
    const image = await client.callTool({ name: "get-tiny-image", arguments: {} }) as {
      content: { type: string; mimeType?: string }[];
    };
    assert.ok(image.content.some((c) => c.type === "image" && c.mimeType === "image/png"));

    const progress: unknown[] = [];
    await client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 3 } },
      { onprogress: (p) => progress.push(p) },
    );
    assert.deepEqual(wire, [1, 2, 3].map((n) => ({ progress: n, total: 3 })), "each relayed");
    assert.ok(
      progress.length >= 2,
      `the host's onprogress heard them: ${JSON.stringify(progress)}`,
    );

    const { prompts } = await client.listPrompts();
    assert.ok(prompts.some((p) => p.name === "simple-prompt"));
    const prompt = await client.getPrompt({ name: "args-prompt", arguments: { city: "Oslo" } });
    assert.match(JSON.stringify(prompt.messages), /Oslo/);

    const { resources } = await client.listResources();
    assert.ok(resources.length > 0);
    const read = await client.readResource({ uri: resources[0].uri });
    assert.equal(read.contents[0].uri, resources[0].uri);
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(resourceTemplates.length > 0);

    const abort = new AbortController();
    const long = client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 30, steps: 30 } },
      { signal: abort.signal, onprogress: () => abort.abort() },
    );
    await assert.rejects(long);
    assert.ok(
      await until(
        async () => (await daemonLog(box)).some((r) => r.event === "mcp.cancelled"),
        10_000,
      ),
      "the daemon's relay saw the cancellation and aborted its request to the server",
    );
  } finally {
    await client.close();
  }
});

Deno.test("the daemon's /mcp/<ns>: one endpoint per namespace, the server's own names", async () => {
  await using box = await Sandbox.create();
  await project(box);
  const health = await box.json<{ socket: string }>(["start"]);
  const token = box.daemonToken(health);
  const http = Deno.createHttpClient({ proxy: { transport: "unix", path: health.socket } });
  const fetcher = (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : {}));
    headers.set("x-mcpx-token", token);
    return fetch(input, { ...init, headers, client: http } as RequestInit);
  };
  try {
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://mcpx/mcp/everything"), {
        fetch: fetcher,
      }) as never,
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes("echo") && names.includes("get-sum"), names.join(" "));
      const sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } });
      assert.match(JSON.stringify(sum.content), /5/);
    } finally {
      await client.close();
    }
    const missing = await fetcher("http://mcpx/mcp/nosuch", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "t", version: "1" },
        },
      }),
    });
    assert.equal(missing.status, 404);
    assert.match((await missing.json()).error, /nosuch/);
    const refused = await box.mcpx(["serve", "--expose", "nosuch"]);
    assert.equal(refused.code, 5, refused.stderr);
    assert.match(refused.stderr, /Cannot expose "nosuch": No server "nosuch"/);
    assert.equal(refused.stderr.trim().split("\n").length <= 2, true, "one line (and its hint)");
  } finally {
    http.close();
  }
});
