import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { captureIo } from "../io.ts";
import { Context } from "../context.ts";
import { mergeSessions, OperationsSource } from "./real_source.ts";

/** A user with a configuration, a log of one script run, and opencode's record of its session. */
async function world(root: string) {
  const env = {
    HOME: join(root, "home"),
    XDG_STATE_HOME: join(root, "state"),
    XDG_CACHE_HOME: join(root, "cache"),
    XDG_CONFIG_HOME: join(root, "config"),
    XDG_DATA_HOME: join(root, "data"),
    MCPX_TRUST_ALL: "1",
  };
  const project = join(root, "project");
  const logs = join(env.XDG_STATE_HOME, "mcpx", "logs");
  await Deno.mkdir(project, { recursive: true });
  await Deno.mkdir(logs, { recursive: true });
  await Deno.writeTextFile(
    join(project, ".mcpx.json"),
    JSON.stringify({ mcpServers: { echo: { command: "true" } } }),
  );
  const records = [
    {
      ts: "2026-12-04T04:00:00.000Z",
      level: "info",
      event: "run.start",
      id: "run-1",
      msg: "Script run starting",
      script: "/p/hello.ts",
      session: "ses-opencode-1",
    },
    {
      ts: "2026-12-04T04:00:01.000Z",
      level: "error",
      id: "run-1",
      msg: "it broke",
      stack: "Error: it broke\n    at main (hello.ts:3)",
    },
    {
      ts: "2026-12-04T04:00:02.000Z",
      level: "info",
      event: "run.end",
      id: "run-1",
      msg: "Script run ended",
      exitCode: 1,
      durationMs: 2000,
    },
  ];
  await Deno.writeTextFile(
    join(logs, "runs.jsonl"),
    records.map((r) => JSON.stringify(r) + "\n").join(""),
  );
  const dbPath = join(env.XDG_DATA_HOME, "opencode", "opencode.db");
  await Deno.mkdir(join(dbPath, ".."), { recursive: true });
  const db = new DatabaseSync(dbPath);
  db.exec(`
    CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL);
    CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, title TEXT,
      directory TEXT, time_created INTEGER);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);
  `);
  db.prepare("INSERT INTO session VALUES (?, ?, ?, ?, ?, ?)").run(
    "ses-opencode-1",
    null,
    null,
    "fix the build",
    project,
    Date.parse("2026-12-04T03:59:00Z"),
  );
  db.prepare("INSERT INTO message VALUES (?, ?, ?, ?)").run(
    "m1",
    "ses-opencode-1",
    Date.parse("2026-12-04T04:00:00Z"),
    JSON.stringify({
      role: "assistant",
      modelID: "m",
      cost: 0.25,
      tokens: { input: 10, output: 5, cache: { read: 0 } },
    }),
  );
  db.close();
  return new Context(captureIo({ env, cwd: project }));
}

Deno.test("OperationsSource answers every view from the operations, without a daemon", async () => {
  const root = await Deno.makeTempDir({ prefix: "mcpx-tui-source-" });
  try {
    const source = new OperationsSource(await world(root));
    const namespaces = await source.namespaces();
    assert.deepEqual(namespaces.map((n) => [n.name, n.tools, n.state]), [[
      "echo",
      null,
      "unlisted",
    ]]);
    assert.deepEqual(await source.tools("echo"), []);

    const log = await source.log(500);
    assert.deepEqual(log.rows.map((r) => r.msg), [
      "Script run starting",
      "it broke",
      "Script run ended",
    ]);
    // The whole record is the row (the stack with it), for opening in full.
    assert.match(String(log.rows[1].stack), /at main/);

    const errors = await source.stats("errors");
    assert.equal(errors.rows[0].template, "it broke");
    const volume = await source.stats("volume");
    assert.match(volume.note ?? "", /^3 records in 1 files/);

    // mcpx's run and opencode's cost in one row, where both know the session.
    const sessions = await source.sessions();
    assert.equal(sessions.rows.length, 1);
    assert.equal(sessions.rows[0].run, "run-1");
    assert.equal(sessions.rows[0].title, "fix the build");
    assert.equal(sessions.rows[0].cost, 0.25);
    assert.match(sessions.note ?? "", /opencode's 1 sessions/);

    const servers = await source.servers();
    assert.deepEqual(servers.rows, []);
    // Why a process stopped is a sentence: last, where it has the width the others leave.
    assert.equal(servers.columns?.at(-1), "why");
    assert.match(servers.note ?? "", /^no daemon running for /);

    const storage = await source.storage();
    const parts = storage.rows.map((r) => r.part);
    // What `mcpx storage` says, and the total.
    assert.ok(parts.includes("log (JSONL)"), parts.join(", "));
    assert.ok(parts.includes("log index (index.db)"), parts.join(", "));
    assert.equal(parts.at(-1), "total");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("mergeSessions() joins mcpx's runs, opencode's costs and the daemon's named sessions", () => {
  const rows = mergeSessions(
    [
      { run: "run-1", session: "login-flow", calls: 3 },
      { run: "run-2", session: "ses-oc", calls: 1 },
      { run: "run-3", session: "run-x", calls: 0 },
    ],
    [
      { session: "ses-oc", title: "fix the build", cost: 0.5, tokensIn: 10, tokensOut: 2 },
      { session: "ses-other", title: "elsewhere", cost: 0.1 },
    ],
    [
      {
        name: "login-flow",
        key: "session:login-flow",
        state: "open",
        expiresAt: "2026-12-04T05:00:00Z",
        servers: [{ server: "browser" }, { server: "memory" }],
      },
      { name: "idle", key: "session:idle", state: "open", expiresAt: "t", servers: [] },
    ],
  );
  assert.deepEqual(rows.map((r) => [r.run ?? null, r.session, r.named ?? null]), [
    [null, "idle", "open"],
    ["run-1", "login-flow", "open"],
    ["run-2", "ses-oc", null],
    ["run-3", "run-x", null],
    [null, "ses-other", null],
  ]);
  assert.equal(rows[1].servers, "browser, memory");
  assert.equal(rows[2].title, "fix the build");
  assert.equal(rows[2].cost, 0.5);
});
