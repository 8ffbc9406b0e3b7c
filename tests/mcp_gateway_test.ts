/**
 * Gateway mode's relay (lib/surfaces/mcp/gateway.ts) with the SDK's client over Streamable HTTP
 * in front and two stand-in connections behind: names prefixed for several namespaces, a
 * server's JSON-RPC error kept with its code, progress on the client's token, a log message
 * and a list change relayed, a cancellation reaching the connection, and each client its own
 * session.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpxError } from "../lib/errors.ts";
import type { McpConnection, UpstreamNotification } from "../lib/mcp/types.ts";
import { httpHandlerWith } from "../lib/surfaces/mcp/http.ts";
import { gatewayFactory, type GatewayHost, lacking } from "../lib/surfaces/mcp/gateway.ts";
import { until } from "./_helpers.ts";

/** A connection answering like a small server named `ns`, recording what it was sent. */
function standIn(ns: string) {
  const listeners = new Set<(n: UpstreamNotification) => void>();
  const sent: { method: string; params?: Record<string, unknown>; aborted?: boolean }[] = [];
  const conn: McpConnection = {
    ended: new Promise(() => {}),
    stderrTail: () => [],
    listTools: () => Promise.resolve([]),
    callTool: () => Promise.reject(new Error("not used")),
    onToolsChanged() {},
    close: () => Promise.resolve(),
    capabilities: () => ({ tools: {}, prompts: {}, resources: {} }),
    onNotification(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async request(method, params, options) {
      const entry: (typeof sent)[number] = { method, params };
      sent.push(entry);
      if (method === "tools/list") {
        return { tools: [{ name: "echo", inputSchema: { type: "object" } }] };
      }
      if (method === "prompts/list") return { prompts: [{ name: "hello" }] };
      if (method === "resources/list") return { resources: [{ uri: `${ns}://r`, name: "r" }] };
      if (method === "resources/templates/list") {
        throw new McpxError("TOOL_ERROR", "no", { data: { rpcCode: -32601 } });
      }
      if (method === "resources/read") {
        return { contents: [{ uri: params!.uri, text: `from ${ns}` }] };
      }
      if (method === "tools/call" && params!.name === "echo") {
        options.onprogress?.({ progress: 1, total: 2 });
        for (const l of listeners) {
          l({ method: "notifications/message", params: { level: "info", data: `log ${ns}` } });
        }
        return { content: [{ type: "text", text: `${ns}: ${JSON.stringify(params!.arguments)}` }] };
      }
      if (method === "tools/call" && params!.name === "slow") {
        await new Promise<void>((resolve) => {
          options.signal?.addEventListener("abort", () => {
            entry.aborted = true;
            resolve();
          });
        });
        throw new McpxError("TOOL_TIMEOUT", "cancelled");
      }
      throw new McpxError("TOOL_ERROR", "Unknown tool", {
        cause: new Error("Unknown tool: nope"),
        data: { rpcCode: -32602, rpcData: { name: params?.name } },
      });
    },
  };
  const changed = () => {
    for (const l of listeners) l({ method: "notifications/tools/list_changed" });
  };
  return { conn, sent, changed };
}

function setUp(namespaces: string[]) {
  const servers = new Map(namespaces.map((ns) => [ns, standIn(ns)]));
  const sessions: string[] = [];
  const ended: string[] = [];
  const host: GatewayHost = {
    withConnection(ns, session, fn) {
      sessions.push(session);
      return fn(servers.get(ns)!.conn, 5000);
    },
    end(session) {
      ended.push(session);
      return Promise.resolve();
    },
  };
  const handler = httpHandlerWith(gatewayFactory(namespaces, host), host, {
    maxBodyBytes: 1 << 20,
    checkOrigin: false,
  });
  const connect = async () => {
    const client = new Client({ name: "t", version: "1" }, {
      versionNegotiation: { mode: "legacy" },
    });
    const transport = new StreamableHTTPClientTransport(new URL("http://gw/mcp/x"), {
      fetch: (input, init) => handler.fetch(new Request(input, init)),
    });
    await client.connect(transport as never);
    return client;
  };
  return { servers, sessions, ended, handler, connect };
}

Deno.test("gateway mode: one namespace keeps the server's names; several are prefixed", async () => {
  const one = setUp(["a"]);
  const c1 = await one.connect();
  try {
    assert.deepEqual((await c1.listTools()).tools.map((t) => t.name), ["echo"]);
    assert.deepEqual((await c1.listPrompts()).prompts.map((p) => p.name), ["hello"]);
    assert.deepEqual((await c1.listResourceTemplates()).resourceTemplates, []);
  } finally {
    await c1.close();
    await one.handler.close();
  }

  const two = setUp(["a", "b"]);
  const c2 = await two.connect();
  try {
    assert.deepEqual((await c2.listTools()).tools.map((t) => t.name), ["a__echo", "b__echo"]);
    const r = await c2.callTool({ name: "b__echo", arguments: { x: 1 } });
    assert.deepEqual(r.content, [{ type: "text", text: 'b: {"x":1}' }]);
    assert.equal(two.servers.get("b")!.sent.at(-1)!.params!.name, "echo", "the server's own name");
    const read = await c2.readResource({ uri: "b://r" });
    assert.equal((read.contents[0] as { text: string }).text, "from b", "read from its lister");
    await assert.rejects(c2.callTool({ name: "c__echo", arguments: {} }), /Unknown name/);
  } finally {
    await c2.close();
    await two.handler.close();
  }
});

Deno.test("gateway mode relays errors, progress, log messages, list changes and cancellation", async () => {
  const gw = setUp(["a"]);
  const client = await gw.connect();
  // Another host on the same (shared) process: the first one's log messages are not its.
  const other = await gw.connect();
  const otherLogs: unknown[] = [];
  other.setNotificationHandler("notifications/message", (n) => void otherLogs.push(n.params));
  await other.listTools();
  const logs: unknown[] = [];
  let changes = 0;
  client.setNotificationHandler("notifications/message", (n) => void logs.push(n.params.data));
  client.setNotificationHandler("notifications/tools/list_changed", () => void changes++);
  try {
    await assert.rejects(
      client.callTool({ name: "nope", arguments: {} }),
      (e: { code?: number; message: string }) =>
        e.code === -32602 && /Unknown tool/.test(e.message),
    );
    const progress: unknown[] = [];
    await client.callTool(
      { name: "echo", arguments: {} },
      { onprogress: (p) => progress.push(p) },
    );
    assert.equal(progress.length, 1, "progress on the client's own token");
    assert.deepEqual(logs, ["log a"], "the log message of the call");
    await other.listTools(); // a round trip: anything relayed to it has arrived by now
    assert.deepEqual(otherLogs, [], "not relayed to another session");

    gw.servers.get("a")!.changed();
    assert.ok(await until(() => changes === 1), "a list change reaches the session");

    const abort = new AbortController();
    const slow = client.callTool({ name: "slow", arguments: {} }, { signal: abort.signal });
    await until(() => gw.servers.get("a")!.sent.some((s) => s.params?.name === "slow"));
    abort.abort();
    await assert.rejects(slow);
    assert.ok(
      await until(() =>
        gw.servers.get("a")!.sent.find((s) => s.params?.name === "slow")!.aborted === true
      ),
      "the cancellation reaches the server's request",
    );
  } finally {
    await client.close();
    await other.close();
  }
  const second = await gw.connect();
  try {
    await second.listTools();
  } finally {
    await second.close();
  }
  assert.equal(new Set(gw.sessions).size, 3, "each client its own mcpx session");
  await gw.handler.close();
});

Deno.test("gateway mode: what a server asks needs the client's capability for it", () => {
  const form = { message: "m", requestedSchema: { type: "object", properties: {} } };
  const url = { mode: "url", message: "m", url: "https://x", elicitationId: "e" };
  // A bare `elicitation: {}` is form mode only.
  assert.equal(lacking({ elicitation: {} }, "elicitation/create", form), undefined);
  assert.deepEqual(lacking({ elicitation: {} }, "elicitation/create", url), {
    elicitation: { url: {} },
  });
  assert.equal(lacking({ elicitation: { url: {} } }, "elicitation/create", url), undefined);
  assert.deepEqual(lacking({ elicitation: { url: {} } }, "elicitation/create", form), {
    elicitation: { form: {} },
  });
  assert.deepEqual(lacking({}, "sampling/createMessage", {}), { sampling: {} });
  assert.equal(lacking({ sampling: {} }, "sampling/createMessage", {}), undefined);
  assert.deepEqual(lacking({ sampling: {} }, "roots/list", {}), { roots: {} });
  assert.deepEqual(lacking({ sampling: {}, roots: {} }, "tasks/get", {}), {}, "unknown: refused");
});
