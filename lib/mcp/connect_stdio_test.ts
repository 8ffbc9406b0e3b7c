import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { connectServer, negotiationFor } from "./connect.ts";
import {
  cacheModern,
  eventually,
  EVERYTHING,
  groupMembers,
  HAVE_EVERYTHING,
  MODERN,
  SCRIPTED,
  spec,
} from "./_testing.ts";

const START = { startTimeoutMs: 15_000 };
const everything = spec({ name: "everything", command: EVERYTHING });

/** Asserts that `promise` rejects with an McpxError of `code`, and returns the error. */
async function rejection(promise: Promise<unknown>, code: string): Promise<McpxError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof McpxError, `expected McpxError, got ${error}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code}, but it succeeded`);
}

Deno.test({
  name: "connectServer() over stdio lists and calls server-everything, then kills its group",
  ignore: !HAVE_EVERYTHING,
  async fn() {
    const connection = await connectServer(everything, START);
    const pid = connection.pid!;
    try {
      assert.equal(connection.protocolVersion, "2025-11-25");
      const tools = await connection.listTools();
      const echo = tools.find((tool) => tool.name === "echo");
      assert.ok(echo, "echo is listed");
      assert.equal(echo.inputSchema.type, "object");
      const result = await connection.callTool("echo", { message: "hi" }, { timeoutMs: 5000 });
      assert.deepEqual(result.content, [{ type: "text", text: "Echo: hi" }]);
      assert.ok(connection.stderrTail().some((line) => line.includes("STDIO")));
    } finally {
      await connection.close();
    }
    assert.deepEqual(groupMembers(pid), []);
    assert.deepEqual(await connection.ended, {
      code: null,
      signal: "SIGTERM",
      reason: "closed by mcpx",
    });
  },
});

Deno.test({
  name: "connectServer() times a call out, cancels it, and keeps the connection usable",
  ignore: !HAVE_EVERYTHING,
  async fn() {
    const connection = await connectServer(everything, START);
    try {
      const started = performance.now();
      const error = await rejection(
        connection.callTool("trigger-long-running-operation", { duration: 10, steps: 5 }, {
          timeoutMs: 300,
        }),
        "TOOL_TIMEOUT",
      );
      assert.ok(performance.now() - started < 2000);
      assert.equal(
        error.message,
        `Tool "trigger-long-running-operation" on server "everything" did not answer within 300 ms`,
      );
      const result = await connection.callTool("echo", { message: "still here" }, {
        timeoutMs: 5000,
      });
      assert.deepEqual(result.content, [{ type: "text", text: "Echo: still here" }]);
    } finally {
      await connection.close();
    }
  },
});

Deno.test("connectServer() follows nextCursor pages and sends notifications/cancelled on abort", async () => {
  const connection = await connectServer(spec({ name: "scripted", ...SCRIPTED }), START);
  try {
    const tools = await connection.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), [
      "echo",
      "change",
      "hang",
      "crash",
      "shaped",
      "ask",
    ]);
    const controller = new AbortController();
    const call = connection.callTool("hang", {}, { timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const error = await rejection(call, "TOOL_TIMEOUT");
    assert.equal(error.message, `Call to "hang" on server "scripted" was cancelled`);
    assert.ok(
      await eventually(() => connection.stderrTail().some((line) => line.startsWith("cancelled "))),
      "the server heard the cancellation",
    );
  } finally {
    await connection.close();
  }
});

Deno.test("connectServer() tells listeners when the tool list changes", async () => {
  const connection = await connectServer(spec({ name: "scripted", ...SCRIPTED }), START);
  try {
    let changes = 0;
    connection.onToolsChanged(() => changes++);
    await connection.callTool("change", {}, { timeoutMs: 5000 });
    assert.ok(await eventually(() => changes === 1));
  } finally {
    await connection.close();
  }
});

Deno.test("connectServer() rejects a call with SERVER_EXITED when the server dies during it", async () => {
  const connection = await connectServer(spec({ name: "scripted", ...SCRIPTED }), START);
  try {
    const error = await rejection(
      connection.callTool("crash", {}, { timeoutMs: 5000 }),
      "SERVER_EXITED",
    );
    assert.equal(
      error.message,
      `Server "scripted" ended during the call to "crash": the process exited with code 7; ` +
        `stderr: dying on purpose`,
    );
    assert.deepEqual(await connection.ended, {
      code: 7,
      signal: null,
      reason: "the process exited with code 7",
    });
    await rejection(connection.callTool("echo", {}, { timeoutMs: 5000 }), "SERVER_EXITED");
  } finally {
    await connection.close();
  }
});

Deno.test("connectServer() reports a missing command clearly", async () => {
  const error = await rejection(
    connectServer(spec({ name: "x", command: "mcpx-no-such-command" }), START),
    "SERVER_START_FAILED",
  );
  assert.equal(
    error.message,
    `Cannot start server "x": command "mcpx-no-such-command" was not found`,
  );
});

Deno.test("connectServer() reports a server that exits at once, with its stderr", async () => {
  const error = await rejection(
    connectServer(spec({ name: "x", command: "sh", args: ["-c", "echo boom >&2; exit 3"] }), START),
    "SERVER_START_FAILED",
  );
  assert.equal(
    error.message,
    `Cannot start server "x": the process exited with code 3 before initialize completed; stderr: boom`,
  );
  assert.deepEqual((error.data as { stderr: string[] }).stderr, ["boom"]);
});

Deno.test("connectServer() gives up on a silent server at the start timeout and kills it", async () => {
  let pid = 0;
  const started = performance.now();
  const error = await rejection(
    connectServer(
      spec({
        name: "mute",
        command: "sh",
        args: ["-c", "echo $$ >&2; echo waiting >&2; sleep 30"],
      }),
      { startTimeoutMs: 300 },
    ),
    "SERVER_START_FAILED",
  );
  assert.ok(performance.now() - started < 2000);
  pid = Number((error.data as { stderr: string[] }).stderr[0]);
  assert.match(
    error.message,
    /^Cannot start server "mute": no answer to initialize within 300 ms; stderr: \d+ \| waiting$/,
  );
  assert.deepEqual(groupMembers(pid), []);
});

Deno.test("negotiationFor() maps protocol eras onto the SDK's versionNegotiation", () => {
  assert.deepEqual(negotiationFor("legacy", 3000), { mode: "legacy" });
  assert.deepEqual(negotiationFor("force-legacy", 3000), { mode: "legacy" });
  assert.deepEqual(negotiationFor("prefer-modern", 3000), {
    mode: "auto",
    probe: { timeoutMs: 1000 },
  });
  assert.deepEqual(negotiationFor("force-modern", 3000), { mode: { pin: "2026-07-28" } });
});

Deno.test("connectServer() with prefer-modern falls back to initialize when the probe goes unanswered", async () => {
  const started = performance.now();
  const connection = await connectServer(
    spec({
      name: "silent",
      ...SCRIPTED,
      env: { SCRIPTED_SILENT: "1" },
      protocol: "prefer-modern",
    }),
    { startTimeoutMs: 1500 },
  );
  try {
    assert.equal(connection.protocolVersion, "2025-11-25");
    assert.ok(performance.now() - started < 1500);
  } finally {
    await connection.close();
  }
});

Deno.test({
  name: "connectServer() with prefer-modern falls back to the legacy handshake for a 2025 server",
  ignore: !HAVE_EVERYTHING,
  async fn() {
    const connection = await connectServer({ ...everything, protocol: "prefer-modern" }, START);
    try {
      assert.equal(connection.protocolVersion, "2025-11-25");
      const result = await connection.callTool("echo", { message: "auto" }, { timeoutMs: 5000 });
      assert.deepEqual(result.content, [{ type: "text", text: "Echo: auto" }]);
    } finally {
      await connection.close();
    }
  },
});

Deno.test({
  name: "connectServer() with force-modern fails to start against a 2025-only server",
  ignore: !HAVE_EVERYTHING,
  async fn() {
    const error = await rejection(
      connectServer({ ...everything, protocol: "force-modern" }, START),
      "SERVER_START_FAILED",
    );
    assert.match(error.message, /^Cannot start server "everything": /);
  },
});

for (const protocol of ["prefer-modern", "force-modern"] as const) {
  Deno.test(`connectServer() with ${protocol} speaks 2026-07-28 to a server that offers it`, async () => {
    await cacheModern();
    const connection = await connectServer(spec({ name: "modern", ...MODERN, protocol }), START);
    try {
      assert.equal(connection.protocolVersion, "2026-07-28");
      assert.deepEqual((await connection.listTools()).map((tool) => tool.name), ["echo"]);
      const result = await connection.callTool("echo", { text: "modern" }, { timeoutMs: 5000 });
      assert.deepEqual(result.content, [{ type: "text", text: "modern" }]);
    } finally {
      await connection.close();
    }
  });
}

Deno.test("connectServer() with legacy speaks 2025-11-25 even to a server that offers 2026-07-28", async () => {
  await cacheModern();
  const connection = await connectServer(spec({ name: "modern", ...MODERN }), START);
  try {
    assert.equal(connection.protocolVersion, "2025-11-25");
  } finally {
    await connection.close();
  }
});
