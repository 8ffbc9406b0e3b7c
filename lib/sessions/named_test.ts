import assert from "node:assert/strict";
import { join } from "node:path";
import { McpxError } from "../errors.ts";
import {
  checkName,
  holderOf,
  NamedSessions,
  type NamedSessionsDeps,
  parseTtl,
  SESSIONS_VERSION,
} from "./named.ts";

/** A store over a file in a fresh folder, a clock the test moves, and what it asked for. */
function harness(dir: string, daemon = { pid: 1, startedAt: "2026-01-01T00:00:00.000Z" }) {
  const clock = { now: Date.parse("2026-01-01T00:00:00.000Z") };
  const stopped: string[] = [];
  const logged: string[] = [];
  const live = new Map<string, { server: string; instance: string; pid: number | null }[]>();
  const deps: NamedSessionsDeps = {
    path: join(dir, "x.sessions.json"),
    daemon,
    now: () => clock.now,
    log: (_l, event) => void logged.push(event),
    stop: (name) => {
      stopped.push(name);
      live.delete(name);
      return Promise.resolve(1);
    },
    instances: () => live,
  };
  return { deps, clock, stopped, logged, live };
}

function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof McpxError ? e.code : "other";
  }
  return undefined;
}

Deno.test("checkName() takes letters, digits, . _ - up to 64 and refuses minted prefixes", () => {
  assert.equal(checkName("login-flow.v2_a"), "login-flow.v2_a");
  for (const bad of ["", "-x", "a b", "x".repeat(65), "é", "run-1", "mcp-2"]) {
    assert.equal(code(() => checkName(bad)), "USAGE", bad);
  }
});

Deno.test("parseTtl() keeps a TTL within 1s..30d and names the range otherwise", () => {
  assert.equal(parseTtl("2h"), 7_200_000);
  assert.equal(parseTtl("1s"), 1000);
  assert.equal(parseTtl("30d"), 30 * 86_400_000);
  assert.equal(parseTtl("5000"), 5000);
  for (const bad of ["0", "999ms", "31d", "36500d", "soon"]) {
    assert.throws(
      () => parseTtl(bad),
      (e: McpxError) => e.code === "USAGE" && /1s to 30d/.test(`${e.message} ${e.hint}`),
      bad,
    );
  }
});

Deno.test("holderOf() is MCPX_SESSION_HOLDER, else the harness's session id, else the process", () => {
  assert.equal(holderOf({ holder: "agent-a", pid: 4 }), "agent-a");
  assert.equal(holderOf({ pid: 4 }), "pid:4");
  assert.equal(holderOf({ pid: 4, ids: { session: ["agent-1", "x"] } }), "harness:agent-1");
  assert.equal(holderOf({ holder: "h", ids: { session: "agent-1" } }), "h");
});

Deno.test("NamedSessions: a record is written 0600, versioned, and a second of a name refused", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const h = harness(dir);
    const s = new NamedSessions(h.deps);
    s.create("a", 60_000, { pid: 7, cwd: "/w", holder: "me" });
    assert.equal(code(() => s.create("a", 60_000, {})), "SESSION_EXISTS");
    const file = JSON.parse(Deno.readTextFileSync(h.deps.path));
    assert.equal(file.version, SESSIONS_VERSION);
    assert.equal(file.sessions[0].createdBy.holder, "me");
    assert.equal(Deno.statSync(h.deps.path).mode! & 0o777, 0o600);
    s.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("NamedSessions: the TTL counts from the last call and stops the servers once run out", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const h = harness(dir);
    const s = new NamedSessions(h.deps);
    s.create("a", 10_000, {});
    h.clock.now += 8_000;
    assert.equal(s.enter({ session: "a" }), undefined);
    s.leave({ session: "a" });
    h.clock.now += 8_000; // 16 s after creation, 8 s after the call
    assert.equal(s.show("a").state, "open");
    h.clock.now += 3_000;
    assert.equal(code(() => s.enter({ session: "a" })), "NOT_FOUND");
    assert.deepEqual(h.stopped, ["a"]);
    assert.equal(s.show("a").state, "expired");
    // An expired name may be created again.
    s.create("a", 10_000, {});
    assert.equal(s.show("a").state, "open");
    s.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("NamedSessions: a call in flight is not expired under it", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const h = harness(dir);
    const s = new NamedSessions(h.deps);
    s.create("a", 1_000, {});
    s.enter({ session: "a" });
    h.clock.now += 5_000;
    s.enter({ session: "a" }); // a second call of the same session while the first runs
    assert.deepEqual(h.stopped, []);
    s.leave({ session: "a" });
    s.leave({ session: "a" });
    s.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("NamedSessions: another daemon's record says its servers were lost, once per call", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const first = harness(dir);
    const a = new NamedSessions(first.deps);
    a.create("a", 60_000, {});
    first.live.set("a", [{ server: "browser", instance: "browser#1", pid: 99 }]);
    a.refresh();
    a.close();
    const second = harness(dir, { pid: 2, startedAt: "2026-01-01T01:00:00.000Z" });
    const b = new NamedSessions(second.deps);
    const shown = b.show("a");
    assert.deepEqual(shown.servers, []);
    assert.match(
      shown.notes[0],
      /its servers \(browser\) did not survive the daemon restart at 2026-01-01T01:00:00.000Z/,
    );
    assert.match(b.enter({ session: "a" })!, /did not survive the daemon restart/);
    b.leave({ session: "a" });
    assert.equal(b.enter({ session: "a" }), undefined, "said once");
    b.leave({ session: "a" });
    b.close();
    // The same daemon reading its own file again loses nothing.
    const third = harness(dir, { pid: 2, startedAt: "2026-01-01T01:00:00.000Z" });
    second.live.set("a", [{ server: "browser", instance: "browser#2", pid: 100 }]);
    const c = new NamedSessions({ ...third.deps, instances: () => second.live });
    c.refresh();
    c.close();
    const d = new NamedSessions(third.deps);
    assert.equal(d.show("a").servers.length, 1);
    d.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("NamedSessions: a take-over refuses every other caller, and the taker may call", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const h = harness(dir);
    const s = new NamedSessions(h.deps);
    s.create("a", 60_000, { holder: "one" });
    // Before a take-over anyone joins.
    assert.equal(s.enter({ session: "a", holder: "two" }), undefined);
    s.leave({ session: "a", holder: "two" });
    s.attach("a", "take", { holder: "two" });
    assert.equal(code(() => s.enter({ session: "a", holder: "one" })), "SESSION_TAKEN");
    assert.equal(s.enter({ session: "a", holder: "two" }), undefined);
    s.leave({ session: "a", holder: "two" });
    assert.deepEqual(s.show("a").takenOver?.from, "one");
    assert.equal(code(() => s.attach("nobody", "watch", {})), "NOT_FOUND");
    s.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("NamedSessions: a file of another version is moved aside, never overwritten", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const h = harness(dir);
    Deno.writeTextFileSync(h.deps.path, JSON.stringify({ version: 99, sessions: [] }));
    const s = new NamedSessions(h.deps);
    assert.deepEqual(s.list(), []);
    assert.ok(h.logged.includes("session.file_unreadable"));
    const aside = [...Deno.readDirSync(dir)].filter((e) => e.name.includes(".unreadable-"));
    assert.equal(aside.length, 1);
    s.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
