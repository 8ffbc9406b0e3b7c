import assert from "node:assert/strict";
import type { McpConnection } from "../mcp/types.ts";
import { serverDefs } from "../config/servers.ts";
import { McpxError } from "../errors.ts";
import { REFRESH_PARALLEL, Registry, summarize, summarizeResult } from "./registry.ts";

/** In-process connections that record which were closed. */
function fakes() {
  let made = 0;
  const closed: number[] = [];
  const connect = () => {
    const id = ++made;
    let end!: (v: { code: null; signal: null; reason: string }) => void;
    const conn: McpConnection = {
      pid: 1000 + id,
      ended: new Promise((r) => (end = r)),
      stderrTail: () => [],
      listTools: () => Promise.resolve([]),
      callTool: () => Promise.resolve({ content: [] }),
      onToolsChanged() {},
      close() {
        closed.push(1000 + id);
        end({ code: null, signal: null, reason: "closed" });
        return Promise.resolve();
      },
    };
    return Promise.resolve(conn);
  };
  return { connect, closed };
}

const defs = (servers: Record<string, unknown>, pool: Record<string, unknown> = {}) =>
  serverDefs({ path: "c", mcpServers: servers, pool, data: {} });

function registry(
  servers: Record<string, unknown>,
  f: ReturnType<typeof fakes>,
  pool: Record<string, unknown> = {},
): Registry {
  return new Registry(defs(servers, pool), {
    connect: f.connect,
    spec: (def) => ({
      name: def.name,
      transport: "stdio",
      args: [],
      env: {},
      headers: {},
      protocol: "legacy",
    }),
    discover: () => undefined,
    log() {},
    trace: false,
    reapIntervalMs: 60_000,
    alive: () => true,
  });
}

/** The pid serving `name`'s global key, starting it if needed. */
async function pidOf(r: Registry, name: string): Promise<number> {
  const lease = await r.entry(name).pool.acquire({ key: "global", ephemeral: false }, 1000);
  lease.release();
  return lease.instance.pid!;
}

Deno.test("Registry.reconfigure() keeps the processes of servers whose identity is unchanged", async () => {
  const f = fakes();
  const r = registry({ a: { command: "x" }, b: { command: "y" } }, f);
  const a = await pidOf(r, "a");
  const b = await pidOf(r, "b");
  const out = await r.reconfigure(
    defs({
      a: { command: "x", mcpx: { description: "now described" } },
      b: { command: "y", args: ["--other"] },
      c: { command: "z" },
    }),
    undefined,
  );
  assert.deepEqual(out, { kept: ["a"], stopped: ["b"] });
  assert.deepEqual(f.closed, [b], "only the changed server's process was stopped");
  assert.equal(await pidOf(r, "a"), a, "the same process serves a");
  assert.notEqual(await pidOf(r, "b"), b, "b starts its new definition");
  assert.equal(r.entry("a").def.description, "now described", "the new entry is served");
  await pidOf(r, "c");
  await r.close();
});

Deno.test("Registry.reconfigure() keeps a renamed server's process, stops a disabled or removed one", async () => {
  const f = fakes();
  const r = registry({ a: { command: "x" }, b: { command: "y" }, c: { command: "z" } }, f);
  const a = await pidOf(r, "a");
  const b = await pidOf(r, "b");
  const c = await pidOf(r, "c");
  const out = await r.reconfigure(
    defs({ renamed: { command: "x" }, b: { command: "y", disabled: true } }),
    undefined,
  );
  assert.deepEqual(out.stopped.sort(), ["b", "c"]);
  assert.deepEqual(f.closed.sort(), [b, c].sort());
  assert.equal(await pidOf(r, "renamed"), a);
  assert.throws(() => r.entry("c"), /No server "c"/);
  assert.throws(() => r.entry("b"), /disabled/);
  await r.close();
});

Deno.test("Registry.entry() says how to use a server disabled by its own entry or by the pool block", async () => {
  const r = registry(
    { own: { command: "x", mcpx: { disabled: true } }, pooled: { command: "y" } },
    fakes(),
    { disabled: true },
  );
  const hint = (name: string) => {
    try {
      r.entry(name);
    } catch (e) {
      assert.ok(e instanceof McpxError);
      assert.equal(e.code, "SERVER_NOT_FOUND");
      assert.match(e.message, /is disabled in the configuration/);
      return e.hint;
    }
    assert.fail(`${name} is not disabled`);
  };
  assert.equal(hint("own"), 'Remove "disabled" from its entry to use it');
  assert.equal(
    hint("pooled"),
    'Write "mcpx": { "disabled": false } in its entry, or remove "disabled" from the top-level "pool" block',
  );
  await r.close();
});

Deno.test("summarize() and summarizeResult() keep what a watcher reads short and on one line", () => {
  assert.equal(summarize({ key: "k" }), '{"key":"k"}');
  assert.equal(summarize("a\n  b"), "a b");
  const long = summarize("x".repeat(10_000_000));
  assert.equal(long.length, 200);
  assert.ok(long.endsWith("…"));
  assert.equal(
    summarizeResult({ content: [{ type: "text", text: "hello\nworld" }] }),
    "hello world",
  );
  assert.equal(summarizeResult({ content: [], structuredContent: { n: 1 } }), '{"n":1}');
  assert.equal(summarizeResult({ content: [{ type: "image", data: "AAAA" }] }), "[image]");
});

Deno.test("Registry.refresh() starts every server, at most REFRESH_PARALLEL at once", async () => {
  const f = fakes();
  let starting = 0;
  let most = 0;
  const held: (() => void)[] = [];
  const count = REFRESH_PARALLEL + 4;
  const servers = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`s${i}`, { command: `x${i}` }]),
  );
  const r = new Registry(defs(servers), {
    // Each start waits until the test lets it through, so the starts under way can be counted.
    connect: async () => {
      starting++;
      most = Math.max(most, starting);
      await new Promise<void>((go) => held.push(go));
      starting--;
      return f.connect();
    },
    spec: (def) => ({
      name: def.name,
      transport: "stdio",
      args: [],
      env: {},
      headers: {},
      protocol: "legacy",
    }),
    discover: () => undefined,
    log() {},
    trace: false,
    reapIntervalMs: 60_000,
    alive: () => true,
  });
  let done = false;
  const refreshed = r.refresh().finally(() => done = true);
  while (!done) {
    await new Promise((t) => setTimeout(t, 0));
    held.shift()?.();
  }
  const out = await refreshed;
  assert.equal(most, REFRESH_PARALLEL);
  assert.deepEqual(out.map((s) => s.error), Array(count).fill(undefined));
  assert.equal(out.length, count);
  await r.close();
});
