import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { connectServer, usesOwnClient } from "./connect.ts";
import { eventually, groupMembers, SCRIPTED, spec } from "./_testing.ts";

const START = { startTimeoutMs: 15_000 };
const scripted = (env: Record<string, string> = {}) => spec({ name: "scripted", ...SCRIPTED, env });

Deno.test("usesOwnClient() takes stdio servers of the 2025 era, and leaves the rest to the SDK", () => {
  assert.equal(usesOwnClient(spec({ name: "a", command: "x" })), true);
  assert.equal(usesOwnClient(spec({ name: "a", command: "x", protocol: "force-legacy" })), true);
  assert.equal(usesOwnClient(spec({ name: "a", command: "x", protocol: "prefer-modern" })), false);
  assert.equal(usesOwnClient(spec({ name: "a", command: "x", protocol: "force-modern" })), false);
  assert.equal(usesOwnClient(spec({ name: "a", transport: "http", url: "http://x/" })), false);
});

Deno.test("connectServer() over stdio answers the server's ping and refuses its other requests", async () => {
  const connection = await connectServer(scripted(), START);
  try {
    const result = await connection.callTool("ask", {}, { timeoutMs: 5000 });
    assert.deepEqual(JSON.parse(result.content![0].text!), { ping: {}, roots: -32601 });
  } finally {
    await connection.close();
  }
});

Deno.test("connectServer() over stdio checks structured content against the tool's output schema", async () => {
  const connection = await connectServer(scripted(), START);
  try {
    await connection.listTools();
    const ok = await connection.callTool("shaped", { n: 3 }, { timeoutMs: 5000 });
    assert.deepEqual(ok.structuredContent, { n: 3 });
    for (
      const [args, text] of [
        [{ n: "three" }, "Structured content does not match the tool's output schema"],
        [
          { n: 3, bare: true },
          "Tool shaped has an output schema but did not return structured content",
        ],
      ] as const
    ) {
      const error = await connection.callTool("shaped", args, { timeoutMs: 5000 }).then(
        () => assert.fail("expected TOOL_ERROR"),
        (e) => e,
      );
      assert.ok(error instanceof McpxError && error.code === "TOOL_ERROR", String(error));
      assert.ok(
        error.message.startsWith(`Server "scripted" refused the call to "shaped": ${text}`),
        error.message,
      );
    }
  } finally {
    await connection.close();
  }
});

Deno.test("connectServer() over stdio refuses a server answering initialize in an unknown revision", async () => {
  const error = await connectServer(scripted({ SCRIPTED_VERSION: "1999-01-01" }), START).then(
    () => assert.fail("expected SERVER_START_FAILED"),
    (e) => e,
  );
  assert.ok(error instanceof McpxError && error.code === "SERVER_START_FAILED", String(error));
  assert.equal(
    error.message,
    `Cannot start server "scripted": the server answered initialize with protocol version ` +
      `"1999-01-01", which mcpx does not speak`,
  );
});

Deno.test("connectServer() over stdio accepts an older 2025-era revision", async () => {
  const connection = await connectServer(scripted({ SCRIPTED_VERSION: "2025-03-26" }), START);
  try {
    assert.equal(connection.protocolVersion, "2025-03-26");
    const result = await connection.callTool("echo", { text: "old" }, { timeoutMs: 5000 });
    assert.deepEqual(result.content, [{ type: "text", text: "old" }]);
  } finally {
    await connection.close();
  }
});

Deno.test("connectServer() over stdio abandons a start when its signal aborts, and kills the child", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mcpx-abandon-" });
  const pidFile = `${dir}/pid`;
  const controller = new AbortController();
  const reason = new McpxError("DAEMON_STOPPING", "The daemon is stopping");
  const start = connectServer(
    spec({ name: "mute", command: "sh", args: ["-c", `echo $$ > ${pidFile}; sleep 30`] }),
    { startTimeoutMs: 30_000, signal: controller.signal },
  );
  // Aborted once the child is surely running: it has written its pid.
  const written = () => {
    try {
      return Deno.statSync(pidFile).size > 0;
    } catch {
      return false;
    }
  };
  assert.ok(await eventually(written, 10_000), "the child started");
  controller.abort(reason);
  const error = await start.then(() => assert.fail("expected the start to be abandoned"), (e) => e);
  assert.equal(error, reason);
  const pid = Number(await Deno.readTextFile(pidFile));
  await Deno.remove(dir, { recursive: true });
  assert.ok(pid > 0);
  assert.deepEqual(groupMembers(pid), [], "the child's group is gone");
  const already = new AbortController();
  already.abort();
  const early = await connectServer(scripted(), { ...START, signal: already.signal }).then(
    () => assert.fail("expected the start to be abandoned"),
    (e) => e,
  );
  assert.ok(early instanceof Error);
});

Deno.test("connectServer() over stdio fails the calls in flight, naming the cause, when handling the server's output throws", async () => {
  // The log of a dropped over-long reply throws: mcpx's own handling of stdout failed. The call
  // still waiting (`hang`) must end at once with that cause, not at its timeout or never.
  const connection = await connectServer(scripted(), {
    ...START,
    maxMessageBytes: 2000,
    log: (_level, event) => {
      if (event === "server.message_too_large") throw new Error("log broke");
    },
  });
  const pid = connection.pid!;
  try {
    const waiting = connection.callTool("hang", {}, { timeoutMs: 60_000 });
    const big = connection.callTool("echo", { text: "x".repeat(5000) }, { timeoutMs: 60_000 });
    await assert.rejects(big, (e: McpxError) => e.code === "MESSAGE_TOO_LARGE");
    await assert.rejects(waiting, (e: McpxError) => {
      assert.equal(e.code, "SERVER_EXITED");
      assert.match(
        e.message,
        /^Server "scripted" ended during the call to "hang": mcpx closed the connection: handling its stdout failed: log broke/,
      );
      return true;
    });
    assert.match((await connection.ended).reason, /handling its stdout failed: log broke/);
  } finally {
    await connection.close();
  }
  assert.deepEqual(groupMembers(pid), []);
});
