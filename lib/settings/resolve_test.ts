import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { resolveSettings } from "./resolve.ts";
import { envName, flagName, SETTINGS, type SettingSpec } from "./table.ts";

Deno.test("envName() and flagName() derive from the dotted key", () => {
  assert.equal(envName("daemon.idleExit"), "MCPX_DAEMON_IDLE_EXIT");
  assert.equal(flagName("daemon.idleExit"), "--daemon-idle-exit");
  assert.equal(flagName("output.json"), "--json");
});

Deno.test("resolveSettings() layers defaults, files nearest last, env, then flags", () => {
  const s = resolveSettings({
    files: [
      { path: "/etc/mcpx/config.json", data: { logging: { level: "debug" } } },
      { path: "/p/.mcpx.json", data: { "logging.level": "warn", daemon: { idleExit: "1h" } } },
    ],
    env: { MCPX_DAEMON_IDLE_EXIT: "2h" },
    flags: [{ key: "daemon.idleExit", text: "30m", spelling: "--daemon-idle-exit" }],
  });
  assert.equal(s.get("logging.level"), "warn");
  assert.equal(s.get("daemon.idleExit"), 30 * 60_000);
  const idle = s.describe("daemon.idleExit");
  assert.deepEqual(idle.source, { kind: "flag", where: "--daemon-idle-exit" });
  assert.deepEqual(idle.overrode.map((o) => o.source.where), [
    "MCPX_DAEMON_IDLE_EXIT",
    "/p/.mcpx.json",
    "default",
  ]);
  assert.deepEqual(s.describe("logging.level").overrode.map((o) => o.text), ["debug", "info"]);
});

Deno.test("resolveSettings() lets the same flag repeat, last one winning", () => {
  const s = resolveSettings({
    env: {},
    flags: [
      { key: "logging.level", text: "debug", spelling: "--log-level" },
      { key: "logging.level", text: "error", spelling: "--log-level" },
    ],
  });
  assert.equal(s.get("logging.level"), "error");
});

Deno.test("resolveSettings() refuses two spellings at one level", () => {
  assert.throws(
    () =>
      resolveSettings({
        env: {},
        files: [{ path: "f", data: { logging: { level: "debug" }, "logging.level": "warn" } }],
      }),
    (e: unknown) => e instanceof McpxError && e.code === "SETTING_INVALID",
  );
  assert.throws(
    () => resolveSettings({ env: { MCPX_TRACE: "true", MCPX_LOGGING_TRACE: "false" } }),
    /MCPX_LOGGING_TRACE and MCPX_TRACE both set logging\.trace/,
  );
  assert.equal(resolveSettings({ env: { MCPX_TRACE: "1" } }).get("logging.trace"), true);
});

Deno.test("resolveSettings() warns once per unknown key with the near miss", () => {
  const s = resolveSettings({
    env: { MCPX_LOGING_LEVEL: "x", MCPX_SESSION_ID: "abc" },
    files: [{ path: "f", data: { mcpServers: {}, deamon: { idleExit: "1h" } } }],
  });
  assert.deepEqual(s.warnings, [
    'Unknown setting "deamon.idleExit" in f: did you mean "daemon.idleExit"?',
    'Unknown variable MCPX_LOGING_LEVEL: did you mean "MCPX_LOGGING_LEVEL"?',
  ]);
});

Deno.test("resolveSettings() names a bad value, its source and what is expected", () => {
  assert.throws(
    () =>
      resolveSettings({
        env: {},
        flags: [{ key: "logging.level", text: "loud", spelling: "--log-level" }],
      }),
    (e: unknown) =>
      e instanceof McpxError && e.code === "USAGE" &&
      e.message ===
        'Invalid value "loud" for logging.level (from --log-level): expected one of trace, debug, info, warn, error, fatal',
  );
  assert.throws(
    () =>
      resolveSettings({ env: {}, files: [{ path: "c.json", data: { daemon: { idleExit: 5 } } }] }),
    /Invalid value "5" for daemon\.idleExit \(from c\.json\): expected a duration/,
  );
});

Deno.test("resolveSettings() ignores early settings in files, saying where to set them", () => {
  const s = resolveSettings({
    env: {},
    files: [{ path: "c.json", data: { paths: { state: "/x" } } }],
  });
  assert.equal(s.get("paths.state"), "");
  assert.match(s.warnings[0], /paths\.state.*MCPX_PATHS_STATE or --paths-state/);
});

Deno.test("resolveSettings() reads whole numbers by hand, as the pattern -?digits", () => {
  const read = (text: string) =>
    resolveSettings({ env: { MCPX_CATALOG_BUDGET: text } }).get("catalog.budget");
  assert.equal(read("1500"), 1500);
  assert.equal(read(" 42 "), 42);
  assert.equal(read("-3"), -3);
  for (const bad of ["", "-", "1.5", "1e3", "12a", "+4", "--1"]) {
    assert.throws(() => read(bad), /expected a whole number/, bad);
  }
});

Deno.test("every setting's variable starts MCPX_, so a start without one skips the names", () => {
  for (const [key, spec] of Object.entries(SETTINGS as Record<string, SettingSpec>)) {
    for (const name of [envName(key), ...(spec.envAliases ?? [])]) {
      assert.ok(name.startsWith("MCPX_"), `${key}: ${name}`);
    }
  }
  // No MCPX_ variable: defaults, and nothing to warn about.
  const none = resolveSettings({ env: { HOME: "/h", PATH: "/bin" } });
  assert.equal(none.get("catalog.budget"), 2000);
  assert.deepEqual(none.warnings, []);
  // One alone is enough to read them all, and to warn about a stranger.
  const some = resolveSettings({ env: { MCPX_TRACE: "1", MCPX_NOPE: "x" } });
  assert.equal(some.describe("logging.trace").source.where, "MCPX_TRACE");
  assert.match(some.warnings[0], /Unknown variable MCPX_NOPE/);
});

Deno.test("every default parses, and a setting nobody gave reads as its default", () => {
  const s = resolveSettings({ env: {} });
  const all = s.all();
  assert.deepEqual(all.map((r) => r.key), Object.keys(SETTINGS));
  for (const r of all) {
    assert.equal(r.source.kind, "default", r.key);
    assert.equal(r.text, (SETTINGS as Record<string, SettingSpec>)[r.key].default);
  }
  assert.equal(s.get("daemon.idleExit"), 4 * 3_600_000);
});

Deno.test("resolveSettings() reads pool.queueTimeout from the pool block, and nothing else of it", () => {
  const s = resolveSettings({
    env: {},
    files: [{ path: "/c.json", data: { pool: { queueTimeout: "5s", max: 2, sharing: "shared" } } }],
  });
  assert.equal(s.get("pool.queueTimeout"), 5000);
  assert.deepEqual(s.warnings, [], "the block's server fields are configuration, not settings");
  const env = resolveSettings({
    env: { MCPX_POOL_QUEUE_TIMEOUT: "1s" },
    files: [{ path: "/c.json", data: { pool: { queueTimeout: "5s" } } }],
  });
  assert.equal(env.get("pool.queueTimeout"), 1000, "the variable wins over the file");
});

Deno.test("resolveSettings() reports every malformed value at once", () => {
  assert.throws(
    () =>
      resolveSettings({
        env: { MCPX_SCRIPT_TIMEOUT: "soon" },
        flags: [{ key: "script.runtime", text: "nope", spelling: "--runtime" }],
      }),
    (e: Error) =>
      /^2 invalid settings:\n {2}- Invalid value "soon" for script\.timeout .*\n {2}- Invalid value "nope" for script\.runtime/
        .test(e.message),
  );
});
