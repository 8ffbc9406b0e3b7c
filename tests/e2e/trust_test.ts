// Configuration trust (docs/security.md, "Repositories"): a configuration outside the user's own
// locations starts nothing and applies no setting until `mcpx trust`; one another user owns, or
// that others may write, is never trusted. The second user is `nobody`, run with setpriv (as
// root, which CI is); every other assertion runs whoever runs the tests.

import assert from "node:assert/strict";
import { join } from "node:path";
import { ONE_SERVER, Sandbox } from "../_helpers.ts";
import { namesServer } from "../fixtures/servers.ts";

const NOBODY = 65534;
const EXIT_UNTRUSTED = 9;

interface TrustList {
  action: string;
  entries: { kind: string; path: string; sha256: string; state: string }[];
}

function oneLine(stderr: string): string {
  const lines = stderr.trim().split("\n");
  assert.equal(lines.length, 1, `one line, not:\n${stderr}`);
  return lines[0];
}

Deno.test("an untrusted project configuration starts nothing until `mcpx trust`, and again after it changes", async () => {
  await using box = await Sandbox.create(undefined, { trustAll: false });
  const config = await box.write("work/.mcpx.json", { mcpServers: { names: namesServer() } });
  const command = `mcpx trust ${config}`;

  const refused = await box.mcpx(["call", "names.delete"]);
  assert.equal(refused.code, EXIT_UNTRUSTED);
  assert.match(oneLine(refused.stderr), /is not trusted yet/);
  assert.ok(refused.stderr.includes(`\`${command}\``), refused.stderr);
  assert.equal(refused.stdout, "");
  const json = await box.mcpx(["--json", "call", "names.delete"]);
  assert.equal(json.code, EXIT_UNTRUSTED);
  assert.equal(JSON.parse(json.stdout).error.code, "CONFIG_UNTRUSTED");
  for (const args of [["refresh"], ["start"], ["restart", "names"], ["exec", "1"], ["daemon"]]) {
    const r = await box.mcpx(args);
    assert.equal(r.code, EXIT_UNTRUSTED, `mcpx ${args.join(" ")}: ${r.stderr}`);
  }
  assert.deepEqual(box.processes(), [], "nothing was started");
  const ls = await box.mcpx(["ls"]);
  assert.equal(ls.code, 0, ls.stderr);
  assert.match(ls.stdout, /^names\s/m);

  // Named, it counts as trusted; so does MCPX_TRUST_ALL=1.
  const named = await box.mcpx(["--config", config, "call", "names.delete"], { cwd: "." });
  assert.equal(named.code, 0, named.stderr);
  assert.equal(named.stdout.trim(), "delete");
  const all = await box.mcpx(["call", "names.class"], { env: { MCPX_TRUST_ALL: "1" } });
  assert.equal(all.code, 0, all.stderr);
  await box.mcpx(["stop", "--all"]);

  const trusted = await box.json<{ path: string; sha256: string; servers: string[] }>(["trust"]);
  assert.equal(trusted.path, config);
  assert.match(trusted.sha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(trusted.servers, ["names"]);
  const store = join(box.root, "state", "mcpx", "trust.json");
  assert.equal(Deno.statSync(store).mode! & 0o777, 0o600, "the trust file is 0600");
  const ok = await box.mcpx(["call", "names.delete"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout.trim(), "delete");
  const listed = await box.mcpx(["ls"]);
  assert.match(listed.stdout, /^names\s+8\s/m, "the cache holds its tools");
  await box.mcpx(["stop", "--all"]);

  // A changed file needs trusting again; `ls` still answers from the cache.
  await Deno.writeTextFile(config, (await Deno.readTextFile(config)) + "\n// edited\n");
  const changed = await box.mcpx(["call", "names.delete"]);
  assert.equal(changed.code, EXIT_UNTRUSTED);
  assert.match(oneLine(changed.stderr), /changed since it was trusted/);
  assert.ok(changed.stderr.includes(`\`${command}\``));
  const lsChanged = await box.mcpx(["ls"]);
  assert.equal(lsChanged.code, 0, lsChanged.stderr);
  assert.match(lsChanged.stdout, /^names\s/m);
  const list = await box.json<TrustList>(["trust", "--list"]);
  assert.deepEqual(list.entries.map((e) => [e.path, e.state]), [[config, "changed"]]);

  await box.json(["trust", config]);
  assert.equal((await box.mcpx(["call", "names.delete"])).code, 0);
  const current = await box.json<TrustList>(["trust", "--list"]);
  assert.deepEqual(current.entries.map((e) => [e.path, e.state]), [[config, "current"]]);
  await box.mcpx(["stop", "--all"]);

  const revoked = await box.json<{ action: string; path: string }>(["trust", "--revoke", config]);
  assert.deepEqual([revoked.action, revoked.path], ["revoked", config]);
  assert.equal((await box.mcpx(["call", "names.delete"])).code, EXIT_UNTRUSTED);
  assert.deepEqual((await box.json<TrustList>(["trust", "--list"])).entries, []);
  const twice = await box.mcpx(["trust", "--revoke", config]);
  assert.equal(twice.code, 5);
  assert.match(oneLine(twice.stderr), /is not a trusted configuration/);
});

Deno.test("an untrusted configuration says so on every discovery command, naming `mcpx trust <path>`", async () => {
  await using box = await Sandbox.create(undefined, { trustAll: false });
  // A project's own .mcp.json, as the review had it: never trusted, never listed.
  const config = await box.write("work/.mcp.json", { mcpServers: { names: namesServer() } });
  const command = `mcpx trust ${config}`;

  const ls = await box.mcpx(["ls"]);
  assert.equal(ls.code, 0, ls.stderr);
  assert.match(ls.stdout, /^names\s.*\suntrusted\s/m);
  assert.doesNotMatch(ls.stdout, /unlisted|mcpx refresh/);
  assert.ok(ls.stdout.includes(`is not trusted yet: read it, then run \`${command}\``), ls.stdout);
  const lsJson = await box.json<{ namespaces: { state: string }[]; next: string }>(["ls"]);
  assert.deepEqual(lsJson.namespaces.map((n) => n.state), ["untrusted"]);
  assert.ok(lsJson.next.includes(command), lsJson.next);

  for (
    const args of [["search", "delete"], ["types", "names"], ["types", "names.delete"], [
      "catalog",
    ], ["schema"]]
  ) {
    const r = await box.mcpx(args);
    assert.equal(r.code, EXIT_UNTRUSTED, `mcpx ${args.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.match(oneLine(r.stderr), /is not trusted yet/);
    assert.ok(r.stderr.includes(`\`${command}\``), r.stderr);
    assert.equal(r.stdout, "");
    const json = await box.mcpx(["--json", ...args]);
    assert.equal(json.code, EXIT_UNTRUSTED);
    assert.equal(JSON.parse(json.stdout).error.code, "CONFIG_UNTRUSTED");
  }
  assert.deepEqual(box.processes(), [], "nothing was started");

  // Trusted and listed, they answer; changed, they refuse again, though the cache still holds it.
  await box.json(["trust", config]);
  assert.equal((await box.mcpx(["refresh"])).code, 0);
  assert.equal((await box.mcpx(["search", "delete"])).code, 0);
  await box.mcpx(["stop", "--all"]);
  await Deno.writeTextFile(config, (await Deno.readTextFile(config)) + "\n");
  const changed = await box.mcpx(["types", "names"]);
  assert.equal(changed.code, EXIT_UNTRUSTED);
  assert.match(oneLine(changed.stderr), /changed since it was trusted/);
  const lsChanged = await box.mcpx(["ls"]);
  assert.match(lsChanged.stdout, /^names\s+8\s.*\sready\s/m, "the cache still shows its tools");
  assert.match(lsChanged.stdout, /changed since it was trusted: read it, then run/);
});

Deno.test("trusting a changed file again says which fields changed, never an env value", async () => {
  await using box = await Sandbox.create(undefined, { trustAll: false });
  const names = { ...namesServer(), env: { TOKEN: "first-secret" } };
  const config = await box.write("work/.mcpx.json", { mcpServers: { names } });
  const first = await box.mcpx(["trust"]);
  assert.equal(first.code, 0, first.stderr);
  assert.doesNotMatch(first.stdout, /changed since/, "a first trust has nothing to compare");

  await box.write("work/.mcpx.json", {
    mcpServers: {
      names: { ...names, env: { TOKEN: "second-secret" } },
      other: { command: "/bin/true", args: ["x"] },
    },
  });
  const again = await box.mcpx(["trust"]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /\nchanged since it was trusted on \d{4}-\d\d-\d\d:\n/);
  assert.match(again.stdout, /^ {2}changed {2}mcpServers\.names\.env\.TOKEN\n/m);
  assert.match(again.stdout, /^ {2}added {4}mcpServers\.other\.command = "\/bin\/true"\n/m);
  assert.match(again.stdout, /^ {2}added {4}mcpServers\.other\.args = \["x"\]\n/m);
  assert.ok(!again.stdout.includes("secret"), `an env value is never shown:\n${again.stdout}`);

  // Back as it was, in JSON: the same fields, the other way round.
  await box.write("work/.mcpx.json", { mcpServers: { names } });
  const json = await box.json<{ changes: { detail: boolean; fields: unknown[] } }>(["trust"]);
  assert.deepEqual(json.changes.fields, [
    { path: "mcpServers.names.env.TOKEN", change: "changed" },
    { path: "mcpServers.other.args", change: "removed" },
    { path: "mcpServers.other.command", change: "removed" },
  ]);

  // A comment alone changes the text, not a field.
  await Deno.writeTextFile(config, (await Deno.readTextFile(config)) + "\n// edited\n");
  const comment = await box.mcpx(["trust"]);
  assert.match(comment.stdout, /changed since it was trusted on [\d-]+: only comments, spacing/);

  // A trust recorded by an older mcpx kept no fields: it says so rather than guess.
  const store = join(box.root, "state", "mcpx", "trust.json");
  const kept = JSON.parse(await Deno.readTextFile(store));
  for (const r of kept.trusted) delete r.fields;
  await Deno.writeTextFile(store, JSON.stringify(kept));
  await Deno.writeTextFile(config, (await Deno.readTextFile(config)) + "\n// again\n");
  const old = await box.mcpx(["trust"]);
  assert.equal(old.code, 0, old.stderr);
  assert.match(
    old.stdout,
    /it changed since it was trusted on [\d-]+ \(that trust recorded no detail/,
  );
});

Deno.test("the user's own locations need no trust", async () => {
  await using box = await Sandbox.create(undefined, { trustAll: false });
  await box.write("config/mcpx/config.json", { mcpServers: { names: namesServer() } });
  const r = await box.mcpx(["call", "names.delete"]);
  assert.equal(r.code, 0, r.stderr);
  await box.mcpx(["stop", "--all"]);
  await Deno.remove(join(box.root, "config", "mcpx", "config.json"));
  await box.write("home/.mcpx.json", { mcpServers: { names: namesServer() } });
  const home = await box.mcpx(["call", "names.class"]);
  assert.equal(home.code, 0, home.stderr);
});

/** A folder every user may write (mode 1777, as /tmp), with a project of the test's own in it. */
async function sharedDir(box: Sandbox): Promise<string> {
  await Deno.chmod(box.root, 0o711);
  const shared = join(box.root, "shared");
  await Deno.mkdir(join(shared, "project"), { recursive: true });
  await Deno.chmod(shared, 0o1777);
  return shared;
}

/** A planted script, and the file it writes when it runs. */
async function plantScript(dir: string): Promise<{ folder: string; ran: string }> {
  const folder = join(dir, "planted");
  const ran = join(dir, "planted-ran");
  await Deno.mkdir(folder, { recursive: true });
  await Deno.writeTextFile(
    join(folder, "hello.ts"),
    `await Deno.writeTextFile(${JSON.stringify(ran)}, "ran");\nconsole.log("planted");\n`,
  );
  await Deno.chmod(folder, 0o755);
  return { folder, ran };
}

const exists = (path: string) => {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

Deno.test("a .mcpx.json in a parent folder applies no setting until trusted: its paths.scripts runs nothing", async () => {
  await using box = await Sandbox.create(undefined, { trustAll: false });
  const shared = await sharedDir(box);
  const { folder, ran } = await plantScript(shared);
  const parent = join(shared, ".mcpx.json");
  await Deno.writeTextFile(parent, JSON.stringify({ paths: { scripts: folder } }));
  const project = join(shared, "project", ".mcpx.json");
  await Deno.writeTextFile(project, JSON.stringify(ONE_SERVER));
  await box.json(["trust", project]);

  const cwd = "shared/project";
  const run = await box.mcpx(["run", "hello"], { cwd });
  assert.notEqual(run.code, 0, run.stdout);
  assert.equal(exists(ran), false, "the planted script did not run");
  assert.ok(
    run.stderr.includes(`Settings in ${parent} are not applied: it is not trusted`),
    run.stderr,
  );
  const shown = await box.json<{ settings: { key: string; value: unknown }[] }>(["config"], {
    cwd,
  });
  assert.equal(shown.settings.find((s) => s.key === "paths.scripts")?.value, "");

  // Trusted (it is the test's own file), it applies: the same command then runs the script.
  await box.json(["trust", parent]);
  const trusted = await box.mcpx(["run", "hello"], { cwd });
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.equal(exists(ran), true);
});

Deno.test("a configuration others may write is never trusted, even named or with MCPX_TRUST_ALL", async () => {
  await using box = await Sandbox.create(undefined, { trustAll: false });
  const marker = join(box.root, "started");
  const config = await box.write("work/.mcpx.json", {
    mcpServers: { planted: { command: "touch", args: [marker] } },
  });
  await Deno.chmod(config, 0o666);
  for (
    const [args, env] of [
      [["call", "planted.x"], {}],
      [["call", "planted.x"], { MCPX_TRUST_ALL: "1" }],
      [["--config", config, "call", "planted.x"], {}],
      [["trust"], {}],
    ] as [string[], Record<string, string>][]
  ) {
    const r = await box.mcpx(args, { env });
    assert.equal(r.code, EXIT_UNTRUSTED, `${args.join(" ")}: ${r.stderr}`);
    assert.match(
      oneLine(r.stderr),
      new RegExp(`Refusing configuration ${config}: group or others may write it \\(mode 0666\\)`),
    );
  }
  assert.equal(exists(marker), false, "its command never ran");
  assert.deepEqual((await box.json<TrustList>(["trust", "--list"])).entries, []);

  // Another user's files (the victim is root, the planter `nobody`): as root only.
  if (Deno.uid() !== 0) return;
  const shared = await sharedDir(box);
  const plant = async (path: string, text: string) => {
    const out = await new Deno.Command("setpriv", {
      args: [
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        "--clear-groups",
        "/bin/sh",
        "-c",
        'umask 022; printf "%s" "$0" > "$1"',
        text,
        path,
      ],
      clearEnv: true,
      env: { PATH: "/usr/bin:/bin" },
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(Deno.statSync(path).uid, NOBODY, "planted by nobody");
  };
  const nobodyMarker = join(shared, "nobody-started");
  const foreign = join(shared, ".mcpx.json");
  await plant(
    foreign,
    JSON.stringify({ mcpServers: { planted: { command: "touch", args: [nobodyMarker] } } }),
  );
  // The victim works in a folder of its own under the shared one, with no configuration of its
  // own: the planted file is the one found.
  const why = `Refusing configuration ${foreign}: it is owned by uid ${NOBODY}, not you (0)`;
  for (
    const [args, env] of [
      [["call", "planted.x"], {}],
      [["call", "planted.x"], { MCPX_TRUST_ALL: "1" }],
      [["--config", foreign, "call", "planted.x"], {}],
      [["trust", foreign], {}],
      [["refresh"], { MCPX_TRUST_ALL: "1" }],
    ] as [string[], Record<string, string>][]
  ) {
    const r = await box.mcpx(args, { env, cwd: "shared/project" });
    assert.equal(r.code, EXIT_UNTRUSTED, `${args.join(" ")}: ${r.stderr}`);
    assert.ok(oneLine(r.stderr).includes(why), r.stderr);
  }
  assert.equal(exists(nobodyMarker), false, "nobody's command never ran");

  // Planted in a parent folder of a trusted project, its settings are not applied either.
  const { folder, ran } = await plantScript(join(shared, "project"));
  await Deno.remove(foreign);
  await plant(foreign, JSON.stringify({ paths: { scripts: folder } }));
  const project = join(shared, "project", ".mcpx.json");
  await Deno.writeTextFile(project, JSON.stringify(ONE_SERVER));
  await box.json(["trust", project]);
  const run = await box.mcpx(["run", "hello"], {
    cwd: "shared/project",
    env: { MCPX_TRUST_ALL: "1" },
  });
  assert.notEqual(run.code, 0);
  assert.equal(exists(ran), false, "nobody's planted script did not run");
  assert.ok(
    run.stderr.includes(`Settings in ${foreign} are not applied: it is owned by uid ${NOBODY}`),
    run.stderr,
  );
});

/** A script `hello` in `<dir>/.mcpx/scripts` that writes `<dir>/<mark>` when it runs. */
async function scriptIn(dir: string, mark = "hello-ran"): Promise<{ folder: string; ran: string }> {
  const folder = join(dir, ".mcpx", "scripts");
  const ran = join(dir, mark);
  await Deno.mkdir(folder, { recursive: true });
  await Deno.writeTextFile(
    join(folder, "hello.ts"),
    `await Deno.writeTextFile(${JSON.stringify(ran)}, "ran");\nconsole.log("hello ran");\n`,
  );
  return { folder, ran };
}

Deno.test("a .mcpx/scripts folder found upward runs by name only in a trusted project or once trusted", async () => {
  await using box = await Sandbox.create(undefined, { trustAll: false });
  const shared = await sharedDir(box);
  const { folder, ran } = await scriptIn(shared);
  const command = `mcpx trust ${folder}`;
  const cwd = "shared/project";

  // No configuration anywhere: the folder above the working directory is in no trusted project.
  const refused = await box.mcpx(["run", "hello"], { cwd });
  assert.equal(refused.code, EXIT_UNTRUSTED, refused.stderr);
  assert.match(oneLine(refused.stderr), new RegExp(`Script folder ${folder} is not trusted`));
  assert.ok(refused.stderr.includes(`\`${command}\``), refused.stderr);
  const json = await box.mcpx(["--json", "run", "hello"], { cwd });
  assert.equal(JSON.parse(json.stdout).error.code, "CONFIG_UNTRUSTED");
  assert.equal(exists(ran), false, "the script did not run");

  // Named by its path it is the user's choice; MCPX_TRUST_ALL=1 trusts every safe folder.
  const byPath = await box.mcpx(["run", "../.mcpx/scripts/hello.ts"], { cwd });
  assert.equal(byPath.code, 0, byPath.stderr);
  assert.equal(exists(ran), true);
  await Deno.remove(ran);
  const all = await box.mcpx(["run", "hello"], { cwd, env: { MCPX_TRUST_ALL: "1" } });
  assert.equal(all.code, 0, all.stderr);
  await Deno.remove(ran);

  // `mcpx trust <dir>` on a folder with no configuration trusts its .mcpx/scripts.
  const trusted = await box.json<{ kind: string; path: string }>(["trust", shared]);
  assert.deepEqual([trusted.kind, trusted.path], ["scripts", folder]);
  const ok = await box.mcpx(["run", "hello"], { cwd });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout.trim(), "hello ran");
  await Deno.remove(ran);
  const list = await box.json<TrustList>(["trust", "--list"]);
  assert.deepEqual(list.entries.map((e) => [e.kind, e.path, e.state]), [
    ["scripts", folder, "current"],
  ]);
  await box.json(["trust", "--revoke", folder]);
  assert.equal((await box.mcpx(["run", "hello"], { cwd })).code, EXIT_UNTRUSTED);
  assert.equal(exists(ran), false);

  // A trusted configuration's project: its own folder's scripts run, the shared folder's do not.
  const projectDir = join(shared, "project");
  const project = await scriptIn(projectDir);
  const config = join(projectDir, ".mcpx.json");
  await Deno.writeTextFile(config, JSON.stringify(ONE_SERVER));
  await box.json(["trust", config]);
  const inProject = await box.mcpx(["run", "hello"], { cwd });
  assert.equal(inProject.code, 0, inProject.stderr);
  assert.equal(exists(project.ran), true, "the project's own script ran");
  await Deno.remove(project.folder, { recursive: true });
  const above = await box.mcpx(["run", "hello"], { cwd });
  assert.equal(above.code, EXIT_UNTRUSTED, above.stderr);
  assert.equal(exists(ran), false, "the folder above the project is not the project's");

  // In a git checkout, the project reaches up to the checkout's top.
  const repo = join(shared, "repo");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  await Deno.writeTextFile(join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
  await Deno.mkdir(join(repo, ".git", "objects"));
  await Deno.mkdir(join(repo, ".git", "refs"));
  const top = await scriptIn(repo);
  const sub = join(repo, "sub");
  await Deno.mkdir(sub);
  const subConfig = join(sub, ".mcpx.json");
  await Deno.writeTextFile(subConfig, JSON.stringify(ONE_SERVER));
  await box.json(["trust", subConfig]);
  const atTop = await box.mcpx(["run", "hello"], { cwd: "shared/repo/sub" });
  assert.equal(atTop.code, 0, atTop.stderr);
  assert.equal(exists(top.ran), true, "the checkout's top belongs to the project");

  // The user's own folders need no trust: ~/.mcpx/scripts, from a folder in the home directory.
  const home = await scriptIn(join(box.root, "home"));
  await Deno.mkdir(join(box.root, "home", "somewhere"));
  const own = await box.mcpx(["run", "hello"], { cwd: "home/somewhere" });
  assert.equal(own.code, 0, own.stderr);
  assert.equal(exists(home.ran), true);
});

Deno.test("a script folder others may write, or another user's, is never used by name", async () => {
  await using box = await Sandbox.create(undefined, { trustAll: false });
  const shared = await sharedDir(box);
  const { folder, ran } = await scriptIn(shared);
  await Deno.chmod(folder, 0o777);
  const cwd = "shared/project";
  for (const env of [{}, { MCPX_TRUST_ALL: "1" }] as Record<string, string>[]) {
    const r = await box.mcpx(["run", "hello"], { cwd, env });
    assert.equal(r.code, EXIT_UNTRUSTED, r.stderr);
    assert.match(
      oneLine(r.stderr),
      new RegExp(
        `Refusing script folder ${folder} \\(holding hello.ts\\): group or others may write it \\(mode 0777\\)`,
      ),
    );
  }
  const trust = await box.mcpx(["trust", folder]);
  assert.equal(trust.code, EXIT_UNTRUSTED, trust.stderr);
  assert.equal(exists(ran), false, "the script never ran");
  await Deno.remove(join(shared, ".mcpx"), { recursive: true });

  // Planted by `nobody` (the victim is root): as root only.
  if (Deno.uid() !== 0) return;
  const mark = join(shared, "nobody-ran");
  const out = await new Deno.Command("setpriv", {
    args: [
      `--reuid=${NOBODY}`,
      `--regid=${NOBODY}`,
      "--clear-groups",
      "/bin/sh",
      "-c",
      'umask 022; mkdir -p "$1/.mcpx/scripts" && printf "%s" "$0" > "$1/.mcpx/scripts/hello.ts"',
      `await Deno.writeTextFile(${JSON.stringify(mark)}, "ran");\n`,
      shared,
    ],
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin" },
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(Deno.statSync(folder).uid, NOBODY, "planted by nobody");
  // Found upward, with or without MCPX_TRUST_ALL, or named by a trusted configuration's
  // paths.scripts: never run.
  const config = join(shared, "project", ".mcpx.json");
  const why = `it is owned by uid ${NOBODY}, not you (0)`;
  for (
    const [args, env] of [
      [["run", "hello"], {}],
      [["run", "hello"], { MCPX_TRUST_ALL: "1" }],
      [["--config", config, "run", "hello"], {}],
      [["trust", shared], {}],
    ] as [string[], Record<string, string>][]
  ) {
    if (args[0] === "--config") {
      await Deno.writeTextFile(config, JSON.stringify({ paths: { scripts: folder } }));
    }
    const r = await box.mcpx(args, { cwd, env });
    assert.equal(r.code, EXIT_UNTRUSTED, `${args.join(" ")}: ${r.stderr}`);
    assert.ok(oneLine(r.stderr).includes(why), r.stderr);
  }
  assert.equal(exists(mark), false, "nobody's script never ran");
  assert.deepEqual((await box.json<TrustList>(["trust", "--list"])).entries, []);
});
