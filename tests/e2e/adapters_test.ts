/**
 * Command-line programs as servers (docs/adapters.md), end to end: declarations under
 * `paths.adapters` for `git` (on a repository the test makes), a script that prints its argument
 * vector one word a line, and one that exits non-zero. Each is a namespace in `ls`, `types`,
 * `call`, a script and `/v1`, run by a real daemon as `mcpx adapter serve`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Sandbox } from "../_helpers.ts";

const HOSTILE = ["; rm -rf ~", "$(touch pwned)", "`touch pwned`", "a b\tc", "*", "'\"\\"];

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=Test", "-c", "user.email=t@example.com", ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

async function setUp(box: Sandbox): Promise<void> {
  const repo = join(box.root, "work", "repo");
  await Deno.mkdir(repo, { recursive: true });
  await git(repo, "init", "-q");
  for (const subject of ["first", "second", "third; rm -rf ~"]) {
    await git(repo, "commit", "-q", "--allow-empty", "-m", subject);
  }
  await Deno.writeTextFile(join(repo, "new.txt"), "x\n");
  const argv = await box.write(
    "work/bin/argv.sh",
    `#!/bin/sh\nfor a in "$@"; do printf '[%s]\\n' "$a"; done\n`,
  );
  const fails = await box.write(
    "work/bin/fails.sh",
    `#!/bin/sh\necho "some output"\necho "it went wrong" >&2\nexit 3\n`,
  );
  await Deno.chmod(argv, 0o755);
  await Deno.chmod(fails, 0o755);
  await box.write(
    "work/adapters/gitx.jsonc",
    `// git, read-only
{
  "name": "gitx",
  "command": "git",
  "description": "git on the test's repository",
  "cwd": "../repo",
  "tools": [
    {
      "name": "log",
      "description": "Recent commit subjects",
      "args": ["log", "--format=%s"],
      "params": { "limit": { "type": "integer", "flag": "-n", "default": "10", "description": "How many" } },
    },
    {
      "name": "status",
      "args": ["status"],
      "params": { "short": { "type": "boolean", "flag": "--short" } },
    },
  ],
}
`,
  );
  await box.write("work/adapters/scripts.json", {
    adapters: [
      {
        name: "argv",
        command: argv,
        tools: [{
          name: "echo",
          args: ["fixed", "--label={label}"],
          params: {
            label: { type: "string", default: "none" },
            mode: { type: "string", flag: "--mode", enum: ["fast", "slow"] },
            text: { type: "string", positional: 0, repeatable: true },
          },
        }],
      },
      {
        name: "fails",
        command: fails,
        tools: [{ name: "run", args: [] }, { name: "strict", args: [], errorExitCodes: [3] }],
      },
    ],
  });
  await box.write("work/.mcpx.json", { mcpServers: {}, paths: { adapters: "adapters" } });
}

Deno.test("adapters: git and scripts as namespaces through ls, types, call, a script and /v1", async () => {
  await using box = await Sandbox.create();
  await setUp(box);

  const check = await box.json<{ adapters: { name: string; installed: boolean }[] }>(
    ["adapter", "check"],
  );
  assert.deepEqual(
    check.adapters.map((a) => [a.name, a.installed]).sort(),
    [["argv", true], ["fails", true], ["gitx", true]],
  );

  const refresh = await box.mcpx(["refresh"]);
  assert.equal(refresh.code, 0, refresh.stderr);
  const ls = await box.mcpx(["ls"]);
  assert.equal(ls.code, 0, ls.stderr);
  for (const ns of ["argv", "fails", "gitx"]) assert.match(ls.stdout, new RegExp(`^${ns}\\s`, "m"));

  // Typed from the declared params; the result is exitCode, stdout and stderr.
  const types = await box.mcpx(["types", "gitx"]);
  assert.equal(types.code, 0, types.stderr);
  assert.match(types.stdout, /function log\(args\?: \{\s*limit\?: number;/);
  assert.match(types.stdout, /function status\(args\?: \{ short\?: boolean \}\)/);
  assert.match(types.stdout, /exitCode: number/);

  /** What a call answered: its structured content (exit code, stdout, stderr). */
  const call = async (...args: string[]) =>
    (await box.json<{ structuredContent: Record<string, unknown> }>(["call", ...args]))
      .structuredContent as { exitCode: number; stdout: string; stderr: string };

  const search = await box.json<{ hits: { fn: string }[] }>(["search", "commit subjects"]);
  assert.equal(search.hits[0]?.fn, "gitx.log", JSON.stringify(search.hits));
  const catalog = await box.json<{ text: string }>(["catalog"]);
  for (const fn of ["log", "status", "echo", "run"]) {
    assert.match(catalog.text, new RegExp(`function ${fn}\\(`), fn);
  }

  // A flag with a value, and its default.
  const two = await call("gitx.log", "limit=2");
  assert.deepEqual(two, { exitCode: 0, stdout: "third; rm -rf ~\nsecond\n", stderr: "" });
  const all = await call("gitx.log");
  assert.equal(all.stdout, "third; rm -rf ~\nsecond\nfirst\n");
  // A boolean is the flag's presence.
  const short = await call("gitx.status", "short=true");
  assert.equal(short.stdout, "?? new.txt\n");
  const long = await call("gitx.status", "short=false");
  assert.match(long.stdout, /Untracked files/);

  // Hostile values arrive as one word each, verbatim; nothing was run by a shell.
  const hostile = await call(
    "argv.echo",
    JSON.stringify({ text: HOSTILE, label: "$(id)", mode: "fast" }),
  );
  assert.equal(
    hostile.stdout,
    ["fixed", "--label=$(id)", "--mode", "fast", ...HOSTILE].map((w) => `[${w}]\n`).join(""),
  );
  for (const dir of ["work", "work/repo", "home"]) {
    assert.equal(await Deno.stat(join(box.root, dir, "pwned")).catch(() => null), null, dir);
  }

  // Only what was declared: an unknown param, a value outside the enum, an option smuggled in.
  const unknown = await box.mcpx(["call", "gitx.log", "output=/tmp/x"]);
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, /output/);
  const outside = await box.mcpx(["call", "argv.echo", "mode=rm"]);
  assert.notEqual(outside.code, 0);
  assert.match(outside.stderr + outside.stdout, /"mode" must be one of "fast" or "slow"/);
  const option = await box.mcpx(["call", "argv.echo", "text=--exec=evil"]);
  assert.notEqual(option.code, 0);
  assert.match(option.stderr + option.stdout, /would read as an option/);

  // A non-zero exit is a result, the caller's to judge: exit code, stdout and stderr, not an error.
  const failed = await box.mcpx(["--json", "call", "fails.run"]);
  assert.equal(failed.code, 0, failed.stderr);
  const envelope = JSON.parse(failed.stdout);
  assert.equal(envelope.isError, undefined, failed.stdout);
  assert.deepEqual(envelope.structuredContent, {
    exitCode: 3,
    stdout: "some output\n",
    stderr: "it went wrong\n",
  });
  // Unless the declaration names that status a failure: then a tool error (exit 8).
  const strict = await box.mcpx(["--json", "call", "fails.strict"]);
  assert.equal(strict.code, 8, strict.stdout + strict.stderr);
  assert.equal(JSON.parse(strict.stdout).isError, true, strict.stdout);

  // From a script.
  const script = await box.mcpx([
    "exec",
    "const r = await gitx.log({ limit: 1 }); const f = await argv.echo({ text: ['; rm -rf ~'] }); const x = await fails.run(); console.log(JSON.stringify([r, f, x]));",
  ]);
  assert.equal(script.code, 0, script.stderr);
  const [r, f, x] = JSON.parse(script.stdout.trim());
  assert.equal(x.exitCode, 3, script.stdout);
  assert.equal(JSON.stringify(r).includes("third; rm -rf ~"), true, script.stdout);
  assert.equal(JSON.stringify(f).includes("[; rm -rf ~]"), true, script.stdout);

  // Over /v1.
  const health = await box.json<{ socket: string }>(["health"]);
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: health.socket } });
  try {
    const res = await fetch("http://mcpx/v1/call/gitx/log", {
      client,
      method: "POST",
      headers: { "content-type": "application/json", "x-mcpx-token": box.daemonToken(health) },
      body: JSON.stringify({ limit: 1 }),
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(JSON.stringify(body).includes("third; rm -rf ~"), true, JSON.stringify(body));
  } finally {
    client.close();
  }

  // An edited declaration is taken up by the running daemon, as an edited configuration is.
  const scripts = JSON.parse(await Deno.readTextFile(join(box.root, "work/adapters/scripts.json")));
  scripts.adapters[1].tools.push({
    name: "again",
    args: ["x"],
    params: { n: { type: "integer", flag: "-n" } },
  });
  await box.write("work/adapters/scripts.json", scripts);
  const again = await box.mcpx(["--json", "call", "fails.again", "n=1"]);
  assert.equal(
    JSON.parse(again.stdout).structuredContent?.exitCode,
    3,
    again.stdout + again.stderr,
  );
  assert.equal((await box.mcpx(["refresh"])).code, 0);
  assert.match(
    (await box.mcpx(["types", "fails"])).stdout,
    /function again\(args\?: \{ n\?: number \}\)/,
  );
});

Deno.test("adapters: a missing program, a name taken by a server, a malformed declaration", async () => {
  await using box = await Sandbox.create();
  await box.write("work/a/missing.json", {
    name: "missing",
    command: "mcpx-no-such-program-here",
    tools: [{ name: "go", args: [] }],
  });
  await box.write("work/.mcpx.json", { mcpServers: {}, paths: { adapters: "a" } });
  const check = await box.mcpx(["adapter", "check"]);
  assert.equal(check.code, 1);
  assert.match(check.stdout, /missing {2}missing: "mcpx-no-such-program-here" is not installed/);
  const json = await box.mcpx(["--json", "adapter", "check"]);
  assert.equal(JSON.parse(json.stdout).adapters[0].installed, false);
  const call = await box.mcpx(["call", "missing.go"]);
  assert.notEqual(call.code, 0);
  assert.match(call.stdout + call.stderr, /is not installed/);

  await box.write("work/.mcpx.json", {
    mcpServers: { missing: { command: "true" } },
    paths: { adapters: "a" },
  });
  const clash = await box.mcpx(["ls"]);
  assert.equal(clash.code, 3);
  assert.match(clash.stderr, /Adapter "missing" in .* has the name of a configured server/);
  assert.equal(clash.stderr.trim().split("\n").length, 1, clash.stderr);
  // `adapter check` refuses the same configuration the same way, not "ok".
  const checked = await box.mcpx(["adapter", "check"]);
  assert.equal(checked.code, 3, checked.stdout + checked.stderr);
  assert.equal(checked.stderr, clash.stderr);

  await box.write("work/a/missing.json", {
    name: "bad",
    command: "git",
    tools: [{ name: "x", args: ["{nope}"] }],
  });
  await box.write("work/.mcpx.json", { mcpServers: {}, paths: { adapters: "a" } });
  const bad = await box.mcpx(["ls"]);
  assert.equal(bad.code, 3);
  assert.match(bad.stderr, /the hole \{nope\}, which names no param/);

  // A declaration another user could write decides what runs: refused, as a configuration is.
  const open = await box.write("work/a/missing.json", {
    name: "m",
    command: "git",
    tools: [{ name: "x" }],
  });
  await Deno.chmod(open, 0o666);
  const unsafe = await box.mcpx(["ls"]);
  assert.equal(unsafe.code, 9, unsafe.stderr);
  assert.match(unsafe.stderr, /Adapter file .*missing\.json is not used: .*writable/);
});
