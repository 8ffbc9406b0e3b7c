// `mcpx doctor` (docs/doctor.md): a healthy setup passes and exits 0; each broken one produces the
// failed check with its one-line advice, and exit status 1.

import assert from "node:assert/strict";
import { join } from "node:path";
import { Sandbox } from "../_helpers.ts";
import { namesServer } from "../fixtures/servers.ts";

interface Check {
  area: string;
  status: string;
  message: string;
  hint?: string;
}

async function doctor(
  box: Sandbox,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number; checks: Check[]; failed: Check[] }> {
  const r = await box.mcpx(["--json", "doctor", ...args], { env });
  const out = JSON.parse(r.stdout) as { checks: Check[]; failed: number };
  const failed = out.checks.filter((c) => c.status === "fail");
  assert.equal(out.failed, failed.length);
  for (const c of failed) {
    assert.ok(c.hint && !c.hint.includes("\n"), `a one-line hint: ${c.message}`);
  }
  return { code: r.code, checks: out.checks, failed };
}

Deno.test("doctor: a healthy configuration passes, its server started through the daemon", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { names: namesServer() } });
  const r = await doctor(box);
  assert.deepEqual(r.failed, []);
  assert.equal(r.code, 0);
  const started = r.checks.find((c) =>
    c.area === "server" && /names: starts, \d+ tools/.test(c.message)
  );
  assert.ok(started, JSON.stringify(r.checks));
  const text = await box.mcpx(["doctor"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /all checks passed/);
  await box.mcpx(["stop", "--all"]);
});

Deno.test("doctor: a missing command fails with advice, and no server is started", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      gone: { command: "mcpx-no-such-binary" },
      off: { command: "nope", disabled: true },
    },
  });
  const r = await doctor(box);
  assert.equal(r.code, 1);
  assert.equal(r.failed.length, 1, JSON.stringify(r.failed));
  assert.match(r.failed[0].message, /gone: command "mcpx-no-such-binary" is not installed/);
  assert.match(r.failed[0].hint!, /Install mcpx-no-such-binary/);
  assert.ok(r.checks.some((c) => c.status === "skip" && c.message === "off: disabled"));
  assert.deepEqual(box.processes(), [], "no daemon started");
});

Deno.test("doctor: a configuration that does not parse", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", '{ "mcpServers": { "a": { "command": "true" } ');
  const r = await doctor(box);
  assert.equal(r.code, 1);
  const c = r.failed.find((c) => c.area === "config");
  assert.ok(c, JSON.stringify(r.checks));
  assert.match(c.message, /\.mcpx\.json/);
});

Deno.test("doctor: a state directory open to others", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { a: { command: "true" } } });
  const state = join(box.root, "state", "mcpx");
  await Deno.mkdir(state, { recursive: true });
  await Deno.chmod(state, 0o755);
  const r = await doctor(box, ["--no-start"]);
  assert.equal(r.code, 1);
  const c = r.failed.find((c) => c.area === "dirs");
  assert.ok(c, JSON.stringify(r.checks));
  assert.match(c.message, /mode 0755/);
  assert.equal(c.hint, `Run \`chmod 700 ${state}\``);
});

Deno.test("doctor: an unset ${VAR} and an unknown MCPX_ variable", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { a: { command: "true", env: { KEY: "${MCPX_DOCTOR_UNSET_KEY}" } } },
  });
  const r = await doctor(box, ["--no-start"], { MCPX_LOGGIN_LEVEL: "debug" });
  assert.equal(r.code, 1);
  assert.equal(r.failed.length, 1, JSON.stringify(r.failed));
  assert.match(r.failed[0].message, /a: \$\{MCPX_DOCTOR_UNSET_KEY\} is referenced/);
  assert.match(r.failed[0].hint!, /Set MCPX_DOCTOR_UNSET_KEY/);
  const warn = r.checks.find((c) => c.area === "settings" && c.status === "warn");
  assert.match(warn?.message ?? "", /Unknown variable MCPX_LOGGIN_LEVEL/);
});

Deno.test("doctor: an environment variable overriding a file's setting is a warning, not a failure", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    logging: { level: "warn" },
    mcpServers: { a: { command: "true" } },
  });
  const r = await doctor(box, ["--no-start"], { MCPX_LOGGING_LEVEL: "debug" });
  assert.equal(r.code, 0, JSON.stringify(r.failed));
  const warn = r.checks.find((c) => c.area === "settings" && c.status === "warn");
  assert.match(
    warn?.message ?? "",
    /logging\.level = "debug" from env MCPX_LOGGING_LEVEL overrides "warn"/,
  );
  assert.match(warn?.hint ?? "", /Unset MCPX_LOGGING_LEVEL/);
});

Deno.test("doctor: an untrusted project configuration names `mcpx trust`", async () => {
  await using box = await Sandbox.create(undefined, { trustAll: false });
  const config = await box.write("work/.mcpx.json", { mcpServers: { names: namesServer() } });
  const r = await doctor(box);
  assert.equal(r.code, 1);
  const c = r.failed.find((c) => c.area === "trust");
  assert.ok(c, JSON.stringify(r.checks));
  assert.equal(c.hint, `Read it, then run \`mcpx trust ${config}\``);
  assert.deepEqual(box.processes(), [], "an untrusted configuration starts nothing");
});

Deno.test("doctor: a log directory that is a file", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { a: { command: "true" } } });
  const logs = join(box.root, "state", "mcpx", "logs");
  await Deno.mkdir(join(box.root, "state", "mcpx"), { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(logs, "not a folder");
  const r = await doctor(box, ["--no-start"]);
  assert.equal(r.code, 1);
  const c = r.failed.find((c) => c.area === "logindex");
  assert.ok(c, JSON.stringify(r.checks));
  assert.match(c.hint!, /MCPX_LOGGING_DIR \(--logging-dir\)/);
});

Deno.test("doctor: a server that is installed but does not start shows what it wrote", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      broken: { command: "sh", args: ["-c", "echo 'missing API key for broken' >&2; exit 3"] },
    },
  });
  const r = await doctor(box);
  assert.equal(r.code, 1);
  const c = r.failed.find((c) => c.area === "server");
  assert.ok(c, JSON.stringify(r.checks));
  assert.match(c.message, /broken: does not start: .*missing API key for broken/);
  await box.mcpx(["stop", "--all"]);
});

Deno.test("doctor: a daemon of another mcpx version is stale: `mcpx stop`", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { a: { command: "true" } } });
  const dir = join(box.root, "sock");
  await Deno.mkdir(dir, { mode: 0o700 });
  const socket = join(dir, "d.sock");
  // Something answering as an older daemon would.
  const old = Deno.serve(
    { path: socket, onListen() {} },
    () =>
      Response.json({
        service: "mcpx",
        version: "0.0.1",
        pid: 4242,
        fingerprint: "old",
        config: "x",
      }),
  );
  try {
    const r = await doctor(box, ["--no-start"], { MCPX_DAEMON_SOCKET: socket });
    assert.equal(r.code, 1);
    const c = r.failed.find((c) => c.area === "daemon");
    assert.ok(c, JSON.stringify(r.checks));
    assert.match(c.message, /daemon 4242 runs mcpx 0\.0\.1, this CLI is /);
    assert.match(c.hint!, /mcpx stop/);
  } finally {
    await old.shutdown();
  }
});

Deno.test("doctor: a setting in two files, the farther one ignored, is a warning naming both", async () => {
  await using box = await Sandbox.create();
  const user = await box.write("config/mcpx/config.json", { logging: { level: "info" } });
  const project = await box.write("work/.mcpx.json", {
    logging: { level: "warn" },
    mcpServers: { a: { command: "true" } },
  });
  const r = await doctor(box, ["--no-start"]);
  assert.equal(r.code, 0, JSON.stringify(r.failed));
  const warn = r.checks.find((c) => c.area === "settings" && c.status === "warn");
  assert.ok(warn, JSON.stringify(r.checks));
  assert.ok(
    warn.message.includes(`from file ${project} overrides "info" from file ${user}`),
    warn.message,
  );
  assert.match(warn.hint!, /Remove logging\.level from one of the two files/);
});

Deno.test("doctor: a remote server signing in with OAuth and no tokens stored names `mcpx auth login`", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      remote: { url: "http://127.0.0.1:9/mcp", mcpx: { oauth: { clientId: "mcpx-test" } } },
    },
  });
  const r = await doctor(box, ["--no-start"]);
  assert.equal(r.code, 1);
  const c = r.failed.find((c) => c.area === "credentials");
  assert.ok(c, JSON.stringify(r.checks));
  assert.equal(c.message, "remote: no OAuth tokens stored");
  assert.equal(c.hint, "Run `mcpx auth login remote`");
});

Deno.test("doctor: a corrupt log index is set aside and said so; a sound one is counted", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { a: { command: "true" } } });
  const logs = join(box.root, "state", "mcpx", "logs");
  await Deno.mkdir(logs, { recursive: true, mode: 0o700 });
  await Deno.chmod(join(box.root, "state", "mcpx"), 0o700);
  await Deno.writeTextFile(
    join(logs, "index.db"),
    "this is not a database, not even close".repeat(100),
  );
  const r = await doctor(box, ["--no-start"]);
  assert.equal(r.code, 0, JSON.stringify(r.failed));
  const warn = r.checks.find((c) => c.area === "logindex" && c.status === "warn");
  assert.ok(warn, JSON.stringify(r.checks));
  assert.match(warn.hint!, /mcpx log/);
  const again = await doctor(box, ["--no-start"]);
  const ok = again.checks.find((c) => c.area === "logindex");
  assert.equal(ok?.status, "ok");
  assert.match(ok?.message ?? "", /index\.db \(\d+ records\)/);
});

Deno.test("doctor: a registry named in the settings is asked; one answering 500 fails", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { a: { command: "true" } } });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) =>
      new URL(req.url).pathname.startsWith("/bad/")
        ? new Response("no", { status: 500 })
        : Response.json({ servers: [], metadata: { count: 0 } }),
  );
  const base = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  try {
    const good = await doctor(box, ["--no-start"], { MCPX_REGISTRY_URL: base });
    assert.equal(good.code, 0, JSON.stringify(good.failed));
    assert.ok(good.checks.some((c) => c.area === "registry" && c.status === "ok"));
    const bad = await doctor(box, ["--no-start"], { MCPX_REGISTRY_URL: `${base}/bad` });
    assert.equal(bad.code, 1);
    const c = bad.failed.find((c) => c.area === "registry");
    assert.match(c?.message ?? "", /HTTP 500/);
    assert.equal(c?.hint, "Fix registry.url (set in env MCPX_REGISTRY_URL)");
  } finally {
    await server.shutdown();
  }
});

Deno.test("doctor: an adapter whose program is not installed", async () => {
  await using box = await Sandbox.create();
  await box.write("work/adapters/tools.json", {
    adapters: [
      { name: "gitish", command: "git", tools: [{ name: "status", args: ["status"] }] },
      { name: "ghost", command: "mcpx-no-such-program", tools: [{ name: "run", args: [] }] },
    ],
  });
  await box.write("work/.mcpx.json", { mcpServers: {}, paths: { adapters: "adapters" } });
  const r = await doctor(box, ["--no-start"]);
  assert.equal(r.code, 1);
  assert.equal(r.failed.length, 1, JSON.stringify(r.failed));
  assert.match(r.failed[0].message, /ghost: "mcpx-no-such-program" is not installed/);
  assert.match(r.failed[0].hint!, /Install mcpx-no-such-program/);
  assert.ok(
    r.checks.some((c) => c.area === "adapter" && c.status === "ok" && /gitish/.test(c.message)),
  );
});

Deno.test("doctor: an API document that cannot be read fails as its server, with the reason", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: {}, paths: { apis: "./missing-api.json" } });
  const r = await doctor(box);
  assert.equal(r.code, 1);
  const c = r.failed.find((c) => c.area === "server");
  assert.ok(c, JSON.stringify(r.checks));
  assert.match(c.message, /missing_api: does not start: .*Cannot read the API document/);
  await box.mcpx(["stop", "--all"]);
});

Deno.test("doctor: one broken server does not hide another; a server that cannot start is never ok", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      names: namesServer(),
      typo: { command: "npx", args: ["-y", "@mcpx-test-nonexistent/no-such-server-404"] },
      gone: { command: "mcpx-no-such-binary" },
      crash: { command: "sh", args: ["-c", "echo 'boom: missing API_KEY' >&2; exit 1"] },
    },
  });
  const r = await doctor(box);
  assert.equal(r.code, 1);
  const servers = r.checks.filter((c) => c.area === "server");
  const of = (name: string) => servers.filter((c) => c.message.startsWith(`${name}: `));
  assert.deepEqual(of("names").map((c) => c.status), ["ok"], JSON.stringify(servers));
  assert.match(of("names")[0].message, /names: starts, \d+ tools/);
  for (const name of ["typo", "gone", "crash"]) {
    assert.deepEqual(
      of(name).map((c) => c.status),
      ["fail"],
      `${name}: ${JSON.stringify(servers)}`,
    );
  }
  assert.match(of("gone")[0].message, /command "mcpx-no-such-binary" is not installed/);
  assert.match(of("crash")[0].message, /crash: does not start: .*boom: missing API_KEY/);
  assert.match(of("typo")[0].message, /typo: does not start: /);
  await box.mcpx(["stop", "--all"]);
});

Deno.test("doctor --offline starts nothing, and says of each server that it was not started", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      crash: { command: "sh", args: ["-c", "exit 1"] },
      gone: { command: "mcpx-no-such-binary" },
    },
  });
  const r = await doctor(box, ["--offline"]);
  assert.equal(r.code, 1);
  assert.deepEqual(r.failed.map((c) => c.message), [
    'gone: command "mcpx-no-such-binary" is not installed (not found on PATH)',
  ]);
  const crash = r.checks.find((c) => c.message.startsWith("crash: "));
  assert.deepEqual(crash, {
    area: "server",
    status: "skip",
    message: "crash: sh is installed; not started (--offline)",
  });
  assert.deepEqual(box.processes(), [], "no daemon started");
});

Deno.test("doctor: after failed checks the servers are still started", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      names: namesServer(),
      crash: { command: "sh", args: ["-c", "echo 'crash says why' >&2; exit 1"] },
      keyed: { command: "sh", args: ["-c", "exit 1"], env: { KEY: "${MCPX_DOCTOR_UNSET_KEY}" } },
    },
  });
  const state = join(box.root, "state", "mcpx");
  await Deno.mkdir(state, { recursive: true });
  await Deno.chmod(state, 0o755);
  const r = await doctor(box);
  assert.equal(r.code, 1);
  assert.ok(r.failed.some((c) => c.area === "credentials"), JSON.stringify(r.checks));
  assert.ok(r.failed.some((c) => c.area === "dirs"), JSON.stringify(r.checks));
  const started = r.checks.filter((c) => c.area === "server").map((c) => [c.status, c.message]);
  assert.equal(started.length, 3, JSON.stringify(started));
  assert.equal(started[0][0], "ok");
  assert.match(started[0][1], /^names: starts, \d+ tools$/);
  assert.equal(started[1][0], "fail");
  assert.match(started[1][1], /^crash: does not start: .*crash says why/);
  assert.deepEqual(started[2].slice(0, 1), ["fail"]);
  await box.mcpx(["stop", "--all"]);
});

Deno.test("doctor: settings that do not resolve still get the other checks, and no server is ok", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    logging: { level: "loud" },
    mcpServers: { crash: { command: "sh", args: ["-c", "exit 1"] } },
  });
  const r = await doctor(box);
  assert.equal(r.code, 1);
  assert.ok(r.failed.some((c) => c.area === "settings"), JSON.stringify(r.checks));
  for (const area of ["config", "trust", "dirs", "logindex", "daemon"]) {
    assert.ok(r.checks.some((c) => c.area === area), `the ${area} check ran`);
  }
  assert.ok(r.checks.some((c) => c.area === "adapter" && c.status === "skip"));
  const servers = r.checks.filter((c) => c.area === "server");
  assert.ok(
    servers.length > 0 && servers.every((c) => c.status === "fail"),
    JSON.stringify(servers),
  );
  assert.match(servers[0].message, /servers could not be started: Invalid value "loud"/);
  await box.mcpx(["stop", "--all"]);
});

Deno.test("doctor: a browser server shared between sessions by its block, or unable to run twice, is named", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcp.json", {
    mcpServers: {
      playwright: {
        command: "npx",
        args: ["@playwright/mcp@latest"],
        mcpx: { sharing: "shared", scope: "global" },
      },
      browser: { command: "npx", args: ["@playwright/mcp@latest", "--isolated"] },
      bare: { command: "npx", args: ["@playwright/mcp@latest"] },
    },
  });
  const r = await doctor(box, ["--offline"]);
  const warned = r.checks.filter((c) => c.area === "sharing");
  assert.equal(warned.length, 2, JSON.stringify(r.checks));
  assert.equal(warned[0].status, "warn");
  assert.match(
    warned[0].message,
    /^playwright: @playwright\/mcp is a browser, .* one process serves the callers of every session \(sharing shared, scope global, set in its mcpx block\)/,
  );
  assert.match(
    warned[0].hint!,
    /"sharing": "exclusive", "scope": "session" in mcpServers\.playwright\.mcpx/,
  );
  // Leased per session but unable to run twice at once: the flag it needs is named.
  assert.equal(warned[1].status, "warn");
  assert.match(
    warned[1].message,
    /^bare: each session gets its own process, but without --isolated/,
  );
  assert.equal(warned[1].hint, 'Add "--isolated" to the args of mcpServers.bare');
});

Deno.test("doctor: a repository layout left to git is a warning, and one integrations row sums up", async () => {
  await using box = await Sandbox.create();
  const work = join(box.root, "work");
  const git = (...args: string[]) =>
    new Deno.Command("git", {
      args: ["-c", "init.defaultBranch=main", ...args],
      cwd: work,
      clearEnv: true,
      env: { PATH: box.env.PATH, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
      stdout: "null",
      stderr: "null",
    }).outputSync();
  await box.write("work/.mcpx.json", { mcpServers: { a: { command: "true" } } });
  const plain = await doctor(box, ["--offline"]);
  assert.ok(!plain.checks.some((c) => c.area === "git" && c.status === "warn"));
  const summary = plain.checks.find((c) => c.area === "integrations");
  assert.ok(summary, JSON.stringify(plain.checks));
  assert.match(summary.message, /^git at \/\S+; 0 adapters; registry \S+ not asked/);
  assert.equal(summary.status, "ok");

  git("init", "-q");
  await Deno.mkdir(join(box.root, "elsewhere"));
  git("config", "core.worktree", "../../elsewhere");
  const moved = await doctor(box, ["--offline"]);
  const row = moved.checks.find((c) => c.area === "git" && c.status === "warn");
  assert.ok(row, JSON.stringify(moved.checks));
  assert.match(row.message, /core\.worktree = \.\.\/\.\.\/elsewhere.*the daemon asks git once/);
  assert.match(
    moved.checks.find((c) => c.area === "integrations")!.message,
    /git at \S+ \(asked for this folder's layout\)/,
  );
  // A registry set in the settings that does not answer makes the summary a warning.
  const down = await doctor(box, ["--offline"], { MCPX_REGISTRY_URL: "http://127.0.0.1:9/" });
  const sum = down.checks.find((c) => c.area === "integrations")!;
  assert.equal(sum.status, "warn");
  assert.match(sum.message, /registry http:\/\/127\.0\.0\.1:9\/ does not answer/);
});
