// MCP tasks through a real daemon (docs/tasks.md): `mcpx call --task` and `mcpx tasks …` against
// tests/fixtures/servers/tasking.ts, the official SDK's 1.x server package, whose tools run as
// 2025-11-25 tasks, over stdio and over Streamable HTTP.

import assert from "node:assert/strict";
import { freePort, Sandbox, until } from "../_helpers.ts";
import { cacheTasking, taskingServer } from "../fixtures/servers.ts";

interface Task {
  id: string;
  server: string;
  tool: string;
  status: string;
  statusMessage?: string;
  ttlMs: number;
  leased: boolean;
  serverTaskId: string;
  revision: string;
}

/** The leases the daemon's instances of `ns` hold now (`mcpx status`). */
async function leases(box: Sandbox, ns: string): Promise<number> {
  const s = await box.json<{ servers: { namespace: string; instances: { leases: number }[] }[] }>(
    ["status"],
  );
  return s.servers.find((x) => x.namespace === ns)!.instances.reduce((n, i) => n + i.leases, 0);
}

/** A failed run printed one line on stderr, and no stack. */
function oneLine(stderr: string): void {
  assert.equal(stderr.trim().split("\n").length, 1, stderr);
  assert.doesNotMatch(stderr, /\n\s+at |Stack backtrace/, stderr);
}

Deno.test("call --task over stdio: a handle at once, then get, result, cancel, TTL and restart", async () => {
  await cacheTasking();
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { tk: taskingServer() } });

  // A handle, not the result: the call answers while the tool is still working.
  const task = await box.json<Task>(["call", "--task", "tk.slow", "ms=1500", "text=stdio"]);
  assert.match(task.id, /^task_[0-9a-f]{16}$/);
  assert.equal(task.server, "tk");
  assert.equal(task.tool, "slow");
  assert.equal(task.status, "working");
  assert.equal(task.ttlMs, 3_600_000, "tasks.ttl's default, 1h");
  assert.equal(task.revision, "2025-11-25");
  assert.equal(task.leased, true);
  // While it runs, its process is leased to it.
  assert.equal(await leases(box, "tk"), 1);
  const working = await box.json<Task>(["tasks", "get", task.id]);
  assert.equal(working.status, "working");
  const listed = await box.json<{ tasks: Task[] }>(["tasks", "list"]);
  assert.deepEqual(listed.tasks.map((t) => t.id), [task.id]);

  // The result waits for the end, and prints as `mcpx call` prints a result.
  const result = await box.mcpx(["tasks", "result", task.id]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "done: stdio\n");
  const done = await box.json<Task>(["tasks", "get", task.id]);
  assert.equal(done.status, "completed");
  assert.equal(done.leased, false, "an ended task frees its lease");
  assert.equal(await leases(box, "tk"), 0);
  const doc = await box.json<{ raw: { content: { text: string }[]; _meta?: unknown } }>(
    ["tasks", "result", task.id],
  );
  assert.equal(doc.raw.content[0].text, "done: stdio");
  assert.equal(doc.raw._meta, undefined, "the related-task key is the handle's business");

  // A tool error is the task's result: exit 8 with the server's text, on one line.
  const failing = await box.json<Task>(["call", "--task", "tk.fails", "ms=100", "text=bad"]);
  const failed = await box.mcpx(["tasks", "result", failing.id]);
  assert.equal(failed.code, 8, failed.stderr);
  assert.match(failed.stderr, /tk\.fails \(task task_\w+\) failed: it failed: bad/);
  oneLine(failed.stderr);

  // Cancelled on the server; the lease is freed; a second cancel and the result say it ended.
  const long = await box.json<Task>(["call", "--task", "tk.slow", "ms=60000"]);
  const cancelled = await box.json<Task>(["tasks", "cancel", long.id]);
  assert.equal(cancelled.status, "cancelled");
  assert.equal(cancelled.leased, false);
  assert.equal(await leases(box, "tk"), 0);
  const again = await box.mcpx(["tasks", "cancel", long.id]);
  assert.equal(again.code, 5);
  assert.match(again.stderr, /has already ended \(cancelled\)/);
  oneLine(again.stderr);
  const none = await box.mcpx(["tasks", "result", long.id]);
  assert.equal(none.code, 5);
  assert.match(none.stderr, /ended cancelled without a result/);

  // Past its TTL a running task is cancelled on the server, its lease freed, and it is forgotten;
  // asking for it says it expired.
  const short = await box.json<Task>(["call", "--task", "--ttl", "1s", "tk.slow", "ms=60000"]);
  assert.equal(short.ttlMs, 1000);
  assert.ok(
    await until(async () => (await box.mcpx(["tasks", "get", short.id])).code !== 0),
    "the task is forgotten once its TTL passes",
  );
  const expired = await box.mcpx(["tasks", "get", short.id]);
  assert.equal(expired.code, 5);
  assert.match(expired.stderr, /Task "task_\w+" of server "tk" has expired: its TTL of 1s passed/);
  oneLine(expired.stderr);
  assert.equal(await leases(box, "tk"), 0, "the lease went with the TTL");

  // An id nobody made: one line, exit 5.
  const unknown = await box.mcpx(["tasks", "get", "task_0000000000000000"]);
  assert.equal(unknown.code, 5);
  assert.match(unknown.stderr, /No task "task_0000000000000000"/);
  oneLine(unknown.stderr);
  for (const verb of ["result", "cancel"]) {
    const r = await box.mcpx(["tasks", verb, "nope"]);
    assert.equal(r.code, 5, verb);
    oneLine(r.stderr);
  }

  // Across a restart: the tasks are kept in the daemon's tasks file. A finished one keeps its
  // result; one still running is failed (its process ended with the daemon); none is leased.
  const running = await box.json<Task>(["call", "--task", "tk.slow", "ms=60000"]);
  assert.equal((await box.json<{ tasks: Task[] }>(["tasks", "list"])).tasks.length, 4);
  assert.equal((await box.mcpx(["stop"])).code, 0);
  // With no daemon, what the last one kept answers.
  const offline = await box.json<{ tasks: Task[] }>(["tasks", "list"]);
  assert.deepEqual(
    offline.tasks.map((t) => t.id).sort(),
    [task.id, failing.id, long.id, running.id].sort(),
  );
  assert.equal((await box.mcpx(["tasks", "result", task.id])).stdout, "done: stdio\n");
  await box.json(["call", "tk.quick"]);
  const after = await box.json<{ tasks: Task[] }>(["tasks", "list"]);
  const lost = after.tasks.find((t) => t.id === running.id)!;
  assert.equal(lost.status, "failed");
  // The daemon stopped it as it stopped (`closed by mcpx`); a daemon killed outright leaves it
  // running in the file, and the next one says the daemon that followed it stopped.
  assert.match(lost.statusMessage ?? "", /the server process ended before the task did/);
  assert.ok(after.tasks.every((t) => !t.leased));
  const kept = await box.mcpx(["tasks", "result", task.id]);
  assert.equal(kept.code, 0, kept.stderr);
  assert.equal(kept.stdout, "done: stdio\n", "a finished task's result survives the restart");
  const gone = await box.mcpx(["tasks", "result", running.id]);
  assert.equal(gone.code, 5);
  assert.match(gone.stderr, /ended failed without a result: the server process ended/);
  oneLine(gone.stderr);
  const mode = Deno.statSync(
    `${box.root}/state/mcpx/daemons/${
      (await box.json<{ socket: string }>(["health"])).socket.split("/").pop()!.replace(
        /\.sock$/,
        "",
      )
    }.tasks.json`,
  ).mode! & 0o777;
  assert.equal(mode, 0o600, "the tasks file is the owner's alone");
});

Deno.test("call --task refuses a TTL out of range, and servers or tools that take no tasks", async () => {
  await cacheTasking();
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { tk: taskingServer(), plain: taskingServer(["--no-tasks"]) },
  });
  for (const ttl of ["0", "36500d", "500ms"]) {
    const r = await box.mcpx(["call", "--task", "--ttl", ttl, "tk.slow"]);
    assert.equal(r.code, 2, ttl);
    assert.match(r.stderr, new RegExp(`The task TTL "${ttl}" is out of range: .*from 1s to 24h`));
    oneLine(r.stderr);
  }
  const bad = await box.mcpx(["call", "--task", "--ttl", "soon", "tk.slow"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /The task TTL "soon" is not a duration/);
  const zero = await box.mcpx(["call", "--task", "tk.slow"], { env: { MCPX_TASKS_TTL: "0" } });
  assert.equal(zero.code, 2);
  assert.match(zero.stderr, /out of range: a task lives from 1s to 24h/);
  const century = await box.mcpx(["call", "--task", "tk.slow"], {
    env: { MCPX_TASKS_TTL: "100y" },
  });
  assert.notEqual(century.code, 0);
  assert.match(century.stderr, /tasks\.ttl/);
  oneLine(century.stderr);
  const stray = await box.mcpx(["call", "--ttl", "5s", "tk.slow"]);
  assert.equal(stray.code, 2);
  assert.match(stray.stderr, /--ttl is for a task: add --task/);

  // A server that declared no tasks, and a tool that forbids them: a clear line, exit 2.
  const plain = await box.mcpx(["call", "--task", "plain.slow", "ms=0"]);
  assert.equal(plain.code, 2);
  assert.match(plain.stderr, /Server "plain" does not run tool calls as tasks/);
  oneLine(plain.stderr);
  const quick = await box.mcpx(["call", "--task", "tk.quick"]);
  assert.equal(quick.code, 2);
  assert.match(
    quick.stderr,
    /Tool tk\.quick does not run as a task \(its execution\.taskSupport is "forbidden"\)/,
  );
  // Nothing was made, and nothing stays leased.
  assert.deepEqual((await box.json<{ tasks: Task[] }>(["tasks", "list"])).tasks, []);
  assert.equal(await leases(box, "tk"), 0);
  // The same servers still answer ordinary calls.
  assert.equal(
    (await box.mcpx(["call", "plain.slow", "ms=0", "text=sync"])).stdout,
    "done: sync\n",
  );
});

Deno.test("call --task over Streamable HTTP, and a script's $task()", async () => {
  await cacheTasking();
  await using box = await Sandbox.create();
  const port = freePort();
  const entry = taskingServer(["--http", String(port)]);
  const server = new Deno.Command(entry.command, {
    args: entry.args,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    assert.ok(
      await until(async () => {
        try {
          (await fetch(`http://127.0.0.1:${port}/`)).body?.cancel();
          return true;
        } catch {
          return false;
        }
      }),
      "the HTTP fixture listens",
    );
    await box.write("work/.mcpx.json", {
      mcpServers: { th: { url: `http://127.0.0.1:${port}/mcp` } },
    });
    const task = await box.json<Task>(["call", "--task", "th.slow", "ms=800", "text=http"]);
    assert.equal(task.status, "working");
    assert.equal(task.server, "th");
    const result = await box.mcpx(["tasks", "result", task.id]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "done: http\n");
    const long = await box.json<Task>(["call", "--task", "th.slow", "ms=60000"]);
    assert.equal((await box.json<Task>(["tasks", "cancel", long.id])).status, "cancelled");

    // The script's equivalent: <ns>.$task() gives the handle; get, result and cancel follow it.
    const run = await box.mcpx([
      "exec",
      `
      const t = await th.$task("slow", { ms: 300, text: "script" }, { ttl: "5m" });
      const first = t.status;
      const value = String(await t.result());
      const after = await t.get();
      const c = await th.$task("slow", { ms: 60000 });
      const stopped = await c.cancel();
      let refused = "";
      try { await th.$task("quick", {}); } catch (e) { refused = e.code; }
      return { first, ttl: t.ttlMs, value, status: after.status, cancelled: stopped.status, refused };
    `,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), {
      first: "working",
      ttl: 300_000,
      value: "done: script",
      status: "completed",
      cancelled: "cancelled",
      refused: "TASKS_UNSUPPORTED",
    });
  } finally {
    server.kill();
    await server.stderr.cancel();
    await server.status;
  }
});

/** A Standard Schema that takes any object: what the SDK's client is handed for task results. */
const ANY = {
  "~standard": { version: 1, vendor: "test", validate: (value: unknown) => ({ value }) },
} as never;

Deno.test("gateway mode relays tasks: a task-augmented call, tasks/get, result, list, cancel", async () => {
  await cacheTasking();
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { tk: taskingServer() } });
  const health = await box.json<{ socket: string }>(["start"]);
  const token = box.daemonToken(health);
  const http = Deno.createHttpClient({ proxy: { transport: "unix", path: health.socket } });
  const fetcher = (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : {}));
    headers.set("x-mcpx-token", token);
    return fetch(input, { ...init, headers, client: http } as RequestInit);
  };
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const client = new Client({ name: "e2e", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://mcpx/mcp/tk"), { fetch: fetcher }) as never,
  );
  try {
    const caps = client.getServerCapabilities() as Record<string, unknown>;
    assert.deepEqual(caps.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const tools = (await client.listTools()).tools as { name: string; execution?: unknown }[];
    assert.deepEqual(tools.find((t) => t.name === "slow")?.execution, { taskSupport: "optional" });
    const ask = (method: string, params: Record<string, unknown>) =>
      client.request({ method, params } as never, ANY) as Promise<Record<string, unknown>>;

    const created = await ask("tools/call", {
      name: "slow",
      arguments: { ms: 800, text: "gw" },
      task: { ttl: 60_000 },
    });
    const task = created.task as { taskId: string; status: string; ttl: number };
    assert.equal(task.status, "working");
    assert.equal(task.ttl, 60_000);
    assert.equal(await leases(box, "tk"), 1, "the session keeps the process while the task runs");
    const got = await ask("tasks/get", { taskId: task.taskId });
    assert.equal(got.taskId, task.taskId);
    const result = await ask("tasks/result", { taskId: task.taskId });
    assert.deepEqual((result.content as { text: string }[])[0].text, "done: gw");
    assert.ok(await until(async () => await leases(box, "tk") === 0), "freed once it ended");

    const long = (await ask("tools/call", {
      name: "slow",
      arguments: { ms: 60_000 },
      task: { ttl: 60_000 },
    })).task as { taskId: string };
    const listed = await ask("tasks/list", {});
    assert.deepEqual(
      (listed.tasks as { taskId: string }[]).map((t) => t.taskId).sort(),
      [task.taskId, long.taskId].sort(),
    );
    const cancelled = await ask("tasks/cancel", { taskId: long.taskId });
    assert.equal(cancelled.status, "cancelled");
    assert.ok(await until(async () => await leases(box, "tk") === 0), "a cancel frees it too");
    await assert.rejects(ask("tasks/get", { taskId: "nope" }), /Unknown task "nope"/);
    // A call without `task` is an ordinary one.
    const plain = await client.callTool({ name: "slow", arguments: { ms: 0, text: "sync" } });
    assert.deepEqual((plain.content as { text: string }[])[0].text, "done: sync");
  } finally {
    await client.close();
    http.close();
  }
});

Deno.test("call --task in 2026-07-28: the tasks extension, against mcpx's own gateway (HTTP, stdio)", async () => {
  await cacheTasking();
  await using box = await Sandbox.create();
  // One configuration serves the tasking fixture through gateway mode over HTTP (which speaks the
  // extension to a modern client); the other reaches that endpoint as a 2026-07-28 server.
  await box.write("work/gw/.mcpx.json", { mcpServers: { tk: taskingServer() } });
  const port = freePort();
  const TOKEN = "tasks-e2e-bearer-token-0123456789";
  const serve = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      box.entry,
      "serve",
      "--http",
      `127.0.0.1:${port}`,
      "--token",
      TOKEN,
      "--expose",
      "tk",
    ],
    cwd: `${box.root}/work/gw`,
    env: box.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = serve.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let seen = "";
    while (!seen.includes("MCP at ")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`mcpx serve exited: ${seen}`);
      seen += value;
    }
    void (async () => {
      while (!(await reader.read()).done) { /* drain */ }
    })().catch(() => {});
    const world = Object.fromEntries(
      ["HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "TMPDIR", "MCPX_TRUST_ALL"]
        .map((k) => [k, box.env[k]]),
    );
    await box.write("work/.mcpx.json", {
      mcpServers: {
        gw: {
          url: `http://127.0.0.1:${port}/mcp`,
          headers: { Authorization: `Bearer ${TOKEN}` },
          mcpx: { protocol: "force-modern" },
        },
        // The same gateway over stdio: `mcpx serve --expose` as a stdio server.
        gs: {
          command: Deno.execPath(),
          args: [
            "run",
            "-A",
            "--config",
            new URL("../../deno.json", import.meta.url).pathname,
            box.entry,
            "--config",
            `${box.root}/work/gw/.mcpx.json`,
            "serve",
            "--expose",
            "tk",
          ],
          env: world,
          mcpx: { protocol: "force-modern" },
        },
      },
    });
    const overStdio = await box.json<Task>(["call", "--task", "gs.slow", "ms=300", "text=stdio"]);
    assert.equal(overStdio.revision, "2026-07-28");
    assert.equal((await box.mcpx(["tasks", "result", overStdio.id])).stdout, "done: stdio\n");
    const task = await box.json<Task>(["call", "--task", "gw.slow", "ms=800", "text=modern"]);
    assert.equal(task.revision, "2026-07-28");
    assert.equal(task.status, "working");
    assert.equal(task.ttlMs, 3_600_000, "the gateway's TTL, which mcpx's own does not exceed");
    const result = await box.mcpx(["tasks", "result", task.id]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "done: modern\n");
    assert.equal((await box.json<Task>(["tasks", "get", task.id])).status, "completed");

    const failing = await box.json<Task>(["call", "--task", "gw.fails", "ms=100", "text=bad"]);
    const failed = await box.mcpx(["tasks", "result", failing.id]);
    assert.equal(failed.code, 8, failed.stderr);
    assert.match(failed.stderr, /it failed: bad/);

    const long = await box.json<Task>(["call", "--task", "gw.slow", "ms=60000"]);
    assert.equal((await box.json<Task>(["tasks", "cancel", long.id])).status, "cancelled");
    // A tool that takes no tasks is answered at once: an ended task holding the result.
    const quick = await box.json<Task>(["call", "--task", "gw.quick", "text=now"]);
    assert.equal(quick.status, "completed");
    assert.equal((await box.mcpx(["tasks", "result", quick.id])).stdout, "quick: now\n");
    assert.equal((await box.mcpx(["stop"])).code, 0);
  } finally {
    serve.kill("SIGTERM");
    await serve.status;
    await reader.cancel().catch(() => {});
  }
});
