import assert from "node:assert/strict";
import { join } from "node:path";
import { ONE_SERVER, Sandbox } from "../_helpers.ts";
import { faultyServer } from "../fixtures/servers.ts";

/** A user's mistake ends in exactly one line on stderr, never a stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `expected one line, got:\n${stderr}`);
  assert.doesNotMatch(stderr, /\bat .*:\d+:\d+|Stack backtrace|Uncaught/);
  return lines[0];
}

Deno.test("bad input: malformed JSONC names the line and column and changes nothing", async () => {
  await using box = await Sandbox.create();
  const text =
    '{\n  // servers\n  "mcpServers": {\n    "a": { "command": "true" },\n  }\n  "pool": {}\n}\n';
  const path = await box.write("work/.mcpx.json", text);
  const r = await box.mcpx(["health"]);
  assert.equal(r.code, 3);
  const line = oneLine(r.stderr);
  assert.match(line, /Cannot parse .*\.mcpx\.json: comma expected at line 6, column 3/);
  assert.equal(await Deno.readTextFile(path), text, "the file is untouched");
  assert.deepEqual(box.processes(), [], "no daemon was left running");
});

Deno.test("bad input: comments and trailing commas are accepted", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", '{ /* c */ "mcpServers": { "a": { "command": "true", }, }, }');
  const s = await box.json<{ servers: { namespace: string }[] }>(["health"]);
  assert.ok(s);
});

Deno.test("bad input: an unknown setting key gives one warning naming the near miss", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { ...ONE_SERVER, loging: { level: "debug" } });
  const r = await box.mcpx(["config"]);
  assert.equal(r.code, 0);
  const line = oneLine(r.stderr);
  assert.match(
    line,
    /warning: Unknown setting "loging\.level" in .*: did you mean "logging\.level"\?/,
  );
});

Deno.test("bad input: one setting spelled twice at one level is refused", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    ...ONE_SERVER,
    logging: { level: "debug" },
    "logging.level": "warn",
  });
  const r = await box.mcpx(["config"]);
  assert.equal(r.code, 3);
  assert.match(oneLine(r.stderr), /logging\.level is set twice in .*"logging\.level".*keep one/);

  await box.write("work/.mcpx.json", ONE_SERVER);
  const env = await box.mcpx(["config"], { env: { MCPX_TRACE: "1", MCPX_LOGGING_TRACE: "0" } });
  assert.equal(env.code, 3);
  assert.match(oneLine(env.stderr), /MCPX_LOGGING_TRACE and MCPX_TRACE both set logging\.trace/);
  const agree = await box.mcpx(["config"], { env: { MCPX_TRACE: "1", MCPX_LOGGING_TRACE: "1" } });
  assert.equal(agree.code, 0, "two variables that agree are fine");
});

Deno.test("bad input: a bad flag value, an unknown option and an unknown command exit 2", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", ONE_SERVER);
  const bad = await box.mcpx(["--daemon-idle-exit", "soon", "status"]);
  assert.equal(bad.code, 2);
  assert.match(
    oneLine(bad.stderr),
    /Invalid value "soon" for daemon\.idleExit \(from --daemon-idle-exit\): expected a duration/,
  );
  const opt = await box.mcpx(["status", "--jsn"]);
  assert.equal(opt.code, 2);
  assert.match(
    oneLine(opt.stderr),
    /Unknown option "--jsn" for "mcpx status": did you mean "--json"\?/,
  );
  const cmd = await box.mcpx(["stauts"]);
  assert.equal(cmd.code, 2);
  assert.match(oneLine(cmd.stderr), /Unknown command "stauts": did you mean "status"\?/);
  const json = await box.mcpx(["--json", "stauts"]);
  assert.equal(JSON.parse(json.stdout).error.code, "USAGE");
});

Deno.test("bad input: a socket path that is a plain file, foreign, or unreachable", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", ONE_SERVER);
  const file = await box.write("work/not-a-socket", "hello");
  const plain = await box.mcpx(["health"], { env: { MCPX_DAEMON_SOCKET: file } });
  assert.equal(plain.code, 4);
  assert.match(oneLine(plain.stderr), /exists and is not a socket/);
  assert.equal(await Deno.readTextFile(file), "hello", "the file is untouched");

  const unreachable = await box.mcpx(["health"], {
    env: { MCPX_DAEMON_SOCKET: "/proc/mcpx-no-such-dir/d.sock" },
  });
  assert.equal(unreachable.code, 4);
  assert.match(
    oneLine(unreachable.stderr),
    /did not start: Cannot listen on "\/proc\/mcpx-no-such-dir\/d\.sock"/,
  );

  const foreignPath = join(box.root, "tmp", "foreign.sock");
  await using _server = Deno.serve(
    { path: foreignPath, onListen() {} },
    () => new Response("not mcpx", { status: 404 }),
  );
  const foreign = await box.mcpx(["status"], { env: { MCPX_DAEMON_SOCKET: foreignPath } });
  assert.equal(foreign.code, 4);
  assert.match(oneLine(foreign.stderr), /is answered by something that is not an mcpx daemon/);
  assert.deepEqual(box.processes(), []);
});

Deno.test("bad input: no configuration anywhere names what was searched", async () => {
  await using box = await Sandbox.create();
  const r = await box.mcpx(["status"]);
  assert.equal(r.code, 3);
  assert.match(
    oneLine(r.stderr),
    /No configuration found: looked for \.mcpx\.json.*Create \.mcpx\.json/,
  );
  const missing = await box.mcpx(["--config", "nope.json", "status"]);
  assert.equal(missing.code, 3);
  assert.match(oneLine(missing.stderr), /Configuration file ".*nope\.json" does not exist/);
});

Deno.test("bad input: a server with both command and url, a malformed url, a directory as config", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { a: { command: "x", url: "http://127.0.0.1:1/mcp" } },
  });
  const both = await box.mcpx(["ls"]);
  assert.equal(both.code, 3);
  assert.match(oneLine(both.stderr), /Server "a" .*has both "command" and "url"/);
  await box.write("work/.mcpx.json", { mcpServers: { u: { url: "not a url" } } });
  const url = await box.mcpx(["ls"]);
  assert.equal(url.code, 3);
  assert.match(oneLine(url.stderr), /"url" is "not a url": expected http:\/\/host/);
  const dir = await box.mcpx(["--config", join(box.root, "work"), "ls"]);
  assert.equal(dir.code, 3);
  assert.match(oneLine(dir.stderr), /is a directory, not a file/);
  await box.write("work/.mcpx.json", { mcpServers: {} });
  const budget = await box.mcpx(["catalog", "--budget", "0"]);
  assert.equal(budget.code, 2);
  assert.match(oneLine(budget.stderr), /budget of 0 tokens holds nothing/);
});

Deno.test("bad input: an @file is read only up to daemon.maxRequestBytes, then refused in one line", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { f: faultyServer() } });
  await box.write("work/big.json", `{"text": "${"x".repeat(3000)}"}`);
  const env = { MCPX_DAEMON_MAX_REQUEST_BYTES: "2000" };
  for (
    const [args, what] of [
      [["call", "f.echo", "@/dev/zero"], 'the arguments file "/dev/zero"'],
      [["call", "f.echo", "@big.json"], 'the arguments file "big.json"'],
      [["exec", "@/dev/zero"], 'the program file "/dev/zero"'],
    ] as const
  ) {
    const r = await box.mcpx([...args], { env });
    assert.equal(r.code, 2, `${args}: ${r.stderr}`);
    assert.equal(
      oneLine(r.stderr),
      `mcpx: Cannot read ${what}: it is larger than daemon.maxRequestBytes (2000 bytes). ` +
        "Name a smaller file, or raise daemon.maxRequestBytes (MCPX_DAEMON_MAX_REQUEST_BYTES)",
    );
  }
  // Within the bound it is read as before.
  const ok = await box.mcpx(["call", "f.echo", "@big.json"]);
  assert.equal(ok.code, 0, ok.stderr);
});
