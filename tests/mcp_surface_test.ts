/**
 * The MCP surface (lib/surfaces/mcp/) in process: its Streamable HTTP handler in both eras, and
 * the stdio framing, with every frame it sends validated strictly against the official JSON Schema
 * of the revision in use (tests/_mcp_schema.ts).
 */
import assert from "node:assert/strict";
import { McpxError } from "../lib/errors.ts";
import type { Operation } from "../lib/operations/define.ts";
import { OPERATIONS } from "../lib/operations/mod.ts";
import { mcpHttpHandler } from "../lib/surfaces/mcp/http.ts";
import { LineTransport, readFrame } from "../lib/surfaces/mcp/stdio.ts";
import {
  buildMcpTools,
  decodeCursor,
  encodeCursor,
  type McpHost,
  mcpToolName,
  type ToolSet,
} from "../lib/surfaces/mcp/tools.ts";
import { frameProblems, type Revision, REVISIONS } from "./_mcp_schema.ts";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

/** A host that answers `mcpx_call` as a server would and records who asked. */
function fakeHost() {
  const calls: { op: string; session: string; input: Record<string, unknown> }[] = [];
  const ended: string[] = [];
  const host: McpHost = {
    run(op: Operation, input, call) {
      calls.push({ op: op.id, session: call.session, input });
      if (op.id === "tools.call") {
        if (input.tool === "fail") {
          const envelope = { content: [{ type: "text", text: "it failed" }], isError: true };
          return Promise.reject(new McpxError("TOOL_ERROR", "x.fail failed", { data: envelope }));
        }
        if (input.tool === "missing") {
          return Promise.reject(new McpxError("TOOL_NOT_FOUND", `No tool "missing"`));
        }
        return Promise.resolve({ raw: { content: [{ type: "text", text: String(input.tool) }] } });
      }
      // One server, "x", with one prompt, one resource and one template.
      if (op.id === "prompts.get") {
        return Promise.resolve(
          input.name === undefined
            ? { prompts: [{ namespace: "x", name: "greet", arguments: [{ name: "who" }] }] }
            : {
              namespace: "x",
              name: input.name,
              // The input it was given, as the text of a valid message.
              messages: [{ role: "user", content: { type: "text", text: JSON.stringify(input) } }],
            },
        );
      }
      if (op.id === "resources.read") {
        return Promise.resolve(
          input.uri === undefined
            ? {
              resources: [{ namespace: "x", uri: "file:///a", name: "a" }],
              templates: [{ namespace: "x", uriTemplate: "file:///{p}", name: "any" }],
            }
            : { contents: [{ uri: input.uri, text: "A" }] },
        );
      }
      return op.run(input, undefined as never);
    },
    end(session) {
      ended.push(session);
      return Promise.resolve();
    },
  };
  return { host, calls, ended };
}

function handler(host: McpHost, maxBodyBytes = 1 << 20, tools: ToolSet = "all") {
  return mcpHttpHandler(OPERATIONS, host, { maxBodyBytes, checkOrigin: true, tools });
}

interface Answer {
  status: number;
  headers: Headers;
  frames: Record<string, unknown>[];
}

/** The JSON-RPC frames of an answer, plain JSON or an SSE stream. */
async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  const frames = text.trim() === ""
    ? []
    : type.includes("text/event-stream")
    ? text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).filter(
      Boolean,
    ).map((l) => JSON.parse(l))
    : [JSON.parse(text)].flat();
  return { status: res.status, headers: res.headers, frames };
}

/**
 * Posts one body; every frame in the answer is checked against `rev`'s schema (its problems
 * added to `collect` when given, asserted absent otherwise).
 */
async function post(
  h: ReturnType<typeof handler>,
  body: unknown,
  options: {
    rev: Revision;
    headers?: Record<string, string>;
    method?: string;
    collect?: string[];
  },
): Promise<Answer> {
  const res = await h.fetch(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      body: typeof body === "string" ? body : JSON.stringify(body),
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        host: "127.0.0.1",
        ...options.headers,
      },
    }),
  );
  const answer = await answerOf(res);
  for (const frame of answer.frames) {
    if (options.collect) {
      options.collect.push(
        ...frameProblems(options.rev, frame, options.method).map((p) =>
          `${options.rev} ${options.method ?? "-"}: ${p}`
        ),
      );
      continue;
    }
    assert.deepEqual(
      frameProblems(options.rev, frame, options.method),
      [],
      `${options.rev} frame for ${options.method}: ${JSON.stringify(frame).slice(0, 300)}`,
    );
  }
  return answer;
}

/** A legacy session at `rev`: initialize, then initialized; returns a poster for its requests. */
async function legacySession(
  h: ReturnType<typeof handler>,
  rev: Revision = LEGACY,
  collect?: string[],
) {
  const init = await post(h, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: rev, capabilities: {}, clientInfo: { name: "t", version: "1" } },
  }, { rev, method: "initialize", collect });
  assert.equal(init.status, 200);
  const sid = init.headers.get("mcp-session-id");
  assert.ok(sid, "a legacy client gets a session");
  const headers = { "mcp-session-id": sid, "mcp-protocol-version": rev };
  const note = await post(h, { jsonrpc: "2.0", method: "notifications/initialized" }, {
    rev,
    headers,
    collect,
  });
  assert.equal(note.status, 202);
  let id = 10;
  const send = (method: string, params?: unknown) =>
    post(h, { jsonrpc: "2.0", id: id++, method, ...(params ? { params } : {}) }, {
      rev,
      headers,
      method,
      collect,
    });
  return { sid, init, send, headers };
}

const meta = (version = MODERN) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
});

/** One modern request: _meta in the params, the version and method in headers. */
function modern(
  h: ReturnType<typeof handler>,
  method: string,
  params: Record<string, unknown> = {},
  options: { version?: string; meta?: boolean; name?: string; collect?: string[] } = {},
) {
  const version = options.version ?? MODERN;
  return post(h, {
    jsonrpc: "2.0",
    id: 1,
    method,
    params: options.meta === false ? params : { ...params, _meta: meta(version) },
  }, {
    rev: MODERN,
    method,
    collect: options.collect,
    headers: {
      "mcp-protocol-version": version,
      "mcp-method": method,
      ...(options.name ? { "mcp-name": options.name } : {}),
    },
  });
}

Deno.test("buildMcpTools() serves every operation marked for MCP, named from its command", () => {
  const tools = buildMcpTools(OPERATIONS);
  const marked = OPERATIONS.filter((op) => op.mcp.expose);
  assert.deepEqual(tools.map((t) => t.op), marked);
  assert.equal(new Set(tools.map((t) => t.name)).size, tools.length, "names are unique");
  for (const t of tools) {
    assert.match(t.name, /^mcpx_[a-z0-9_]+$/);
    assert.equal(t.name, mcpToolName(t.op));
    assert.equal(t.annotations.readOnlyHint, t.op.mcp.readOnly === true, t.name);
    assert.equal(t.annotations.destructiveHint, t.op.mcp.destructive === true, t.name);
    for (const p of t.op.params.filter((q) => !t.op.mcp.hidden?.includes(q.name))) {
      assert.ok(p.name in (t.inputSchema.properties as object), `${t.name} offers ${p.name}`);
    }
  }
  for (const name of ["mcpx_ls", "mcpx_search", "mcpx_types", "mcpx_catalog", "mcpx_call"]) {
    assert.ok(tools.some((t) => t.name === name), `${name} is served`);
  }
});

/** Every `type` in a JSON Schema, with where it is. */
function schemaTypes(schema: unknown, at = ""): [string, unknown][] {
  if (schema === null || typeof schema !== "object") return [];
  const out: [string, unknown][] = [];
  for (const [k, v] of Object.entries(schema)) {
    if (k === "type") out.push([at, v]);
    else if (k === "properties" && v && typeof v === "object") {
      for (const [name, sub] of Object.entries(v)) out.push(...schemaTypes(sub, `${at}.${name}`));
    } else out.push(...schemaTypes(v, `${at}/${k}`));
  }
  return out;
}

Deno.test("the core tools: a few written for an agent, at most 5 KB of tools/list, one type per property", () => {
  const core = buildMcpTools(OPERATIONS, "core");
  assert.deepEqual(core.map((t) => t.name), [
    "mcpx_ls",
    "mcpx_search",
    "mcpx_types",
    "mcpx_call",
    "mcpx_exec",
    "mcpx_refresh",
  ]);
  const wire = core.map(({ op: _op, params: _params, text: _text, ...rest }) => rest);
  const bytes = new TextEncoder().encode(JSON.stringify({ tools: wire })).length;
  assert.ok(bytes <= 5000, `the core tools/list is ${bytes} bytes`);
  for (const t of core) {
    // Written for an agent calling over MCP: nothing of the command line.
    assert.doesNotMatch(t.description, /stdin|@file|--json|command line|--[a-z]/, t.name);
    for (
      const p of Object.values(t.inputSchema.properties as Record<string, { description: string }>)
    ) {
      assert.doesNotMatch(p.description, /stdin|@file|--json|--[a-z]/, t.name);
    }
    assert.equal(t.outputSchema, undefined, `${t.name}: its answer is text, no second copy`);
  }
  // Every property a client fills has one type: the Inspector CLI, for one, parses a JSON
  // argument only when its type is "object" or "array".
  for (const set of ["core", "all"] as const) {
    for (const t of buildMcpTools(OPERATIONS, set)) {
      for (const [at, type] of schemaTypes(t.inputSchema)) {
        assert.equal(typeof type, "string", `${set} ${t.name}${at}: type ${JSON.stringify(type)}`);
      }
    }
  }
  const call = core.find((t) => t.name === "mcpx_call")!;
  assert.deepEqual(
    (call.inputSchema.properties as Record<string, { type: string }>).arguments.type,
    "object",
  );
});

Deno.test("/mcp serves the core tools by default, and calls through mcpx_call with arguments", async () => {
  const { host, calls } = fakeHost();
  const h = mcpHttpHandler(OPERATIONS, host, { maxBodyBytes: 1 << 20, checkOrigin: true });
  try {
    const a = await legacySession(h);
    const list = await a.send("tools/list");
    const tools = (list.frames[0].result as { tools: { name: string }[] }).tools;
    assert.deepEqual(
      tools.map((t) => t.name),
      buildMcpTools(OPERATIONS, "core").map((t) => t.name),
    );
    const ok = await a.send("tools/call", {
      name: "mcpx_call",
      arguments: { server: "x", tool: "echo", arguments: { text: "hi" } },
    });
    assert.deepEqual(ok.frames[0].result, { content: [{ type: "text", text: "echo" }] });
    assert.deepEqual(calls.at(-1)!.input.arguments, { text: "hi" });
    // A JSON array where an object is declared is refused, naming the argument.
    const array = await a.send("tools/call", {
      name: "mcpx_call",
      arguments: { server: "x", tool: "echo", arguments: [1] },
    });
    assert.match(
      JSON.stringify(array.frames[0].result),
      /argument \\"arguments\\" must be a JSON object/,
    );
    // The rest of the operations, and mcpx_batch, are behind --tools all.
    for (const name of ["mcpx_status", "mcpx_batch"]) {
      const refused = await a.send("tools/call", { name, arguments: {} });
      assert.equal((refused.frames[0].error as { code: number }).code, -32602, name);
    }
    for (const f of [...list.frames, ...ok.frames]) assert.deepEqual(frameProblems(LEGACY, f), []);
  } finally {
    await h.close();
  }
});

Deno.test("decodeCursor() reads only the cursors encodeCursor() makes", () => {
  assert.equal(decodeCursor(encodeCursor(50), 100), 50);
  assert.equal(decodeCursor(undefined, 3), 0);
  for (const bad of ["!!!", "abc", "%%%%", btoa("offset:-1"), btoa("offset:999"), btoa("hello")]) {
    assert.throws(
      () => decodeCursor(bad, 100),
      (e: unknown) => (e as { code: number }).code === -32602,
      bad,
    );
  }
});

Deno.test("readFrame() answers what is not one JSON-RPC message", () => {
  const answer = (text: string) => {
    const r = readFrame(text);
    assert.ok("answer" in r, text);
    return r.answer as unknown as { id: unknown; error: { code: number; message: string } };
  };
  assert.equal(answer("{nope").error.code, -32700);
  assert.equal(answer("[]").error.code, -32600);
  const batch = JSON.stringify(
    Array.from({ length: 10_000 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })),
  );
  assert.match(answer(batch).error.message, /batch \(10000 entries\)/);
  assert.equal(answer('{"jsonrpc":"1.0","id":3,"method":"ping"}').id, 3);
  assert.equal(answer('{"jsonrpc":"2.0","id":{},"method":"ping"}').id, undefined);
  assert.equal(answer("42").error.code, -32600);
  const modernInit = answer(JSON.stringify({
    jsonrpc: "2.0",
    id: 7,
    method: "initialize",
    params: { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: "t", version: "1" } },
  }));
  assert.equal(modernInit.error.code, -32022);
  assert.equal(modernInit.id, 7);
  for (
    const frame of [
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":"a","result":{}}',
    ]
  ) assert.ok("message" in readFrame(frame), frame);
});

Deno.test("LineTransport answers bad frames and a reused id, and hands on the rest", async () => {
  const lines = [
    "{broken",
    '{"jsonrpc":"2.0","id":1,"method":"slow"}',
    '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    "x".repeat(300),
    '{"jsonrpc":"2.0","id":2,"method":"ping"}',
  ];
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode(lines.join("\n") + "\n"));
      c.close();
    },
  });
  const written: string[] = [];
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => void written.push(new TextDecoder().decode(chunk)),
  });
  const t = new LineTransport(input, output, 200);
  const got: unknown[] = [];
  const closed = Promise.withResolvers<void>();
  t.onmessage = (m) => void got.push(m);
  t.onclose = () => closed.resolve();
  await t.start();
  await closed.promise;
  assert.deepEqual(got.map((m) => (m as { method: string }).method), ["slow", "ping"]);
  const answers = written.join("").trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(answers.map((a) => [a.id, a.error.code]), [
    [undefined, -32700],
    [1, -32600],
    [undefined, -32600],
  ]);
  assert.match(answers[1].error.message, /already in use/);
  for (const a of answers) assert.deepEqual(frameProblems(LEGACY, a), []);
});

Deno.test("/mcp, 2025-11-25: a session per client lists, calls and pages, every frame strictly valid", async () => {
  const { host, calls, ended } = fakeHost();
  const h = handler(host);
  try {
    const a = await legacySession(h);
    const init = a.init.frames[0].result as Record<string, unknown>;
    assert.equal(init.protocolVersion, LEGACY);
    const list = await a.send("tools/list");
    const tools = (list.frames[0].result as { tools: { name: string }[] }).tools;
    assert.deepEqual(tools.map((t) => t.name), [
      ...buildMcpTools(OPERATIONS).map((t) => t.name),
      "mcpx_batch",
    ]);

    const ok = await a.send("tools/call", {
      name: "mcpx_call",
      arguments: { server: "x", tool: "echo", arguments: { text: "hi" } },
    });
    assert.deepEqual(ok.frames[0].result, { content: [{ type: "text", text: "echo" }] });
    assert.equal(calls.at(-1)!.input.raw, true, "mcpx_call asks for the envelope");

    const failed = await a.send("tools/call", {
      name: "mcpx_call",
      arguments: { server: "x", tool: "fail" },
    });
    assert.deepEqual(failed.frames[0].result, {
      content: [{ type: "text", text: "it failed" }],
      isError: true,
    }, "the tool's own error result, not flattened");
    const missing = await a.send("tools/call", {
      name: "mcpx_call",
      arguments: { server: "x", tool: "missing" },
    });
    const r = missing.frames[0].result as { isError: boolean; content: { text: string }[] };
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /^TOOL_NOT_FOUND: /);

    const badArg = await a.send("tools/call", { name: "mcpx_call", arguments: { nope: 1 } });
    assert.match(
      (badArg.frames[0].result as { content: { text: string }[] }).content[0].text,
      /USAGE: mcpx_call has no argument "nope"/,
    );
    const version = await a.send("tools/call", { name: "mcpx_version", arguments: {} });
    const v = version.frames[0].result as { structuredContent: { version: string } };
    assert.equal(typeof v.structuredContent.version, "string");

    const several = await a.send("tools/call", {
      name: "mcpx_batch",
      arguments: {
        calls: [
          { tool: "mcpx_call", arguments: { server: "x", tool: "one" } },
          { tool: "mcpx_call", arguments: { server: "x", tool: "fail" } },
          { tool: "mcpx_nope" },
        ],
      },
    });
    const { results } = (several.frames[0].result as {
      structuredContent: { results: { isError?: boolean; content: { text: string }[] }[] };
    }).structuredContent;
    assert.deepEqual(results.map((r) => [r.isError === true, r.content[0].text.slice(0, 9)]), [
      [false, "one"],
      [true, "it failed"],
      [true, "USAGE: mc"],
    ]);
    const tooMany = await a.send("tools/call", {
      name: "mcpx_batch",
      arguments: { calls: Array.from({ length: 101 }, () => ({ tool: "mcpx_version" })) },
    });
    assert.equal((tooMany.frames[0].result as { isError: boolean }).isError, true);

    const unknownTool = await a.send("tools/call", { name: "nope", arguments: {} });
    assert.equal((unknownTool.frames[0].error as { code: number }).code, -32602);
    assert.equal(((await a.send("ping")).frames[0].result as object).constructor, Object);
    assert.deepEqual((await a.send("logging/setLevel", { level: "debug" })).frames[0].result, {});
    const badCursor = await a.send("tools/list", { cursor: "not base64!" });
    assert.equal((badCursor.frames[0].error as { code: number }).code, -32602);
    const unknown = await a.send("no/such/method");
    assert.equal((unknown.frames[0].error as { code: number }).code, -32601);
    const prompts = await a.send("prompts/list");
    assert.deepEqual(prompts.frames[0].result, {
      prompts: [{ name: "x.greet", arguments: [{ name: "who" }] }],
    }, "every server's prompts, namespaced");
    const got = await a.send("prompts/get", { name: "x.greet", arguments: { who: "me" } });
    assert.deepEqual(
      JSON.parse(
        (got.frames[0].result as { messages: { content: { text: string } }[] }).messages[0]
          .content.text,
      ),
      { server: "x", name: "greet", arguments: { who: "me" } },
    );
    const resources = await a.send("resources/list");
    assert.deepEqual(resources.frames[0].result, {
      resources: [{ uri: "mcpx://x/file:///a", name: "a" }],
    });
    const templates = await a.send("resources/templates/list");
    assert.deepEqual(templates.frames[0].result, {
      resourceTemplates: [{ uriTemplate: "mcpx://x/file:///{p}", name: "any" }],
    });
    const read = await a.send("resources/read", { uri: "mcpx://x/file:///a" });
    assert.deepEqual(read.frames[0].result, {
      contents: [{ uri: "mcpx://x/file:///a", text: "A" }],
    });
    assert.equal(calls.at(-1)!.input.raw, true, "a read asks for the contents as they came");
    const foreign = await a.send("resources/read", { uri: "file:///a" });
    assert.equal((foreign.frames[0].error as { code: number }).code, -32602);
    const completed = await a.send("completion/complete", {
      ref: { type: "ref/resource", uri: "mcpx://{ns}/file:///a" },
      argument: { name: "ns", value: "" },
    });
    assert.deepEqual(completed.frames[0].result, {
      completion: { values: ["x"], total: 1, hasMore: false },
    }, "completion from what mcpx holds: the namespaces");

    const batch = await post(
      h,
      Array.from({ length: 10_000 }, (_, i) => ({ jsonrpc: "2.0", id: 100 + i, method: "ping" })),
      { rev: LEGACY, headers: a.headers },
    );
    assert.ok(batch.status >= 400 || batch.frames.every((f) => "error" in f), "batch refused");
    assert.ok((await a.send("ping")).frames[0].result, "the session survives the batch");

    const b = await legacySession(h);
    assert.notEqual(a.sid, b.sid);
    await b.send("tools/call", { name: "mcpx_call", arguments: { server: "x", tool: "echo" } });
    const sessions = new Set(calls.filter((c) => c.op === "tools.call").map((c) => c.session));
    assert.equal(sessions.size, 2, "two clients, two mcpx sessions");
    assert.equal(h.sessions, 2);

    const del = await h.fetch(
      new Request("http://127.0.0.1/mcp", {
        method: "DELETE",
        headers: { "mcp-session-id": a.sid, "mcp-protocol-version": LEGACY, host: "127.0.0.1" },
      }),
    );
    assert.equal(del.status, 200);
    await del.body?.cancel();
    assert.equal(ended.length, 1, "the closed session's servers are released");
    const gone = await a.send("ping");
    assert.equal(gone.status, 404);
  } finally {
    await h.close();
  }
});

Deno.test("/mcp refuses initialize asking for a modern revision, with the versions that work", async () => {
  const h = handler(fakeHost().host);
  try {
    const res = await post(h, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: MODERN,
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }, { rev: LEGACY });
    const error = res.frames[0].error as { code: number; data: { supported: string[] } };
    assert.equal(error.code, -32022);
    assert.ok(error.data.supported.includes(LEGACY));
    assert.ok(!error.data.supported.includes(MODERN));
    assert.equal(h.sessions, 0);
  } finally {
    await h.close();
  }
});

Deno.test("/mcp, 2026-07-28: discover, list and call with _meta; -32022 and -32602 as specified", async () => {
  const { host } = fakeHost();
  const h = handler(host);
  try {
    const discover = await modern(h, "server/discover");
    const d = discover.frames[0].result as { supportedVersions: string[] };
    assert.deepEqual(d.supportedVersions, [MODERN]);
    const list = await modern(h, "tools/list");
    assert.ok((list.frames[0].result as { tools: unknown[] }).tools.length > 0);
    const call = await modern(h, "tools/call", {
      name: "mcpx_call",
      arguments: { server: "x", tool: "fail" },
    }, { name: "mcpx_call" });
    assert.equal((call.frames[0].result as { isError: boolean }).isError, true);

    const unsupported = await modern(h, "tools/list", {}, { version: "2099-01-01" });
    assert.equal(unsupported.status, 400);
    const e = unsupported.frames[0].error as { code: number; data: { supported: string[] } };
    assert.equal(e.code, -32022);
    assert.deepEqual(e.data.supported, [MODERN]);

    const noMeta = await modern(h, "tools/list", {}, { meta: false });
    assert.equal(noMeta.status, 400);
    assert.equal((noMeta.frames[0].error as { code: number }).code, -32602);
    const badCursor = await modern(h, "tools/list", { cursor: "%%%" });
    assert.equal((badCursor.frames[0].error as { code: number }).code, -32602);
  } finally {
    await h.close();
  }
});

Deno.test("/mcp in every revision: what mcpx sends as a server is valid for the revision negotiated", async () => {
  const { host } = fakeHost();
  const h = handler(host);
  const found: string[] = [];
  try {
    for (const rev of REVISIONS) {
      let send: (method: string, params?: Record<string, unknown>) => Promise<Answer>;
      if (rev === MODERN) {
        const discover = await modern(h, "server/discover", {}, { collect: found });
        const d = discover.frames[0].result as { supportedVersions: string[] };
        assert.deepEqual(d.supportedVersions, [MODERN]);
        send = (method, params) =>
          modern(h, method, params, {
            collect: found,
            name: (params?.name ?? params?.uri) as string | undefined,
          });
      } else {
        const session = await legacySession(h, rev, found);
        const init = session.init.frames[0].result as { protocolVersion: string };
        assert.equal(init.protocolVersion, rev, `${rev} is agreed to`);
        send = session.send;
        await send("ping");
        await send("logging/setLevel", { level: "info" });
      }
      let cursor: string | undefined;
      const listed: Record<string, unknown>[] = [];
      do {
        const page = await send("tools/list", cursor ? { cursor } : {});
        const result = page.frames[0].result as { tools: typeof listed; nextCursor?: string };
        listed.push(...result.tools);
        cursor = result.nextCursor;
      } while (cursor);
      // What a later revision added is left out, and only then.
      const ls = listed.find((t) => t.name === "mcpx_ls")!;
      assert.equal("annotations" in ls, rev >= "2025-03-26", `${rev}: annotations`);
      assert.equal(listed.some((t) => "outputSchema" in t), rev >= "2025-06-18", rev);
      const echo = await send("tools/call", {
        name: "mcpx_call",
        arguments: { server: "x", tool: "echo" },
      });
      assert.equal((echo.frames[0].result as { isError?: boolean }).isError, undefined, rev);
      await send("tools/call", { name: "mcpx_call", arguments: { server: "x", tool: "fail" } });
      const version = await send("tools/call", { name: "mcpx_version", arguments: {} });
      const v = version.frames[0].result as { content: { text: string }[] };
      assert.equal("structuredContent" in v, rev >= "2025-06-18", `${rev}: structuredContent`);
      assert.equal(typeof JSON.parse(v.content[0].text).version, "string", "the text keeps it");
      const unknown = await send("tools/call", { name: "mcpx_nope", arguments: {} });
      assert.equal((unknown.frames[0].error as { code: number }).code, -32602, rev);
      await send("prompts/list");
      await send("prompts/get", { name: "x.greet", arguments: { who: "me" } });
      await send("resources/list");
      await send("resources/templates/list");
      await send("resources/read", { uri: "mcpx://x/file:///a" });
      await send("completion/complete", {
        ref: { type: "ref/resource", uri: "mcpx://{ns}/file:///a" },
        argument: { name: "ns", value: "" },
      });
      const none = await send("no/such/method");
      assert.ok(none.frames[0].error, rev);
    }
    assert.deepEqual(found, []);
  } finally {
    await h.close();
  }
});

Deno.test("/mcp answers malformed bodies, a body over the bound and foreign origins", async () => {
  const h = handler(fakeHost().host, 1024);
  try {
    const broken = await post(h, "{not json", { rev: LEGACY });
    assert.equal(broken.status, 400);
    assert.equal((broken.frames[0].error as { code: number }).code, -32700);
    const big = await post(h, JSON.stringify({ pad: "x".repeat(4096) }), { rev: LEGACY });
    assert.equal(big.status, 413);
    const foreign = await h.fetch(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        body: "{}",
        headers: {
          "content-type": "application/json",
          host: "127.0.0.1",
          origin: "http://evil.example",
        },
      }),
    );
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
    const rebound = await h.fetch(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json", host: "evil.example" },
      }),
    );
    assert.equal(rebound.status, 403);
    await rebound.body?.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("tools/list pages with an opaque cursor until the list ends", async () => {
  const version = OPERATIONS.find((op) => op.id === "mcpx.version")!;
  const many = Array.from({ length: 120 }, (_, i) => ({
    ...version,
    id: `many.v${i}`,
    cli: { command: [`v${i}`] },
  })) as Operation[];
  const h = mcpHttpHandler(many, fakeHost().host, {
    maxBodyBytes: 1 << 20,
    checkOrigin: true,
    tools: "all",
  });
  try {
    const a = await legacySession(h);
    const names: string[] = [];
    const pages: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await a.send("tools/list", cursor ? { cursor } : undefined);
      const result = page.frames[0].result as { tools: { name: string }[]; nextCursor?: string };
      pages.push(result.tools.length);
      names.push(...result.tools.map((t) => t.name));
      cursor = result.nextCursor;
    } while (cursor);
    assert.deepEqual(pages, [50, 50, 21]);
    assert.equal(new Set(names).size, 121);
    assert.equal(names.at(-1), "mcpx_batch");
  } finally {
    await h.close();
  }
});
