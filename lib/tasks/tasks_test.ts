import assert from "node:assert/strict";
import type { McpxError } from "../errors.ts";
import type { ConnectionEnd, McpConnection, ToolInfo, UpstreamNotification } from "../mcp/types.ts";
import type { TaskHold } from "../pool/registry.ts";
import { checkTtl, keptTasks, MAX_TASKS, Tasks } from "./tasks.ts";

/** A connection whose server keeps one task, answering as `answer` says. */
function fakeServer(options: { grantTtl?: number | null; capabilities?: Record<string, unknown> }) {
  const sent: { method: string; params?: Record<string, unknown> }[] = [];
  const listeners = new Set<(n: UpstreamNotification) => void>();
  let end!: (e: ConnectionEnd) => void;
  const ended = new Promise<ConnectionEnd>((resolve) => end = resolve);
  let status = "working";
  const task = () => ({
    taskId: "srv-1",
    status,
    createdAt: "2026-01-01T00:00:00.000Z",
    lastUpdatedAt: "2026-01-01T00:00:00.000Z",
    ...(options.grantTtl === null ? {} : { ttl: options.grantTtl ?? 60_000 }),
    pollInterval: 100,
  });
  const conn: McpConnection = {
    protocolVersion: "2025-11-25",
    ended,
    stderrTail: () => [],
    listTools: () => Promise.resolve([]),
    callTool: () => Promise.reject(new Error("not used")),
    onToolsChanged: () => {},
    close: () => Promise.resolve(),
    capabilities: () =>
      options.capabilities ?? { tasks: { requests: { tools: { call: {} } }, cancel: {} } },
    onNotification(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    request(method, params) {
      sent.push({ method, params });
      if (method === "tools/call") return Promise.resolve({ task: task() });
      if (method === "tasks/get") return Promise.resolve(task());
      if (method === "tasks/cancel") {
        status = "cancelled";
        return Promise.resolve(task());
      }
      if (method === "tasks/result") {
        return Promise.resolve({
          content: [{ type: "text", text: "done" }],
          _meta: { "io.modelcontextprotocol/related-task": { taskId: "srv-1" } },
        });
      }
      return Promise.reject(new Error(`unexpected ${method}`));
    },
  };
  return {
    conn,
    sent,
    finish: (s: string) => status = s,
    notify: (params: Record<string, unknown>) => {
      for (const l of listeners) l({ method: "notifications/tasks/status", params });
    },
    end: () => end({ code: 1, signal: null, reason: "exited with status 1" }),
  };
}

function hold(conn: McpConnection, tool: Partial<ToolInfo> = {}) {
  const released: number[] = [];
  const h: TaskHold = {
    conn,
    namespace: "ns",
    tool: { name: "slow", inputSchema: {}, execution: { taskSupport: "optional" }, ...tool },
    serverTool: "slow",
    arguments: { a: 1 },
    instance: { id: "ns#1", pid: null, key: "global" },
    callTimeoutMs: 5000,
    release: () => released.push(1),
  };
  return { h, released };
}

Deno.test("checkTtl() refuses 0, under 1s and over 24h, naming the range", () => {
  for (const ms of [0, 999, 86_400_001, Infinity]) {
    assert.throws(() => checkTtl(ms), (e: McpxError) => {
      assert.equal(e.code, "USAGE");
      assert.match(e.message, /out of range: a task lives from 1s to 24h/);
      return true;
    });
  }
  assert.equal(checkTtl(1000), 1000);
  assert.equal(checkTtl(86_400_000), 86_400_000);
});

Deno.test("Tasks.start() sends the TTL, keeps a shorter grant, and hands back the lease at the end", async () => {
  const server = fakeServer({ grantTtl: 30_000 });
  const tasks = new Tasks();
  const { h, released } = hold(server.conn);
  const view = await tasks.start(h, 60_000);
  assert.deepEqual(server.sent[0], {
    method: "tools/call",
    params: { name: "slow", arguments: { a: 1 }, task: { ttl: 60_000 } },
  });
  assert.equal(view.ttlMs, 30_000, "the server's shorter TTL is the one kept");
  assert.equal(view.status, "working");
  assert.equal(view.leased, true);
  assert.equal(released.length, 0);
  // A status notification is heard; the result is fetched once the task has ended.
  server.finish("completed");
  server.notify({ taskId: "srv-1", status: "completed", lastUpdatedAt: "2026-01-01T00:00:01Z" });
  const out = await tasks.result(view.id);
  assert.equal(out.task.status, "completed");
  assert.deepEqual(out.raw, { content: [{ type: "text", text: "done" }] });
  assert.equal(released.length, 1, "released once");
  assert.equal(tasks.get(view.id).leased, false);
  tasks.close();
  assert.equal(released.length, 1);
});

Deno.test("Tasks.start() holds a server that grants no TTL, or a longer one, to the one asked", async () => {
  for (const grantTtl of [null, 10 * 86_400_000]) {
    const server = fakeServer({ grantTtl });
    const tasks = new Tasks();
    const view = await tasks.start(hold(server.conn).h, 120_000);
    assert.equal(view.ttlMs, 120_000);
    tasks.close();
  }
});

Deno.test("Tasks.start() refuses a server or a tool without task support, sending nothing", async () => {
  const tasks = new Tasks();
  const none = fakeServer({ capabilities: { tools: {} } });
  await assert.rejects(tasks.start(hold(none.conn).h, 60_000), (e: McpxError) => {
    assert.equal(e.code, "TASKS_UNSUPPORTED");
    assert.match(e.message, /Server "ns" does not run tool calls as tasks/);
    return true;
  });
  const server = fakeServer({});
  await assert.rejects(
    tasks.start(hold(server.conn, { execution: undefined }).h, 60_000),
    /Tool ns\.slow does not run as a task \(its execution\.taskSupport is "forbidden"\)/,
  );
  const modern = fakeServer({});
  (modern.conn as { protocolVersion?: string }).protocolVersion = "2026-07-28";
  await assert.rejects(tasks.start(hold(modern.conn).h, 60_000), /speaks 2026-07-28/);
  assert.deepEqual([...none.sent, ...server.sent, ...modern.sent], []);
  assert.deepEqual(tasks.list(), []);
});

Deno.test("Tasks: a process that ends under a running task fails it and frees the lease", async () => {
  const server = fakeServer({});
  const tasks = new Tasks();
  const { h, released } = hold(server.conn);
  const view = await tasks.start(h, 60_000);
  server.end();
  await assert.rejects(tasks.result(view.id), (e: McpxError) => {
    assert.equal(e.code, "TASK_ENDED");
    assert.match(
      e.message,
      /ended failed without a result: the server process ended before the task did \(exited with status 1\)/,
    );
    return true;
  });
  assert.equal(released.length, 1);
  tasks.close();
});

Deno.test("Tasks.cancel() cancels on the server; a second cancel and an unknown id are refused", async () => {
  const server = fakeServer({});
  const tasks = new Tasks();
  const { h, released } = hold(server.conn);
  const view = await tasks.start(h, 60_000);
  const cancelled = await tasks.cancel(view.id);
  assert.equal(cancelled.status, "cancelled");
  assert.ok(server.sent.some((m) => m.method === "tasks/cancel" && m.params?.taskId === "srv-1"));
  assert.equal(released.length, 1);
  await assert.rejects(tasks.cancel(view.id), /has already ended \(cancelled\)/);
  assert.throws(() => tasks.get("task_nope"), (e: McpxError) => e.code === "TASK_NOT_FOUND");
  tasks.close();
});

Deno.test("Tasks: past its TTL a running task is cancelled upstream, released and forgotten", async () => {
  const server = fakeServer({});
  const tasks = new Tasks();
  const { h, released } = hold(server.conn);
  const view = await tasks.start(h, 1000);
  // result() waits while it runs, and learns of the expiry.
  await assert.rejects(tasks.result(view.id), (e: McpxError) => {
    assert.equal(e.code, "TASK_NOT_FOUND");
    assert.match(e.message, /has expired: its TTL of 1s passed/);
    return true;
  });
  assert.ok(server.sent.some((m) => m.method === "tasks/cancel"));
  assert.equal(released.length, 1);
  assert.deepEqual(tasks.list(), []);
  tasks.close();
});

Deno.test("Tasks.start() refuses a task past the most one daemon holds", async () => {
  const tasks = new Tasks();
  const made: string[] = [];
  for (let i = 0; i < MAX_TASKS; i++) {
    made.push((await tasks.start(hold(fakeServer({}).conn).h, 60_000)).id);
  }
  assert.equal(new Set(made).size, MAX_TASKS);
  const extra = fakeServer({});
  await assert.rejects(tasks.start(hold(extra.conn).h, 60_000), (e: McpxError) => {
    assert.equal(e.code, "POOL_BUSY");
    assert.match(e.message, /holds 1000 tasks/);
    return true;
  });
  assert.deepEqual(extra.sent, [], "nothing was sent for the refused one");
  tasks.close();
});

Deno.test("Tasks keep their records in a file a later daemon reads back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/x.tasks.json`;
    const server = fakeServer({});
    const first = new Tasks({ file });
    const done = await first.start(hold(server.conn).h, 60_000);
    server.finish("completed");
    await first.result(done.id);
    const running = await first.start(hold(fakeServer({}).conn).h, 60_000);
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(Deno.statSync(file).mode! & 0o777, 0o600);
    first.close();

    // Read back: the finished one with its result, the running one failed; nothing leased.
    const kept = keptTasks(file);
    assert.deepEqual(
      kept.map((t) => [t.view.id, t.view.status]).sort(),
      [
        [done.id, "completed"],
        [running.id, "failed"],
      ].sort(),
    );
    const second = new Tasks({ file });
    assert.deepEqual((await second.result(done.id)).raw, {
      content: [{ type: "text", text: "done" }],
    });
    assert.match(second.get(running.id).statusMessage!, /the daemon that followed it stopped/);
    await assert.rejects(second.cancel(running.id), /has already ended \(failed\)/);
    second.close();
    // Past their TTLs they are not read back.
    assert.deepEqual(keptTasks(file, Date.now() + 61_000), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
