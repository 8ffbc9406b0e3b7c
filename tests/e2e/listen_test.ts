/**
 * The daemon beyond one machine (docs/daemon.md, "Over TCP"): a real daemon with `daemon.listen`
 * on 127.0.0.1 and on an address of this machine that is not loopback, asked over TCP by raw
 * HTTP, by the CLI and a script through `MCPX_DAEMON_ENDPOINT`, and by the official SDK's MCP
 * client at `/mcp`. A wrong token is 401, a foreign Host or Origin 403, and neither starts a server.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { alive, daemonKey, freePort, npmServer, Sandbox, until } from "../_helpers.ts";
import { echoArgsServer } from "../fixtures/servers.ts";

interface Health {
  pid: number;
  socket: string;
  listen?: string;
}

interface Status {
  listen?: string;
  servers: { namespace: string; live: number }[];
}

const CONFIG = { mcpServers: { everything: npmServer("server-everything") } };

/** One HTTP/1.1 request over TCP with exactly these headers (Host included): status and body. */
async function raw(
  port: number,
  hostname: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; text: string }> {
  const conn = await Deno.connect({ hostname, port });
  const head = `${method} ${path} HTTP/1.1\r\nConnection: close\r\n` +
    Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("") +
    (body ? "Content-Type: application/json\r\n" : "") +
    `Content-Length: ${new TextEncoder().encode(body).length}\r\n\r\n`;
  await conn.write(new TextEncoder().encode(head + body));
  const text = new TextDecoder().decode(
    await new Response(conn.readable).arrayBuffer(),
  );
  const status = Number(text.split(" ")[1]);
  return { status, text: text.slice(text.indexOf("\r\n\r\n") + 4) };
}

/** An IPv4 address of this machine that is not loopback, if it has one. */
function outsideAddress(): string | undefined {
  return Deno.networkInterfaces().find((i) => i.family === "IPv4" && !i.address.startsWith("127."))
    ?.address;
}

async function startListening(
  box: Sandbox,
  listen: string,
  env: Record<string, string> = {},
): Promise<{ health: Health; token: string }> {
  const health = await box.json<Health>(["start"], { env: { MCPX_DAEMON_LISTEN: listen, ...env } });
  if (env.MCPX_DAEMON_TOKEN) return { health, token: env.MCPX_DAEMON_TOKEN };
  const file = join(box.root, "state", "mcpx", "daemons", `${daemonKey(health)}.listen-token`);
  const info = Deno.statSync(file);
  assert.equal(info.mode! & 0o777, 0o600, "the listener token is private");
  return { health, token: Deno.readTextFileSync(file).trim() };
}

Deno.test("listen: a loopback TCP listener asks for its token and checks Host and Origin, starting nothing for a refused request", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", CONFIG);
  const port = freePort();
  const { health, token } = await startListening(box, `127.0.0.1:${port}`);
  assert.equal(health.listen, `127.0.0.1:${port}`);
  const host = `127.0.0.1:${port}`;
  const bearer = { Host: host, Authorization: `Bearer ${token}` };

  const ok = await raw(port, "127.0.0.1", "GET", "/v1/health", bearer);
  assert.equal(ok.status, 200, ok.text);
  assert.equal(JSON.parse(ok.text).pid, health.pid);
  // The socket's header works too: one token, two spellings.
  const header = await raw(port, "127.0.0.1", "GET", "/v1/health", {
    Host: host,
    "x-mcpx-token": token,
  });
  assert.equal(header.status, 200, header.text);
  // Loopback is no exemption: any user of this machine reaches the port.
  const none = await raw(port, "127.0.0.1", "GET", "/v1/health", { Host: host });
  assert.equal(none.status, 401);
  assert.equal(JSON.parse(none.text).code, "UNAUTHORIZED");
  // The socket's own token is not the listener's.
  const socketToken = await raw(port, "127.0.0.1", "GET", "/v1/health", {
    Host: host,
    Authorization: `Bearer ${box.daemonToken(health)}`,
  });
  assert.equal(socketToken.status, 401);

  // A wrong token, a rebinding Host, a foreign Origin: refused, and the server never starts.
  const call = (headers: Record<string, string>) =>
    raw(port, "127.0.0.1", "POST", "/v1/call/everything/echo", headers, '{"message":"x"}');
  const wrong = await call({ Host: host, Authorization: `Bearer ${"0".repeat(64)}` });
  assert.equal(wrong.status, 401);
  const rebound = await call({ ...bearer, Host: `attacker.example:${port}` });
  assert.equal(rebound.status, 403);
  assert.equal(JSON.parse(rebound.text).code, "FORBIDDEN");
  const page = await call({ ...bearer, Origin: "http://attacker.example" });
  assert.equal(page.status, 403);
  const status = await box.json<Status>(["status"]);
  assert.equal(status.listen, `127.0.0.1:${port}`);
  assert.equal(status.servers.find((s) => s.namespace === "everything")?.live, 0);
  // The same origin is a page the daemon itself would serve: let through.
  const same = await call({ ...bearer, Origin: `http://${host}` });
  assert.equal(same.status, 200, same.text);
  assert.match(same.text, /Echo: x/);

  // One plain POST per tool, named as `mcpx call` names it; a tool's own dots stay the tool's.
  const plain = await raw(
    port,
    "127.0.0.1",
    "POST",
    "/v1/tools/everything.echo",
    bearer,
    '{"message":"plain"}',
  );
  assert.equal(plain.status, 200, plain.text);
  assert.match(plain.text, /Echo: plain/);
  const dotted = await raw(port, "127.0.0.1", "POST", "/v1/tools/everything.no.such", bearer, "{}");
  assert.equal(JSON.parse(dotted.text).code, "TOOL_NOT_FOUND", dotted.text);

  // `mcpx openapi` prints what the daemon serves, over TCP as on the socket.
  const served = await raw(port, "127.0.0.1", "GET", "/v1/openapi.json", bearer);
  assert.equal(served.status, 200);
  assert.deepEqual(JSON.parse(served.text), await box.json(["openapi"]));
  assert.ok(JSON.parse(served.text).paths["/v1/call/{server}/{tool}"]);

  // The token is kept across a restart, so a remote caller's copy stays good.
  assert.equal((await box.mcpx(["stop"])).code, 0);
  const again = await startListening(box, `127.0.0.1:${port}`);
  assert.equal(again.token, token);
});

Deno.test("listen: MCPX_DAEMON_ENDPOINT sends commands and scripts to a daemon elsewhere and never starts one", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", CONFIG);
  const port = freePort();
  const { health, token } = await startListening(box, `127.0.0.1:${port}`);
  // A folder with no configuration at all: everything it does goes to the endpoint.
  await Deno.mkdir(join(box.root, "elsewhere"));
  const env = { MCPX_DAEMON_ENDPOINT: `http://127.0.0.1:${port}`, MCPX_DAEMON_TOKEN: token };
  const call = await box.mcpx(["call", "everything.echo", "message=over tcp"], {
    cwd: "elsewhere",
    env,
  });
  assert.equal(call.code, 0, call.stderr);
  assert.match(call.stdout, /Echo: over tcp/);
  const remoteHealth = await box.json<Health>(["health"], { cwd: "elsewhere", env });
  assert.equal(remoteHealth.pid, health.pid);

  // A unix endpoint by path: its token is read beside the socket.
  const unix = await box.mcpx(["call", "everything.echo", "message=by path"], {
    cwd: "elsewhere",
    env: { MCPX_DAEMON_ENDPOINT: `unix://${health.socket}` },
  });
  assert.equal(unix.code, 0, unix.stderr);
  assert.match(unix.stdout, /Echo: by path/);

  // A script's calls take the same road (its typed client comes from what that daemon lists):
  // with the socket named somewhere nothing listens, only TCP can answer it.
  await box.write(
    "work/hello.ts",
    'const r = await everything.echo({ message: "from a script" });\nconsole.log(r);\n',
  );
  const run = await box.mcpx(["run", "./hello.ts"], {
    env: { ...env, MCPX_DAEMON_SOCKET: join(box.root, "tmp", "nobody-here.sock") },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Echo: from a script/);
  // And by path: the script's client reads the token beside the socket, as the command does.
  const byPath = await box.mcpx(["run", "./hello.ts"], {
    env: { MCPX_DAEMON_ENDPOINT: `unix://${health.socket}` },
  });
  assert.equal(byPath.code, 0, byPath.stderr);
  assert.match(byPath.stdout, /Echo: from a script/);
  await box.write("other/.mcpx.json", CONFIG);
  const { daemons } = await box.json<{ daemons: unknown[] }>(["daemons"]);
  assert.equal(daemons.length, 1, "no second daemon was started");

  // Wrong token: one line, exit 4. Nobody listening: one line, and no local daemon instead.
  const wrong = await box.mcpx(["health"], {
    cwd: "other",
    env: { ...env, MCPX_DAEMON_TOKEN: "nope" },
  });
  assert.equal(wrong.code, 4, wrong.stderr);
  assert.match(wrong.stderr, /^mcpx: The request's token is not this listener's/);
  const dead = await box.mcpx(["call", "everything.echo", "message=x"], {
    cwd: "other",
    env: { ...env, MCPX_DAEMON_ENDPOINT: `http://127.0.0.1:${freePort()}` },
  });
  assert.equal(dead.code, 4, dead.stderr);
  assert.equal(dead.stderr.trim().split("\n").length, 1, dead.stderr);
  assert.match(dead.stderr, /^mcpx: No mcpx daemon answers at http:\/\/127\.0\.0\.1:\d+/);
  assert.equal((await box.json<{ daemons: unknown[] }>(["daemons"])).daemons.length, 1);
  const bad = await box.mcpx(["health"], { env: { MCPX_DAEMON_ENDPOINT: "https://x:1" } });
  assert.equal(bad.code, 2, bad.stderr);
  // `mcpx stop` stops the daemon it points at.
  const stop = await box.mcpx(["stop"], { cwd: "elsewhere", env });
  assert.equal(stop.code, 0, stop.stderr);
  assert.match(stop.stdout, new RegExp(`stopped daemon ${health.pid}`));
  assert.ok(await until(() => !alive(health.pid)), "the daemon went");
});

Deno.test("listen: a daemon elsewhere is described whole: ls, search, types, catalog and a script's globals are its configuration's", async () => {
  await using box = await Sandbox.create();
  // The daemon's configuration names "pets"; the caller's folders have another one, or none.
  await box.write("work/.mcpx.json", { mcpServers: { pets: echoArgsServer() } });
  await box.write("other/.mcpx.json", { mcpServers: { localonly: { command: "true" } } });
  await Deno.mkdir(join(box.root, "bare"));
  const port = freePort();
  const token = "a-token-of-this-test";
  await startListening(box, `127.0.0.1:${port}`, { MCPX_DAEMON_TOKEN: token });
  const env = { MCPX_DAEMON_ENDPOINT: `http://127.0.0.1:${port}`, MCPX_DAEMON_TOKEN: token };
  const refresh = await box.mcpx(["refresh"], { cwd: "bare", env });
  assert.equal(refresh.code, 0, refresh.stderr);
  for (const cwd of ["other", "bare"]) {
    const ls = await box.json<{ namespaces: { namespace: string; tools: number }[] }>(["ls"], {
      cwd,
      env,
    });
    assert.deepEqual(ls.namespaces.map((n) => [n.namespace, n.tools]), [["pets", 4]], cwd);
    const search = await box.json<{ hits: { fn: string }[] }>(["search", "length"], { cwd, env });
    assert.equal(search.hits[0]?.fn, "pets.length", cwd);
    const types = await box.mcpx(["types", "pets.length"], { cwd, env });
    assert.equal(types.code, 0, types.stderr);
    assert.match(types.stdout, /function length\(args: \{ text: string \}\)/);
    const catalog = await box.mcpx(["catalog"], { cwd, env });
    assert.equal(catalog.code, 0, catalog.stderr);
    assert.match(catalog.stdout, /declare namespace pets \{/);
    assert.doesNotMatch(catalog.stdout, /localonly/);
    // The remote's namespaces are a script's globals, and its calls reach that daemon.
    const exec = await box.mcpx(
      ["exec", 'return [Object.keys(tools), await pets.length({ text: "abcd" })]'],
      { cwd, env },
    );
    assert.equal(exec.code, 0, exec.stderr);
    assert.deepEqual(JSON.parse(exec.stdout), [["pets"], {
      length: 4,
      head: "abcd",
      tail: "abcd",
    }]);
  }
  await box.write("bare/walk.ts", 'console.log((await pets.length({ text: "xyz" })).length);\n');
  const run = await box.mcpx(["run", "./walk.ts"], { cwd: "bare", env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "3");
  const { daemons } = await box.json<{ daemons: unknown[] }>(["daemons"]);
  assert.equal(daemons.length, 1, "no daemon was started for the callers' folders");
  assert.equal((await box.mcpx(["stop"], { env })).code, 0);
});

Deno.test("listen: a listener on an address beyond loopback requires the bearer token, for /v1 and /mcp", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", CONFIG);
  // This machine's own outside address when it has one; else every address, reached over
  // loopback, which is still a listener beyond loopback.
  const address = outsideAddress();
  const bind = address ?? "0.0.0.0";
  const reach = address ?? "127.0.0.1";
  const port = freePort();
  const given = "a-token-given-by-the-operator-" + crypto.randomUUID();
  const { health } = await startListening(box, `${bind}:${port}`, { MCPX_DAEMON_TOKEN: given });
  assert.equal(health.listen, `${bind}:${port}`);
  const host = `${reach}:${port}`;
  const none = await raw(port, reach, "GET", "/v1/status", { Host: host });
  assert.equal(none.status, 401);
  const ok = await raw(port, reach, "GET", "/v1/status", {
    Host: host,
    Authorization: `Bearer ${given}`,
  });
  assert.equal(ok.status, 200, ok.text);
  const named = await raw(port, reach, "GET", "/v1/status", {
    Host: `mcpx.internal.example:${port}`,
    Authorization: `Bearer ${given}`,
  });
  assert.equal(named.status, 403, "a DNS name that is not the listen host is refused");

  // A real MCP client at /mcp over TCP: refused without the token, lists and calls with it.
  const url = new URL(`http://${host}/mcp`);
  const refused = new Client({ name: "listen-test", version: "1" });
  await assert.rejects(refused.connect(new StreamableHTTPClientTransport(url)));
  const client = new Client({ name: "listen-test", version: "1" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${given}` } },
  });
  await client.connect(transport);
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === "mcpx_call"), tools.map((t) => t.name).join(","));
  const result = await client.callTool({
    name: "mcpx_call",
    arguments: { server: "everything", tool: "echo", arguments: { message: "over mcp" } },
  }) as { content: { text?: string }[] };
  assert.match(JSON.stringify(result.content), /Echo: over mcp/);
  await transport.terminateSession().catch(() => {});
  await client.close();
  await refused.close().catch(() => {});
});

Deno.test("listen: the TCP listener caps its connections and closes silent ones, and goes on answering", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: {} });
  const port = freePort();
  const { token } = await startListening(box, `127.0.0.1:${port}`, {
    MCPX_DAEMON_LISTEN_MAX_CONNECTIONS: "3",
    MCPX_DAEMON_LISTEN_HEADER_TIMEOUT: "700ms",
    MCPX_DAEMON_LISTEN_IDLE_TIMEOUT: "1s",
  });
  /** Resolves with how long the server took to close `conn` (it reads until end of file). */
  const closedAfter = async (conn: Deno.Conn) => {
    const t0 = Date.now();
    const buf = new Uint8Array(4096);
    let text = "";
    try {
      for (let n; (n = await conn.read(buf)) !== null;) {
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
    } catch { /* reset */ }
    conn.close();
    return { ms: Date.now() - t0, text };
  };
  // Three connections that never send a request head take every place.
  const silent = await Promise.all(
    [1, 2, 3].map(() => Deno.connect({ hostname: "127.0.0.1", port })),
  );
  await new Promise((r) => setTimeout(r, 150));
  const fourth = await Deno.connect({ hostname: "127.0.0.1", port });
  const turned = await closedAfter(fourth);
  assert.match(turned.text, /^HTTP\/1\.1 503 /, "one more than the cap is answered 503");
  assert.ok(turned.ms < 500, `turned away at once (${turned.ms} ms)`);
  // The header timeout closes them.
  for (const done of await Promise.all(silent.map(closedAfter))) {
    assert.ok(done.ms < 3000, `a connection with no request head was closed (${done.ms} ms)`);
    assert.equal(done.text, "");
  }
  // A kept-alive connection that was answered, then says nothing, is closed once idle.
  const kept = await Deno.connect({ hostname: "127.0.0.1", port });
  const head = `GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    `Authorization: Bearer ${token}\r\n\r\n`;
  await kept.write(new TextEncoder().encode(head));
  const idle = await closedAfter(kept);
  assert.match(idle.text, /^HTTP\/1\.1 200 /);
  assert.ok(
    idle.ms >= 900 && idle.ms < 4000,
    `closed after about the idle timeout (${idle.ms} ms)`,
  );
  // Places are free again: a request is answered as before.
  const ok = await raw(port, "127.0.0.1", "GET", "/v1/health", {
    Host: `127.0.0.1:${port}`,
    Authorization: `Bearer ${token}`,
  });
  assert.equal(ok.status, 200, ok.text);
  const logged = await box.mcpx(["log", "--grep", "daemon.listenMaxConnections"]);
  assert.match(logged.stdout, /refused: 3 connections already held/);
  await box.json(["stop"]);
});
