// What environment a server starts with (docs/security.md, "A server's environment"): a base,
// the names passed through, and its own env; never the variables of whichever command started
// the daemon; and with "envFrom": "caller", each caller's own values in its own process.

import assert from "node:assert/strict";
import { Sandbox } from "../_helpers.ts";
import { envServer } from "../fixtures/servers.ts";
import { NETWORK_VARIABLES } from "../../lib/config/server_env.ts";

/** What `mcpx --json call <ns>.env` prints of the env fixture. */
interface EnvAnswer {
  structuredContent: { pid: number; env: Record<string, string> };
  mcpx: { instance: { pid: number; key: string } };
}

Deno.test("a server gets the base, the passed-through names and its own env, never the starting command's secrets or session", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { probe: { ...envServer(), env: { OWN: "own value", FROM_REF: "${REFERENCED}" } } },
  });
  // This command auto-starts the daemon: everything it carries besides the base is its own.
  const first = await box.json<EnvAnswer>(["call", "probe.env"], {
    env: {
      SECRET_TOKEN: "s3cret-of-the-first-command",
      AWS_SECRET_ACCESS_KEY: "aws-secret",
      MCPX_SESSION_ID: "session-of-the-first-command",
      MCPX_PARENT_SESSION_ID: "parent-of-the-first-command",
      REFERENCED: "referenced value",
      PASSED: "passed by name",
      MCPX_SERVERS_ENV_PASSTHROUGH: "E2E_SANDBOX,DENO_DIR,PASSED",
      LANG: "C.UTF-8",
      LC_ALL: "C",
    },
  });
  const env = first.structuredContent.env;
  assert.equal(env.SECRET_TOKEN, undefined, "a secret of the starting command");
  assert.equal(env.AWS_SECRET_ACCESS_KEY, undefined);
  assert.equal(env.MCPX_SESSION_ID, undefined, "the starting command's session");
  assert.equal(env.MCPX_PARENT_SESSION_ID, undefined);
  assert.equal(env.REFERENCED, undefined, "a referenced variable reaches it only where it is used");
  assert.equal(env.MCPX_CONFIG, undefined, "the daemon's own variables");
  assert.equal(env.MCPX_DAEMON_CHILD, undefined);
  assert.equal(env.MCPX_SERVERS_ENV_PASSTHROUGH, undefined);
  assert.equal(env.XDG_STATE_HOME, undefined, "nothing outside the base");
  assert.equal(env.OWN, "own value", "its own env");
  assert.equal(env.FROM_REF, "referenced value", "${VAR} reads the daemon's environment");
  assert.equal(env.PASSED, "passed by name", "servers.envPassthrough");
  assert.equal(env.HOME, box.env.HOME, "the base: HOME");
  assert.equal(env.PATH, box.env.PATH, "the base: PATH");
  assert.equal(env.TMPDIR, box.env.TMPDIR, "the base: TMPDIR");
  assert.equal(env.LANG, "C.UTF-8", "the base: the locale");
  assert.equal(env.LC_ALL, "C");
  const plumbing = new Set<string>(["E2E_SANDBOX", "DENO_DIR", ...NETWORK_VARIABLES]);
  const names = Object.keys(env).filter((n) => !plumbing.has(n)).sort();
  assert.deepEqual(
    names,
    ["FROM_REF", "HOME", "LANG", "LC_ALL", "OWN", "PASSED", "PATH", "TMPDIR"],
    "exactly the base, the passed names and its own",
  );

  // A later caller with a session of its own is served by the same process, which still has
  // neither session.
  const later = await box.json<EnvAnswer>(["call", "probe.env"], {
    env: { MCPX_SESSION_ID: "a-later-session", SECRET_TOKEN: "later-secret" },
  });
  assert.equal(later.structuredContent.pid, first.structuredContent.pid);
  assert.equal(later.structuredContent.env.MCPX_SESSION_ID, undefined);
  assert.equal(later.structuredContent.env.SECRET_TOKEN, undefined);
});

Deno.test('"envFrom": "caller" gives each caller its own values, in its own process', async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      mine: { ...envServer(), env: { TOKEN: "${CALLER_TOKEN}" }, mcpx: { envFrom: "caller" } },
    },
  });
  const call = (token: string, extra: Record<string, string> = {}) =>
    box.json<EnvAnswer>(["call", "mine.env"], { env: { CALLER_TOKEN: token, ...extra } });
  const a = await call("token-a", { UNRELATED_SECRET: "not asked for" });
  const b = await call("token-b");
  assert.equal(a.structuredContent.env.TOKEN, "token-a");
  assert.equal(b.structuredContent.env.TOKEN, "token-b");
  assert.notEqual(a.structuredContent.pid, b.structuredContent.pid, "a process per caller");
  assert.notEqual(a.mcpx.instance.key, b.mcpx.instance.key);
  assert.match(a.mcpx.instance.key, /^global\|env:[0-9a-f]{16}$/);
  for (const r of [a, b]) {
    assert.equal(r.structuredContent.env.UNRELATED_SECRET, undefined);
    assert.equal(r.structuredContent.env.CALLER_TOKEN, undefined, "only where it is referenced");
  }
  const again = await call("token-a");
  assert.equal(
    again.structuredContent.pid,
    a.structuredContent.pid,
    "the same values, the same process",
  );

  // A script's calls carry its caller's values too.
  const script = await box.mcpx(["exec", "return (await mine.env({})).env.TOKEN"], {
    env: { CALLER_TOKEN: "token-of-a-script" },
  });
  assert.equal(script.code, 0, script.stderr);
  assert.equal(script.stdout.trim(), "token-of-a-script");

  // `mcpx refresh` lists it with the refreshing command's values.
  const refreshed = await box.json<{ servers: { namespace: string; tools: number | null }[] }>(
    ["refresh"],
    { env: { CALLER_TOKEN: "token-of-a-refresh" } },
  );
  assert.deepEqual(refreshed.servers, [{ namespace: "mine", tools: 1 }]);

  // A caller without the variable is told which one, and the server does not start.
  const none = await box.mcpx(["call", "mine.env"]);
  assert.notEqual(none.code, 0);
  assert.match(none.stderr, /CALLER_TOKEN/);
});

Deno.test('"envFrom" takes "daemon" or "caller" only', async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { bad: { ...envServer(), mcpx: { envFrom: "everyone" } } },
  });
  const r = await box.mcpx(["call", "bad.env"]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /"envFrom" is "everyone"; expected "daemon" or "caller"/);
  assert.equal(r.stderr.trim().split("\n").length, 1);
});
