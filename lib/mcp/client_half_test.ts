// The client half of MCP against the SDK's own server package (testdata/asking_server.ts): over
// stdio through mcpx's own client, over Streamable HTTP through the SDK's. Roots are answered
// from what was declared, progress reaches the call, a log message and list_changed reach
// onNotification, and a cancelled call reaches the server.
import assert from "node:assert/strict";
import { type ConnectOptions, connectServer } from "./connect.ts";
import { ASKING, cacheModern, eventually, spec, startHttpAsking } from "./_testing.ts";
import type { McpConnection } from "./types.ts";

const ROOTS = [{ uri: "file:///tmp/a-root", name: "a-root" }];

interface Heard {
  requests: string[];
  notes: { method: string; params: unknown }[];
}

function options(heard: Heard): ConnectOptions {
  return {
    startTimeoutMs: 15_000,
    capabilities: { roots: true },
    onServerRequest: (method) => {
      heard.requests.push(method);
      if (method === "roots/list") return Promise.resolve({ roots: ROOTS });
      return Promise.reject({ code: -32601, message: "no" });
    },
    onNotification: (method, params) => void heard.notes.push({ method, params }),
  };
}

function text(result: { content?: { text?: string }[] }): string {
  return result.content?.[0]?.text ?? "";
}

async function exercise(connection: McpConnection, heard: Heard): Promise<void> {
  const call = (name: string, args: Record<string, unknown> = {}) =>
    connection.callTool(name, args, { timeoutMs: 10_000 });

  assert.deepEqual(JSON.parse(text(await call("roots"))), ROOTS);
  assert.deepEqual(heard.requests, ["roots/list"]);

  const reports: { progress: number; total?: number; message?: string }[] = [];
  const counted = await connection.callTool("count", { n: 3 }, {
    timeoutMs: 10_000,
    onProgress: (p) => reports.push(p),
  });
  assert.equal(text(counted), "counted 3");
  assert.deepEqual(reports.map((r) => [r.progress, r.total, r.message]), [
    [1, 3, "step 1"],
    [2, 3, "step 2"],
    [3, 3, "step 3"],
  ]);

  await connection.setLoggingLevel!("info", 5000);
  await call("say", { line: "retrying against the replica" });
  assert.ok(
    await eventually(() =>
      heard.notes.some((n) =>
        n.method === "notifications/message" &&
        (n.params as { data?: unknown }).data === "retrying against the replica"
      )
    ),
    JSON.stringify(heard.notes),
  );

  let changed = 0;
  connection.onToolsChanged(() => changed++);
  await call("grow");
  assert.ok(await eventually(() => changed > 0));
  assert.ok(heard.notes.some((n) => n.method === "notifications/tools/list_changed"));
  assert.ok((await connection.listTools()).some((t) => t.name === "added"));

  const controller = new AbortController();
  const waiting = connection.callTool("wait", {}, {
    timeoutMs: 10_000,
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(), 200);
  await assert.rejects(waiting);
  let cancelled: unknown[] = [];
  for (let i = 0; i < 50 && cancelled.length === 0; i++) {
    cancelled = JSON.parse(text(await call("heard"))).cancelled;
    if (cancelled.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(cancelled.length, 1, "the server heard the cancellation");
  const levels = JSON.parse(text(await call("heard"))).levels;
  assert.deepEqual(levels, ["info"]);

  await connection.notify!("notifications/roots/list_changed");
}

Deno.test("over stdio (mcpx's own client) the asking server gets roots, progress, logs, cancellation", async () => {
  await cacheModern();
  const heard: Heard = { requests: [], notes: [] };
  const connection = await connectServer(spec({ name: "asking", ...ASKING }), options(heard));
  try {
    await exercise(connection, heard);
  } finally {
    await connection.close();
  }
});

Deno.test("over HTTP (the SDK's client) the asking server gets roots, progress, logs, cancellation", async () => {
  await using server = await startHttpAsking();
  const heard: Heard = { requests: [], notes: [] };
  const connection = await connectServer(
    spec({ name: "asking", transport: "http", url: server.url }),
    options(heard),
  );
  try {
    await exercise(connection, heard);
  } finally {
    await connection.close();
  }
});

Deno.test("without a handler no capability is declared, and roots/list is refused", async () => {
  await cacheModern();
  const connection = await connectServer(spec({ name: "asking", ...ASKING }), {
    startTimeoutMs: 15_000,
    capabilities: { roots: true },
  });
  try {
    // The server's listRoots() fails: it declared nothing to ask, and the tool reports an error.
    const result = await connection.callTool("roots", {}, { timeoutMs: 10_000 });
    assert.equal(result.isError, true, JSON.stringify(result));
  } finally {
    await connection.close();
  }
});

Deno.test("over stdio in 2026-07-28 (the SDK's client) progress read beside its call's reply is kept", async () => {
  await cacheModern();
  const heard: Heard = { requests: [], notes: [] };
  const connection = await connectServer(
    spec({ name: "asking", ...ASKING, protocol: "force-modern" }),
    options(heard),
  );
  try {
    assert.equal(connection.protocolVersion, "2026-07-28");
    // A fast server writes its reports and the reply together; each report still reaches the call.
    for (const n of [1, 3, 5]) {
      const reports: number[] = [];
      const counted = await connection.callTool("count", { n }, {
        timeoutMs: 10_000,
        onProgress: (p) => reports.push(p.progress),
      });
      assert.equal(text(counted), `counted ${n}`);
      assert.deepEqual(reports, Array.from({ length: n }, (_, i) => i + 1));
    }
  } finally {
    await connection.close();
  }
});
