/**
 * Named sessions end to end (docs/sessions.md): real daemons, the stateful fixture server and
 * real CLI processes. One session is one process across separate commands, another session is
 * another; `session end` and the TTL stop its processes; the record survives a daemon restart and
 * the session says its servers did not; `attach --watch` sees another caller's calls and
 * `--take` refuses the old holder; `restart --session` recycles one session's process only.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { alive, daemonKey, daemonLog, freePort, Sandbox, until } from "../_helpers.ts";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

async function sessionBox(): Promise<Sandbox> {
  const box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { f: { ...faultyServer(), mcpx: { scope: "session" } } },
  });
  return box;
}

interface Shown {
  name: string;
  state: string;
  servers: { server: string; pid: number | null }[];
  holder: { id: string; via: string };
  attaches: { mode: string; by: string }[];
  notes: string[];
}

async function pidOf(box: Sandbox, session: string, env: Record<string, string> = {}) {
  const r = await box.mcpx(["call", "f.pid", "--session", session], { env });
  assert.equal(r.code, 0, r.stderr);
  return Number(r.stdout.trim());
}

Deno.test("sessions: a named session is one process across commands; end stops it", async () => {
  await using box = await sessionBox();
  const made = await box.json<Shown>(["session", "new", "--name", "login-flow", "--ttl", "10m"]);
  assert.equal(made.state, "open");
  assert.equal(
    (await box.mcpx(["call", "f.set", "key=k", "value=v", "--session", "login-flow"]))
      .code,
    0,
  );
  // A second process, joining by the environment: the same process, its state carried.
  const env = { MCPX_SESSION_ID: "login-flow" };
  const got = await box.mcpx(["call", "f.get", "key=k"], { env });
  assert.equal(got.stdout, "v\n", got.stderr);
  const pid = await pidOf(box, "login-flow");
  assert.equal(Number((await box.mcpx(["call", "f.pid"], { env })).stdout.trim()), pid);
  // A script run in it (--session on exec) sees the same state.
  const ran = await box.mcpx([
    "exec",
    "--session",
    "login-flow",
    'return await f.get({ key: "k" })',
  ]);
  assert.equal(ran.stdout, "v\n", ran.stderr);
  // Another session: another process, none of the first one's state.
  const other = await pidOf(box, "other-one");
  assert.notEqual(other, pid);
  assert.equal(
    (await box.mcpx(["call", "f.get", "key=k", "--session", "other-one"])).stdout,
    "(unset)\n",
  );
  const shown = await box.json<Shown>(["session", "show", "login-flow"]);
  assert.deepEqual(shown.servers.map((s) => [s.server, s.pid]), [["f", pid]]);
  assert.equal(shown.holder.via, "create");
  const listed = await box.json<{ sessions: Shown[] }>(["session", "ls"]);
  assert.deepEqual(listed.sessions.map((s) => s.name), ["login-flow"]);
  const found = await box.json<{ sessions: Shown[] }>(["session", "search", "LOGIN"]);
  assert.deepEqual(found.sessions.map((s) => s.name), ["login-flow"]);
  assert.deepEqual(
    (await box.json<{ sessions: Shown[] }>(["session", "search", "nothing"]))
      .sessions,
    [],
  );

  const ended = await box.mcpx(["session", "end", "login-flow"]);
  assert.equal(ended.code, 0, ended.stderr);
  assert.match(ended.stdout, /session login-flow ended: stopped 1 process/);
  assert.ok(await until(() => !alive(pid), 5000), "the session's process is gone");
  assert.ok(alive(other), "the other session's process is untouched");
  const gone = await box.mcpx(["session", "show", "login-flow"]);
  assert.equal(gone.code, 5);
  assert.equal(gone.stderr.trim().split("\n").length, 1, gone.stderr);
  assert.match(gone.stderr, /No session "login-flow"/);
  // The name is free again.
  assert.equal((await box.mcpx(["session", "new", "--name", "login-flow"])).code, 0);
});

Deno.test("sessions: a session's TTL running out stops its processes and marks it expired", async () => {
  await using box = await sessionBox();
  // Long enough for the next command to start on a loaded machine; short enough to wait for.
  assert.equal((await box.mcpx(["session", "new", "--name", "brief", "--ttl", "3s"])).code, 0);
  const pid = await pidOf(box, "brief");
  assert.ok(await until(() => !alive(pid), 10_000), "the TTL stopped the session's process");
  const shown = await box.json<Shown>(["session", "show", "brief"]);
  assert.equal(shown.state, "expired");
  assert.deepEqual(shown.servers, []);
  assert.match(shown.notes.join("\n"), /expired at .*: its TTL of 3s ran out/);
  const late = await box.mcpx(["call", "f.pid", "--session", "brief"]);
  assert.equal(late.code, 5);
  assert.match(late.stderr, /Session "brief" expired at .*its servers were stopped/);
  // An expired session's name may be created again.
  assert.equal((await box.mcpx(["session", "new", "--name", "brief", "--ttl", "1m"])).code, 0);
  assert.equal((await box.json<Shown>(["session", "show", "brief"])).state, "open");
});

Deno.test("sessions: the record survives a daemon restart and says its servers did not", async () => {
  await using box = await sessionBox();
  assert.equal((await box.mcpx(["session", "new", "--name", "keep", "--ttl", "1h"])).code, 0);
  assert.equal(
    (await box.mcpx(["call", "f.set", "key=k", "value=v", "--session", "keep"])).code,
    0,
  );
  const pid = await pidOf(box, "keep");
  const files = join(box.root, "state", "mcpx", "daemons");
  const file = [...Deno.readDirSync(files)].find((e) => e.name.endsWith(".sessions.json"))!;
  const path = join(files, file.name);
  assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
  assert.equal(JSON.parse(Deno.readTextFileSync(path)).version, 1);

  assert.equal((await box.mcpx(["stop"])).code, 0);
  assert.ok(!alive(pid), "the daemon's stop took the server with it");
  const shown = await box.json<Shown>(["session", "show", "keep"]);
  assert.equal(shown.state, "open");
  assert.deepEqual(shown.servers, []);
  assert.match(
    shown.notes.join("\n"),
    /its servers \(f\) did not survive the daemon restart at \d{4}-.*; they start fresh/,
  );
  // A call that fails carries no report: the one after it still says so.
  const failed = await box.mcpx(["call", "f.fail", "--session", "keep"]);
  assert.equal(failed.code, 8, failed.stderr);
  // The next answer says so once, and runs on a fresh process without the old state.
  const next = await box.mcpx(["--json", "call", "f.get", "key=k", "--session", "keep"]);
  assert.equal(next.code, 0, next.stderr);
  const doc = JSON.parse(next.stdout);
  assert.equal(doc.structuredContent ?? doc.content[0].text, "(unset)");
  assert.equal(doc.mcpx.restarted, true);
  assert.match(doc.mcpx.restartReason, /did not survive the daemon restart at .*they start fresh/);
  assert.match(next.stderr, /did not survive the daemon restart/);
  const again = await box.mcpx(["call", "f.get", "key=k", "--session", "keep"]);
  assert.equal(again.stderr, "", "said once");
});

/** A running `mcpx` whose stdout is read as it comes. */
function spawn(box: Sandbox, args: string[], env: Record<string, string> = {}) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${REPO}/deno.json`, box.entry, ...args],
    cwd: join(box.root, "work"),
    env: { ...box.env, ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const reading = (async () => {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) text += chunk;
  })();
  const errors = new Response(child.stderr).text();
  return {
    child,
    get text() {
      return text;
    },
    async done() {
      const status = await child.status;
      await reading;
      return { code: status.code, stdout: text, stderr: await errors };
    },
  };
}

Deno.test("sessions: attach --watch sees another caller's calls; --take refuses the old holder", async () => {
  await using box = await sessionBox();
  assert.equal((await box.mcpx(["session", "new", "--name", "shared"])).code, 0);
  const watcher = spawn(box, ["session", "attach", "shared", "--watch"]);
  try {
    assert.ok(await until(() => watcher.text.includes("watching session shared"), 20_000));
    const a = { MCPX_SESSION_HOLDER: "agent-a" };
    const called = await box.mcpx(["call", "f.echo", "text=hello", "--session", "shared"], {
      env: a,
    });
    assert.equal(called.code, 0, called.stderr);
    // A call in another session is not this session's.
    assert.equal((await box.mcpx(["call", "f.echo", "text=elsewhere", "--session", "x"])).code, 0);
    assert.ok(
      await until(() => /f\.echo \{"text":"hello"\} -> ok hello/.test(watcher.text), 10_000),
      watcher.text,
    );

    const took = await box.mcpx(["session", "attach", "shared", "--take"], {
      env: { MCPX_SESSION_HOLDER: "agent-b" },
    });
    assert.equal(took.code, 0, took.stderr);
    assert.match(took.stdout, /you \(agent-b\) are its holder now/);
    const refused = await box.mcpx(["call", "f.echo", "text=again", "--session", "shared"], {
      env: a,
    });
    assert.equal(refused.code, 10, refused.stderr);
    assert.match(refused.stderr, /Session "shared" was taken over by agent-b at \d{4}-/);
    assert.equal(refused.stderr.trim().split("\n").length, 1);
    const holder = await box.mcpx(["call", "f.echo", "text=mine", "--session", "shared"], {
      env: { MCPX_SESSION_HOLDER: "agent-b" },
    });
    assert.equal(holder.code, 0, holder.stderr);
    assert.ok(await until(() => watcher.text.includes("session.taken"), 10_000), watcher.text);
    assert.ok(
      await until(() => /session\.refused by=agent-a holder=agent-b/.test(watcher.text), 10_000),
      watcher.text,
    );

    const shown = await box.json<Shown>(["session", "show", "shared"]);
    assert.deepEqual(shown.attaches.map((x) => x.mode), ["watch", "take"]);
    assert.equal(shown.holder.id, "agent-b");
    const log = await daemonLog(box);
    assert.ok(log.some((r) => r.event === "session.attached" && r.session === "shared"));
    assert.ok(log.some((r) => r.event === "session.taken" && r.by === "agent-b"));
  } finally {
    // The session's end ends the watch.
    await box.mcpx(["session", "end", "shared"]);
    const ended = await watcher.done();
    assert.equal(ended.code, 0, ended.stderr);
    assert.ok(!ended.stdout.includes("elsewhere"), ended.stdout);
    assert.match(ended.stdout, /session\.ended/);
  }
});

Deno.test("sessions: restart --session recycles one session's process and not another's", async () => {
  await using box = await sessionBox();
  assert.equal((await box.mcpx(["session", "new", "--name", "one"])).code, 0);
  const a = await pidOf(box, "one");
  const b = await pidOf(box, "two");
  const r = await box.mcpx(["restart", "f", "--session", "one"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /stopped 1 process/);
  assert.ok(await until(() => !alive(a), 5000));
  const a2 = await pidOf(box, "one");
  assert.notEqual(a2, a);
  assert.equal(await pidOf(box, "two"), b, "the other session kept its process");
  assert.ok(alive(b));
});

Deno.test("sessions: bad input is one line and a non-zero exit", async () => {
  await using box = await sessionBox();
  assert.equal((await box.mcpx(["session", "new", "--name", "dup"])).code, 0);
  const cases: [string[], number, RegExp][] = [
    [["session", "new", "--name", "dup"], 2, /Session "dup" already exists/],
    [
      ["session", "new", "--name", "z", "--ttl", "0"],
      2,
      /out of range: a session's TTL is 1s to 30d/,
    ],
    [["session", "new", "--name", "z", "--ttl", "36500d"], 2, /out of range: .*1s to 30d/],
    [["session", "new", "--name", "z", "--ttl", "soon"], 2, /is not a duration/],
    [["session", "new", "--name", "has space"], 2, /Session name "has space" is not valid/],
    [["session", "new", "--name", "x".repeat(65)], 2, /is not valid/],
    [["session", "new", "--name", "run-mine"], 2, /keeps for the keys it makes up/],
    [["session", "attach", "nobody", "--watch"], 5, /No session "nobody"/],
    [["session", "show", "nobody"], 5, /No session "nobody"/],
    [["session", "end", "nobody"], 5, /No session "nobody"/],
    [["session", "search"], 2, /needs words/],
  ];
  for (const [args, code, message] of cases) {
    const r = await box.mcpx(args);
    assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(" "));
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
  }
});

type CallResult = { content: { type: string; text?: string }[]; isError?: boolean };

async function mcpCall(c: Client, tool: string, args: Record<string, unknown> = {}) {
  const r = await c.callTool({
    name: "mcpx_call",
    arguments: { server: "f", tool, arguments: args },
  }) as CallResult;
  return r.content[0].text;
}

Deno.test("sessions: mcpx serve --session and the daemon's /mcp x-mcpx-session join a named session", async () => {
  await using box = await sessionBox();
  assert.equal((await box.mcpx(["session", "new", "--name", "served"])).code, 0);
  const stdio = new Client({ name: "e2e", version: "1" });
  await stdio.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: [
        "run",
        "-A",
        "--config",
        `${REPO}/deno.json`,
        box.entry,
        "serve",
        "--session",
        "served",
      ],
      cwd: join(box.root, "work"),
      env: box.env,
      stderr: "pipe",
    }),
  );
  let pid: number;
  try {
    assert.equal(await mcpCall(stdio, "set", { key: "k", value: "from-serve" }), "ok");
    pid = Number(await mcpCall(stdio, "pid"));
  } finally {
    await stdio.close();
  }
  // The client went away; the named session did not end with it.
  const got = await box.mcpx(["call", "f.get", "key=k", "--session", "served"]);
  assert.equal(got.stdout, "from-serve\n", got.stderr);
  assert.equal(await pidOf(box, "served"), pid);

  const health = await box.json<{ socket: string }>(["status"]);
  const http = Deno.createHttpClient({ proxy: { transport: "unix", path: health.socket } });
  const token = box.daemonToken(health);
  const fetcher = (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : {}));
    headers.set("x-mcpx-token", token);
    headers.set("x-mcpx-session", "served");
    return fetch(input, { ...init, headers, client: http } as RequestInit);
  };
  try {
    const transport = new StreamableHTTPClientTransport(new URL("http://mcpx/mcp"), {
      fetch: fetcher,
    });
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(transport);
    assert.equal(await mcpCall(client, "get", { key: "k" }), "from-serve");
    await transport.terminateSession();
    await client.close();
  } finally {
    http.close();
  }
  assert.equal(await pidOf(box, "served"), pid, "closing the /mcp connection did not end it");
});

Deno.test("sessions: an auto-started daemon does not idle out under a session's processes", async () => {
  await using box = await sessionBox();
  const env = { MCPX_DAEMON_IDLE_EXIT: "500ms" };
  assert.equal(
    (await box.mcpx(["session", "new", "--name", "held", "--ttl", "3s"], { env })).code,
    0,
  );
  const pid = await pidOf(box, "held", env);
  const daemons = join(box.root, "state", "mcpx", "daemons");
  const record = () =>
    [...Deno.readDirSync(daemons)].some((e) => /^[0-9a-f]{16}\.json$/.test(e.name));
  assert.ok(await until(() => !record(), 15_000), "the daemon idled out in the end");
  assert.ok(!alive(pid));
  const events = (await daemonLog(box)).map((r) => r.event);
  const expired = events.indexOf("session.expired");
  assert.ok(expired >= 0, events.join(","));
  // (A daemon that idled out before the first call, the session holding nothing yet, is not it.)
  assert.ok(expired < events.lastIndexOf("daemon.stopping"), events.join(","));
});

Deno.test("sessions: over the TCP listener only a token holder attaches, and it is recorded", async () => {
  await using box = await sessionBox();
  const port = freePort();
  const health = await box.json<{ socket: string }>(["start"], {
    env: { MCPX_DAEMON_LISTEN: `127.0.0.1:${port}` },
  });
  const token = Deno.readTextFileSync(
    join(box.root, "state", "mcpx", "daemons", `${daemonKey(health)}.listen-token`),
  ).trim();
  assert.equal((await box.mcpx(["session", "new", "--name", "remote"])).code, 0);
  const attach = (headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${port}/v1/sessions/remote/attach`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-mcpx-caller": encodeURIComponent(JSON.stringify({ holder: "over-tcp" })),
        ...headers,
      },
      body: JSON.stringify({ take: true }),
    });
  const refused = await attach({});
  assert.equal(refused.status, 401);
  await refused.body?.cancel();
  const wrong = await attach({ Authorization: `Bearer ${"0".repeat(64)}` });
  assert.equal(wrong.status, 401);
  await wrong.body?.cancel();
  assert.equal((await box.json<Shown>(["session", "show", "remote"])).attaches.length, 0);
  const took = await attach({ Authorization: `Bearer ${token}` });
  assert.equal(took.status, 200, await took.clone().text());
  assert.equal((await took.json()).session.holder.id, "over-tcp");
  const shown = await box.json<Shown>(["session", "show", "remote"]);
  assert.deepEqual(shown.attaches.map((a) => [a.mode, a.by]), [["take", "over-tcp"]]);
  // The socket's caller is now refused in it.
  const mine = await box.mcpx(["call", "f.pid", "--session", "remote"]);
  assert.equal(mine.code, 10);
});

Deno.test("sessions: the idle reaper leaves an open named session's process; its TTL governs it", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { f: { ...faultyServer(), mcpx: { scope: "session", idleTimeout: "300ms" } } },
  });
  const env = { MCPX_PLUMBING_REAP_INTERVAL: "100ms" };
  assert.equal(
    (await box.mcpx(["session", "new", "--name", "kept", "--ttl", "1h"], { env })).code,
    0,
  );
  const kept = await pidOf(box, "kept", env);
  // Used after the named one: any pass of the reaper that stops it would have stopped both.
  const plain = await pidOf(box, "plain-key", env);
  assert.ok(
    await until(() => !alive(plain), 10_000),
    "the unnamed session's idle process is reaped",
  );
  assert.ok(alive(kept), "the named session's process is kept");
  assert.equal(await pidOf(box, "kept", env), kept);
});

Deno.test("sessions: a harness's session id (MCPX_TRACE_IDS) is who holds a session", async () => {
  await using box = await sessionBox();
  assert.equal((await box.mcpx(["session", "new", "--name", "traced"])).code, 0);
  const agent = { MCPX_TRACE_IDS: "session=agent-c;parent=p-1" };
  const took = await box.mcpx(["session", "attach", "traced", "--take"], { env: agent });
  assert.equal(took.code, 0, took.stderr);
  assert.match(took.stdout, /you \(harness:agent-c\) are its holder now/);
  // The same parent process, no harness ids: another caller, refused.
  const bare = await box.mcpx(["call", "f.pid", "--session", "traced"]);
  assert.equal(bare.code, 10, bare.stderr);
  assert.equal((await box.mcpx(["call", "f.pid", "--session", "traced"], { env: agent })).code, 0);
  // A script the holder runs holds it as the holder does.
  const ran = await box.mcpx(["exec", "--session", "traced", "return await f.pid()"], {
    env: agent,
  });
  assert.equal(ran.code, 0, ran.stderr);
  const show = await box.json<Shown & { createdBy: { holder: string } }>([
    "session",
    "show",
    "traced",
  ]);
  assert.equal(show.holder.id, "harness:agent-c");
});

Deno.test("sessions: after kill -9 of the daemon the record says its servers did not survive", async () => {
  await using box = await sessionBox();
  assert.equal((await box.mcpx(["session", "new", "--name", "crash"])).code, 0);
  const server = await pidOf(box, "crash");
  const { pid } = await box.json<{ pid: number }>(["status"]);
  Deno.kill(pid, "SIGKILL");
  assert.ok(await until(() => !alive(pid), 5000));
  // The next daemon stops what the dead one left, and the session says its servers are gone.
  const shown = await box.json<Shown>(["session", "show", "crash"]);
  assert.match(shown.notes.join("\n"), /its servers \(f\) did not survive the daemon restart/);
  assert.ok(await until(() => !alive(server), 5000), "no orphan is left");
  const next = await pidOf(box, "crash");
  assert.notEqual(next, server);
});

Deno.test("sessions: a watch ends, saying so, when the daemon stops", async () => {
  await using box = await sessionBox();
  assert.equal((await box.mcpx(["session", "new", "--name", "watched"])).code, 0);
  const watcher = spawn(box, ["session", "attach", "watched"]);
  assert.ok(await until(() => watcher.text.includes("watching session watched"), 20_000));
  assert.equal((await box.mcpx(["stop"])).code, 0);
  const ended = await watcher.done();
  assert.equal(ended.code, 0, ended.stderr);
  assert.match(ended.stdout, /daemon\.stopping reason=stop requested/);
});
