import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import type { McpConnection } from "../mcp/types.ts";
import { serverDefs } from "../config/servers.ts";
import { Pool } from "./pool.ts";
import { scopeKey } from "./scope.ts";

/** In-process connections: each has its own id, and records whether it was closed. */
function fakes(options: { fail?: () => boolean } = {}) {
  let made = 0;
  const closed: number[] = [];
  const connect = () => {
    if (options.fail?.()) {
      return Promise.reject(new McpxError("SERVER_START_FAILED", 'Cannot start server "s": boom'));
    }
    const id = ++made;
    let end!: (v: { code: null; signal: null; reason: string }) => void;
    const conn: McpConnection & { id: number } = {
      id,
      pid: 1000 + id,
      ended: new Promise((r) => (end = r)),
      stderrTail: () => [],
      listTools: () => Promise.resolve([]),
      callTool: () => Promise.resolve({ content: [] }),
      onToolsChanged() {},
      close() {
        closed.push(id);
        end({ code: null, signal: null, reason: "closed" });
        return Promise.resolve();
      },
    };
    return Promise.resolve(conn);
  };
  return { connect, closed, made: () => made };
}

function pool(mcpx: Record<string, unknown>, f: ReturnType<typeof fakes>): Pool {
  const [def] = serverDefs({
    path: "c",
    mcpServers: { s: { command: "x", mcpx } },
    pool: {},
    data: {},
  });
  return new Pool(def, {
    connect: f.connect,
    spec: () => ({
      name: "s",
      transport: "stdio",
      args: [],
      env: {},
      headers: {},
      protocol: "legacy",
    }),
    log() {},
  });
}

const key = (k: string, ephemeral = false) => ({ key: k, ephemeral });

Deno.test("Pool.acquire() under shared sharing serves concurrent callers from one process", async () => {
  const f = fakes();
  const p = pool({}, f);
  const [a, b] = await Promise.all([
    p.acquire(key("global"), 1000),
    p.acquire(key("global"), 1000),
  ]);
  assert.equal(a.instance, b.instance);
  assert.equal(a.instance.leases, 2);
  assert.equal(f.made(), 1);
  a.release();
  b.release();
  await p.stopAll("test");
});

Deno.test("Pool.acquire() under exclusive sharing queues a second caller of the same key", async () => {
  const f = fakes();
  const p = pool({ sharing: "exclusive", scope: "session" }, f);
  const first = await p.acquire(key("session:a"), 1000);
  let second: Awaited<ReturnType<Pool["acquire"]>> | undefined;
  const waiting = p.acquire(key("session:a"), 1000).then((l) => (second = l));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(second, undefined, "the second caller waits");
  assert.equal(first.instance.waiters.length, 1);
  first.release();
  await waiting;
  assert.equal(second!.instance, first.instance, "then gets the same process, not another");
  const other = await p.acquire(key("session:b"), 1000);
  assert.notEqual(other.instance, first.instance, "another key gets its own process");
  second!.release();
  other.release();
  await p.stopAll("test");
});

Deno.test("Pool.acquire() times out a queued caller with a clear error", async () => {
  const f = fakes();
  const p = pool({ sharing: "exclusive" }, f);
  const held = await p.acquire(key("global"), 1000);
  await assert.rejects(() => p.acquire(key("global"), 50), /stayed busy for 50 ms/);
  held.release();
  await p.stopAll("test");
});

Deno.test("Pool.acquire() past max stops the least recently used idle process", async () => {
  const f = fakes();
  const p = pool({ scope: "session", max: 2 }, f);
  const a = await p.acquire(key("session:a"), 1000);
  a.release();
  await new Promise((r) => setTimeout(r, 5));
  const b = await p.acquire(key("session:b"), 1000);
  b.release();
  const c = await p.acquire(key("session:c"), 1000);
  assert.deepEqual(f.closed, [1], "a, the least recently used, was stopped");
  assert.deepEqual(p.instances().map((i) => i.key).sort(), ["session:b", "session:c"]);
  c.release();
  await p.stopAll("test");
});

Deno.test("Pool: an ephemeral key's process stops when its lease is released", async () => {
  const f = fakes();
  const p = pool({ scope: "call" }, f);
  const lease = await p.acquire(key("call:1", true), 1000);
  lease.release();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(f.closed, [1]);
  assert.equal(p.instances().length, 0);
});

Deno.test("Pool: a failed start cools down, doubling, until a start succeeds", async () => {
  let failing = true;
  const f = fakes({ fail: () => failing });
  const p = pool({}, f);
  await assert.rejects(() => p.acquire(key("global"), 1000), /boom$/);
  await assert.rejects(() => p.acquire(key("global"), 1000), /boom \(retrying in 1s\)/);
  assert.equal(p.status().state, "error");
  p.clearCooldown();
  failing = false;
  const lease = await p.acquire(key("global"), 1000);
  assert.equal(p.status().state, "ready");
  lease.release();
  await p.stopAll("test");
});

Deno.test("Pool.reap() stops idle processes past idleTimeout but keeps min", async () => {
  const f = fakes();
  const p = pool({ scope: "session", idleTimeout: "1ms", min: 1 }, f);
  for (const k of ["a", "b", "c"]) (await p.acquire(key(`session:${k}`), 1000)).release();
  await p.reap(Date.now() + 1000, () => true);
  assert.equal(p.instances().length, 1);
  await p.stopAll("test");
});

Deno.test('scopeKey() keys an "envFrom": "caller" server by the values its references read', () => {
  const [def] = serverDefs({
    path: "/p/.mcpx.json",
    mcpServers: { c: { command: "x", env: { T: "${TOKEN}" }, mcpx: { envFrom: "caller" } } },
    pool: {},
    data: {},
  });
  const none = () => undefined;
  const a = scopeKey(def, { env: { TOKEN: "a", OTHER: "ignored" } }, none);
  const a2 = scopeKey(def, { env: { TOKEN: "a" } }, none);
  const b = scopeKey(def, { env: { TOKEN: "b" } }, none);
  assert.deepEqual(a.env, { TOKEN: "a" }, "only what it references");
  assert.equal(a.key, a2.key);
  assert.notEqual(a.key, b.key);
  assert.match(a.key, /^global\|env:[0-9a-f]{16}$/);
});
