import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { captureIo } from "../io.ts";
import { main, parseArgs } from "./cli.ts";
import { OPERATIONS } from "../operations/mod.ts";

Deno.test("parseArgs() takes global options before and after the command", () => {
  const p = parseArgs(["--json", "stop", "--all", "--log-level=debug"], OPERATIONS);
  assert.equal(p.op?.id, "daemon.stop");
  assert.deepEqual(p.input, { all: true });
  assert.deepEqual(p.flags.map((f) => [f.key, f.text]), [["output.json", "true"], [
    "logging.level",
    "debug",
  ]]);
  assert.deepEqual(parseArgs(["stop", "--no-all"], OPERATIONS).input, { all: false });
  assert.deepEqual(parseArgs(["--no-json", "status"], OPERATIONS).flags[0], {
    key: "output.json",
    text: "false",
    spelling: "--no-json",
  });
});

Deno.test("parseArgs() checks positionals against the declaration", () => {
  assert.deepEqual(parseArgs(["completion", "zsh"], OPERATIONS).input, { shell: "zsh" });
  const usage = (args: string[], re: RegExp) =>
    assert.throws(
      () => parseArgs(args, OPERATIONS),
      (e: unknown) => e instanceof McpxError && e.code === "USAGE" && re.test(e.message),
    );
  usage(["completion", "zhs"], /must be one of bash, zsh, fish, not "zhs": did you mean "zsh"\?/);
  usage(["completion"], /needs <shell>/);
  usage(["status", "extra"], /Unexpected argument "extra"/);
  usage(["--daemon-socket"], /--daemon-socket needs a value/);
  usage(["--all", "stop"], /Unknown option "--all"/);
});

Deno.test("main() prints help, and an error as one line with its exit status", async () => {
  const io = captureIo();
  assert.equal(await main([], io), 0);
  assert.match(io.stdout(), /^mcpx: every MCP server/);
  const help = captureIo();
  assert.equal(await main(["stop", "--help"], help), 0);
  assert.match(help.stdout(), /Usage: mcpx stop \[options\]\n[\s\S]*--all/);
  const bad = captureIo();
  assert.equal(await main(["stop", "--al"], bad), 2);
  assert.equal(
    bad.stderr(),
    'mcpx: Unknown option "--al" for "mcpx stop": did you mean "--all"? Run `mcpx stop --help`\n',
  );
});

Deno.test("main() answers --version and --json version without a daemon", async () => {
  const io = captureIo();
  assert.equal(await main(["--json", "--version"], io), 0);
  const v = JSON.parse(io.stdout());
  assert.equal(
    v.version,
    JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url))).version,
  );
});

Deno.test("main() without a configuration fails ls with its error and leaves nothing pending", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  const env = { HOME: root, XDG_CONFIG_HOME: root, XDG_STATE_HOME: root, XDG_CACHE_HOME: root };
  for (const args of [["ls"], ["--json", "ls"], ["search", "x"], ["types", "x"]]) {
    const io = captureIo({ env, cwd: root });
    assert.equal(await main(args, io), 3, args.join(" "));
    if (args[0] !== "--json") assert.match(io.stderr(), /No configuration found/);
    else {
      // Under --json the document on stdout is the one report of it.
      assert.equal(io.stderr(), "");
      assert.equal(JSON.parse(io.stdout()).error.code, "CONFIG_NOT_FOUND");
    }
  }
  await Deno.remove(root, { recursive: true });
});
