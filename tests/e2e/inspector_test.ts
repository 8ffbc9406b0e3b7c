/**
 * A real MCP client that is not ours: the official inspector's CLI (`mcp-inspector --cli`, pinned
 * in tests/npm, run with the Node 22 installed there) against `mcpx serve` over stdio, over
 * `serve --http`, and against the daemon's `/mcp` on its TCP listener with a bearer token. It
 * lists mcpx's tools (the light code mode by default, every operation with `--tools all`), calls
 * a real server's tool with arguments through `mcpx_call`, and runs `mcpx_exec`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { daemonKey, freePort, npmServer, Sandbox } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const NPM = `${REPO}/tests/npm/node_modules`;
const NODE = `${NPM}/.bin/node`;
const INSPECTOR = `${NPM}/@modelcontextprotocol/inspector/clients/launcher/build/index.js`;
const CONFIG = { mcpServers: { everything: npmServer("server-everything") } };

/** Runs the inspector's CLI with `args`; its JSON answer, or a failure with what it printed. */
async function inspector(box: Sandbox, args: string[]): Promise<Record<string, unknown>> {
  const out = await new Deno.Command(NODE, {
    args: [INSPECTOR, "--cli", ...args],
    cwd: join(box.root, "work"),
    env: box.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `inspector ${args.join(" ")}: ${stdout}\n${stderr}`);
  return JSON.parse(stdout);
}

const CALL = [
  "--method",
  "tools/call",
  "--tool-name",
  "mcpx_call",
  "--tool-arg",
  "server=everything",
  "tool=echo",
  'arguments={"message":"from the inspector"}',
];

/** The default code mode: a few tools an agent reads cheaply, each property of one type. */
function assertListed(list: Record<string, unknown>): void {
  const tools = list.tools as { name: string; inputSchema: { properties: object } }[];
  assert.deepEqual(tools.map((t) => t.name).sort(), [
    "mcpx_call",
    "mcpx_exec",
    "mcpx_ls",
    "mcpx_refresh",
    "mcpx_search",
    "mcpx_types",
  ]);
  const bytes = new TextEncoder().encode(JSON.stringify({ tools })).length;
  assert.ok(bytes <= 5000, `tools/list is ${bytes} bytes minified`);
  for (const t of tools) {
    for (const [name, p] of Object.entries(t.inputSchema.properties)) {
      assert.equal(typeof (p as { type: unknown }).type, "string", `${t.name}.${name}`);
    }
  }
}

/** `--tools all`: every operation marked for MCP, and mcpx_batch. */
function assertAll(list: Record<string, unknown>): void {
  const names = (list.tools as { name: string }[]).map((t) => t.name);
  for (const name of ["mcpx_ls", "mcpx_call", "mcpx_exec", "mcpx_status", "mcpx_batch"]) {
    assert.ok(names.includes(name), `${name} in ${names.join(", ")}`);
  }
}

/** A tool of the fronted server called with numbers, typed by mcpx_call's object schema. */
const SUM = [
  "--method",
  "tools/call",
  "--tool-name",
  "mcpx_call",
  "--tool-arg",
  "server=everything",
  "tool=get_sum",
  'arguments={"a":20,"b":22}',
];

const EXEC = [
  "--method",
  "tools/call",
  "--tool-name",
  "mcpx_exec",
  "--tool-arg",
  'code=(await everything.echo({ message: "through exec" })).toUpperCase()',
];

function assertEchoed(result: Record<string, unknown>): void {
  assert.notEqual(result.isError, true, JSON.stringify(result));
  assert.match(JSON.stringify(result.content), /Echo: from the inspector/);
}

Deno.test("inspector: the official inspector's CLI lists and calls through mcpx serve over stdio", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", CONFIG);
  // The inspector hands a stdio server only the variables it is given (-e): the sandbox's own.
  const env = Object.entries(box.env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  const serve = ["--", Deno.execPath(), "run", "-A", "--config", `${REPO}/deno.json`, box.entry];
  assertListed(await inspector(box, [...env, "--method", "tools/list", ...serve, "serve"]));
  assertAll(
    await inspector(box, [...env, "--method", "tools/list", ...serve, "serve", "--tools", "all"]),
  );
  assertEchoed(await inspector(box, [...env, ...CALL, ...serve, "serve"]));
  const sum = await inspector(box, [...env, ...SUM, ...serve, "serve"]);
  assert.notEqual(sum.isError, true, JSON.stringify(sum));
  assert.match(JSON.stringify(sum.content), /The sum of 20 and 22 is 42/);
  const exec = await inspector(box, [...env, ...EXEC, ...serve, "serve"]);
  assert.notEqual(exec.isError, true, JSON.stringify(exec));
  assert.match(JSON.stringify(exec.content), /ECHO: THROUGH EXEC/);
});

Deno.test("inspector: the official inspector's CLI lists and calls through mcpx serve --http", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", CONFIG);
  const port = freePort();
  const serve = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      `${REPO}/deno.json`,
      box.entry,
      "serve",
      "--http",
      `127.0.0.1:${port}`,
    ],
    cwd: join(box.root, "work"),
    env: box.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    // It says where it listens once it does.
    const reader = serve.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let said = "";
    while (!said.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`mcpx serve --http ended: ${said}`);
      said += value;
    }
    reader.releaseLock();
    serve.stderr.cancel().catch(() => {});
    // A loopback port is every local user's: it asks for the token it printed.
    const token = /\(bearer token: ([0-9a-f]{64})\)/.exec(said)?.[1];
    assert.ok(token, said);
    const url = `http://127.0.0.1:${port}/mcp`;
    const bare = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    assert.equal(bare.status, 401);
    assert.match(await bare.text(), /Bearer <token>/);
    const auth = ["--header", `Authorization: Bearer ${token}`];
    assertListed(
      await inspector(box, [url, "--transport", "http", ...auth, "--method", "tools/list"]),
    );
    assertEchoed(await inspector(box, [url, "--transport", "http", ...auth, ...CALL]));
  } finally {
    serve.kill("SIGTERM");
    await serve.status;
  }
});

Deno.test("inspector: the official inspector's CLI reaches the daemon's /mcp on its TCP listener with the bearer token", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", CONFIG);
  const port = freePort();
  const health = await box.json<{ socket: string }>(["start"], {
    env: { MCPX_DAEMON_LISTEN: `127.0.0.1:${port}` },
  });
  const token = Deno.readTextFileSync(
    join(box.root, "state", "mcpx", "daemons", `${daemonKey(health)}.listen-token`),
  ).trim();
  const url = `http://127.0.0.1:${port}/mcp`;
  const auth = ["--header", `Authorization: Bearer ${token}`];
  assertListed(
    await inspector(box, [url, "--transport", "http", "--method", "tools/list", ...auth]),
  );
  assertAll(
    await inspector(box, [
      `${url}?tools=all`,
      "--transport",
      "http",
      "--method",
      "tools/list",
      ...auth,
    ]),
  );
  assertEchoed(await inspector(box, [url, "--transport", "http", ...auth, ...CALL]));
});
