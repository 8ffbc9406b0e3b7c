import assert from "node:assert/strict";
import { join } from "node:path";
import { daemonLog, freePort, npmServerScript, Sandbox } from "../_helpers.ts";

interface Call {
  content: { type: string; text?: string }[];
  mcpx: { server: string; tool: string; instance: { pid: number | null; key: string } };
}

Deno.test("call --stdio: an ad-hoc server through the daemon, one process for one command line", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: {} });
  // Quoted words stay one argument; the command line is split without a shell.
  const line = `node '${npmServerScript("server-everything")}'`;
  const first = await box.json<Call>(["call", "--stdio", line, "echo", "message=hi; $(true)"]);
  assert.equal(first.content[0].text, "Echo: hi; $(true)");
  assert.equal(first.mcpx.server, "server_everything", "named after the package the runner runs");
  assert.equal(typeof first.mcpx.instance.pid, "number");
  const again = await box.json<Call>([
    "call",
    "--stdio",
    line,
    "--name",
    "ev",
    "echo",
    "message=2",
  ]);
  assert.equal(again.mcpx.server, "ev");
  assert.equal(again.mcpx.instance.pid, first.mcpx.instance.pid, "the same pool serves it again");
  const plain = await box.mcpx(["call", "--stdio", line, "echo", "message=plain"]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout, "Echo: plain\n");

  // ls → types → tools on the same command line: the same process answers.
  const ls = await box.json<{ namespaces: { namespace: string; tools: number }[] }>([
    "ls",
    "--stdio",
    line,
  ]);
  assert.equal(ls.namespaces[0].namespace, "server_everything");
  assert.ok(ls.namespaces[0].tools > 5);
  const types = await box.mcpx(["types", "--stdio", line, "echo"]);
  assert.equal(types.code, 0, types.stderr);
  assert.match(types.stdout, /declare namespace server_everything/);
  assert.match(types.stdout, /function echo\(args: \{[^}]*message: string;/s);
  const missing = await box.mcpx(["types", "--stdio", line, "nope"]);
  assert.equal(missing.code, 5);
  assert.match(missing.stderr, /No tool "nope" on server_everything/);
  const listed = await box.json<{ tools: { name: string }[] }>(["tools", "--stdio", line]);
  assert.ok(listed.tools.some((t) => t.name === "echo"));
  const status = await box.json<{ servers: unknown[] }>(["status"]);
  assert.deepEqual(status.servers, [], "ad-hoc servers are not configured ones");
  const after = await box.json<Call>(["call", "--stdio", line, "echo", "message=3"]);
  assert.equal(after.mcpx.instance.pid, first.mcpx.instance.pid, "listing used the same pool");

  const bare = await box.mcpx(["call", "echo", "message=x"]);
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /"echo" is not <namespace\.tool>/);
  const open = await box.mcpx(["call", "--stdio", "node 'unclosed", "echo"]);
  assert.notEqual(open.code, 0);
  assert.match(open.stderr, /unclosed '/);
  const both = await box.mcpx(["call", "--stdio", "node", "--url", "http://x/", "echo"]);
  assert.match(both.stderr, /not both/);
  await box.mcpx(["daemon", "stop"]);
});

Deno.test("call --url: an ad-hoc HTTP server", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: {} });
  const port = freePort();
  const server = new Deno.Command("node", {
    args: [npmServerScript("server-everything"), "streamableHttp"],
    env: { PORT: String(port) },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const reader = server.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("listening")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`server-everything exited before listening: ${seen}`);
      seen += value;
    }
    reader.releaseLock();
    void server.stderr.cancel().catch(() => {});
    const url = `http://127.0.0.1:${port}/mcp`;
    const out = await box.json<Call>(["call", "--url", url, "echo", "message=over http"]);
    assert.equal(out.content[0].text, "Echo: over http");
    assert.equal(out.mcpx.server, "host_127_0_0_1");
    assert.equal(out.mcpx.instance.pid, null);
    const bad = await box.mcpx(["call", "--url", "ftp://x", "echo"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /not an http or https URL/);
    await box.mcpx(["daemon", "stop"]);
  } finally {
    server.kill("SIGKILL");
    await server.status;
  }
});

Deno.test("config import: other hosts' servers, --write keeps the comments", async () => {
  await using box = await Sandbox.create();
  const everything = npmServerScript("server-everything");
  await box.write("config/Claude/claude_desktop_config.json", {
    mcpServers: { desk: { command: "node", args: [everything], env: { A: "1" } } },
  });
  await box.write("home/.claude.json", {
    numStartups: 3,
    mcpServers: { code: { type: "http", url: "http://127.0.0.1:1/mcp" } },
    projects: {
      [join(box.root, "work")]: { mcpServers: { proj: { command: "node", args: [everything] } } },
    },
  });
  await box.write("home/.cursor/mcp.json", {
    mcpServers: { cur: { url: "http://127.0.0.1:2/sse", type: "sse" } },
  });
  await box.write(
    "work/.vscode/mcp.json",
    '{\n  // VS Code names them "servers"\n  "servers": { "vs": { "type": "stdio", "command": "node", "args": ["x.js"] } }\n}\n',
  );
  const config = await box.write(
    "work/.mcpx.json",
    '{\n  // my servers\n  "mcpServers": {\n    "desk": { "command": "true" } // already here\n  }\n}\n',
  );

  interface Out {
    servers: { name: string; status: string; entry: Record<string, unknown> }[];
    written: boolean;
  }
  const preview = await box.json<Out>(["config", "import", "claude-desktop"]);
  assert.deepEqual(preview.servers.map((s) => [s.name, s.status]), [["desk", "exists"]]);
  assert.equal(Deno.readTextFileSync(config).includes("already here"), true);

  const code = await box.json<Out>(["config", "import", "claude-code"]);
  assert.deepEqual(code.servers.map((s) => [s.name, s.status]).sort(), [
    ["code", "new"],
    ["proj", "new"],
  ]);
  assert.deepEqual(code.servers.find((s) => s.name === "code")!.entry, {
    type: "http",
    url: "http://127.0.0.1:1/mcp",
  });
  const before = Deno.readTextFileSync(config);
  assert.equal(before.includes("code"), false, "no --write, no edit");

  for (const host of ["claude-code", "cursor", "vscode"]) {
    const r = await box.mcpx(["config", "import", host, "--write"]);
    assert.equal(r.code, 0, r.stderr);
  }
  const after = Deno.readTextFileSync(config);
  assert.match(after, /\/\/ my servers/);
  assert.match(after, /\/\/ already here/);
  const { parse } = await import("jsonc-parser");
  const servers = parse(after).mcpServers;
  assert.deepEqual(Object.keys(servers).sort(), ["code", "cur", "desk", "proj", "vs"]);
  assert.deepEqual(servers.cur, { url: "http://127.0.0.1:2/sse", type: "sse" });
  assert.deepEqual(servers.vs, { command: "node", args: ["x.js"] });
  assert.deepEqual(servers.desk, { command: "true" }, "an existing name is left alone");

  const missing = await box.mcpx(["config", "import", "nowhere.json"]);
  assert.equal(missing.code, 5);
  assert.match(missing.stderr, /No file "nowhere\.json"/);
  await box.write("work/broken.json", "{ nope");
  const broken = await box.mcpx(["config", "import", "broken.json", "--write"]);
  assert.notEqual(broken.code, 0);
  assert.equal(broken.stderr.trim().split("\n").length <= 2, true, broken.stderr);
  assert.equal(Deno.readTextFileSync(config), after, "the configuration is untouched");
});

Deno.test("the walk with no configuration at all: ls → types → call → a script, one process", async () => {
  await using box = await Sandbox.create(undefined, { trustAll: false });
  const line = `node '${npmServerScript("server-everything")}'`;
  const ls = await box.json<{ namespaces: { namespace: string; tools: number }[] }>([
    "ls",
    "--stdio",
    line,
  ]);
  assert.equal(ls.namespaces[0].namespace, "server_everything");
  const types = await box.mcpx(["types", "--stdio", line, "echo"]);
  assert.equal(types.code, 0, types.stderr);
  assert.match(types.stdout, /function echo\(args: \{[^}]*message: string;/s);
  // The subscriber toggle is state in the server's process: each call flips it.
  const flip = async () => {
    const r = await box.mcpx(["call", "--stdio", line, "toggle-subscriber-updates"]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  assert.match(await flip(), /^Started/);
  await box.write(
    "work/walk.ts",
    [
      "const echoed = await server_everything.echo({ message: args[0] });",
      "const toggled = await server_everything.toggle_subscriber_updates();",
      "console.log(JSON.stringify({ echoed: String(echoed), toggled: String(toggled), namespaces: Object.keys(tools) }));",
    ].join("\n"),
  );
  const run = await box.mcpx(["run", "./walk.ts", "hi from a script", "--stdio", line]);
  assert.equal(run.code, 0, run.stderr);
  const seen = JSON.parse(run.stdout);
  assert.equal(seen.echoed, "Echo: hi from a script");
  assert.match(seen.toggled, /^Stopped/, "the script's call reached the same process");
  assert.deepEqual(seen.namespaces, ["server_everything"]);
  const exec = await box.mcpx([
    "exec",
    "--stdio",
    line,
    "--name",
    "ev",
    "String(await ev.toggle_subscriber_updates())",
  ]);
  assert.equal(exec.code, 0, exec.stderr);
  assert.match(exec.stdout, /^Started/, "--name names it; the process is still the same");
  assert.match(await flip(), /^Stopped/);
  const nameless = await box.mcpx(["exec", "--name", "ev", "1"]);
  assert.equal(nameless.code, 2);
  assert.match(nameless.stderr, /--name names an ad-hoc server/);
  const bare = await box.mcpx(["ls"]);
  assert.equal(bare.code, 3, "without --stdio there is still no configuration");
  assert.match(bare.stderr, /No configuration found/);
});

Deno.test("an untrusted configuration: its servers stay refused, an ad-hoc one runs", async () => {
  await using box = await Sandbox.create(undefined, { trustAll: false });
  const marker = join(box.root, "planted-ran");
  const config = await box.write("work/.mcpx.json", {
    mcpServers: { planted: { command: "touch", args: [marker] } },
    output: { maxBytes: 10 },
  });
  const line = `node '${npmServerScript("server-everything")}'`;
  const planted = await box.mcpx(["call", "planted.x"]);
  assert.equal(planted.code, 9);
  assert.match(planted.stderr, /is not trusted yet/);
  const call = await box.mcpx(["call", "--stdio", line, "echo", "message=a long enough answer"]);
  assert.equal(call.code, 0, call.stderr);
  assert.equal(call.stdout, "Echo: a long enough answer\n", "its output.maxBytes is not applied");
  const exec = await box.mcpx([
    "exec",
    "--stdio",
    line,
    "Object.keys(tools).join(',')",
  ]);
  assert.equal(exec.code, 0, exec.stderr);
  assert.equal(exec.stdout.trim(), "server_everything", "the planted server is not a namespace");
  const still = await box.mcpx(["call", "planted.x"]);
  assert.equal(still.code, 9, "the ad-hoc run trusted nothing");
  assert.equal(await Deno.stat(marker).then(() => true, () => false), false, "planted never ran");
  assert.equal(Deno.readTextFileSync(config).includes("planted"), true);
});

Deno.test("run --stdio beside a trusted configuration: both namespaces, a clash refused", async () => {
  await using box = await Sandbox.create();
  const everything = npmServerScript("server-everything");
  await box.write("work/.mcpx.json", {
    mcpServers: { everything: { command: "node", args: [everything] } },
  });
  const line = `node '${everything}'`;
  const both = await box.mcpx([
    "exec",
    "--stdio",
    line,
    "--name",
    "adhoc",
    "[String(await everything.echo({ message: 'c' })), String(await adhoc.echo({ message: 'a' }))].join(' ')",
  ]);
  assert.equal(both.code, 0, both.stderr);
  assert.equal(both.stdout.trim(), "Echo: c Echo: a");
  const clash = await box.mcpx(["exec", "--stdio", line, "--name", "everything", "1"]);
  assert.equal(clash.code, 2);
  assert.match(clash.stderr, /namespace "everything" is a configured server's too/);
});

Deno.test("an ad-hoc server is named only by a command of this user: not over TCP, not over MCP", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: {} });
  const port = freePort();
  const token = "listener-token-for-the-test";
  const env = { MCPX_DAEMON_LISTEN: `127.0.0.1:${port}`, MCPX_DAEMON_TOKEN: token };
  const started = await box.mcpx(["start"], { env });
  assert.equal(started.code, 0, started.stderr);
  const marker = join(box.root, "ran-over-tcp");
  for (
    const [path, body] of [
      ["/v1/tools/call", { server: "", tool: "x", stdio: `touch ${marker}` }],
      [`/v1/call/x/y?stdio=${encodeURIComponent(`touch ${marker}`)}`, {}],
      ["/v1/adhoc/tools", { url: "http://127.0.0.1:1/mcp" }],
      [`/v1/namespaces?stdio=${encodeURIComponent(`touch ${marker}`)}`, undefined],
      [`/v1/types/x?stdio=${encodeURIComponent(`touch ${marker}`)}`, undefined],
    ] as const
  ) {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: body ? "POST" : "GET",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const problem = await res.json();
    assert.equal(res.status, 403, JSON.stringify(problem));
    assert.match(
      problem.detail,
      /ad-hoc server \(--stdio, --url\) is refused over the daemon's TCP listener/,
    );
  }
  assert.equal(await Deno.stat(marker).then(() => true, () => false), false);
  // The same daemon on its socket: a command of this user's names one.
  const line = `node '${npmServerScript("server-everything")}'`;
  const call = await box.mcpx(["call", "--stdio", line, "echo", "message=local"]);
  assert.equal(call.code, 0, call.stderr);
  // Once taken up, its key (`adhoc:` and its command line) is not a name for a TCP caller either.
  const ended = (await daemonLog(box)).find((r) =>
    r.event === "call.end" && String(r.msg).startsWith("adhoc:")
  );
  const key = String(ended?.msg).slice(0, String(ended?.msg).lastIndexOf("."));
  assert.match(key, /^adhoc:/);
  for (
    const [path, body] of [
      [`/v1/call/${encodeURIComponent(key)}/echo`, { message: "over tcp" }],
      ["/v1/tools/call", { server: key, tool: "echo", arguments: { message: "over tcp" } }],
      [`/mcp/${encodeURIComponent(key)}`, { jsonrpc: "2.0", id: 1, method: "ping" }],
    ] as const
  ) {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    assert.equal(res.status, 403, `${path}: ${text}`);
    assert.match(text, /refused over the daemon's TCP listener/);
  }

  const { OPERATIONS } = await import("../../lib/operations/mod.ts");
  const { buildMcpTools } = await import("../../lib/surfaces/mcp/tools.ts");
  for (const tool of buildMcpTools(OPERATIONS as never)) {
    const props = Object.keys((tool.inputSchema as { properties: object }).properties);
    assert.equal(props.includes("stdio") || props.includes("url"), false, `${tool.name}: ${props}`);
  }
  await box.mcpx(["stop", "--all"]);
});
