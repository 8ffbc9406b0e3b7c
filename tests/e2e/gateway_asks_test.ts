/**
 * What an exposed server asks its client, through gateway mode with a real daemon: the SDK's
 * client connected to `mcpx serve --expose` over stdio and to the daemon's `/mcp/<ns>` over HTTP
 * answers sampling, elicitation and roots with its own handlers, and the tool's result carries
 * the answer. The server is tests/fixtures/servers/conformance_surface.ts spoken to in the 2025
 * era (its requests are server→client requests); a 2026-07-28 client gets them as input_required
 * results and retries with mcpx's sealed requestState. A client without the capability: a
 * 2025-era one leaves the question to `mcpx elicit answer`, a 2026-07-28 one gets -32021; a
 * forged or tampered requestState is refused with -32602. With the server spoken to in 2026-07-28
 * (`"protocol": "force-modern"`), its input_required result reaches the client with the server's
 * own keys, and its progress in wire order (the last report, just before the result, included).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Sandbox, until } from "../_helpers.ts";
import { askingServer } from "../fixtures/servers.ts";
import { cacheModern } from "../../lib/mcp/_testing.ts";

const REPO = new URL("../..", import.meta.url).pathname;
const SURFACE = join(REPO, "tests", "fixtures", "servers", "conformance_surface.ts");

async function project(box: Sandbox, modern = false) {
  await box.write("work/.mcpx.json", {
    mcpServers: {
      surface: {
        command: Deno.execPath(),
        args: ["run", "--quiet", "--config", join(REPO, "deno.json"), "--frozen", SURFACE],
        ...(modern ? { mcpx: { protocol: "force-modern" } } : {}),
      },
    },
  });
}

function stdioTransport(box: Sandbox) {
  return new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "--config", `${REPO}deno.json`, box.entry, "serve", "--expose", "surface"],
    cwd: join(box.root, "work"),
    env: box.env,
    stderr: "pipe",
  });
}

/** A client answering every kind of request, recording what it was asked. */
function answeringClient(mode: "legacy" | "force-modern") {
  const asked: string[] = [];
  const client = new Client({ name: "e2e", version: "1" }, {
    capabilities: {
      sampling: {},
      elicitation: { form: {}, url: {} },
      roots: { listChanged: true },
    },
    versionNegotiation: { mode: mode === "legacy" ? "legacy" : { pin: "2026-07-28" } },
  });
  client.setRequestHandler("sampling/createMessage", (r) => {
    asked.push("sampling");
    const text = (r.params.messages[0].content as { text: string }).text;
    return {
      role: "assistant",
      model: "e2e-model",
      content: { type: "text", text: `completion of "${text}"` },
    } as never;
  });
  client.setRequestHandler("elicitation/create", (r) => {
    if (r.params.mode === "url") {
      asked.push(`url ${(r.params as { url: string }).url}`);
      return { action: "accept" } as never;
    }
    asked.push("elicitation");
    return { action: "accept", content: { username: "ada", email: "ada@example.com" } } as never;
  });
  client.setRequestHandler("roots/list", () => {
    asked.push("roots");
    return { roots: [{ uri: "file:///from/the/client", name: "client" }] } as never;
  });
  return { client, asked };
}

const textOf = (r: unknown) =>
  ((r as { content: { text?: string }[] }).content ?? []).map((c) => c.text ?? "").join(" ");

/** The daemon's `/mcp/<ns>` over its socket, with its token. */
async function daemonFetch(box: Sandbox) {
  const health = await box.json<{ socket: string }>(["start"]);
  const token = box.daemonToken(health);
  const http = Deno.createHttpClient({ proxy: { transport: "unix", path: health.socket } });
  const fetcher = (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : {}));
    headers.set("x-mcpx-token", token);
    return fetch(input, { ...init, headers, client: http } as RequestInit);
  };
  return { fetcher, close: () => http.close() };
}

Deno.test("serve --expose over stdio: a 2025-era client answers sampling, elicitation and roots", async () => {
  await using box = await Sandbox.create();
  await project(box);
  const { client, asked } = answeringClient("legacy");
  await client.connect(stdioTransport(box));
  try {
    const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "hi" } });
    assert.equal(textOf(sampled), `LLM response: completion of "hi"`);
    const elicited = await client.callTool({
      name: "test_elicitation",
      arguments: { message: "Who are you?" },
    });
    assert.match(textOf(elicited), /action=accept, content=\{"username":"ada"/);
    const roots = await client.callTool({
      name: "test_input_required_result_list_roots",
      arguments: {},
    });
    assert.equal(textOf(roots), "Roots: file:///from/the/client", "the client's roots");
    const url = await client.callTool({ name: "test_url_elicitation", arguments: {} });
    assert.equal(textOf(url), "URL flow: action=accept, content={}");
    assert.deepEqual(asked, [
      "sampling",
      "elicitation",
      "roots",
      "url https://example.com/sign-in",
    ]);
  } finally {
    await client.close();
  }
});

Deno.test("the daemon's /mcp/<ns>: a 2026-07-28 client answers input_required rounds", async () => {
  await using box = await Sandbox.create();
  await project(box);
  const daemon = await daemonFetch(box);
  const { client, asked } = answeringClient("force-modern");
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://mcpx/mcp/surface"), {
        fetch: daemon.fetcher,
      }) as never,
    );
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "yo" } });
    assert.equal(textOf(sampled), `LLM response: completion of "yo"`);
    const both = await client.callTool({
      name: "test_input_required_result_multiple_inputs",
      arguments: {},
    });
    assert.match(textOf(both), /All three answered: completion of "Generate a greeting"/);
    assert.deepEqual(asked.sort(), ["elicitation", "roots", "sampling", "sampling"]);
    // URL mode too: the 2026-07-28 shape, without the 2025-era elicitationId.
    const url = await client.callTool({ name: "test_url_elicitation", arguments: {} });
    assert.equal(textOf(url), "URL flow: action=accept, content={}");
    assert.equal(asked.at(-1), "url https://example.com/sign-in");
    // prompts/get may ask too: the answer reaches the server, the prompt comes back.
    const prompt = await client.getPrompt({ name: "test_input_required_result_prompt" });
    assert.match(JSON.stringify(prompt.messages), /Context:/);
  } finally {
    await client.close();
    daemon.close();
  }
});

Deno.test("a client without the capability: 2025 era, a question of mcpx's; 2026-07-28, -32021", async () => {
  await using box = await Sandbox.create();
  await project(box);
  // 2025 era over stdio, no elicitation declared: the question waits for `mcpx elicit answer`.
  const bare = new Client({ name: "e2e", version: "1" }, {
    versionNegotiation: { mode: "legacy" },
  });
  const told: string[] = [];
  bare.setNotificationHandler("notifications/message", (n) => {
    told.push(String(n.params.data));
  });
  await bare.connect(stdioTransport(box));
  try {
    const call = bare.callTool({ name: "test_elicitation", arguments: { message: "Name?" } });
    let id = "";
    assert.ok(
      await until(async () => {
        const list = await box.json<{ questions: { id: string; server: string }[] }>([
          "elicit",
          "list",
        ]);
        id = list.questions.find((q) => q.server === "surface")?.id ?? "";
        return id !== "";
      }, 20_000),
      "the question is stored",
    );
    const answered = await box.mcpx([
      "elicit",
      "answer",
      id,
      "username=bob",
      "email=bob@example.com",
    ]);
    assert.equal(answered.code, 0, answered.stderr);
    assert.match(textOf(await call), /"username":"bob"/);
    assert.ok(told.some((t) => /did not declare.*mcpx elicit/.test(t)), told.join("\n"));
  } finally {
    await bare.close();
  }

  // 2026-07-28 over HTTP, no sampling declared: the spec's MissingRequiredClientCapability.
  const daemon = await daemonFetch(box);
  const modern = new Client({ name: "e2e", version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  try {
    await modern.connect(
      new StreamableHTTPClientTransport(new URL("http://mcpx/mcp/surface"), {
        fetch: daemon.fetcher,
      }) as never,
    );
    const refused = await modern.callTool({ name: "test_missing_capability", arguments: {} })
      .then(() => undefined, (e) => e as { code?: number; data?: unknown });
    assert.equal(refused?.code, -32021, String(refused));
    assert.deepEqual(refused?.data, { requiredCapabilities: { sampling: {} } });
  } finally {
    await modern.close();
    daemon.close();
  }
});

Deno.test("a forged or tampered requestState is refused with -32602", async () => {
  await using box = await Sandbox.create();
  await project(box);
  const daemon = await daemonFetch(box);
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "e2e", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  };
  const call = async (id: number, extra: Record<string, unknown>) => {
    const res = await daemon.fetcher("http://mcpx/mcp/surface", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "test_elicitation",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name: "test_elicitation",
          arguments: { message: "Name?" },
          _meta: meta,
          ...extra,
        },
      }),
    });
    const text = await res.text();
    const frame = text.startsWith("{")
      ? text
      : text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5)).at(-1)!;
    return JSON.parse(frame) as {
      result?: { resultType?: string; requestState?: string };
      error?: { code: number };
    };
  };
  try {
    const first = await call(1, {});
    assert.equal(first.result?.resultType, "input_required", JSON.stringify(first));
    const state = first.result!.requestState!;
    const answers = { inputResponses: { "elicitation-1": { action: "decline" } } };
    assert.equal((await call(2, { ...answers, requestState: "forged" })).error?.code, -32602);
    const tampered = state.slice(0, -2) + (state.endsWith("AA") ? "BB" : "AA");
    assert.equal((await call(3, { ...answers, requestState: tampered })).error?.code, -32602);
    const done = await call(4, { ...answers, requestState: state });
    assert.equal(done.result?.resultType ?? "complete", "complete", JSON.stringify(done));
  } finally {
    daemon.close();
  }
});

Deno.test("a 2026-07-28 server behind: its input_required as it came, its progress in order", async () => {
  await using box = await Sandbox.create();
  await project(box, true);
  const daemon = await daemonFetch(box);
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  };
  const post = async (id: number, params: Record<string, unknown>) => {
    const res = await daemon.fetcher("http://mcpx/mcp/surface", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": String(params.name),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }),
    });
    const text = await res.text();
    const frames = text.startsWith("{")
      ? [text]
      : text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5));
    return frames.map((f) => JSON.parse(f)) as {
      method?: string;
      result?: { resultType?: string; requestState?: string; inputRequests?: object };
    }[];
  };
  const { client } = answeringClient("force-modern");
  try {
    const [first] = await post(1, {
      name: "test_input_required_result_elicitation",
      arguments: {},
      _meta: meta,
    });
    assert.equal(first.result?.resultType, "input_required");
    assert.deepEqual(Object.keys(first.result!.inputRequests!), ["user_name"], "the server's key");
    const done = await post(2, {
      name: "test_input_required_result_elicitation",
      arguments: {},
      _meta: meta,
      inputResponses: { user_name: { action: "accept", content: { name: "Lin" } } },
      requestState: first.result!.requestState,
    });
    assert.match(JSON.stringify(done.at(-1)), /Hello, Lin!/);

    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://mcpx/mcp/surface"), {
        fetch: daemon.fetcher,
      }) as never,
    );
    const progress: number[] = [];
    await client.callTool({ name: "test_tool_with_progress", arguments: {} }, {
      onprogress: (p) => progress.push(p.progress),
    });
    assert.deepEqual(progress, [0, 50, 100], "the last report, just before the result, too");
  } finally {
    await client.close();
    daemon.close();
  }
});

Deno.test("a 2026-07-28 client gets its input_required at once while another call's question waits on the same process", async () => {
  await cacheModern();
  await using box = await Sandbox.create();
  // A short callTimeout: a call that is not handed its question fails in 5 s, not 60.
  await box.write("work/.mcpx.json", {
    mcpServers: { asking: { ...askingServer(), mcpx: { callTimeout: "5s" } } },
  });
  // A CLI call left waiting on its question (exit 75): the server process is shared.
  const waiting = await box.mcpx(["call", "asking.confirm"]);
  assert.equal(waiting.code, 75, waiting.stdout + waiting.stderr);
  const daemon = await daemonFetch(box);
  const client = new Client({ name: "e2e", version: "1" }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", (r) => {
    asked.push(String((r.params as { message?: string }).message));
    return { action: "accept", content: { repo: "x/y", branch: "dev" } } as never;
  });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://mcpx/mcp/asking"), {
        fetch: daemon.fetcher,
      }) as never,
    );
    const picked = await client.callTool({ name: "pick_repo", arguments: {} });
    assert.equal(textOf(picked), `accept {"repo":"x/y","branch":"dev"}`);
    assert.deepEqual(asked, ["Which repository?"], "the client was asked, inline");
    // The other call's question is still its own, and the only one of mcpx's.
    const list = await box.json<{ questions: { tool: string | null; message: string }[] }>([
      "elicit",
      "list",
    ]);
    assert.deepEqual(list.questions.map((q) => [q.tool, q.message]), [["confirm", "Go ahead?"]]);
  } finally {
    await client.close();
    daemon.close();
  }
});
