import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { captureIo } from "../io.ts";
import { joinHint, main, parseArgs } from "./cli.ts";
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
  // A boolean given a value after a space says how to spell it.
  usage(
    ["serve", "--http", "127.0.0.1:0", "--auth", "false"],
    /^--auth takes no value after a space: write --no-auth \(or --auth=false\)$/,
  );
  usage(
    ["stop", "--all", "true"],
    /^--all takes no value after a space: write --all \(or --all=true\)$/,
  );
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

Deno.test("main() prints a group's commands for `mcpx <group> --help` and `mcpx help <group>`", async () => {
  for (const args of [["session", "--help"], ["help", "session"], ["--json", "session", "-h"]]) {
    const io = captureIo();
    assert.equal(await main(args, io), 0, args.join(" "));
    const out = io.stdout();
    assert.match(out, /^Usage: mcpx session <command> \[args\]\n/, args.join(" "));
    for (const sub of ["new", "ls", "search", "show", "attach", "end"]) {
      assert.match(out, new RegExp(`^  session ${sub} +[A-Z]`, "m"), `${args.join(" ")}: ${sub}`);
    }
  }
  // A command beside its group (`config`, `config import`) shows its own help and its siblings.
  const config = captureIo();
  assert.equal(await main(["config", "--help"], config), 0);
  assert.match(
    config.stdout(),
    /Usage: mcpx config \[options\][\s\S]*Subcommands:\n {2}config import /,
  );
  // Without --help a group still needs one of its commands.
  const bare = captureIo();
  assert.equal(await main(["elicit"], bare), 2);
  assert.match(bare.stderr(), /"mcpx elicit" needs one of: list, show, answer, decline/);
});

Deno.test("main() answers `mcpx help <command>` with usage, options and examples", async () => {
  const io = captureIo();
  assert.equal(await main(["help", "call"], io), 0);
  const out = io.stdout();
  assert.match(out, /^Usage: mcpx call <namespace\.tool>/);
  assert.match(out, /Arguments and options:\n[\s\S]*--session <string>/);
  assert.match(out, /Examples:\n {2}mcpx call everything\.echo message=hi\n/);
  for (const line of out.split("\n")) assert.ok(line.length <= 100, line);
  const two = captureIo();
  assert.equal(await main(["help", "session", "new"], two), 0);
  assert.match(two.stdout(), /^Usage: mcpx session new/);
  // The short form and the --no- spelling a person types.
  const log = captureIo();
  assert.equal(await main(["log", "--help"], log), 0);
  assert.match(log.stdout(), /-n, --limit <integer>/);
  assert.match(log.stdout(), /-f, --follow/);
  const serve = captureIo();
  assert.equal(await main(["help", "serve"], serve), 0);
  assert.match(serve.stdout(), /^ {2}--no-auth +With --http: serve without the bearer token/m);
  assert.doesNotMatch(serve.stdout(), /false serves/);
  const bad = captureIo();
  assert.equal(await main(["help", "sesion"], bad), 2);
  assert.equal(
    bad.stderr(),
    'mcpx: No help for "sesion": did you mean "session"? Run `mcpx help commands` for every command\n',
  );
});

Deno.test("main() top-level help fits a screen; help options and help commands hold the rest", async () => {
  const io = captureIo();
  assert.equal(await main(["--help"], io), 0);
  const lines = io.stdout().trimEnd().split("\n");
  assert.ok(lines.length <= 50, `${lines.length} lines`);
  assert.ok(lines.every((l) => l.length <= 100), "a line over 100 columns");
  assert.ok(io.stdout().length < 5000, `${io.stdout().length} bytes`);
  const options = captureIo();
  assert.equal(await main(["help", "options"], options), 0);
  assert.match(options.stdout(), /^daemon:\n {2}--daemon-socket <path>/m);
  assert.match(options.stdout(), /--servers-log-level <value>[\s\S]*one of off, debug/);
  // A setting that is on by default says how to turn it off.
  assert.match(
    options.stdout().replace(/\s+/g, " "),
    /--auth-browser Let [^(]*; on by default, --no-auth-browser turns it off/,
  );
  const commands = captureIo();
  assert.equal(await main(["help", "commands"], commands), 0);
  assert.match(commands.stdout(), /^Sessions:\n {2}session new +Create a named session/m);
});

Deno.test("joinHint() puts one sentence mark between a message and its hint", () => {
  assert.equal(joinHint('No server "x"', "Run ls"), 'No server "x". Run ls');
  assert.equal(joinHint('Did you mean "ls"?', "Run ls"), 'Did you mean "ls"? Run ls');
  // A server's question that ends introducing its fields: no "fields:. Answer".
  assert.equal(
    joinHint(
      "everything.ask is waiting: Please provide the following fields:",
      "Answer it with: x",
    ),
    "everything.ask is waiting: Please provide the following fields. Answer it with: x",
  );
  assert.equal(joinHint("Plain", undefined), "Plain");
});
