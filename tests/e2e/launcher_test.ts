/**
 * The launcher end to end: console capture compared against --no-launcher, structured stack
 * traces, the template (--launcher, a near miss, a cycle), --prefix/--suffix, --export, every
 * problem found before a run, and --typecheck. Real mcpx processes, no configuration (so no daemon).
 */
import assert from "node:assert/strict";
import { Sandbox } from "../_helpers.ts";

/** Every console member that prints to stdout, and raw writes among them. */
const STDOUT_SCRIPT =
  `console.log("%s scored %d (%i) at %f %o %O %j %c%%", "ann", 3, 4.7, 1.5, { a: [1] }, { b: 2 }, { c: 3 }, "color: red");
console.log("names:", console.log.name, console.info.name, console.table.name);
console.group("group");
console.log("inside");
console.groupCollapsed("collapsed");
console.dir({ deep: { er: { still: { more: 1 } } } });
console.groupEnd();
console.groupEnd();
console.dirxml("dirxml", 1);
console.table([{ a: 1, b: "x" }, { a: 2, b: "y" }]);
console.count(); console.count("k"); console.count(); console.countReset(); console.count();
Deno.stdout.writeSync(new TextEncoder().encode("raw bytes\\n"));
console.log(new Map([[1, { two: 2 }]]), new Set(["s"]), [undefined, null], 10n, Symbol("q"));
try { console.createTask(); } catch (e) { console.log("createTask:", e.constructor.name); }
console.profile("p"); console.profileEnd("p"); console.timeStamp("t");
console.time("t"); console.timeLog("t", "midway", { at: 1 }); console.timeEnd("t");
console.group("before clear");
console.clear();
console.log("after clear, not indented");
console.log("end");
`;

/** Every console member that carries a level, inside a group too. */
const LEVEL_SCRIPT = `console.info("%s scored %d", "ann", 3);
console.info({ a: 1 });
console.debug("debugging", [1, 2]);
console.group("g");
console.info("indented");
console.warn("careful");
console.groupEnd();
console.error("bad", 42, new Map([["k", 1]]));
console.assert(1 === 1, "fine");
console.assert(1 === 2, "nope %d", 7);
function inner() { console.trace("here"); }
inner();
`;

interface Envelope {
  ok: boolean;
  exitCode: number;
  stdout: string;
  stderr: string;
  logs: Record<string, unknown>[];
  result?: unknown;
  error?: { kind: string; message: string; location?: string; stack?: string };
}

async function box(): Promise<Sandbox> {
  return await Sandbox.create();
}

async function envelope(b: Sandbox, args: string[], env: Record<string, string> = {}) {
  const r = await b.mcpx(["--json", ...args], { env });
  return { ...JSON.parse(r.stdout) as Envelope, code: r.code, stderrText: r.stderr };
}

Deno.test("console capture: stdout is the same, line for line, as with --no-launcher", async () => {
  await using b = await box();
  await b.write("work/all.ts", STDOUT_SCRIPT);
  const captured = await envelope(b, ["run", "all.ts"]);
  const bare = await envelope(b, ["run", "--no-launcher", "all.ts"]);
  assert.equal(captured.code, 0, captured.stderrText + captured.stderr);
  assert.equal(bare.code, 0, bare.stderrText + bare.stderr);
  // Timers print elapsed milliseconds, which differ between any two runs.
  const lines = (text: string) => text.replace(/\d+(\.\d+)?ms/g, "Nms").split("\n");
  assert.deepEqual(lines(captured.stdout), lines(bare.stdout));
  assert.match(captured.stdout, /^t: [\d.]+ms midway \{ at: 1 \}$/m);
  // clear writes what the runtime writes for it, and resets the indentation.
  assert.ok(captured.stdout.includes("\x1b[0Jafter clear, not indented\n"));
  assert.match(captured.stdout, /ann scored 3 \(4\) at 1\.5/);
  assert.match(captured.stdout, /names: log info table/);
  assert.match(captured.stdout, /createTask: \w*Error/);
  // Nothing else reached stderr (the markers are file-only records, not lines).
  assert.equal(captured.stderr, bare.stderr);
});

Deno.test("console capture: levelled members become records whose text is the runtime's own", async () => {
  await using b = await box();
  await b.write("work/levels.ts", LEVEL_SCRIPT);
  const env = { MCPX_LOGGING_LEVEL: "debug" };
  const captured = await envelope(b, ["run", "levels.ts"], env);
  const bare = await envelope(b, ["run", "--no-launcher", "levels.ts"], env);
  assert.equal(captured.code, 0, captured.stderrText);
  // A group's label is printed, as console.log would print it.
  assert.equal(captured.stdout, "g\n");
  const lines = (records: Record<string, unknown>[]) =>
    records.flatMap((r) => String(r.msg).split("\n"));
  // Deno writes info and debug to stdout, the rest to stderr: the records, in order, say the same.
  const toStdout = captured.logs.filter((r) =>
    ["info", "debug", "group"].includes(String(r.console))
  );
  const toStderr = captured.logs.filter((r) =>
    !["info", "debug", "group"].includes(String(r.console))
  );
  const bareOut = bare.stdout.split("\n").filter((l) => l !== "g" && l !== "");
  assert.deepEqual(lines(toStdout), bareOut);
  assert.deepEqual(lines(toStderr), bare.stderr.split("\n").filter((l) => l !== ""));
  const byMember = Object.fromEntries(captured.logs.map((r) => [r.console, r]));
  assert.equal(byMember.warn.level, "warn");
  assert.equal(byMember.error.level, "error");
  assert.equal(byMember.debug.level, "debug");
  assert.deepEqual(byMember.error.args, ["bad", 42, { k: 1 }]);
  const frames = byMember.trace.frames as { fn?: string; line?: number }[];
  assert.equal(frames[0].fn, "inner");
  assert.equal(frames[0].line, 11);
  // --no-capture-console: the console is the runtime's, straight to the streams.
  const off = await envelope(b, ["run", "--no-capture-console", "levels.ts"], env);
  assert.equal(off.logs.length, 0);
  assert.equal(off.stdout, bare.stdout);
  assert.equal(off.stderr, bare.stderr);
});

Deno.test("a failed run names the script's own frame first, and keeps frames as data", async () => {
  await using b = await box();
  await b.write(
    "work/fails.ts",
    `// a comment, so the throw is on line 4
type T = { n: number };
function deep(t: T): never {
  throw new RangeError("too far: " + t.n);
}
export default function () {
  const frames = captureFrames(0, 1);
  if (frames[0].line !== 7) throw new Error("captureFrames gave " + JSON.stringify(frames));
  try { deep({ n: 1 }); } catch (e) {
    const f = errorFrames(e);
    if (f[0].fn !== "deep" || f[0].line !== 4) throw new Error("errorFrames gave " + JSON.stringify(f));
    if (!String(e.stack).includes("at deep (")) throw new Error("the string was lost");
  }
  deep({ n: 2 });
}
`,
  );
  const r = await b.mcpx(["run", "fails.ts"]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr.trim(), "fails.ts:4:9: RangeError: too far: 2");
  const e = await envelope(b, ["run", "fails.ts"]);
  const stack = e.error!.stack!.split("\n");
  assert.match(stack[1], /^ {4}at deep \(file:\/\/.*\/fails\.ts:4:9\)$/);
  assert.doesNotMatch(e.error!.stack!, /launcher|launch-/);
});

Deno.test("--prefix and --suffix see script and result; the suffix runs in a finally", async () => {
  await using b = await box();
  await b.write("work/ok.ts", `export default (args: string[]) => ({ got: args });\n`);
  await b.write("work/bad.ts", `export default () => { throw new Error("nope"); };\n`);
  await b.write(
    "work/hooks/suffix/10-second.js",
    `console.error("second", result.ok);\n`,
  );
  await b.write("work/hooks/suffix/9-first.js", `console.error("first", script.name);\n`);
  const prefix = `console.error("prefix", script.name, JSON.stringify(script.args));`;
  const ok = await b.mcpx(["run", "--prefix", prefix, "--suffix", "hooks/suffix", "ok.ts", "a"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), { got: ["a"] });
  const msgs = ok.stderr.split("\n").filter(Boolean).map((l) => l.replace(/^\S+ \S+\s+/, ""));
  assert.deepEqual(msgs, ['prefix ok ["a"]', "first ok", "second true"]);
  const bad = await b.mcpx([
    "run",
    "--suffix",
    "@text:console.error('ms', typeof result.ms, result.ok, result.error.message)",
    "--on-error",
    "console.error('on-error', result.error.message)",
    "bad.ts",
  ]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /on-error nope/);
  assert.match(bad.stderr, /ms number false nope/);
  assert.match(bad.stderr, /bad\.ts:1:\d+: nope/);
});

Deno.test("--export calls a named export with spread arguments; an unknown one lists those there are", async () => {
  await using b = await box();
  await b.write(
    "work/ex.ts",
    `export function add(a: string, b: string) { return Number(a) + Number(b); }\nexport const twice = (x: string) => x + x;\nexport default () => "default";\n`,
  );
  const r = await b.mcpx(["run", "--export", "add", "ex.ts", "2", "3"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "5");
  const bad = await b.mcpx(["run", "--export", "sub", "ex.ts"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /There is no export "sub" in "ex\.ts"; it exports add, default, twice/);
});

Deno.test("--launcher: a template of your own; a near miss and a cycle are refused before running", async () => {
  await using b = await box();
  await b.write("work/s.ts", `export default () => "ran";\n`);
  const mine = await b.mcpx([
    "run",
    "--launcher",
    "@header\n@globals\nconsole.error('mine');\n@import\n@entry\n@onSuccess\n@suffix",
    "s.ts",
  ]);
  assert.equal(mine.code, 0, mine.stderr);
  assert.equal(mine.stdout, "ran\n");
  assert.match(mine.stderr, /^mine$/m);
  const typo = await b.mcpx([
    "run",
    "--launcher",
    "@header\n@globals\n@import\n@entyr\n@suffix",
    "s.ts",
  ]);
  assert.equal(typo.code, 2);
  assert.match(
    typo.stderr,
    /Unknown placeholder "@entyr" in --launcher .*: did you mean "@entry"\?/,
  );
  const cycle = await b.mcpx([
    "run",
    "--prefix",
    "@suffix",
    "--suffix",
    "@prefix",
    "s.ts",
  ]);
  assert.equal(cycle.code, 2);
  assert.match(cycle.stderr, /Placeholder cycle: @prefix → @suffix → @prefix/);
  assert.equal(cycle.stdout, "");
  const twice = await b.mcpx([
    "run",
    "--launcher",
    "@globals\n@import\n@entry\n@entry\n@suffix",
    "s.ts",
  ]);
  assert.equal(twice.code, 2);
  assert.match(twice.stderr, /"@entry" resolves more than once/);
  const allowed = await b.mcpx(
    ["run", "--launcher", "@globals\n@import\n@entry\n@entry\n@onSuccess\n@suffix", "s.ts"],
    { env: { MCPX_PLUMBING_LAUNCHER_PLACEHOLDER_REPEAT: "entry" } },
  );
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.equal(allowed.stdout, "ran\n");
  // A launcher that does not parse is named at its own line; one without @globals says so.
  const broken = await b.mcpx(["run", "--launcher", "@header\n@globals\nif ( {", "s.ts"]);
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /launch-[0-9a-f]+\.ts:8:\d+: SyntaxError: /);
  const bare = await b.mcpx(["run", "--launcher", "@import\n@entry", "s.ts"]);
  assert.equal(bare.code, 1);
  assert.match(
    bare.stderr,
    /__mcpx is not defined; a --launcher uses the launcher's steps after @globals/,
  );
});

Deno.test("every knowable problem is reported together, before anything starts", async () => {
  await using b = await box();
  await b.write("work/s.ts", `// mcpx: runtime=nope\nexport function f() {}\n`);
  // Where the JSONL logs go, taken by a file.
  await b.write("state/mcpx/logs", "not a folder");
  const r = await b.mcpx([
    "run",
    "--env",
    "NOEQUALS",
    "--prefix",
    "@file:missing/hook.ts",
    "--export",
    "g",
    "s.ts",
  ]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /5 problems before running/);
  assert.match(r.stderr, /NOEQUALS/);
  assert.match(r.stderr, /Cannot read --prefix "@file:missing\/hook\.ts"/);
  assert.match(r.stderr, /There is no export "g" in "s\.ts"; it exports f/);
  assert.match(r.stderr, /The log directory ".*\/state\/mcpx\/logs" is a file, not a folder/);
  assert.match(r.stderr, /nope/);
  // A missing log folder is created rather than refused.
  await Deno.remove(`${b.root}/state/mcpx/logs`);
  await b.write("work/ok.ts", `console.log("ran");\n`);
  const ok = await b.mcpx(["run", "ok.ts"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.ok(Deno.statSync(`${b.root}/state/mcpx/logs`).isDirectory);
});

Deno.test("--typecheck checks the generated program and the script without running them", async () => {
  await using b = await box();
  await b.write("work/good.ts", `const n: number = 1;\nconsole.log("ran", n);\n`);
  await b.write("work/bad.ts", `const n: number = "one";\nconsole.log("ran", n);\n`);
  const good = await b.mcpx(["run", "--typecheck", "good.ts"]);
  assert.equal(good.code, 0, good.stderr);
  assert.equal(good.stdout, "");
  assert.match(good.stderr, /typecheck passed: .*good\.ts and its launcher/);
  const bad = await b.mcpx(["run", "--typecheck", "bad.ts"]);
  assert.equal(bad.code, 1);
  assert.equal(bad.stdout, "");
  assert.match(bad.stderr, /TS2322/);
  const node = await b.mcpx(["run", "--typecheck", "--runtime", "node", "good.ts"]);
  assert.equal(node.code, 2);
  assert.match(node.stderr, /--typecheck cannot check a script run under node: node strips types/);
});

/** Console members every runtime has, without any runtime's own APIs. */
const PORTABLE_SCRIPT = `const who: string = "ann";
console.log("%s scored %d (%i) %o %j%%", who, 3, 4.7, { a: [1] }, { c: 3 });
console.group("group");
console.log("inside", { n: 1 });
console.groupEnd();
console.table([{ a: 1 }, { a: 2 }]);
console.count(); console.count();
console.dir({ b: [1, 2] });
console.log("end");
`;

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** PATH for a runtime: tests/npm's node 22 and bun, or the system's node (20 here). */
function runtimes(): { name: string; runtime: string; path: string }[] {
  const system = Deno.env.get("PATH") ?? "/usr/bin:/bin";
  const npmBin = `${REPO}/tests/npm/node_modules/.bin`;
  const out = [{ name: "deno", runtime: "deno", path: system }];
  const has = (dir: string, bin: string) => {
    try {
      return Deno.statSync(`${dir}/${bin}`).isFile;
    } catch {
      return false;
    }
  };
  if (system.split(":").some((d) => has(d, "node"))) {
    out.push({ name: "node (system)", runtime: "node", path: system });
  }
  if (has(npmBin, "node")) {
    out.push({ name: "node (tests/npm)", runtime: "node", path: `${npmBin}:${system}` });
  }
  if (has(npmBin, "bun")) out.push({ name: "bun", runtime: "bun", path: `${npmBin}:${system}` });
  return out;
}

for (const r of runtimes()) {
  Deno.test(`under ${r.name}: console capture matches --no-launcher, and a failure names the TypeScript line`, async () => {
    await using b = await box();
    await b.write("work/p.ts", PORTABLE_SCRIPT);
    await b.write(
      "work/f.ts",
      `interface Shape { n: number }\ntype Also = string;\nfunction deep(s: Shape): never {\n  throw new RangeError("far " + s.n);\n}\ndeep({ n: 1 });\n`,
    );
    const env = { PATH: r.path };
    const captured = await envelope(b, ["run", "--runtime", r.runtime, "p.ts"], env);
    const bare = await envelope(b, ["run", "--runtime", r.runtime, "--no-launcher", "p.ts"], env);
    assert.equal(captured.code, 0, captured.stderrText + captured.stderr);
    assert.equal(bare.code, 0, bare.stderrText + bare.stderr);
    assert.deepEqual(captured.stdout.split("\n"), bare.stdout.split("\n"));
    assert.match(captured.stdout, /ann scored 3 \(4\)/);
    const failed = await b.mcpx(["run", "--runtime", r.runtime, "f.ts"], { env });
    assert.equal(failed.code, 1, failed.stderr);
    // The line is the TypeScript's own; the column is where the runtime puts it (Bun: the name).
    assert.match(failed.stderr.trim(), /^f\.ts:4:(9|13): RangeError: far 1$/);
    const e = await envelope(b, ["run", "--runtime", r.runtime, "f.ts"], env);
    assert.match(e.error!.stack!.split("\n")[1], /at deep \(.*f\.ts:4:(9|13)\)$/);
  });
}

Deno.test("a placeholder declared in paths.placeholders wraps the entry, with arguments", async () => {
  await using b = await box();
  await b.write("work/s.ts", `export default () => "ran";\n`);
  await b.write(
    "work/fragments/timing.ts",
    `// @mcpx:placeholder timed(body, label)
{
  const __t = performance.now();
  @body
  console.error("timed", @label, typeof (performance.now() - __t));
}
`,
  );
  const launcher = '@header\n@globals\n@import\n@timed(entry, "main")\n@onSuccess\n@suffix';
  const env = { MCPX_PATHS_PLACEHOLDERS: "fragments" };
  const r = await b.mcpx(["run", "--launcher", launcher, "s.ts"], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "ran\n");
  // No @console in this template: the console is the runtime's own.
  assert.equal(r.stderr, "timed main number\n");
  const withBefore = await b.mcpx([
    "run",
    "--before",
    "console.error('before', script.name)",
    "s.ts",
  ]);
  assert.match(withBefore.stderr, /before s$/m);
  // Declaring a built-in is refused before anything runs.
  await b.write("work/fragments/entry.ts", "boom();\n");
  const shadow = await b.mcpx(["run", "--launcher", launcher, "s.ts"], { env });
  assert.equal(shadow.code, 2);
  assert.match(shadow.stderr, /declares @entry, which is built in: a placeholder cannot shadow it/);
});

Deno.test("a named script with no client gets mcpx-globals.d.ts declaring the launcher's globals", async () => {
  await using b = await box();
  await b.write(
    "work/.mcpx/scripts/hello.ts",
    `const f: { line?: number }[] = captureFrames(0, 1);\nlog.info("hi {n}", { n: f.length });\nexport default () => args.length;\n`,
  );
  const env = { MCPX_TRUST_ALL: "1" };
  const r = await b.mcpx(["run", "hello", "x"], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "1\n");
  const declared = await Deno.readTextFile(`${b.root}/work/.mcpx/scripts/mcpx-globals.d.ts`);
  assert.match(declared, /const captureFrames: /);
  assert.match(declared, /const log: /);
  // The declaration is what the typecheck reads: the script checks against it.
  const checked = await b.mcpx(["run", "--typecheck", "hello"], { env });
  assert.equal(checked.code, 0, checked.stderr);
});
