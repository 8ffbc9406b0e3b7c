import assert from "node:assert/strict";
import { join } from "node:path";
import { McpxError } from "../errors.ts";
import { discoverConfig } from "./discover.ts";
import { fingerprintConfig } from "./fingerprint.ts";
import { hash64 } from "../_hash.ts";
import { tempTree } from "../_testing.ts";
import { lineColumn, loadConfig, loadConfigSync, parseJsonc } from "./load.ts";

const tree = (files: Record<string, string>) => tempTree(files, "mcpx-config-");

Deno.test("discoverConfig() takes the nearest project file and layers every file found", async () => {
  const root = await tree({
    "repo/.mcp.json": "{}",
    "repo/sub/.mcpx/config.json": "{}",
    "repo/sub/deeper/x": "",
    "xdg/mcpx/config.json": "{}",
    "home/.mcpx.json": "{}",
  });
  const env = { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "xdg") };
  const loc = discoverConfig(join(root, "repo/sub/deeper"), env);
  assert.equal(loc.primary, join(root, "repo/sub/.mcpx/config.json"));
  assert.deepEqual(loc.layers, [
    join(root, "home/.mcpx.json"),
    join(root, "xdg/mcpx/config.json"),
    join(root, "repo/.mcp.json"),
    join(root, "repo/sub/.mcpx/config.json"),
  ]);
  assert.equal(loc.explicit, false);
  await Deno.remove(root, { recursive: true });
});

Deno.test("discoverConfig() follows paths.config: files and folders in order, - for the usual places", async () => {
  const root = await tree({
    "repo/.mcpx.json": "{}",
    "team/config.json": "{}",
    "one.json": "{}",
    "home/.mcpx.json": "{}",
  });
  const env = { HOME: join(root, "home") };
  const cwd = join(root, "repo");
  // A list without - replaces the built-in locations; a folder is searched for the usual names.
  const replaced = discoverConfig(cwd, env, undefined, { paths: "../team, ../one.json" });
  assert.equal(replaced.primary, join(root, "team/config.json"));
  assert.deepEqual(replaced.layers, [join(root, "one.json"), join(root, "team/config.json")]);
  assert.equal(replaced.listed, true);
  // With -, the usual places come where it stands: after ../one.json here.
  const spliced = discoverConfig(cwd, env, undefined, { paths: "../one.json,-" });
  assert.equal(spliced.primary, join(root, "one.json"));
  assert.deepEqual(spliced.layers, [
    join(root, "home/.mcpx.json"),
    join(root, "repo/.mcpx.json"),
    join(root, "one.json"),
  ]);
  assert.equal(
    discoverConfig(cwd, env, undefined, { paths: "-,../one.json", firstOnly: true }).primary,
    join(root, "repo/.mcpx.json"),
  );
  // An entry naming nothing is skipped and reported; the rest still count.
  const missing = discoverConfig(cwd, env, undefined, { paths: "./nope.json,-" });
  assert.deepEqual(missing.missing, [join(root, "repo/nope.json")]);
  assert.equal(missing.primary, join(root, "repo/.mcpx.json"));
  // Empty is the built-in search; an explicit file still wins outright.
  assert.equal(discoverConfig(cwd, env, undefined, { paths: "" }).listed, undefined);
  assert.equal(
    discoverConfig(cwd, env, join(root, "one.json"), { paths: "../team" }).primary,
    join(root, "one.json"),
  );
  await Deno.remove(root, { recursive: true });
});

Deno.test("discoverConfig() prefers .mcpx.json over .mcp.json in one folder, and an explicit path over all", async () => {
  const root = await tree({ ".mcpx.json": "{}", ".mcp.json": "{}", "other.json": "{}" });
  assert.equal(discoverConfig(root, { HOME: root }).primary, join(root, ".mcpx.json"));
  const loc = discoverConfig(root, { HOME: root }, "other.json");
  assert.deepEqual([loc.primary, loc.layers, loc.explicit], [join(root, "other.json"), [
    join(root, "other.json"),
  ], true]);
  assert.throws(
    () => discoverConfig(root, {}, "missing.json"),
    (e: unknown) => e instanceof McpxError && e.code === "CONFIG_NOT_FOUND",
  );
  await Deno.remove(root, { recursive: true });
});

Deno.test("discoverConfig() says so when a candidate is a folder, a pipe, a dangling symlink or a loop, rather than using one further up", async () => {
  const root = await tree({
    "dir/.mcpx.json/x": "",
    "pipe/x": "",
    "dangling/x": "",
    "loop/deeper/x": "",
    "notdir/.mcpx": "not a folder",
    ".mcp.json": "{}",
  });
  // A pipe would block a read until a writer came; a loop cannot be resolved.
  const fifo = new Deno.Command("mkfifo", { args: [join(root, "pipe/.mcpx.json")] }).outputSync();
  assert.ok(fifo.success);
  await Deno.symlink("/nonexistent/x.json", join(root, "dangling/.mcpx.json"));
  await Deno.symlink(join(root, "loop/.mcp.json"), join(root, "loop/.mcp.json"));
  const env = { HOME: join(root, "nohome") };
  for (
    const [cwd, file, why] of [
      ["dir", "dir/.mcpx.json", "is a directory, not a file"],
      ["pipe", "pipe/.mcpx.json", "is not a regular file"],
      ["dangling", "dangling/.mcpx.json", 'is a dangling symlink to "/nonexistent/x.json"'],
      ["loop/deeper", "loop/.mcp.json", "is a symlink loop"],
    ]
  ) {
    assert.throws(
      () => discoverConfig(join(root, cwd), env),
      (e) =>
        e instanceof McpxError && e.code === "CONFIG_INVALID" &&
        e.message === `Configuration ${join(root, file)} ${why}` && /Fix or remove it/.test(e.hint),
      cwd,
    );
  }
  // `.mcpx` that is a file holds no `.mcpx/config.json`: nothing is there, and the search goes on.
  const loc = discoverConfig(join(root, "notdir"), env);
  assert.equal(loc.primary, join(root, ".mcp.json"));
  assert.ok(loc.searched.includes(join(root, "notdir/.mcpx/config.json")));
  await Deno.remove(root, { recursive: true });
});

Deno.test("a configuration saved with a byte order mark reads as one without", async () => {
  const bom = "\ufeff";
  const root = await tree({
    "plain.json": bom + JSON.stringify({ mcpServers: { a: { command: "x" } } }),
    "jsonc.json": bom + '{ "mcpServers": { "a": { "command": "x", }, }, } // end',
  });
  for (const name of ["plain.json", "jsonc.json"]) {
    const path = join(root, name);
    const fp = fingerprintConfig(path);
    assert.ok(fp.text.startsWith(bom), "the fingerprint is of the file as it is");
    assert.deepEqual(loadConfigSync(path, fp.text)?.mcpServers, { a: { command: "x" } }, name);
    assert.deepEqual((await loadConfig(path)).mcpServers, { a: { command: "x" } }, name);
  }
  await Deno.remove(root, { recursive: true });
});

Deno.test("fingerprintConfig() hashes the file's own bytes: the path, a NUL, then the bytes", async () => {
  const root = await tree({ "c.json": '{ "é": "ü" }\n' });
  const fp = fingerprintConfig(join(root, "c.json"));
  const bytes = await Deno.readFile(join(root, "c.json"));
  const name = new TextEncoder().encode(join(root, "c.json") + "\0");
  const all = new Uint8Array([...name, ...bytes]);
  assert.equal(fp.hash, hash64(all));
  assert.equal(fp.text, '{ "é": "ü" }\n');
  await Deno.remove(root, { recursive: true });
});

Deno.test("fingerprintConfig() changes with the bytes and with the path, not with a symlink", async () => {
  const root = await tree({ "a.json": "{}", "b.json": "{}" });
  await Deno.symlink(join(root, "a.json"), join(root, "link.json"));
  const a = fingerprintConfig(join(root, "a.json"));
  assert.equal((fingerprintConfig(join(root, "link.json"))).hash, a.hash);
  assert.notEqual((fingerprintConfig(join(root, "b.json"))).hash, a.hash);
  await Deno.writeTextFile(join(root, "a.json"), "{ }");
  assert.notEqual((fingerprintConfig(join(root, "a.json"))).hash, a.hash);
  assert.match(a.hash, /^[0-9a-f]{16}$/);
  await Deno.remove(root, { recursive: true });
});

Deno.test("parseJsonc() accepts comments and trailing commas and keeps string contents", async () => {
  const v = await parseJsonc('{ "a": "// not a comment", /* c */ "b": [1, 2,], }', "f");
  assert.deepEqual(v, { a: "// not a comment", b: [1, 2] });
});

Deno.test("parseJsonc() reports the line and column of the first mistake", async () => {
  await assert.rejects(
    () => parseJsonc('{\n  "a": 1\n  "b": 2\n}', "/x/.mcpx.json"),
    (e: unknown) =>
      e instanceof McpxError && e.code === "CONFIG_INVALID" &&
      e.message === "Cannot parse /x/.mcpx.json: comma expected at line 3, column 3",
  );
  assert.deepEqual(lineColumn("ab\ncd", 4), { line: 2, column: 2 });
});

Deno.test("loadConfig() refuses a near miss of mcpServers or pool, and leaves other keys to settings", async () => {
  const root = await tree({
    "typo.json": JSON.stringify({ mcpSevers: { fs: { command: "x" } } }),
    "case.json": JSON.stringify({ MCPServers: {}, pools: {} }),
    "pools.json": JSON.stringify({ mcpServers: {}, pools: {} }),
    "other.json": JSON.stringify({ mcpServers: {}, tools: {}, logging: { level: "debug" } }),
    "list.json": "[]",
  });
  const refused = (name: string, re: RegExp) =>
    assert.rejects(
      () => loadConfig(join(root, name)),
      (e: unknown) => e instanceof McpxError && e.code === "CONFIG_INVALID" && re.test(e.message),
    );
  await refused(
    "typo.json",
    /Unknown key "mcpSevers" in .*typo\.json: did you mean "mcpServers"\?/,
  );
  await refused("case.json", /Unknown key "MCPServers" .*did you mean "mcpServers"\?/);
  await refused("pools.json", /Unknown key "pools" .*did you mean "pool"\?/);
  assert.deepEqual((await loadConfig(join(root, "other.json"))).mcpServers, {});
  await assert.rejects(() => loadConfig(join(root, "list.json")), /must hold a JSON object/);
  await Deno.remove(root, { recursive: true });
});

Deno.test("fingerprintConfig() and loadConfig() report a file the system will not read as CONFIG_INVALID", async () => {
  const root = await tree({ "dir/.keep": "" });
  // Root reads any file whatever its mode; a directory, and a /proc file whose read fails
  // (EINVAL as root, EACCES otherwise), are failures every user can produce.
  for (const path of [join(root, "dir"), "/proc/self/clear_refs"]) {
    const check = (e: unknown) =>
      e instanceof McpxError && e.code === "CONFIG_INVALID" &&
      /^Cannot read configuration ".*": [a-z ]+ \(E[A-Z]+\)$/.test(e.message);
    assert.throws(() => fingerprintConfig(path), check, path);
    await assert.rejects(() => loadConfig(path), check, path);
  }
  await Deno.remove(root, { recursive: true });
});

Deno.test("stripJsonc() removes comments and trailing commas outside strings only", async () => {
  const { stripJsonc } = await import("./load.ts");
  const text = '{ "u": "http://x//y", /* c */ "s": "a,}", "l": [1, 2, // two\n ], // end\n }';
  assert.deepEqual(JSON.parse(stripJsonc(text)), { u: "http://x//y", s: "a,}", l: [1, 2] });
  assert.equal(stripJsonc('"esc\\"// in the string"'), '"esc\\"// in the string"');
  assert.equal(stripJsonc('"esc\\\\"// a comment'), '"esc\\\\"');
  // Text without comments or trailing commas comes back as the same string.
  const plain = '{ "a": [1, 2], "b": "x" }';
  assert.equal(stripJsonc(plain), plain);
});

Deno.test("stripJsonc() agrees with the JSONC parser on valid text, and leaves invalid text invalid", async () => {
  const { stripJsonc } = await import("./load.ts");
  const { parse } = await import("jsonc-parser");
  const valid = [
    "{}",
    '{ "a": 1, }',
    "[1, 2, /* two */ ]",
    "[1, 2, // two\n]",
    '{ "a": "//not", "b": "/*not*/", "c": "\\"", "d": "\\\\" } // end',
    '{ "a": [ { "b": 1, }, ], /* a\nlong\ncomment */ }',
    '/* head */ { "k": "v" /* tail */ }',
    '{ "url": "https://x/y", "e": "a\\u002Fb", }\r\n',
    '{ "a": 1, // a comment ended by a lone CR\r"b": 2\n}',
  ];
  for (const text of valid) {
    const errors: { error: number; offset: number; length: number }[] = [];
    const want = parse(text, errors, { allowTrailingComma: true });
    assert.deepEqual(errors, [], text);
    assert.deepEqual(JSON.parse(stripJsonc(text)), want, text);
  }
  const invalid = [
    '{ "a": 1 /* unterminated ',
    '{ "a": "no end\n }',
    '{ "a": 1 "b": 2 }',
    '{ "a": 1,, }',
    '{ "a": / }',
    '{ "a": 1 // comment without a line break',
  ];
  for (const text of invalid) assert.throws(() => JSON.parse(stripJsonc(text)), text);
});
