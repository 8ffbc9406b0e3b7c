// The search paths and settings the docs promise: paths.config as a list with `-` for the usual
// places, logging.dir, and an optional path that is missing said in one warning.
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { Sandbox } from "../_helpers.ts";

Deno.test("search paths: paths.config replaces or extends where configurations are found", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { here: faultyServer() } });
  await box.write("team/config.json", { mcpServers: { team: faultyServer() } });
  const names = async (env: Record<string, string>) =>
    (await box.json<{ namespaces: { namespace: string }[] }>(["ls"], { env })).namespaces
      .map((n) => n.namespace);
  assert.deepEqual(await names({}), ["here"]);
  // A folder entry, replacing the usual places: the team's file is the one found.
  assert.deepEqual(await names({ MCPX_PATHS_CONFIG: "../team" }), ["team"]);
  // `-` splices the usual places in after it: the team's file is nearest, the project's a layer.
  const config = await box.json<{ config: { primary: string; layers: string[] } }>(["config"], {
    env: { MCPX_PATHS_CONFIG: "../team/config.json,-" },
  });
  assert.equal(config.config.primary, join(box.root, "team/config.json"));
  assert.deepEqual(config.config.layers, [
    join(box.root, "work/.mcpx.json"),
    join(box.root, "team/config.json"),
  ]);
  // The flag does what the variable does.
  const flag = await box.mcpx(["--paths-config", "../team", "ls"]);
  assert.equal(flag.code, 0, flag.stderr);
  assert.match(flag.stdout, /^team\s/m);

  // An entry that names nothing is one warning, and the search goes on.
  const missing = await box.mcpx(["ls"], { env: { MCPX_PATHS_CONFIG: "./nope.json,-" } });
  assert.equal(missing.code, 0, missing.stderr);
  assert.match(missing.stdout, /^here\s/m);
  const warnings = missing.stderr.split("\n").filter((l) => l.includes("nope.json"));
  assert.deepEqual(warnings, [
    `mcpx: warning: paths.config names "${
      join(box.root, "work/nope.json")
    }", which does not exist: it was skipped`,
  ]);
  // Nothing found where the list says: the error names the setting and what was looked at.
  const none = await box.mcpx(["ls"], { env: { MCPX_PATHS_CONFIG: "./nope.json" } });
  assert.equal(none.code, 3);
  assert.match(
    none.stderr,
    /No configuration found where paths\.config says: looked at .*nope\.json/,
  );
});

Deno.test("search paths: logging.dir moves the JSONL logs, and mcpx log reads them there", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: {} });
  await box.write("work/hello.ts", 'console.log("marker-from-the-script");\n');
  const logs = join(box.root, "elsewhere", "logs");
  const env = { MCPX_LOGGING_DIR: logs };
  const run = await box.mcpx(["run", "hello.ts"], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(
    [...Deno.readDirSync(logs)].some((e) => e.name.startsWith("runs")),
    "the run's records are in logging.dir",
  );
  let inState = false;
  try {
    inState = [...Deno.readDirSync(join(box.root, "state", "mcpx", "logs"))].some((e) =>
      e.name.startsWith("runs")
    );
  } catch { /* no logs folder in the state directory at all */ }
  assert.equal(inState, false, "nothing of the run was written under <state>/logs");
  const found = await box.mcpx(["log", "--grep", "marker-from-the-script"], { env });
  assert.equal(found.code, 0, found.stderr);
  assert.match(found.stdout, /marker-from-the-script/);
  await box.mcpx(["stop"], { env });
});

Deno.test("search paths: a missing scripts folder or placeholders entry is one warning, not an error", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {},
    paths: { scripts: "./gone,-", placeholders: "./no-such-placeholders" },
  });
  await box.write("work/.mcpx/scripts/greet.ts", 'console.log("hi");\n');
  const run = await box.mcpx(["run", "greet"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "hi\n");
  const lines = run.stderr.split("\n").filter((l) => l.startsWith("mcpx: warning:"));
  assert.deepEqual(lines, [
    `mcpx: warning: paths.scripts names "${
      join(box.root, "work/gone")
    }", which does not exist: it was skipped`,
    `mcpx: warning: paths.placeholders names "${
      join(box.root, "work/no-such-placeholders")
    }", which does not exist: it was skipped`,
  ]);
  const listed = await box.mcpx(["scripts"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /greet/);
  assert.match(listed.stderr, /paths\.scripts names ".*gone", which does not exist/);
  await box.mcpx(["stop"]);
});
