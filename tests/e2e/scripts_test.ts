/**
 * Scripts end to end: `mcpx run`, `mcpx exec` and `mcpx scripts` as real processes against the
 * fixture server, under every runtime this machine has. The fixture scripts live in
 * tests/fixtures/scripts as `*.ts.txt` (one of them must not parse, and they import a client that
 * only exists once mcpx writes it) and are copied into each sandbox's .mcpx/scripts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { type Run, Sandbox } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const FIXTURES = join(REPO, "tests", "fixtures", "scripts");

interface Envelope {
  ok: boolean;
  exitCode: number;
  durationMs: number;
  runtime: string;
  session: string;
  result?: unknown;
  results: unknown[];
  stdout: string;
  logs: Record<string, unknown>[];
  stderr: string;
  error?: { kind: string; name: string; message: string; location?: string; stack?: string };
  truncated?: true;
  spilledTo?: string;
  bytes?: number;
}

/** A sandbox with the fixture server (plus a session-scoped copy) and the fixture scripts. */
async function scriptBox(): Promise<Sandbox> {
  const box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      fixture: faultyServer(),
      sess: { ...faultyServer(), mcpx: { sharing: "exclusive", scope: "session" } },
    },
  });
  for await (const e of Deno.readDir(FIXTURES)) {
    if (!e.name.endsWith(".ts.txt")) continue;
    await box.write(
      `work/.mcpx/scripts/${e.name.replace(/\.txt$/, "")}`,
      await Deno.readTextFile(join(FIXTURES, e.name)),
    );
  }
  // Lists the tools into the schema cache, which the generated client is written from.
  const refresh = await box.mcpx(["refresh"]);
  assert.equal(refresh.code, 0, refresh.stderr);
  return box;
}

/** `mcpx --json …`, parsed whatever the exit status (a failed run still prints its envelope). */
async function envelope(
  box: Sandbox,
  args: string[],
  options: { env?: Record<string, string> } = {},
): Promise<Envelope & { code: number; stderrText: string }> {
  const r = await box.mcpx(["--json", ...args], options);
  let parsed: Envelope;
  try {
    parsed = JSON.parse(r.stdout);
  } catch {
    throw new Error(`mcpx --json ${args.join(" ")} printed no JSON (exit ${r.code}): ${r.stderr}`);
  }
  return { ...parsed, code: r.code, stderrText: r.stderr };
}

/** `mcpx args…` with `input` on stdin (Sandbox.mcpx gives its processes no stdin). */
async function withStdin(box: Sandbox, args: string[], input: string): Promise<Run> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${REPO}/deno.json`, `${REPO}/main.ts`, ...args],
    cwd: join(box.root, "work"),
    env: box.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Whether a process is gone (a zombie waiting for its reaper counts as gone). */
function gone(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/**
 * The folder holding a usable `name` runtime: on PATH, or installed for the tests under
 * tests/npm (`npm install node@22 bun` there). Node must be 22.6 or newer (type stripping).
 */
function runtimeDir(name: "node" | "bun"): string | undefined {
  const dirs = [
    ...(Deno.env.get("PATH") ?? "").split(":"),
    join(REPO, "tests", "npm", "node_modules", ".bin"),
  ];
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      Deno.statSync(path);
    } catch {
      continue;
    }
    if (name === "bun") return dir;
    const out = new Deno.Command(path, { args: ["--version"], stdout: "piped", stderr: "null" })
      .outputSync();
    const m = /^v(\d+)\.(\d+)/.exec(new TextDecoder().decode(out.stdout));
    if (m && (Number(m[1]) > 22 || (Number(m[1]) === 22 && Number(m[2]) >= 6))) return dir;
  }
  return undefined;
}

Deno.test("scripts.run: results, emit, --export, logs, globals and the imported client", async () => {
  await using box = await scriptBox();

  const number = await box.mcpx(["run", "number"]);
  assert.equal(number.code, 0, number.stderr);
  assert.equal(number.stdout, "42\n");
  const numberJson = await envelope(box, ["run", "number"]);
  assert.equal(numberJson.result, 42);
  assert.equal(numberJson.ok, true);
  assert.equal(numberJson.runtime, "worker");

  // Plain: emitted values stream as JSON lines, then the result; the log is rendered on stderr.
  const plain = await box.mcpx(["run", "portable", "hello"]);
  assert.equal(plain.code, 0, plain.stderr);
  const lines = plain.stdout.split("\n");
  assert.deepEqual(lines.slice(0, 2).map((l) => JSON.parse(l)), [{ step: "start" }, {
    step: "done",
  }]);
  assert.deepEqual(JSON.parse(lines.slice(2).join("\n")), {
    viaGlobal: "hello",
    viaImport: "hello",
    argv: ["hello"],
    args: ["hello"],
    sameTools: true,
  });
  assert.match(plain.stderr, /^\d\d:\d\d:\d\d\.\d{3} INFO {2}echoing hello runtime=any$/m);

  // --json: one document, nothing else on either stream.
  const json = await envelope(box, ["run", "portable", "hello"]);
  assert.equal(json.code, 0);
  assert.equal(json.stderrText, "", "nothing leaks to the terminal under --json");
  assert.deepEqual(json.results, [{ step: "start" }, { step: "done" }]);
  assert.equal((json.result as { viaImport: string }).viaImport, "hello");
  assert.equal(json.stdout, "");
  assert.equal(json.stderr, "");
  assert.equal(json.logs.length, 1);
  assert.equal(json.logs[0].msg, "echoing hello");
  assert.equal(json.logs[0].template, "echoing {text}");
  assert.equal(json.logs[0].text, "hello");
  assert.equal(json.logs[0].level, "info");
  assert.match(json.session, /^run-[0-9a-f-]{36}$/);
  assert.equal(typeof json.durationMs, "number");

  // --export calls a named export with the arguments spread; an unknown one lists what exists.
  const add = await box.mcpx(["run", "--export", "add", "portable", "2", "3"]);
  assert.equal(add.stdout, "5\n", add.stderr);
  const unknown = await box.mcpx(["run", "--export", "nope", "portable"]);
  assert.equal(unknown.code, 2);
  // Found in the script's text before anything starts (the launcher itself refuses one it missed).
  assert.match(unknown.stderr, /There is no export "nope" in "portable"; it exports add, default/);

  // exec: an expression's value is printed; statements may return; stdin with -.
  const exec = await box.mcpx(["exec", 'fixture.echo({ text: "from exec" })']);
  assert.equal(exec.stdout, "from exec\n", exec.stderr);
  const body = await box.mcpx(["exec", "const n: number = Number(args[0]); return n * 2", "21"]);
  assert.equal(body.stdout, "42\n", body.stderr);
  const stdin = await withStdin(
    box,
    ["exec", "-"],
    'emit(1);\nreturn await fixture.echo({ text: "piped" });\n',
  );
  assert.equal(stdin.stdout, "1\npiped\n", stdin.stderr);

  // The script's own exit status passes through; --env and --env-file set variables.
  const exit = await box.mcpx(["exec", "Deno.exit(3)"]);
  assert.equal(exit.code, 3);
  await box.write("work/vars.env", "# for the run\nA=from-file\nB='two words'\n");
  const vars = await box.mcpx([
    "exec",
    'return [Deno.env.get("A"), Deno.env.get("B"), Deno.env.get("C")].join("|")',
    "--env-file",
    "vars.env",
    "--env",
    "C=x=y",
  ]);
  assert.equal(vars.stdout, "from-file|two words|x=y\n", vars.stderr);
  const badEnv = await box.mcpx(["exec", "1", "--env", "not a pair"]);
  assert.equal(badEnv.code, 2);
  assert.match(badEnv.stderr, /--env "not a pair" is not KEY=VALUE/);

  // Output past output.maxBytes prints its head and names the file holding all of it; binary
  // stdout is never shown, its bytes are saved (tests/e2e/output_test.ts has the rest).
  const big = await box.mcpx(["exec", 'console.log("x".repeat(5000))', "--max-output", "100"]);
  assert.equal(big.code, 0);
  const cut = /^x{100}\n\[mcpx: output cut at 100 of 5001 bytes; all 4\.9 KiB are in (\S+)\]\n$/
    .exec(big.stdout);
  assert.ok(cut, big.stdout);
  assert.equal(await Deno.readTextFile(cut[1]), "x".repeat(5000) + "\n");
  const binary = await box.mcpx([
    "exec",
    "Deno.stdout.writeSync(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));",
  ]);
  const saved = /^\[mcpx: 8 bytes of PNG image on stdout, not shown; saved in (\S+\.png)\]\n$/
    .exec(binary.stdout);
  assert.ok(saved, binary.stdout);
  assert.deepEqual(
    await Deno.readFile(saved[1]),
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]),
  );
});

Deno.test("scripts.list and name resolution: nearest wins, shadowing, paths.scripts, overlaps, not found", async () => {
  await using box = await Sandbox.create();
  await box.write(
    "work/.mcpx/scripts/greet.ts",
    "// Greets nearby.\nexport default () => 'near';\n",
  );
  await box.write(
    "config/mcpx/scripts/greet.ts",
    "// Greets from afar.\nexport default () => 'far';\n",
  );
  await box.write(
    "config/mcpx/scripts/only-far.ts",
    "#!/usr/bin/env -S mcpx run\n/** Lives in the user's folder. */\nexport default () => 'far only';\n",
  );
  await box.write("elsewhere/tools/mine.ts", "// Mine.\nexport default () => 'mine';\n");

  const near = await box.mcpx(["run", "greet"]);
  assert.equal(near.stdout, "near\n", near.stderr);
  assert.equal((await box.mcpx(["run", "only-far"])).stdout, "far only\n");
  assert.equal((await box.mcpx(["run", "./.mcpx/scripts/greet.ts"])).stdout, "near\n");

  const list = await box.json<
    { scripts: { name: string; description: string; shadowedBy?: string }[] }
  >(
    ["scripts"],
  );
  assert.deepEqual(list.scripts.map((s) => [s.name, s.description, Boolean(s.shadowedBy)]), [
    ["greet", "Greets nearby.", false],
    ["greet", "Greets from afar.", true],
    ["only-far", "Lives in the user's folder.", false],
  ]);
  const table = await box.mcpx(["scripts"]);
  assert.match(table.stdout, /^NAME\s+DESCRIPTION\s+PATH$/m);
  assert.match(table.stdout, /^greet \(shadowed\)\s+Greets from afar\./m);

  // paths.scripts: a list whose `-` splices in the built-in locations; without it, it replaces.
  const elsewhere = join(box.root, "elsewhere", "tools");
  const spliced = await box.mcpx(["run", "mine"], {
    env: { MCPX_PATHS_SCRIPTS: `${elsewhere},-` },
  });
  assert.equal(spliced.stdout, "mine\n", spliced.stderr);
  const replaced = await box.mcpx(["run", "greet"], { env: { MCPX_PATHS_SCRIPTS: elsewhere } });
  assert.equal(replaced.code, 5);
  const file = await box.mcpx(["run", "mine"], {
    env: { MCPX_PATHS_SCRIPTS: join(elsewhere, "mine.ts") },
  });
  assert.equal(file.stdout, "mine\n", file.stderr);

  // foo.ts beside foo.js is refused, unless plumbing.allowTsJsOverlap (then .ts runs).
  await box.write("work/.mcpx/scripts/dup.ts", "export default () => 'ts';\n");
  await box.write("work/.mcpx/scripts/dup.js", "export default () => 'js';\n");
  const dup = await box.mcpx(["run", "dup"]);
  assert.equal(dup.code, 2);
  assert.match(dup.stderr, /Script "dup" is ambiguous: .*dup\.ts and .*dup\.js both exist/);
  const allowed = await box.mcpx(["run", "dup"], {
    env: { MCPX_PLUMBING_ALLOW_TS_JS_OVERLAP: "true" },
  });
  assert.equal(allowed.stdout, "ts\n", allowed.stderr);

  // Not found: every searched location, marked as it was found.
  const missing = await box.mcpx(["run", "gret"]);
  assert.equal(missing.code, 5);
  assert.match(missing.stderr, /No script named "gret" \(did you mean "greet"\?\)/);
  assert.match(missing.stderr, new RegExp(`${join(box.root, "work", ".mcpx", "scripts")}\\s+dir`));
  assert.match(missing.stderr, new RegExp(`${join(box.root, ".mcpx", "scripts")}\\s+missing`));
  assert.match(missing.stderr, new RegExp(`${join(box.root, "config", "mcpx", "scripts")}\\s+dir`));
  const noFile = await box.mcpx(["run", "./nope.ts"]);
  assert.equal(noFile.code, 5);
  assert.match(noFile.stderr, /Script file "\.\/nope\.ts" does not exist/);
});

Deno.test("scripts.run: bad input fails cleanly, with file:line:col and no launcher frames", async () => {
  await using box = await scriptBox();
  const cases: [string, RegExp][] = [
    ["syntax_error", /^\.mcpx\/scripts\/syntax_error\.ts:4:9: SyntaxError: \S.*\n$/],
    ["throws", /^\.mcpx\/scripts\/throws\.ts:4:11: RangeError: too big: 1\n$/],
    [
      "missing_namespace",
      /^\.mcpx\/scripts\/missing_namespace\.ts:2:\d+: ReferenceError: nosuch is not defined; no namespace "nosuch"; the namespaces are fixture, sess/,
    ],
    [
      "not_json",
      /^\.mcpx\/scripts\/not_json\.ts: The default export returned a value that is not JSON: the result\.index is a Map/,
    ],
  ];
  for (const [name, expected] of cases) {
    const r = await box.mcpx(["run", name]);
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    assert.equal(r.stdout, "", name);
    assert.match(r.stderr, expected, name);
    assert.doesNotMatch(r.stderr, /launcher\/|ext:|node:internal/, name);
  }
  const json = await envelope(box, ["run", "throws"]);
  assert.equal(json.ok, false);
  assert.equal(json.exitCode, 1);
  assert.equal(json.error?.kind, "uncaught");
  assert.equal(json.error?.location, ".mcpx/scripts/throws.ts:4:11");
  assert.doesNotMatch(json.error?.stack ?? "", /launcher\//);
  const tool = await box.mcpx(["exec", "fixture.no_such_tool({})"]);
  assert.equal(tool.code, 1);
  assert.match(
    tool.stderr,
    /^exec:1:\d+: TypeError: fixture\.no_such_tool is not a function; fixture has no tool "no_such_tool"; its tools are .*echo/,
  );
});

/** What every runtime must agree on for portable.ts, and session isolation under it. */
async function sameUnder(runtime: string, dir?: string): Promise<void> {
  await using box = await scriptBox();
  const env: Record<string, string> = dir ? { PATH: `${dir}:${box.env.PATH}` } : {};
  const args = runtime === "worker" ? [] : ["--runtime", runtime];
  const json = await envelope(box, ["run", ...args, "portable", "same"], { env });
  assert.equal(json.code, 0, json.stderrText + json.stderr + JSON.stringify(json.error));
  assert.equal(json.runtime, runtime);
  assert.deepEqual(json.result, {
    viaGlobal: "same",
    viaImport: "same",
    argv: ["same"],
    args: ["same"],
    sameTools: true,
  });
  assert.deepEqual(json.results, [{ step: "start" }, { step: "done" }]);
  assert.deepEqual(json.logs.map((l) => [l.level, l.msg, l.runtime]), [[
    "info",
    "echoing same",
    "any",
  ]]);
  assert.equal(json.stdout, "");
  assert.equal(json.stderr, "");

  // A text result prints as the text, not as `[String: "…"]`.
  const printed = await box.mcpx(["run", ...args, "prints_text"], { env });
  assert.equal(printed.code, 0, printed.stderr);
  assert.equal(printed.stdout, "plain\n");

  // Without MCPX_SESSION_ID each run is its own session; with it, runs share a process.
  const a = await box.mcpx(["run", ...args, "session_pid"], { env });
  const b = await box.mcpx(["run", ...args, "session_pid"], { env });
  assert.equal(a.code, 0, a.stderr);
  assert.notEqual(a.stdout, b.stdout, "two runs without a session id get two processes");
  const shared = { ...env, MCPX_SESSION_ID: "shared" };
  const c = await box.mcpx(["run", ...args, "session_pid"], { env: shared });
  const d = await box.mcpx(["run", ...args, "session_pid"], { env: shared });
  assert.equal(c.stdout, d.stdout, "runs under one MCPX_SESSION_ID share a process");
  // The keys the runs minted were ended with them; the named session stays.
  const status = await box.json<{ servers: { namespace: string; instances: { key: string }[] }[] }>(
    ["status"],
  );
  const keys = status.servers.find((s) => s.namespace === "sess")!.instances.map((i) => i.key);
  assert.deepEqual(keys, ["session:shared"]);
}

Deno.test("scripts.run: the worker runtime", () => sameUnder("worker"));
Deno.test("scripts.run: the deno runtime", () => sameUnder("deno"));
const NODE = runtimeDir("node");
Deno.test({
  name: "scripts.run: the node runtime (22.6 or newer)",
  ignore: !NODE,
  fn: () => sameUnder("node", NODE),
});
// Debian's Node 20 cannot strip types: mcpx emits the script and its client as .mjs for it.
const NODE20 = ["/usr/bin/node", "/usr/local/bin/node"].find((p) => {
  try {
    const out = new Deno.Command(p, { args: ["--version"], stdout: "piped" }).outputSync();
    return /^v(1[89]|2[01])\./.test(new TextDecoder().decode(out.stdout));
  } catch {
    return false;
  }
});
Deno.test({
  name: "scripts.run: Node 20, on JavaScript that mcpx emits",
  ignore: !NODE20,
  fn: () => sameUnder("node", NODE20!.slice(0, NODE20!.lastIndexOf("/"))),
});
const BUN = runtimeDir("bun");
Deno.test({ name: "scripts.run: the bun runtime", ignore: !BUN, fn: () => sameUnder("bun", BUN) });

Deno.test("scripts.run: a missing or too old runtime is named with the fix", async () => {
  await using box = await Sandbox.create();
  await box.write("work/n.ts", "export default () => 1;\n");
  // A PATH holding only an old node and no bun.
  const bin = await box.write("bin/node", "#!/bin/sh\necho v16.1.0\n");
  await Deno.chmod(bin, 0o755);
  const env = { PATH: join(box.root, "bin") };
  const old = await box.mcpx(["run", "--runtime", "node", "n.ts"], { env });
  assert.equal(old.code, 5);
  assert.match(
    old.stderr,
    /Node v16\.1\.0 at .* cannot run TypeScript: mcpx needs Node 22\.6 or newer \(or 18\.0 with deno\)/,
  );
  const bun = await box.mcpx(["run", "--runtime", "bun", "n.ts"], { env });
  assert.equal(bun.code, 5);
  assert.match(
    bun.stderr,
    /Bun is not installed: no `bun` on PATH\. Install it with `npm install -g bun`/,
  );
  const directive = await box.write(
    "work/wants_bun.ts",
    "// mcpx: runtime=bun\nexport default () => 1;\n",
  );
  const asked = await box.mcpx(["run", directive], { env });
  assert.equal(asked.code, 5, "the script's own directive picks the runtime");
  assert.equal((await box.mcpx(["run", "--runtime", "worker", directive], { env })).stdout, "1\n");
});

/** hang.ts under `runtime` with a 1 s timeout: exit 124, and its child process is gone. */
async function timesOut(runtime: string, dir?: string): Promise<void> {
  await using box = await scriptBox();
  const env: Record<string, string> = dir ? { PATH: `${dir}:${box.env.PATH}` } : {};
  const args = runtime === "worker" ? [] : ["--runtime", runtime];
  const json = await envelope(box, ["run", ...args, "--timeout", "1s", "hang"], { env });
  assert.equal(json.exitCode, 124, JSON.stringify(json));
  assert.equal(json.code, 124);
  assert.equal(json.error?.kind, "timeout");
  assert.match(json.error?.message ?? "", /timed out after 1s; stopped it and 1 process/);
  const pid = json.logs.find((l) => l.msg?.toString().startsWith("started"))?.pid as number;
  assert.ok(pid > 0, "the script said which child it started");
  assert.ok(gone(pid), `the child ${pid} was stopped with the script`);
  const plain = await box.mcpx(["run", ...args, "--timeout", "1s", "hang"], { env });
  assert.equal(plain.code, 124);
  assert.match(plain.stderr, /mcpx: Script "hang" timed out after 1s/);
}

Deno.test("scripts.run: a timeout stops a worker script and its children", () =>
  timesOut("worker"));
Deno.test("scripts.run: a timeout stops a subprocess script and its group", () => timesOut("deno"));

Deno.test("scripts.exec: a relative import means the file beside the caller", async () => {
  await using box = await scriptBox();
  await box.write("work/helper.ts", "export const answer = 41;\n");
  const r = await box.mcpx([
    "exec",
    'import { answer } from "./helper.ts";\nexport default () => answer + 1;',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "42\n");
});

Deno.test("scripts.run: a run that starts before its daemon has answered makes its calls once it has", async () => {
  await using box = await scriptBox();
  // The first run writes the client; after `stop`, the second finds that client still right and
  // starts the Worker at once, while the daemon is started again: its first call must wait.
  const first = await envelope(box, ["run", "session_pid"]);
  assert.equal(first.code, 0, first.stderrText);
  const client = join(box.root, "work", ".mcpx", "scripts", "mcpx-client.ts");
  const written = Deno.readTextFileSync(client);
  const stop = await box.mcpx(["stop"]);
  assert.equal(stop.code, 0, stop.stderr);
  const again = await envelope(box, ["run", "session_pid"]);
  assert.equal(again.code, 0, again.stderrText);
  // The client was still right (same stamp): the run did not wait to write it.
  assert.equal(Deno.readTextFileSync(client), written);
  assert.equal(typeof again.result, "number");
  assert.notEqual(again.result, first.result, "a new daemon started a new server process");
  // The run minted its session, made a call in it, and ended it: no process of it is left.
  const status = JSON.parse((await box.mcpx(["--json", "status"])).stdout);
  const live = status.servers.filter((s: { namespace: string }) => s.namespace === "sess");
  assert.deepEqual(live.flatMap((s: { instances?: unknown[] }) => s.instances ?? []), []);
});

Deno.test("scripts.run: a first run lists servers never listed, and the client it writes stays right", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  await box.write(
    "work/.mcpx/scripts/echo.ts",
    '// Echo once.\nexport default async () => String(await fixture.echo({ text: "listed" }));\n',
  );
  // No refresh: the first run lists the server itself, then writes the client from the cache.
  for (const attempt of ["first", "second", "third"]) {
    const run = await box.mcpx(["run", "echo"]);
    assert.equal(run.code, 0, `${attempt} run: ${run.stderr}`);
    assert.equal(run.stdout.trim(), "listed");
  }
  await box.mcpx(["stop"]);
});

Deno.test("scripts.run: a run that starts the daemon itself, and ends first, leaves the daemon running", async () => {
  await using box = await scriptBox();
  // A client already right, a stopped daemon, and a script that returns at once: the run ends
  // while the daemon it started is still coming up, and must not stop it with its own leftovers.
  assert.equal((await envelope(box, ["run", "number"])).code, 0);
  await box.mcpx(["stop"]);
  const run = await envelope(box, ["run", "number"]);
  assert.equal(run.code, 0, run.stderrText);
  assert.equal(run.result, 42);
  const status = JSON.parse((await box.mcpx(["--json", "status"])).stdout);
  assert.equal(status.running, true, "the daemon the run started is still there");
  await box.mcpx(["stop"]);
});

Deno.test("scripts.run: the run's session is ended even when only a process the script started used it", async () => {
  await using box = await scriptBox();
  await box.write(
    "work/.mcpx/scripts/via-child.ts",
    `// Calls the session-scoped server through a child mcpx, under the run's session.
export default async () => {
  const out = await new Deno.Command(${JSON.stringify(Deno.execPath())}, {
    args: ["run", "-A", "--config", ${JSON.stringify(`${REPO}/deno.json`)}, ${
      JSON.stringify(`${REPO}/main.ts`)
    }, "call", "sess.pid"],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
};
`,
  );
  const run = await envelope(box, ["run", "via-child"]);
  assert.equal(run.code, 0, run.stderrText);
  assert.match(String(run.result), /^\d+$/, "the child's call was served");
  const status = JSON.parse((await box.mcpx(["--json", "status"])).stdout);
  const sess = status.servers.find((s: { namespace: string }) => s.namespace === "sess");
  assert.deepEqual(sess.instances, [], "the session the run minted was ended");
  await box.mcpx(["stop"]);
});
