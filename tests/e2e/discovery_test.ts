import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { Sandbox, until } from "../_helpers.ts";

interface Row {
  namespace: string;
  tools: number | null;
  state: string;
  description: string;
  live: number;
}

const FIXTURE_TOOLS = 11;

async function configure(box: Sandbox): Promise<void> {
  await box.write("work/.mcpx.json", {
    mcpServers: {
      fixture: { ...faultyServer(), mcpx: { description: "our fixture" } },
      narrow: { ...faultyServer(), mcpx: { tools: ["echo", "s*"], excludeTools: ["/^set$/"] } },
      peek: {
        aliasOf: "fixture",
        mcpx: { tools: ["pid", "get"], description: "a read-only view" },
      },
      apart: { aliasOf: "fixture", mcpx: { scope: "call" } },
      broken: faultyServer(["--exit-at-start"]),
      web: { ...faultyServer(), mcpx: { profiles: ["web"], default: false } },
    },
  });
}

Deno.test("discovery: ls and search answer from the cache and start nothing", async () => {
  await using box = await Sandbox.create();
  await configure(box);
  const before = await box.json<{ namespaces: Row[]; next: string }>(["ls"]);
  assert.deepEqual(before.namespaces.map((r) => [r.namespace, r.state]), [
    ["fixture", "unlisted"],
    ["narrow", "unlisted"],
    ["peek", "unlisted"],
    ["apart", "unlisted"],
    ["broken", "unlisted"],
  ]);
  assert.match(before.next, /mcpx refresh/);
  assert.deepEqual(box.processes(), [], "ls started neither a daemon nor a server");

  // One server cannot start, so refresh says so with exit 6; the others are listed all the same.
  const refreshRun = await box.mcpx(["--json", "refresh"]);
  assert.equal(refreshRun.code, 6);
  const refreshed = JSON.parse(refreshRun.stdout) as {
    servers: { namespace: string; tools: number | null; error?: string }[];
  };
  assert.match(
    refreshed.servers.find((s) => s.namespace === "broken")?.error ?? "",
    /refusing to start/,
  );
  assert.equal(refreshed.servers.find((s) => s.namespace === "narrow")?.tools, 3);
  await box.json(["stop"]);
  assert.deepEqual(box.processes(), []);

  const ls = await box.mcpx(["ls"]);
  assert.equal(ls.code, 0, ls.stderr);
  const lines = ls.stdout.split("\n");
  assert.match(lines[0], /^NAMESPACE\s+TOOLS\s+SHARING\s+SCOPE\s+LIVE\s+STATE\s+DESCRIPTION$/);
  assert.match(
    ls.stdout,
    new RegExp(`fixture\\s+${FIXTURE_TOOLS}\\s+shared\\s+global\\s+0\\s+ready\\s+our fixture`),
  );
  assert.match(ls.stdout, /narrow\s+3\s+/);
  assert.match(ls.stdout, /peek\s+2\s+shared\s+global\s+0\s+ready\s+a read-only view/);
  assert.match(
    ls.stdout,
    /broken\s+-\s+shared\s+global\s+0\s+error\s+server "broken": Cannot start server "broken".*/,
  );
  assert.doesNotMatch(ls.stdout, /^web/m, "a profile-only server is not in the default set");
  assert.match(
    ls.stdout,
    /\nNext: `mcpx types <namespace>` for signatures, `mcpx search <query>` to find a tool\.\n$/,
  );
  assert.deepEqual(box.processes(), [], "ls after refresh started nothing either");

  const names = async (...flags: string[]) =>
    (await box.json<{ namespaces: Row[] }>([...flags, "ls"])).namespaces.map((r) => r.namespace);
  assert.ok((await names("--profile", "web")).includes("web"));
  assert.deepEqual(await names("--profile", "web", "--skip-default"), ["web"]);
  assert.equal((await names("--all-profiles")).length, 6);
  const unknown = await box.mcpx(["--profile", "wbe", "ls"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /No server has the profile "wbe": did you mean "web"\?/);
  assert.match(unknown.stderr, /Profiles in this configuration: web/);
  const fromEnv = await box.mcpx(["ls"], { env: { MCPX_SELECT_PROFILES: "elsewhere" } });
  assert.equal(fromEnv.code, 0, "a profile from the environment may belong to other configs");
  const tag = await box.mcpx(["search", "echo", "--tag", "redOnly"]);
  assert.equal(tag.code, 2);
  assert.match(tag.stderr, /No tool has the tag "redOnly": did you mean "readOnly"\?/);

  const search = await box.json<{ hits: { fn: string }[] }>(["search", "echo"]);
  assert.equal(search.hits[0].fn.endsWith(".echo"), true);
  assert.ok(!search.hits.some((h) => h.fn === "narrow.set"), "a hidden tool is not found");
  assert.ok(!search.hits.some((h) => h.fn.startsWith("web.")), "nor one outside the selection");
  const empty = await box.mcpx(["search"]);
  assert.equal(empty.code, 2);
  assert.deepEqual(box.processes(), [], "search started nothing");
});

Deno.test("discovery: filters, aliases and profiles apply to calls as to listings", async () => {
  await using box = await Sandbox.create();
  await configure(box);
  const hidden = await box.mcpx(["call", "narrow.set", "key=a", "value=b"]);
  assert.equal(hidden.code, 5);
  assert.match(hidden.stderr, /no tool "set"/);
  const target = await box.json<{ mcpx: { instance: { pid: number } } }>(["call", "fixture.pid"]);
  const alias = await box.json<{ mcpx: { instance: { pid: number } } }>(["call", "peek.pid"]);
  assert.equal(
    alias.mcpx.instance.pid,
    target.mcpx.instance.pid,
    "an alias with matching leasing shares the process",
  );
  const apart = await box.json<{ mcpx: { instance: { pid: number } } }>(["call", "apart.pid"]);
  assert.notEqual(
    apart.mcpx.instance.pid,
    target.mcpx.instance.pid,
    "one with other leasing gets its own",
  );
  const outside = await box.mcpx(["call", "web.echo", "text=x"]);
  assert.equal(outside.code, 5);
  assert.match(outside.stderr, /not in the selected profiles/);
  const inside = await box.json<{ content: { text: string }[] }>([
    "--profile",
    "web",
    "call",
    "web.echo",
    "text=x",
  ]);
  assert.equal(inside.content[0].text, "x");
  const status = await box.json<{ servers: { namespace: string; sharedWith: string[] }[] }>([
    "status",
  ]);
  // Pool identity is the process and its leasing, not the entry: every entry with the same
  // command, arguments and leasing reaches the same process.
  assert.deepEqual(status.servers.find((s) => s.namespace === "fixture")?.sharedWith, [
    "narrow",
    "peek",
    "web",
  ]);
});

Deno.test("discovery: a corrupt schema cache is detected, warned about once, and rebuilt", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  await box.json(["refresh"]);
  await box.json(["stop"]);
  const dir = join(box.root, "cache", "mcpx");
  const file = [...Deno.readDirSync(dir)].find((e) => e.name.startsWith("schemas-"))!.name;
  await Deno.writeTextFile(join(dir, file), "{ not json");
  const ls = await box.mcpx(["--json", "ls"]);
  assert.equal(ls.code, 0);
  assert.equal(ls.stderr.trim().split("\n").length, 1);
  assert.match(ls.stderr, /schema cache .* is corrupt and will be rebuilt/);
  assert.equal(JSON.parse(ls.stdout).namespaces[0].state, "unlisted");
  await box.json(["refresh"]);
  const after = await box.json<{ namespaces: Row[] }>(["ls"]);
  assert.equal(after.namespaces[0].tools, FIXTURE_TOOLS);
});

Deno.test("discovery: bad alias chains and unknown targets are refused with the fix", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      a: faultyServer(),
      b: { aliasOf: "a" },
      c: { aliasOf: "b" },
    },
  });
  const chain = await box.mcpx(["ls"]);
  assert.equal(chain.code, 3);
  assert.match(chain.stderr, /"b" is itself an alias; point "aliasOf" at "a", the original/);
  await box.write("work/.mcpx.json", { mcpServers: { a: faultyServer(), b: { aliasOf: "aa" } } });
  const unknown = await box.mcpx(["ls"]);
  assert.equal(unknown.code, 3);
  assert.match(unknown.stderr, /"aliasOf" names no server: did you mean "a"\?/);
});

Deno.test("discovery: types, catalog and schema answer from the cache, even with the server gone", async () => {
  await using box = await Sandbox.create();
  // A copy of the fixture server that the test can take away after the tools are cached.
  const copy = join(box.root, "bin", "server.ts");
  await Deno.mkdir(join(box.root, "bin"));
  await Deno.copyFile(new URL("../fixtures/servers/faulty.ts", import.meta.url), copy);
  const server = faultyServer();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      fixture: { command: server.command, args: [...server.args.slice(0, -1), copy] },
    },
  });
  await box.json(["refresh"]);
  await box.json(["stop"]);
  await Deno.rename(copy, `${copy}.moved`);

  const types = await box.mcpx(["types", "fixture"]);
  assert.equal(types.code, 0, types.stderr);
  // The brief form: nothing of the fixture's is long enough to cut, so no note on cuts either.
  assert.match(types.stdout, /^declare namespace fixture \{\n/);
  assert.match(
    types.stdout,
    /function echo\(args: \{[^}]*\btext: string;[^}]*\}\): Promise<ToolResult>;/,
  );
  assert.match(
    types.stdout,
    /function fancy_name\(/,
    "a tool name that is not an identifier is mapped",
  );
  const one = await box.mcpx(["types", "fixture.echo"]);
  assert.ok(
    one.stdout.length < types.stdout.length / 3,
    "one tool is far cheaper than a namespace",
  );
  const typo = await box.mcpx(["types", "fixture.ecoh"]);
  assert.equal(typo.code, 5);
  assert.match(typo.stderr, /no tool "ecoh": did you mean "echo"\?/);
  const noNs = await box.mcpx(["types", "fixtur"]);
  assert.equal(noNs.code, 5);
  assert.match(noNs.stderr, /No namespace "fixtur": did you mean "fixture"\?/);

  for (const budget of [60, 200, 2000]) {
    const out = await box.json<{ tokens: number; text: string }>([
      "catalog",
      "--budget",
      String(budget),
    ]);
    assert.ok(out.tokens <= budget, `catalog --budget ${budget} gave ${out.tokens}`);
    assert.equal(out.tokens, Math.ceil(new TextEncoder().encode(out.text).length / 4));
  }

  const mcp = await box.json<{ document: { tools: { name: string }[] } }>([
    "schema",
    "--format",
    "mcp",
  ]);
  assert.ok(mcp.document.tools.some((t) => t.name === "fixture.echo"));
  const js = await box.json<{ document: { $defs: Record<string, unknown> } }>([
    "schema",
    "--format",
    "json-schema",
  ]);
  assert.ok("fixture.echo" in js.document.$defs);
  const api = await box.json<{ document: { paths: Record<string, unknown> } }>([
    "schema",
    "--format",
    "openapi",
  ]);
  assert.ok("/v1/call/fixture/echo" in api.document.paths);

  const client = await box.json<{ path: string }>(["client", "-o", "lib/mcpx-client.ts"]);
  assert.equal(client.path, join(box.root, "work/lib/mcpx-client.ts"));
  const check = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--no-config", client.path],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(check.code, 0, new TextDecoder().decode(check.stderr));
  assert.deepEqual(box.processes(), [], "none of them started a daemon or a server");

  // The server is gone for real: a call says so, and the error does not erase what ls knew.
  const call = await box.mcpx(["call", "fixture.echo", "text=x"]);
  assert.equal(call.code, 6);
  await box.json(["stop"]);
  const ls = await box.json<{ namespaces: { tools: number; state: string }[] }>(["ls"]);
  assert.equal(ls.namespaces[0].state, "error");
  assert.equal(ls.namespaces[0].tools, 11, "the last good listing is kept beside the error");
});

Deno.test("discovery: tools/list_changed from a live server refreshes its cached tools", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { growing: faultyServer(["--list-changed-after", "200"]) },
  });
  await box.json(["call", "growing.echo", "text=x"]);
  const grew = await until(
    async () =>
      (await box.json<{ namespaces: Row[] }>(["ls"])).namespaces[0].tools === FIXTURE_TOOLS + 1,
    5000,
  );
  assert.ok(grew, "ls shows the tool the server added");
  assert.match((await box.mcpx(["types", "growing.late"])).stdout, /function late\(/);
});

Deno.test("discovery: types keeps a namespace's rendering and renders again when the cache moves", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  await box.json(["refresh"]);
  const first = await box.mcpx(["types", "fixture"]);
  assert.equal(first.code, 0, first.stderr);
  // The rendering is kept under the cache folder, stamped; the second answer is read from it.
  const dir = join(box.env.XDG_CACHE_HOME, "mcpx", "types");
  const [file] = [...Deno.readDirSync(dir)].map((e) => join(dir, e.name));
  const kept = Deno.readTextFileSync(file);
  const stamp = kept.slice(0, kept.indexOf("\n") + 1);
  assert.match(stamp, /^\/\/ mcpx-stamp /);
  assert.equal(kept.slice(stamp.length), first.stdout);
  Deno.writeTextFileSync(file, stamp + first.stdout.replace("function echo(", "function ECHO("));
  const second = await box.mcpx(["types", "fixture"]);
  assert.match(second.stdout, /function ECHO\(/, "the kept rendering was served");
  // A new server process lists its tools again; finding the same ones, it leaves the schema
  // cache, and so the rendering, alone.
  await box.json(["stop"]);
  await box.json(["call", "fixture.echo", "text=x"]);
  assert.match((await box.mcpx(["types", "fixture"])).stdout, /function ECHO\(/);
  // A schema cache that changes (here only its mtime) no longer matches the stamp: rendered anew.
  const cache = [...Deno.readDirSync(join(box.env.XDG_CACHE_HOME, "mcpx"))]
    .find((e) => e.name.startsWith("schemas-"))!;
  const later = new Date(Date.now() + 5000);
  Deno.utimeSync(join(box.env.XDG_CACHE_HOME, "mcpx", cache.name), later, later);
  const third = await box.mcpx(["types", "fixture"]);
  assert.equal(third.stdout, first.stdout);
  await box.json(["stop"]);
});

Deno.test("discovery: ls counts live processes from what the daemon keeps, and only while it runs", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  const live = async () =>
    (await box.json<{ namespaces: Row[] }>(["ls"])).namespaces.find((r) =>
      r.namespace === "fixture"
    )!.live;
  await box.json(["call", "fixture.echo", "text=x"]);
  const dir = join(box.env.XDG_STATE_HOME, "mcpx", "daemons");
  const kept = [...Deno.readDirSync(dir)].find((e) => e.name.endsWith(".live.json"));
  assert.ok(kept, "the daemon keeps its live counts");
  const file = join(dir, kept.name);
  assert.deepEqual(JSON.parse(Deno.readTextFileSync(file)).live, { fixture: 1 });
  assert.equal(await live(), 1);
  // The instance goes: the kept counts follow.
  await box.json(["restart", "fixture"]);
  await until(() => JSON.parse(Deno.readTextFileSync(file)).live.fixture === 0);
  assert.equal(await live(), 0);
  // Counts kept by a daemon that no longer runs are not believed.
  await box.json(["call", "fixture.echo", "text=x"]);
  const written = JSON.parse(Deno.readTextFileSync(file));
  const stat = Deno.readTextFileSync(`/proc/${written.pid}/stat`);
  assert.equal(written.start, stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
  Deno.writeTextFileSync(file, JSON.stringify({ pid: 999999999, live: { fixture: 7 } }));
  assert.equal(await live(), 1, "asked the daemon instead");
  // Nor are counts whose pid now names another process (here this test's own): a reused pid.
  Deno.writeTextFileSync(
    file,
    JSON.stringify({ pid: Deno.pid, start: "1", live: { fixture: 7 } }),
  );
  assert.equal(await live(), 1, "asked the daemon instead of a reused pid");
  await box.json(["stop"]);
  assert.throws(() => Deno.statSync(file), "a stopped daemon removes what it kept");
});

Deno.test("discovery: a schema cache removed or spoilt under a running daemon is written again", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  await box.json(["refresh"]);
  const dir = join(box.env.XDG_CACHE_HOME, "mcpx");
  const file = join(
    dir,
    [...Deno.readDirSync(dir)].find((e) => e.name.startsWith("schemas-"))!.name,
  );
  const tools = async () => (await box.json<{ namespaces: Row[] }>(["ls"])).namespaces[0].tools;
  // Spoilt: ls warns, and the refresh it advises makes the file right even though the tools are
  // the same ones the daemon already holds.
  Deno.writeTextFileSync(file, "{ not json");
  const spoilt = await box.mcpx(["ls"]);
  assert.match(spoilt.stderr, /corrupt/);
  await box.json(["refresh"]);
  assert.equal(await tools(), FIXTURE_TOOLS);
  // Removed: the next listing of a new process writes it again.
  Deno.removeSync(file);
  await box.json(["restart", "fixture"]);
  await box.json(["call", "fixture.echo", "text=x"]);
  assert.ok(
    await until(() => {
      try {
        return Deno.statSync(file).isFile;
      } catch {
        return false;
      }
    }),
  );
  assert.equal(await tools(), FIXTURE_TOOLS);
  // An edited configuration (a new fingerprint) whose servers list the same tools as the entries
  // carried over from the old cache still gets a cache file of its own.
  await box.json(["stop"]);
  await box.write(
    "work/.mcpx.json",
    `// edited\n${JSON.stringify({ mcpServers: { fixture: faultyServer() } })}`,
  );
  await box.json(["call", "fixture.echo", "text=x"]);
  const files = () => [...Deno.readDirSync(dir)].filter((e) => /^schemas-.*\.json$/.test(e.name));
  // ...and, that written, the old version's is removed: one cache per configuration file.
  assert.ok(
    await until(() => files().length === 1 && join(dir, files()[0].name) !== file),
    "the new fingerprint's cache is written, in place of the old one",
  );
  await box.json(["stop"]);
});

Deno.test("discovery: the pool block's tool filters hide tools of every server, its own block wins", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    pool: { excludeTools: ["/^set$/", "get"] },
    mcpServers: {
      plain: faultyServer(),
      own: { ...faultyServer(), mcpx: { excludeTools: [] } },
      off: { ...faultyServer(), mcpx: { disabled: true } },
    },
  });
  const refreshed = await box.mcpx(["refresh"]);
  assert.equal(refreshed.code, 0, refreshed.stderr);
  const ls = await box.json<{ namespaces: Row[] }>(["ls"]);
  assert.deepEqual(ls.namespaces.map((r) => [r.namespace, r.tools, r.state]), [
    ["plain", FIXTURE_TOOLS - 2, "ready"],
    ["own", FIXTURE_TOOLS, "ready"],
    ["off", FIXTURE_TOOLS - 2, "disabled"],
  ]);
  const hidden = await box.mcpx(["call", "plain.set", "key=a", "value=b"]);
  assert.notEqual(hidden.code, 0, "a tool the pool block excludes cannot be called");
  assert.match(hidden.stderr, /set/);
  const shown = await box.mcpx(["call", "own.set", "key=a", "value=b"]);
  assert.equal(shown.code, 0, shown.stderr);

  const config = await box.json<{
    servers: { server: string; filters?: { key: string; value: unknown; source: string }[] }[];
  }>(["config"]);
  const filtersOf = (name: string) => config.servers.find((s) => s.server === name)?.filters;
  assert.deepEqual(filtersOf("plain"), [
    { key: "excludeTools", value: ["/^set$/", "get"], source: "pool" },
  ]);
  assert.deepEqual(filtersOf("own"), [{ key: "excludeTools", value: [], source: "mcpx" }]);
  assert.deepEqual(filtersOf("off"), [
    { key: "excludeTools", value: ["/^set$/", "get"], source: "pool" },
    { key: "disabled", value: true, source: "mcpx" },
  ]);
  const text = await box.mcpx(["config"]);
  assert.match(
    text.stdout,
    /plain\s+shared\s+global\s+default\s+excludeTools=\["\/\^set\$\/","get"\] \(pool\)/,
  );
  await box.json(["stop"]);
});

Deno.test("discovery: catalog's bias weighs tags, from --bias or the catalog.bias setting", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    catalog: { bias: "vault" },
    mcpServers: {
      fixture: { ...faultyServer(), mcpx: { toolTags: { structured: ["vault"] } } },
    },
  });
  await box.json(["refresh"]);
  const firstShown = async (args: string[]) => {
    const out = await box.json<{ text: string }>(["catalog", "--budget", "250", ...args]);
    return out.text.match(/^declare namespace fixture \{\n(?:.*\n)*?\s+function (\w+)\(/m)
      ?.[1];
  };
  // No tool's name or description says "vault": only its tag does.
  assert.equal(await firstShown([]), "structured", "the setting's word picks the tagged tool");
  assert.equal(await firstShown(["--bias", "pid"]), "pid", "--bias replaces the setting");
  assert.notEqual(await firstShown(["--bias", ""]), "structured", "an empty --bias is no bias");
  await box.json(["stop"]);
});
