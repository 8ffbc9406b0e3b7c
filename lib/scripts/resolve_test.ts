import assert from "node:assert/strict";
import { join } from "../_path.ts";
import { McpxError } from "../errors.ts";
import { tempTree } from "../_testing.ts";
import {
  description,
  isPathShaped,
  listScripts,
  resolveScript,
  searchLocations,
  type SearchOptions,
} from "./resolve.ts";

const tree = (files: Record<string, string>) => tempTree(files, "mcpx-resolve-");

function options(root: string, more: Partial<SearchOptions> = {}): SearchOptions {
  return {
    cwd: join(root, "repo", "sub"),
    env: { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "xdg") },
    paths: "",
    pathsBase: join(root, "repo", "sub"),
    allowOverlap: false,
    ...more,
  };
}

Deno.test("resolveScript() searches upward, then the user folders; a path is verbatim", async () => {
  const root = await tree({
    "repo/.mcpx/scripts/a.ts": "// Near a.\n",
    "repo/sub/.mcpx/scripts/.keep": "",
    ".mcpx/scripts/a.ts": "// Far a.\n",
    "xdg/mcpx/scripts/b.js": "// B.\n",
    "home/.config/mcpx/scripts/c.mts": "// C.\n",
    "repo/sub/local.ts": "",
  });
  try {
    const o = options(root);
    assert.equal(resolveScript("a", o).path, join(root, "repo/.mcpx/scripts/a.ts"));
    assert.equal(resolveScript("b", o).path, join(root, "xdg/mcpx/scripts/b.js"));
    assert.equal(resolveScript("c", o).path, join(root, "home/.config/mcpx/scripts/c.mts"));
    assert.deepEqual(resolveScript("./local.ts", o), {
      path: join(root, "repo/sub/local.ts"),
      name: "local",
      named: false,
    });
    assert.ok(isPathShaped("x/y") && isPathShaped("y.mjs") && !isPathShaped("shot-flow"));
    const listed = listScripts(o).scripts;
    assert.deepEqual(listed.map((s) => [s.name, s.description, s.shadowedBy !== undefined]), [
      ["a", "Near a.", false],
      ["a", "Far a.", true],
      ["b", "B.", false],
      ["c", "C.", false],
    ]);
    assert.throws(() => resolveScript("nope", o), (e: unknown) => {
      assert.ok(e instanceof McpxError && e.code === "NOT_FOUND");
      assert.match(e.hint, new RegExp(`${join(root, "repo/sub/.mcpx/scripts")}\\s+dir`));
      assert.match(e.hint, /\/\.mcpx\/scripts\s+missing/);
      assert.match(e.hint, new RegExp(`${join(root, "repo/.mcpx/scripts")}\\s+dir`));
      return true;
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("paths.scripts: - splices the built-ins, a file entry names one script, overlaps refused", async () => {
  const root = await tree({
    "mine/x.ts": "",
    "one/solo.ts": "",
    "repo/.mcpx/scripts/x.ts": "",
    "repo/.mcpx/scripts/dup.ts": "",
    "repo/.mcpx/scripts/dup.js": "",
  });
  try {
    const spliced = options(root, { paths: "../../mine, -", pathsBase: join(root, "repo/sub") });
    assert.equal(resolveScript("x", spliced).path, join(root, "mine/x.ts"));
    assert.deepEqual(
      searchLocations(spliced).slice(0, 2).map((l) => [l.path, l.kind, l.from]),
      [[join(root, "mine"), "dir", "paths.scripts"], [
        join(root, "repo/sub/.mcpx/scripts"),
        "dir",
        "project",
      ]],
    );
    const only = options(root, { paths: join(root, "one/solo.ts") });
    assert.equal(resolveScript("solo", only).path, join(root, "one/solo.ts"));
    assert.throws(() => resolveScript("x", only), /No script named "x"/);
    assert.throws(() => resolveScript("dup", options(root)), /ambiguous/);
    assert.equal(
      resolveScript("dup", options(root, { allowOverlap: true })).path,
      join(root, "repo/.mcpx/scripts/dup.ts"),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("description() is the first comment line, past shebangs and directives", () => {
  assert.equal(description("#!/usr/bin/env -S mcpx run\n// mcpx: runtime=node\n// Hi.\n"), "Hi.");
  assert.equal(description("/**\n * Block one.\n */\nexport {};"), "Block one.");
  assert.equal(description("/* Inline. */\n"), "Inline.");
  assert.equal(description("export default 1;\n// late\n"), "");
});
