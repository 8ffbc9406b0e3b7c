import assert from "node:assert/strict";
import { join } from "../_path.ts";
import { McpxError } from "../errors.ts";
import { tempTree } from "../_testing.ts";
import { resolveScript, type SearchOptions } from "./resolve.ts";
import { projectFolders, requireScriptTrusted, type ScriptTrustOptions } from "./trust.ts";

const GIT = { "repo/.git/HEAD": "ref: refs/heads/main\n", "repo/.git/objects/.keep": "" };

Deno.test("projectFolders(): the configuration's folder up to its git checkout's top", async () => {
  const root = await Deno.realPath(
    await tempTree({
      ...GIT,
      "repo/.git/refs/.keep": "",
      "repo/a/b/.mcpx.json": "{}",
      "repo/c/.mcpx/config.json": "{}",
      "loose/d/.mcpx.json": "{}",
    }, "mcpx-script-trust-"),
  );
  try {
    assert.deepEqual(projectFolders(join(root, "repo/a/b/.mcpx.json")), [
      join(root, "repo/a/b"),
      join(root, "repo/a"),
      join(root, "repo"),
    ]);
    // `.mcpx/config.json` is the project folder's own, not the `.mcpx` folder's.
    assert.deepEqual(projectFolders(join(root, "repo/c/.mcpx/config.json")), [
      join(root, "repo/c"),
      join(root, "repo"),
    ]);
    // In no checkout: the configuration's folder alone, not the folders above it.
    assert.deepEqual(projectFolders(join(root, "loose/d/.mcpx.json")), [join(root, "loose/d")]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("requireScriptTrusted(): upward folders need a project or a record; the user's own and paths.scripts do not", async () => {
  const root = await Deno.realPath(
    await tempTree({
      ".mcpx/scripts/up.ts": "",
      "work/.mcpx.json": "{}",
      "work/.mcpx/scripts/near.ts": "",
      "xdg/mcpx/scripts/mine.ts": "",
      "named/one.ts": "",
      "state/.keep": "",
    }, "mcpx-script-trust-"),
  );
  try {
    const search = (paths = ""): SearchOptions => ({
      cwd: join(root, "work"),
      env: { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "xdg") },
      paths,
      pathsBase: join(root, "work"),
      allowOverlap: false,
    });
    const trust = (more: Partial<ScriptTrustOptions> = {}): ScriptTrustOptions => ({
      env: search().env,
      stateDir: join(root, "state"),
      trustAll: false,
      trustedConfigs: [],
      ...more,
    });
    const refused = (word: string, options: ScriptTrustOptions, paths = "") =>
      assert.throws(
        () => requireScriptTrusted(resolveScript(word, search(paths)), options),
        (e) => e instanceof McpxError && e.code === "CONFIG_UNTRUSTED",
      );
    refused("near", trust());
    refused("up", trust());
    // The working directory's configuration, trusted, makes its folder's scripts the project's.
    const project = trust({ trustedConfigs: [join(root, "work/.mcpx.json")] });
    requireScriptTrusted(resolveScript("near", search()), project);
    refused("up", project);
    requireScriptTrusted(resolveScript("up", search()), trust({ trustAll: true }));
    requireScriptTrusted(resolveScript("mine", search()), trust());
    requireScriptTrusted(resolveScript("one", search(join(root, "named"))), trust());
    requireScriptTrusted(resolveScript("./../.mcpx/scripts/up.ts", search()), trust());
    // Others may write the folder: refused even with trust.all, and for paths.scripts.
    await Deno.chmod(join(root, "named"), 0o777);
    refused("one", trust({ trustAll: true }), join(root, "named"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
