import assert from "node:assert/strict";
import { CODE_MS, isPagePath, UiGate } from "./ui_gate.ts";

const get = (path: string, token?: string, method = "GET") =>
  new Request(`http://127.0.0.1:1${path}`, {
    method,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

Deno.test("ui gate: a code buys one session, once, before it expires", () => {
  let now = 1_000;
  const gate = new UiGate(() => now);
  const { code, expiresInMs } = gate.issue();
  assert.equal(expiresInMs, CODE_MS);
  assert.match(code, /^[0-9a-f]{32}$/);
  const session = gate.exchange(code);
  assert.match(session!, /^[0-9a-f]{64}$/);
  assert.equal(gate.exchange(code), undefined, "a used code");
  assert.equal(gate.exchange("0".repeat(32)), undefined, "an unknown code");
  assert.ok(gate.holds(session!));
  assert.ok(!gate.holds(session!.slice(1)));

  const late = gate.issue().code;
  now += CODE_MS;
  assert.equal(gate.exchange(late), undefined, "an expired code");
});

Deno.test("ui gate: the page's files pass; a session reads only the page's routes, by GET", () => {
  const gate = new UiGate();
  const session = gate.exchange(gate.issue().code)!;
  for (const path of ["/ui", "/ui/", "/ui/app.js", "/ui/session"]) {
    assert.ok(isPagePath(path), path);
    assert.ok(gate.admits(get(path)), path);
  }
  assert.ok(!isPagePath("/uix"));
  for (const path of ["/v1/namespaces", "/v1/types/memory.read_graph", "/v1/log", "/v1/events"]) {
    assert.ok(gate.admits(get(path, session)), path);
    assert.ok(!gate.admits(get(path)), `${path} without the session`);
    assert.ok(!gate.admits(get(path, "f".repeat(64))), `${path} with another`);
  }
  for (const path of ["/v1/config", "/v1/daemons", "/mcp", "/v1/types/a/b"]) {
    assert.ok(!gate.admits(get(path, session)), path);
  }
  assert.ok(!gate.admits(get("/v1/stop", session, "POST")));
  assert.ok(!gate.admits(get("/v1/log", session, "POST")), "GET only");
});

Deno.test("ui gate: at most 32 sessions, the oldest dropped first", () => {
  const gate = new UiGate();
  const sessions = Array.from({ length: 33 }, () => gate.exchange(gate.issue().code)!);
  assert.ok(!gate.holds(sessions[0]));
  assert.ok(gate.holds(sessions[1]));
  assert.ok(gate.holds(sessions[32]));
});
