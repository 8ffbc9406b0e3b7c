/**
 * `mcpx stats --opencode` over a fixture opencode database the test writes into the sandbox's
 * HOME (the layout opencode keeps: project, session, message and part tables with JSON `data`).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { Sandbox } from "../_helpers.ts";
import { wireRequest } from "../../lib/daemon/wire.ts";

type Rec = Record<string, unknown>;
const T0 = Date.parse("2026-11-02T10:00:00Z");
const DAY = 86_400_000;

function fixture(path: string, opts: { noPartTable?: boolean } = {}) {
  Deno.mkdirSync(join(path, ".."), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec(`
    CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL);
    CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, title TEXT,
      directory TEXT, time_created INTEGER);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);
    ${
    opts.noPartTable ? "" : `CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT,
      session_id TEXT, time_created INTEGER, data TEXT);`
  }
  `);
  db.prepare("INSERT INTO project VALUES (?, ?)").run("p1", "/src/app");
  db.prepare("INSERT INTO project VALUES (?, ?)").run("p2", "/src/lib");
  const ses = db.prepare("INSERT INTO session VALUES (?, ?, ?, ?, ?, ?)");
  ses.run("s1", "p1", null, "fix the build", "/src/app", T0);
  ses.run("s2", "p1", "s1", "subagent: explore", "/src/app", T0 + 1000);
  ses.run("s3", "p2", null, "old one", "/src/lib", T0 - 10 * DAY);
  const msg = db.prepare("INSERT INTO message VALUES (?, ?, ?, ?)");
  const assistant = (agent: string, model: string, input: number, output: number, cost: number) =>
    JSON.stringify({
      role: "assistant",
      agent,
      providerID: "anthropic",
      modelID: model,
      cost,
      tokens: { input, output, reasoning: 0, cache: { read: 100, write: 0 } },
    });
  msg.run("m1", "s1", T0, JSON.stringify({ role: "user", agent: "build" }));
  msg.run("m2", "s1", T0 + 10, assistant("build", "claude-a", 1000, 200, 0.5));
  msg.run("m3", "s1", T0 + 20, assistant("build", "claude-a", 2000, 300, 1.25));
  msg.run("m4", "s2", T0 + 30, assistant("explore", "claude-b", 500, 50, 0.1));
  msg.run("m5", "s3", T0 - 10 * DAY, assistant("build", "claude-b", 10, 5, 0.01));
  msg.run("m6", "s3", T0 - 10 * DAY + 5, "not json");
  if (!opts.noPartTable) {
    const part = db.prepare("INSERT INTO part VALUES (?, ?, ?, ?, ?)");
    const tool = (
      tool: string,
      input: Rec,
      output: string,
      start: number,
      ms: number,
      status = "completed",
    ) =>
      JSON.stringify({
        type: "tool",
        tool,
        callID: "c",
        state: { status, input, output, time: { start, end: start + ms } },
      });
    part.run("a1", "m2", "s1", T0 + 11, tool("bash", { command: "mcpx ls" }, "abcd", T0 + 11, 40));
    part.run(
      "a2",
      "m2",
      "s1",
      T0 + 12,
      tool("bash", { command: "cd /src && mcpx call fixture.echo text=hi" }, "héllo", T0 + 12, 100),
    );
    part.run(
      "a3",
      "m3",
      "s1",
      T0 + 21,
      tool("bash", { command: "mcpx call fixture.echo text=x" }, "", T0 + 21, 300, "error"),
    );
    part.run("a4", "m3", "s1", T0 + 22, tool("bash", { command: "ls -la" }, "x", T0 + 22, 5));
    part.run("a5", "m4", "s2", T0 + 31, tool("read", { filePath: "/a" }, "x", T0 + 31, 5));
    part.run("a6", "m4", "s2", T0 + 32, tool("mcpx_search", { query: "x" }, "xy", T0 + 32, 7));
    part.run("t1", "m2", "s1", T0 + 13, JSON.stringify({ type: "text", text: '"tool"' }));
  }
  db.close();
}

const dbPath = (b: Sandbox) => join(b.env.HOME, ".local", "share", "opencode", "opencode.db");

Deno.test("stats --opencode: reports over opencode's database, opened read-only", async () => {
  await using b = await Sandbox.create();
  fixture(dbPath(b));
  const before = Deno.readFileSync(dbPath(b));
  const rows = async (...args: string[]) =>
    (await b.json<{ rows: Rec[] }>(["stats", "--opencode", ...args])).rows;

  const [overview] = await rows();
  assert.equal(overview.sessions, 3);
  assert.equal(overview.subagentSessions, 1);
  assert.equal(overview.messages, 6);
  assert.equal(overview.tokensIn, 3510);
  assert.equal(overview.cost, 1.86);
  assert.equal(overview.toolCalls, 6);
  assert.equal(overview.mcpxCalls, 4);

  const agents = await rows("agents");
  assert.deepEqual(agents.map((r) => [r.agent, r.messages, r.sessions]), [
    ["build", 3, 2],
    ["explore", 1, 1],
  ]);
  const models = await rows("models");
  assert.deepEqual(models.map((r) => [r.model, r.tokensOut]), [
    ["anthropic/claude-a", 500],
    ["anthropic/claude-b", 55],
  ]);
  const projects = await rows("projects");
  assert.deepEqual(projects.map((r) => [r.project, r.sessions]), [["/src/app", 2], [
    "/src/lib",
    1,
  ]]);
  const sessions = await rows("sessions", "--limit", "2");
  assert.deepEqual(sessions.map((r) => [r.session, r.parent, r.mcpxCalls]), [
    ["s1", null, 3],
    ["s2", "s1", 1],
  ]);
  const activity = await rows("activity");
  assert.deepEqual(activity.map((r) => [r.day, r.messages, r.mcpxCalls]), [
    ["2026-10-23", 2, 0],
    ["2026-11-02", 4, 4],
  ]);

  const mcpx = await rows("mcpx");
  assert.deepEqual(mcpx.map((r) => [r.command, r.calls, r.errors, r.outputBytes, r.totalMs]), [
    ["call fixture.echo", 2, 1, 6, 400],
    ["ls", 1, 0, 4, 40],
    ["search", 1, 0, 2, 7],
  ]);
  assert.equal(mcpx[0].p50ms, 100);

  // --since is against the messages' own times: the old session drops out.
  const since = Math.ceil((Date.now() - (T0 - DAY)) / 3_600_000);
  const [recent] = await rows("--since", `${since}h`);
  assert.equal(recent.sessions, 2);

  const text = await b.mcpx(["stats", "--opencode", "mcpx"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^command\s+calls\s+errors/);
  assert.match(text.stdout, /call fixture\.echo\s+2\s+1/);
  // The same answer over the daemon's /v1 (whose HOME is the sandbox's).
  await b.write("work/.mcpx.json", { mcpServers: {} });
  const started = await b.mcpx(["start"]);
  assert.equal(started.code, 0, started.stderr);
  const health = await b.json<{ socket: string }>(["health"]);
  const res = await wireRequest(health.socket, "GET", "/v1/stats?kind=mcpx&opencode=true", {
    headers: { "x-mcpx-token": b.daemonToken(health) },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(JSON.parse(res.text).rows, mcpx);
  assert.deepEqual(Deno.readFileSync(dbPath(b)), before, "the database was not written");
});

Deno.test("stats --opencode: no database is one line, a moved schema costs a number", async () => {
  await using b = await Sandbox.create();
  const none = await b.mcpx(["stats", "--opencode"]);
  assert.equal(none.code, 0, none.stderr);
  assert.equal(none.stdout, `no opencode database at ${dbPath(b)}\n`);
  const json = await b.json<{ rows: Rec[]; missing: string }>(["stats", "--opencode", "agents"]);
  assert.deepEqual(json.rows, []);
  assert.equal(json.missing, dbPath(b));

  const wrong = await b.mcpx(["stats", "--opencode", "calls"]);
  assert.equal(wrong.code, 2, wrong.stderr);
  assert.match(wrong.stderr, /"calls" is not a report over opencode's database/);
  assert.equal(wrong.stderr.trim().split("\n").length <= 2, true, wrong.stderr);
  const needs = await b.mcpx(["stats", "models"]);
  assert.notEqual(needs.code, 0);
  assert.match(needs.stderr, /mcpx stats --opencode models/);

  fixture(dbPath(b), { noPartTable: true });
  const [overview] = (await b.json<{ rows: Rec[] }>(["stats", "--opencode"])).rows;
  assert.equal(overview.messages, 6);
  assert.equal(overview.toolCalls, 0);
  assert.deepEqual((await b.json<{ rows: Rec[] }>(["stats", "--opencode", "mcpx"])).rows, []);
});
