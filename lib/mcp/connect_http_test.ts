import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpxError } from "../errors.ts";
import { connectServer } from "./connect.ts";
import { eventually, freePort, HAVE_EVERYTHING, spec, startHttpEverything } from "./_testing.ts";

const START = { startTimeoutMs: 15_000 };

interface Seen {
  methods: string[];
  headers: http.IncomingHttpHeaders[];
  /** Request ids of `notifications/cancelled`. */
  cancelled: unknown[];
  /** Ids of `tools/call` requests whose POST the client abandoned before an answer. */
  abandoned: unknown[];
  deletes: number;
}

/**
 * A Streamable HTTP server that answers the handshake, lists tools in two pages, and accepts
 * every `tools/call` POST without ever answering it. DELETE is refused with 405.
 */
async function startHangingServer() {
  const seen: Seen = { methods: [], headers: [], cancelled: [], abandoned: [], deletes: 0 };
  const held = new Set<http.ServerResponse>();
  const json = (res: http.ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, { "content-type": "application/json", "mcp-session-id": "session-1" });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    seen.headers.push(req.headers);
    if (req.method === "DELETE") {
      seen.deletes++;
      return json(res, 405);
    }
    if (req.method !== "POST") return json(res, 405);
    let body = "";
    req.on("data", (chunk) => body += chunk);
    req.on("end", () => {
      const message = JSON.parse(body);
      seen.methods.push(message.method);
      const { id, method, params } = message;
      if (method === "notifications/cancelled") seen.cancelled.push(params.requestId);
      if (id === undefined) return json(res, 202);
      switch (method) {
        case "initialize":
          return json(res, 200, {
            jsonrpc: "2.0",
            id,
            result: {
              protocolVersion: params.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: "hanging", version: "1.0.0" },
            },
          });
        case "tools/list": {
          const tool = (name: string) => ({ name, inputSchema: { type: "object" } });
          const result = params?.cursor === "2"
            ? { tools: [tool("second")] }
            : { tools: [tool("first")], nextCursor: "2" };
          return json(res, 200, { jsonrpc: "2.0", id, result });
        }
        case "tools/call":
          // "gone" plays a server that lost the session; "broken" one that fails outright.
          if (params.name === "gone") return json(res, 404, { error: "no such session" });
          if (params.name === "broken") return json(res, 500, { error: "oops" });
          held.add(res);
          res.on("close", () => {
            if (!res.writableEnded) seen.abandoned.push(id);
            held.delete(res);
          });
          return; // Never answered.
      }
      json(res, 200, { jsonrpc: "2.0", id, error: { code: -32601, message: "no" } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    async [Symbol.asyncDispose]() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

Deno.test("connectServer() over HTTP times out a call the server never answers, and aborts its POST", async () => {
  await using server = await startHangingServer();
  const connection = await connectServer(
    spec({
      name: "hanging",
      transport: "http",
      url: server.url,
      headers: { Authorization: "Bearer test-token" },
    }),
    START,
  );
  try {
    const tools = await connection.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), ["first", "second"]);

    const started = performance.now();
    await assert.rejects(
      connection.callTool("slow", {}, { timeoutMs: 300 }),
      (error: unknown) => {
        assert.ok(error instanceof McpxError);
        assert.equal(error.code, "TOOL_TIMEOUT");
        assert.equal(
          error.message,
          `Tool "slow" on server "hanging" did not answer within 300 ms`,
        );
        return true;
      },
    );
    assert.ok(performance.now() - started < 2000, "rejected well within 2 s");
    // The cancellation reached the server, and the POST carrying the call was let go.
    assert.ok(
      await eventually(() =>
        server.seen.cancelled.length === 1 && server.seen.abandoned.length === 1
      ),
    );
    assert.deepEqual(server.seen.cancelled, server.seen.abandoned);
    assert.ok(server.seen.headers.every((h) => h.authorization === "Bearer test-token"));
  } finally {
    await connection.close();
  }
  // close() ended the session with a DELETE, and a 405 answer did not stop it.
  assert.equal(server.seen.deletes, 1);
  assert.equal((await connection.ended).reason, "closed by mcpx");
});

Deno.test("connectServer() over HTTP maps error statuses, and ends the connection on a lost session", async () => {
  await using server = await startHangingServer();
  const connection = await connectServer(
    spec({ name: "hanging", transport: "http", url: server.url }),
    START,
  );
  try {
    await assert.rejects(connection.callTool("broken", {}, { timeoutMs: 5000 }), {
      code: "TOOL_ERROR",
      message: `Server "hanging" answered HTTP 500 during the call to "broken"`,
    });
    await assert.rejects(connection.callTool("gone", {}, { timeoutMs: 5000 }), {
      code: "SERVER_EXITED",
      message:
        `Server "hanging" ended during the call to "gone": the server ended the session (HTTP 404)`,
    });
    assert.equal((await connection.ended).reason, "the server ended the session (HTTP 404)");
  } finally {
    await connection.close();
  }
});

Deno.test("connectServer() over HTTP ends the connection when the endpoint goes away", async () => {
  const server = await startHangingServer();
  const connection = await connectServer(
    spec({ name: "hanging", transport: "http", url: server.url }),
    START,
  );
  try {
    await server[Symbol.asyncDispose]();
    const where = server.url;
    await assert.rejects(connection.callTool("any", {}, { timeoutMs: 5000 }), {
      code: "SERVER_EXITED",
      message: `Server "hanging" ended during the call to "any": ${where} is unreachable`,
    });
    assert.equal((await connection.ended).reason, `${where} is unreachable`);
  } finally {
    await connection.close();
  }
});

Deno.test("connectServer() says when an HTTP endpoint cannot be reached, without its query", async () => {
  const port = freePort();
  await assert.rejects(
    connectServer(
      spec({ name: "gone", transport: "http", url: `http://127.0.0.1:${port}/mcp?key=SECRET` }),
      START,
    ),
    {
      code: "SERVER_START_FAILED",
      message: `Cannot start server "gone": cannot reach http://127.0.0.1:${port}/mcp`,
    },
  );
});

Deno.test({
  name:
    "connectServer() over Streamable HTTP lists and calls server-everything, then ends the session",
  ignore: !HAVE_EVERYTHING,
  async fn() {
    await using server = await startHttpEverything("streamableHttp");
    const connection = await connectServer(
      spec({ name: "everything", transport: "http", url: server.url }),
      START,
    );
    try {
      assert.equal(connection.pid, undefined);
      const tools = await connection.listTools();
      assert.ok(tools.some((tool) => tool.name === "echo"));
      const result = await connection.callTool("echo", { message: "over http" }, {
        timeoutMs: 5000,
      });
      assert.deepEqual(result.content, [{ type: "text", text: "Echo: over http" }]);
    } finally {
      await connection.close();
    }
    // server-everything logs each DELETE it honours.
    assert.ok(
      await eventually(() => server.output().includes("Received session termination request")),
      server.output(),
    );
  },
});

Deno.test({
  name: "connectServer() over SSE lists and calls server-everything",
  ignore: !HAVE_EVERYTHING,
  async fn() {
    await using server = await startHttpEverything("sse");
    const connection = await connectServer(
      spec({ name: "everything", transport: "sse", url: server.url }),
      START,
    );
    try {
      const tools = await connection.listTools();
      assert.ok(tools.some((tool) => tool.name === "echo"));
      const result = await connection.callTool("echo", { message: "over sse" }, {
        timeoutMs: 5000,
      });
      assert.deepEqual(result.content, [{ type: "text", text: "Echo: over sse" }]);
    } finally {
      await connection.close();
    }
  },
});
