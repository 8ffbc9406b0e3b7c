/**
 * `mcpx serve` and the daemon's `/mcp` with the official SDK's client, against real processes: a
 * real daemon on its unix socket, a fixture server behind it. Lists, calls (a tool error passes
 * through), two clients are two mcpx sessions, and bad input leaves the daemon up.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { faultyServer } from "../fixtures/servers.ts";
import { daemonLog, Sandbox, until } from "../_helpers.ts";
import { frameProblems, type Revision } from "../_mcp_schema.ts";

type Wire = {
  start(): Promise<void>;
  send(message: unknown, options?: unknown): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: unknown, extra?: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
};

/**
 * A client transport that keeps every frame the server sent, with the method of the request each
 * answers, so that a test can check them against the schema of the revision negotiated.
 */
class Recording {
  readonly frames: { frame: unknown; method?: string }[] = [];
  readonly #methods = new Map<unknown, string>();
  constructor(readonly inner: Wire) {}
  get transport(): Wire {
    const t: Wire = {
      start: () => this.inner.start(),
      close: () => this.inner.close(),
      send: (message, options) => {
        const m = message as { id?: unknown; method?: string };
        if (m.id !== undefined && m.method) this.#methods.set(m.id, m.method);
        return this.inner.send(message, options);
      },
    };
    this.inner.onmessage = (message, extra) => {
      const m = message as { id?: unknown; method?: string };
      this.frames.push({ frame: message, method: m.method ? undefined : this.#methods.get(m.id) });
      t.onmessage?.(message, extra);
    };
    this.inner.onclose = () => t.onclose?.();
    this.inner.onerror = (e) => t.onerror?.(e);
    return t;
  }

  /** The problems of every frame against `rev`'s schema, strictly. */
  problems(rev: Revision): string[] {
    return this.frames.flatMap(({ frame, method }) =>
      frameProblems(rev, frame, method).map((p) => `${method ?? "?"}: ${p}`)
    );
  }
}

const REPO = new URL("../..", import.meta.url).pathname;

async function project(box: Sandbox) {
  await box.write("work/.mcpx.json", {
    mcpServers: {
      fixture: faultyServer(),
      sess: { ...faultyServer(), mcpx: { sharing: "exclusive", scope: "session" } },
    },
  });
}

type CallResult = { content: { type: string; text?: string }[]; isError?: boolean };

/** Calls `ns.tool` through mcpx_call. */
async function call(c: Client, server: string, tool: string, args: Record<string, unknown> = {}) {
  return await c.callTool({
    name: "mcpx_call",
    arguments: { server, tool, arguments: args },
  }) as CallResult;
}

Deno.test("mcpx serve over stdio: the SDK's client lists the tools and calls through them", async () => {
  await using box = await Sandbox.create();
  await project(box);
  for (const mode of ["legacy", "auto"] as const) {
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      // The whole set: every operation's tool, with its output schema and annotations.
      args: ["run", "-A", "--config", `${REPO}deno.json`, box.entry, "serve", "--tools", "all"],
      cwd: join(box.root, "work"),
      env: box.env,
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e", version: "1" }, { versionNegotiation: { mode } });
    const recording = new Recording(transport as unknown as Wire);
    await client.connect(recording.transport as never);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const name of ["mcpx_ls", "mcpx_search", "mcpx_types", "mcpx_call", "mcpx_status"]) {
        assert.ok(names.includes(name), `${mode}: ${name} in ${names.join(" ")}`);
      }
      const ls = tools.find((t) => t.name === "mcpx_ls")!;
      assert.equal(ls.annotations?.readOnlyHint, true);
      const stop = tools.find((t) => t.name === "mcpx_stop")!;
      assert.equal(stop.annotations?.destructiveHint, true);

      const echo = await call(client, "fixture", "echo", { text: `hi ${mode}` });
      assert.deepEqual(echo.content, [{ type: "text", text: `hi ${mode}` }]);
      const fail = await call(client, "fixture", "fail");
      assert.equal(fail.isError, true, "the tool's error is passed through");
      assert.equal(fail.content[0].text, "it failed on purpose");
      const missing = await call(client, "nosuch", "echo");
      assert.equal(missing.isError, true);
      assert.match(missing.content[0].text!, /^SERVER_NOT_FOUND: /);
      const exec = await client.callTool({
        name: "mcpx_exec",
        arguments: {
          code: "const r = await fixture.echo({ text: 'via exec' }); console.log(`${r}`)",
        },
      }) as { structuredContent: { exitCode: number; stdout: string }; isError?: boolean };
      assert.equal(exec.isError, undefined, JSON.stringify(exec));
      assert.equal(exec.structuredContent.exitCode, 0);
      assert.equal(exec.structuredContent.stdout.trim(), "via exec");
      const ns = await client.callTool({ name: "mcpx_ls", arguments: {} }) as {
        structuredContent: { namespaces: { namespace: string }[] };
      };
      assert.deepEqual(ns.structuredContent.namespaces.map((n) => n.namespace).sort(), [
        "fixture",
        "sess",
      ]);
      const rev = client.getNegotiatedProtocolVersion() as Revision;
      assert.equal(rev, mode === "legacy" ? "2025-11-25" : "2026-07-28");
      assert.ok(recording.frames.length >= 7, `${recording.frames.length} frames`);
      assert.deepEqual(recording.problems(rev), [], `every ${rev} frame mcpx sent is valid`);
    } finally {
      await client.close();
    }
  }
});

Deno.test("mcpx serve over stdio: each connection is its own mcpx session", async () => {
  await using box = await Sandbox.create();
  await project(box);
  const connect = async () => {
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", "-A", "--config", `${REPO}deno.json`, box.entry, "serve"],
        cwd: join(box.root, "work"),
        env: box.env,
        stderr: "pipe",
      }),
    );
    return client;
  };
  const [a, b] = [await connect(), await connect()];
  try {
    const pids = await Promise.all([a, b].map(async (c) => {
      const r = await call(c, "sess", "pid");
      return r.content[0].text;
    }));
    assert.notEqual(pids[0], pids[1], "an exclusive session server is not shared between hosts");
    assert.equal(
      (await call(a, "sess", "pid")).content[0].text,
      pids[0],
      "and stays with its host",
    );
    await a.close();
    const live = async () => {
      const status = await box.json<{ servers: { namespace: string; instances: unknown[] }[] }>(
        ["status"],
        { cwd: "work" },
      );
      return status.servers.find((s) => s.namespace === "sess")!.instances.length;
    };
    assert.ok(await until(async () => await live() === 1), "a closed connection's session ends");
  } finally {
    await a.close();
    await b.close();
  }
});

/** A fetch that reaches the daemon's socket with its token. */
function socketFetch(socket: string, token: string) {
  const http = Deno.createHttpClient({ proxy: { transport: "unix", path: socket } });
  const fetcher = (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : {}));
    headers.set("x-mcpx-token", token);
    return fetch(input, { ...init, headers, client: http } as RequestInit);
  };
  return { fetcher, http };
}

Deno.test("the daemon's /mcp: the SDK's client over the socket, in both eras; bad input leaves it up", async () => {
  await using box = await Sandbox.create();
  await project(box);
  const health = await box.json<{ socket: string; fingerprint: string }>(["start"], {
    cwd: "work",
  });
  const token = box.daemonToken(health);
  const { fetcher, http } = socketFetch(health.socket, token);
  try {
    for (const mode of ["legacy", "auto"] as const) {
      const transport = new StreamableHTTPClientTransport(new URL("http://mcpx/mcp"), {
        fetch: fetcher,
      });
      const client = new Client({ name: "e2e", version: "1" }, { versionNegotiation: { mode } });
      await client.connect(transport);
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === "mcpx_call"), mode);
      const echo = await call(client, "fixture", "echo", { text: mode });
      assert.deepEqual(echo.content, [{ type: "text", text: mode }]);
      assert.equal((await call(client, "fixture", "fail")).isError, true);
      // The core tools by default: mcpx_exec answers its run as JSON text, and no second copy.
      const exec = await client.callTool({
        name: "mcpx_exec",
        arguments: { code: "return (await fixture.echo({ text: 'in the daemon' }))" },
      }) as { content: { text: string }[]; structuredContent?: unknown };
      assert.equal(exec.structuredContent, undefined);
      const run = JSON.parse(exec.content[0].text);
      assert.equal(run.exitCode, 0, JSON.stringify(exec));
      assert.equal(run.result, "in the daemon");
      if (mode === "legacy") await transport.terminateSession();
      await client.close();
    }

    const post = (body: BodyInit, headers: Record<string, string> = {}) =>
      fetcher("http://mcpx/mcp", {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      });
    const big = await post(new Uint8Array(50 * 1024 * 1024).fill(0x20));
    assert.equal(big.status, 413);
    await big.body?.cancel();
    const broken = await post("{nope");
    assert.equal(broken.status, 400);
    assert.equal((await broken.json()).error.code, -32700);
    const batch = await post(JSON.stringify(
      Array.from({ length: 10_000 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })),
    ));
    assert.equal(batch.status, 400);
    assert.equal((await batch.json()).error.code, -32600);
    const wrongToken = await fetch("http://mcpx/mcp", {
      method: "POST",
      body: "{}",
      headers: { "x-mcpx-token": "not-the-token", "content-type": "application/json" },
      client: http,
    } as RequestInit);
    assert.equal(wrongToken.status, 401);
    await wrongToken.body?.cancel();

    const status = await box.json<{ pid: number }>(["status"], { cwd: "work" });
    assert.ok(status.pid > 0, "the daemon is still up");
  } finally {
    http.close();
  }
});

Deno.test("the daemon's /mcp: a client's cancellation reaches the server and frees the lease", async () => {
  await using box = await Sandbox.create();
  const cancelLog = join(box.root, "cancel.log");
  await Deno.writeTextFile(cancelLog, "");
  await box.write("work/.mcpx.json", {
    mcpServers: {
      stuck: {
        ...faultyServer([], { allowCancelLog: cancelLog }),
        env: { FIXTURE_CANCEL_LOG: cancelLog },
        mcpx: { sharing: "exclusive", callTimeout: "60s" },
      },
    },
  });
  const health = await box.json<{ socket: string; fingerprint: string }>(["start"], {
    cwd: "work",
  });
  const { fetcher, http } = socketFetch(health.socket, box.daemonToken(health));
  const transport = new StreamableHTTPClientTransport(new URL("http://mcpx/mcp"), {
    fetch: fetcher,
  });
  const client = new Client({ name: "e2e", version: "1" });
  try {
    await client.connect(transport);
    await call(client, "stuck", "echo", { text: "warm" });
    const leases = async () =>
      (await box.json<{ servers: { instances: { leases: number }[] }[] }>(["status"], {
        cwd: "work",
      })).servers[0].instances[0].leases;
    const abort = new AbortController();
    const hanging = client.callTool({
      name: "mcpx_call",
      arguments: { server: "stuck", tool: "hang" },
    }, { signal: abort.signal }).catch((e) => e);
    assert.ok(await until(async () => (await leases()) === 1), "the hanging call is in flight");
    abort.abort();
    assert.ok((await hanging) instanceof Error, "the client's call ends as cancelled");
    assert.ok(
      await until(async () => (await Deno.readTextFile(cancelLog)).includes("cancelled"), 5000),
      "notifications/cancelled reached the server",
    );
    assert.ok(await until(async () => (await leases()) === 0, 5000), "the lease was given back");
    const records = await daemonLog(box);
    assert.ok(records.some((r) => r.event === "mcp.cancelled"), "and the daemon recorded it");
    await transport.terminateSession();
  } finally {
    await client.close();
    http.close();
  }
});

Deno.test("serve: --token, --no-auth and --tools are refused in one line where they make no sense", async () => {
  await using box = await Sandbox.create();
  // A port someone else holds.
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  await box.write("work/.mcpx.json", { mcpServers: {} });
  for (
    const [args, why] of [
      [["serve", "--token", "0123456789abcdef0"], /are for --http/],
      [["serve", "--no-auth"], /are for --http/],
      [["serve", "--http", "127.0.0.1:0", "--token", "short"], /at least 16 characters/],
      [
        ["serve", "--http", "127.0.0.1:0", "--token", "0123456789abcdef0", "--no-auth"],
        /contradict/,
      ],
      [["serve", "--http", "127.0.0.1:0", "--token", "01234567 89abcdef0"], /must not hold spaces/],
      [["serve", "--http", `127.0.0.1:${busy.addr.port}`], /Address already in use/],
      [["serve", "--tools", "every"], /--tools.*core.*all/],
      [["serve", "--expose", "x", "--tools", "all"], /--tools applies to code mode/],
    ] as const
  ) {
    const r = await box.mcpx([...args]);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.match(r.stderr, why);
  }
});

Deno.test("serve --http takes its token from MCPX_SERVE_TOKEN, out of the process table, and never echoes it", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: {} });
  const token = "a-token-the-host-chose-0123456789";
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      `${REPO}deno.json`,
      box.entry,
      "serve",
      "--http",
      "127.0.0.1:0",
    ],
    cwd: join(box.root, "work"),
    env: { ...box.env, MCPX_SERVE_TOKEN: token },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let said = "";
    while (!said.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`serve ended: ${said}`);
      said += value;
    }
    reader.releaseLock();
    child.stderr.cancel().catch(() => {});
    assert.match(said, /\(bearer token: the one given\)/);
    assert.ok(!said.includes(token), "the token is not echoed");
    const url = /MCP at (\S+)/.exec(said)![1];
    const ping = (auth?: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(auth ? { authorization: auth } : {}),
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        }),
      });
    const bare = await ping();
    assert.equal(bare.status, 401);
    await bare.body?.cancel();
    const ok = await ping(`Bearer ${token}`);
    assert.equal(ok.status, 200, await ok.clone().text());
    await ok.body?.cancel();
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
});

Deno.test("mcpx serve over stdio: after its daemon died, the client is told its server processes are new", async () => {
  await using box = await Sandbox.create();
  await project(box);
  const client = new Client({ name: "e2e", version: "1" });
  const notes: string[] = [];
  client.setNotificationHandler("notifications/message", (n) => {
    notes.push(String(n.params.data));
  });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", "--config", `${REPO}deno.json`, box.entry, "serve"],
      cwd: join(box.root, "work"),
      env: box.env,
      stderr: "pipe",
    }),
  );
  try {
    const first = await call(client, "fixture", "pid") as CallResult & { _meta?: unknown };
    assert.equal(first.isError, undefined, JSON.stringify(first));
    assert.equal(first._meta, undefined, "nothing to say on a first call");
    const health = await box.json<{ pid: number }>(["health"]);
    Deno.kill(health.pid, "SIGKILL");
    const after = await call(client, "fixture", "pid") as CallResult & {
      _meta?: Record<string, { reason: string }>;
    };
    assert.equal(after.isError, undefined, JSON.stringify(after));
    assert.notEqual(after.content[0].text, first.content[0].text, "a new server process");
    const said = after._meta?.["io.mcpx/restarted"];
    assert.ok(said, `no restarted in _meta: ${JSON.stringify(after)}`);
    // The fixture ends with its stdin, so the new daemon found nothing of the old one to stop.
    assert.match(said.reason, /daemon went away .* every server process is new/);
    assert.ok(await until(() => notes.some((n) => /redo lost steps/.test(n))), notes.join());
    // Told once: the next call is on the same new daemon.
    const next = await call(client, "fixture", "pid") as CallResult & { _meta?: unknown };
    assert.equal(next._meta, undefined);
  } finally {
    await client.close();
  }
});
