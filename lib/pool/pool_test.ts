import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import type { McpConnection } from "../mcp/types.ts";
import { serverDefs } from "../config/servers.ts";
import { Pool } from "./pool.ts";
import { scopeKey, scopeOf } from "./scope.ts";

/** In-process connections: each has its own id, and records whether it was closed. */
function fakes(options: { fail?: () => boolean; hangList?: () => boolean } = {}) {
  let made = 0;
  const closed: number[] = [];
  /** Ends a connection as if its process died. */
  const kills = new Map<number, () => void>();
  const connect = () => {
    if (options.fail?.()) {
      return Promise.reject(new McpxError("SERVER_START_FAILED", 'Cannot start server "s": boom'));
    }
    const id = ++made;
    let end!: (v: { code: null; signal: null; reason: string }) => void;
    const ended = new Promise<{ code: null; signal: null; reason: string }>((r) => (end = r));
    const conn: McpConnection & { id: number } = {
      id,
      pid: 1000 + id,
      ended,
      stderrTail: () => [],
      // A hanging list fails only when the connection ends, as a real one does.
      listTools: () =>
        options.hangList?.()
          ? ended.then((e) => {
            throw new McpxError(
              "SERVER_EXITED",
              `Server "s" ended while listing its tools: ${e.reason}`,
            );
          })
          : Promise.resolve([]),
      callTool: () => Promise.resolve({ content: [] }),
      onToolsChanged() {},
      close() {
        closed.push(id);
        end({ code: null, signal: null, reason: "closed" });
        return Promise.resolve();
      },
    };
    kills.set(id, () => end({ code: null, signal: null, reason: "killed" }));
    return Promise.resolve(conn);
  };
  return { connect, closed, made: () => made, kill: (id: number) => kills.get(id)!() };
}

function pool(
  mcpx: Record<string, unknown>,
  f: ReturnType<typeof fakes>,
  failed: McpxError[] = [],
): Pool {
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
    failed: (_pool, error) => failed.push(error),
  });
}

const key = (k: string, ephemeral = false) => ({ key: k, ephemeral });
const named = (k: string) => ({ key: k, ephemeral: false, pinned: true });
const tick = () => new Promise((r) => setTimeout(r, 0));

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
  assert.equal(p.waiting, 1);
  assert.equal(p.status().instances[0].waiting, 1);
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
  await assert.rejects(
    () => p.acquire(key("global"), 50),
    (e: McpxError) =>
      e.code === "POOL_BUSY" && /serves global: it takes one call at a time/.test(e.message),
  );
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

Deno.test("Pool: a process stopped while it starts is no failed start: no cooldown follows", async () => {
  let hang = true;
  const f = fakes({ hangList: () => hang });
  const failed: McpxError[] = [];
  const p = pool({ scope: "session" }, f, failed);
  const cutOff = p.acquire(key("session:a"), 1000);
  await tick();
  assert.equal(p.instances()[0]?.state, "starting");
  await p.stopAll("session a ended", (k) => k === "session:a");
  await assert.rejects(
    cutOff,
    (e: McpxError) =>
      e.code === "SERVER_EXITED" &&
      /^The process of "s" for session "a" was stopped before it was ready \(session a ended\)$/
        .test(e.message),
  );
  assert.deepEqual(failed, [], "no listing failure is recorded");
  assert.equal(p.status().state, "ready");
  hang = false;
  const lease = await p.acquire(key("session:b"), 1000);
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
  const [session] = serverDefs({
    path: "/p/.mcpx.json",
    mcpServers: {
      s: { command: "x", env: { T: "${TOKEN}" }, mcpx: { envFrom: "caller", scope: "session" } },
    },
    pool: {},
    data: {},
  });
  const k = scopeKey(session, { session: "abc", env: { TOKEN: "a" } }, none);
  assert.equal(scopeOf(k.key), "session:abc", "restart and end-session still find its session");
  assert.equal(scopeOf("global"), "global");
});

Deno.test("Pool: a release wakes a caller waiting for room under max", async () => {
  const f = fakes();
  const p = pool({ sharing: "exclusive", scope: "session", max: 1 }, f);
  const a = await p.acquire(key("session:a"), 1000);
  const waiting = p.acquire(key("session:b"), 5000);
  await tick();
  assert.equal(p.waiting, 1, "b waits: a's process is busy");
  a.release();
  const b = await waiting;
  assert.equal(b.instance.key, "session:b");
  assert.deepEqual(f.closed, [1], "a's idle process made room");
  b.release();
  await p.stopAll("test");
});

Deno.test("Pool: waiters are served first come first served, newcomers behind them", async () => {
  const f = fakes();
  const p = pool({ sharing: "exclusive", scope: "session", max: 1 }, f);
  const order: string[] = [];
  const held = await p.acquire(key("session:a"), 1000);
  const leases = ["b", "c", "d"].map((k) =>
    p.acquire(key(`session:${k}`), 5000).then((l) => {
      order.push(k);
      return l;
    })
  );
  await tick();
  // A newcomer for b's key arrives last: it must not overtake c and d.
  const late = p.acquire(key("session:b"), 5000).then((l) => {
    order.push("b2");
    return l;
  });
  await tick();
  assert.equal(p.status().queue.waiting, 4);
  held.release();
  for (const l of leases) (await l).release();
  (await late).release();
  assert.deepEqual(order, ["b", "c", "d", "b2"]);
  await p.stopAll("test");
});

Deno.test("Pool: a wait for room that runs out names the sessions holding the processes", async () => {
  const f = fakes();
  const p = pool({ scope: "session", max: 2 }, f);
  const a = await p.acquire(named("session:a"), 1000);
  const b = await p.acquire(key("session:b"), 1000);
  const error = await p.acquire(key("session:c"), 30).catch((e) => e);
  assert.ok(error instanceof McpxError);
  assert.equal(error.code, "POOL_BUSY");
  assert.match(
    error.message,
    /^Waited 30ms for a process of "s": all 2 \(max 2\) are held, by session "a" \(busy\), session "b" \(busy\)$/,
  );
  assert.match(error.hint, /Raise max \(now 2\)/);
  assert.equal(p.status().queue.waiting, 0, "the timed-out caller left the queue");
  a.release();
  b.release();
  await p.stopAll("test");
});

Deno.test("Pool: a named session's idle process is never stopped to make room", async () => {
  const f = fakes();
  const p = pool({ sharing: "exclusive", scope: "session", max: 1 }, f);
  (await p.acquire(named("session:mine"), 1000)).release();
  const error = await p.acquire(key("session:other"), 30).catch((e) => e);
  assert.equal(error.code, "POOL_BUSY");
  assert.match(error.message, /session "mine" \(idle, named\)/);
  assert.deepEqual(f.closed, [], "the named session kept its process");
  assert.deepEqual(p.instances().map((i) => i.key), ["session:mine"]);
  await p.stopAll("test");
});

Deno.test("Pool: a wait behind named sessions' idle processes names the policy and pool.evictNamed", async () => {
  const f = fakes();
  const p = pool({ sharing: "exclusive", scope: "session", max: 1 }, f);
  (await p.acquire(named("session:mine"), 1000)).release();
  const error = await p.acquire(named("session:other"), 30).catch((e) => e);
  assert.equal(error.code, "POOL_BUSY");
  assert.match(error.hint, /named session's idle process is never stopped to make room/);
  assert.match(error.hint, /pool\.evictNamed=true/);
  await p.stopAll("test");
});

Deno.test("Pool: with evictNamed a named session's idle process is stopped to make room, least recently used first, and told", async () => {
  const f = fakes();
  const p = pool({ sharing: "exclusive", scope: "session", max: 2, evictNamed: true }, f);
  (await p.acquire(named("session:a"), 1000)).release();
  await new Promise((r) => setTimeout(r, 5));
  const b = await p.acquire(named("session:b"), 1000);
  b.release();
  assert.deepEqual(p.status().instances.map((i) => i.pinned), [false, false], "status is true");
  const c = await p.acquire(named("session:c"), 1000);
  assert.deepEqual(f.closed, [1], "a, the least recently used, made room");
  assert.deepEqual(p.instances().map((i) => i.key).sort(), ["session:b", "session:c"]);
  // A busy one is never stopped: with b and c leased, a waits.
  const held = await p.acquire(named("session:b"), 1000);
  const error = await p.acquire(named("session:a"), 30).catch((e) => e);
  assert.equal(error.code, "POOL_BUSY");
  held.release();
  c.release();
  const again = await p.acquire(named("session:a"), 1000);
  assert.equal(again.restarted, 'stopped to make room for session "c" (max 2)');
  again.release();
  await p.stopAll("test");
});

Deno.test("Pool: a session whose process was stopped to make room is told at its next lease", async () => {
  const f = fakes();
  const p = pool({ sharing: "exclusive", scope: "session", max: 1 }, f);
  const first = await p.acquire(key("session:a"), 1000);
  assert.equal(first.restarted, undefined, "a first start is no restart");
  first.release();
  (await p.acquire(key("session:b"), 1000)).release();
  const again = await p.acquire(key("session:a"), 1000);
  assert.equal(again.restarted, 'stopped to make room for session "b" (max 1)');
  again.release();
  const third = await p.acquire(key("session:a"), 1000);
  assert.equal(third.restarted, undefined, "told once");
  third.release();
  await p.stopAll("test");
});

Deno.test("Pool: a session whose process exited while idle is told at its next lease", async () => {
  const f = fakes();
  const p = pool({ scope: "session" }, f);
  (await p.acquire(named("session:a"), 1000)).release();
  f.kill(1);
  await tick();
  assert.equal(p.instances().length, 0);
  const lease = await p.acquire(named("session:a"), 1000);
  assert.equal(lease.restarted, "its process exited (killed)");
  lease.release();
  await p.stopAll("test");
});

Deno.test("Pool.close() fails queued callers at once and starts nothing more", async () => {
  const f = fakes();
  const p = pool({ sharing: "exclusive", scope: "session", max: 1 }, f);
  const held = await p.acquire(key("session:a"), 1000);
  const queued = [
    p.acquire(key("session:a"), 60_000).catch((e) => e),
    p.acquire(key("session:b"), 60_000).catch((e) => e),
  ];
  await tick();
  p.close("signal");
  for (const error of await Promise.all(queued)) {
    assert.ok(error instanceof McpxError);
    assert.equal(error.code, "DAEMON_STOPPING");
    assert.equal(
      error.message,
      'Cannot lease a process of "s": the daemon is stopping (signal)',
    );
  }
  held.release();
  await assert.rejects(() => p.acquire(key("session:c"), 1000), /the daemon is stopping/);
  assert.equal(f.made(), 1, "no process started after close");
  assert.equal(p.status().state, "stopping");
  await p.stopAll("test");
});

Deno.test("Pool.close() abandons a start under way, and records no start failure", async () => {
  const [def] = serverDefs({ path: "c", mcpServers: { s: { command: "x" } }, pool: {}, data: {} });
  const failures: string[] = [];
  const p = new Pool(def, {
    // A server that never answers initialize: only the signal ends its start.
    connect: (_spec, _ms, signal) =>
      new Promise((_resolve, reject) =>
        signal!.addEventListener("abort", () => reject(signal!.reason), { once: true })
      ),
    spec: () => ({
      name: "s",
      transport: "stdio",
      args: [],
      env: {},
      headers: {},
      protocol: "legacy",
    }),
    log() {},
    failed: (_pool, error) => failures.push(error.message),
  });
  const pending = p.acquire(key("global"), 1000).catch((e) => e);
  await tick();
  assert.equal(p.instances()[0].state, "starting");
  p.close("signal");
  await p.stopAll("test");
  const error = await pending;
  assert.equal(error.code, "DAEMON_STOPPING");
  assert.deepEqual(failures, [], "the server did not fail: the daemon stopped");
  assert.equal(p.status().error, undefined);
  assert.equal(p.instances().length, 0);
});

Deno.test("Pool: after many sessions come and go its tables are back to their size", async () => {
  const f = fakes();
  const p = pool({ sharing: "exclusive", scope: "session", max: 3 }, f);
  const before = p.tables();
  // 40 sessions, 5 at a time, each making 3 calls: nearly every start stops another's process.
  for (let round = 0; round < 8; round++) {
    const sessions = Array.from({ length: 5 }, (_, i) => `session:r${round}s${i}`);
    await Promise.all(sessions.map(async (k) => {
      for (let call = 0; call < 3; call++) (await p.acquire(key(k), 5000)).release();
    }));
    f.kill(f.made()); // and one process dies under its session
    await tick();
  }
  const during = p.tables();
  assert.equal(during.queue, 0);
  assert.ok(during.instances <= 3);
  assert.ok(during.lost > 0, "sessions whose process went are remembered until they end");
  // Each session ends (what `mcpx run` does as its script finishes).
  for (let round = 0; round < 8; round++) {
    for (let i = 0; i < 5; i++) p.forget((k) => k === `session:r${round}s${i}`);
  }
  await p.stopAll("test");
  assert.deepEqual(p.tables(), before);
  assert.equal(f.closed.length + 8, f.made(), "every process but the killed ones was stopped");
});

Deno.test("Pool: sessions that never end are remembered up to a bound", async () => {
  const f = fakes();
  const p = pool({ scope: "session", max: 1 }, f);
  for (let i = 0; i < 4200; i++) (await p.acquire(key(`session:${i}`), 1000)).release();
  const { lost, instances } = p.tables();
  assert.equal(instances, 1);
  assert.equal(lost, 4096, "the oldest of 4199 stopped sessions were dropped");
  await p.stopAll("test");
});
