import assert from "node:assert/strict";
import { faultyServer } from "../fixtures/servers.ts";
import { Sandbox } from "../_helpers.ts";

/** A user's mistake ends in exactly one line on stderr, never a stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `expected one line, got:\n${stderr}`);
  assert.doesNotMatch(stderr, /\bat .*:\d+:\d+|Stack backtrace|Uncaught|internal error/);
  return lines[0];
}

Deno.test("config: a retired mode acts as sharing + scope and says so once on stderr", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      browser: { command: "true", mcpx: { mode: "session" } },
      plain: { command: "true" },
    },
  });
  const r = await box.mcpx(["--json", "ls"]);
  assert.equal(r.code, 0, r.stderr);
  const rows = (JSON.parse(r.stdout) as {
    namespaces: { namespace: string; sharing: string; scope: string }[];
  }).namespaces;
  assert.deepEqual(rows.map((row) => [row.namespace, row.sharing, row.scope]), [
    ["browser", "exclusive", "session"],
    ["plain", "shared", "global"],
  ]);
  assert.match(
    oneLine(r.stderr),
    /^mcpx: warning: Server "browser" in .*: "mode" is deprecated; "mode": "session" is "sharing": "exclusive", "scope": "session": write that instead$/,
  );

  await box.write("work/.mcpx.json", {
    mcpServers: { browser: { command: "true", mcpx: { mode: "per-session" } } },
  });
  const bad = await box.mcpx(["ls"]);
  assert.equal(bad.code, 3);
  assert.match(
    oneLine(bad.stderr),
    /"mode" is "per-session"; "mode" was replaced by "sharing" and "scope"/,
  );
});

Deno.test("config: an unknown key is refused with the name it was near", async () => {
  await using box = await Sandbox.create();
  const cases: [Record<string, unknown>, RegExp][] = [
    [
      { mcpServers: { a: { command: "true", mcpx: { scpoe: "session" } } } },
      /Server "a" .*unknown mcpx field "scpoe": did you mean "scope"\?/,
    ],
    [
      { mcpServers: { a: { command: "true", sharing: "exclusive" } } },
      /Server "a" .*"sharing" belongs in the server's "mcpx" block/,
    ],
    [
      { mcpSevers: { a: { command: "true" } } },
      /Unknown key "mcpSevers" in .*\.mcpx\.json: did you mean "mcpServers"\?/,
    ],
  ];
  for (const [config, re] of cases) {
    await box.write("work/.mcpx.json", config);
    const r = await box.mcpx(["ls"]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(oneLine(r.stderr), re);
  }
});

Deno.test("config: a configuration the system will not read exits 3 with one line", async () => {
  await using box = await Sandbox.create();
  // As root no file mode stops a read; this /proc file fails to read for root (EINVAL) and for
  // anyone else (EACCES) alike.
  for (const args of [["ls"], ["health"], ["config"]]) {
    const r = await box.mcpx(args, { env: { MCPX_CONFIG: "/proc/self/clear_refs" } });
    assert.equal(r.code, 3, `${args}: ${r.stderr}`);
    assert.match(
      oneLine(r.stderr),
      /^mcpx: Cannot read configuration "\/proc\/\d+\/clear_refs": [a-z ]+ \(E[A-Z]+\)\. Make it a readable file/,
    );
  }
  assert.deepEqual(box.processes(), [], "no daemon was started");
});

Deno.test("config: search finds a tool by a configured tag that is in no name or description", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      fixture: {
        ...faultyServer(),
        mcpx: { tags: ["kitchen"], toolTags: { echo: ["parrot"], "s*": ["tortoise"] } },
      },
      other: faultyServer(),
    },
  });
  await box.json(["refresh"]);
  const hits = async (
    args: string[],
  ) => (await box.json<{ mode: string; hits: { fn: string; score: number; explain?: unknown }[] }>(
    ["search", ...args],
  ));
  const parrot = await hits(["parrot"]);
  assert.deepEqual(parrot.hits.map((h) => h.fn), ["fixture.echo"]);
  assert.equal(parrot.mode, "all");
  assert.equal(parrot.hits[0].score, 50);
  // A server's tags reach every one of its tools, and none of another server's.
  const kitchen = await hits(["kitchen"]);
  assert.ok(kitchen.hits.length > 3);
  assert.ok(kitchen.hits.every((h) => h.fn.startsWith("fixture.")), JSON.stringify(kitchen));
  // A tag narrows alongside a name word; --tag filters by a configured tag.
  assert.deepEqual((await hits(["tortoise", "sleep"])).hits.map((h) => h.fn), ["fixture.sleep"]);
  assert.deepEqual(
    (await hits(["echo", "--tag", "parrot"])).hits.map((h) => h.fn),
    ["fixture.echo"],
  );
  const typo = await box.mcpx(["search", "echo", "--tag", "kitchn"]);
  assert.equal(typo.code, 2);
  assert.match(oneLine(typo.stderr), /No tool has the tag "kitchn": did you mean "kitchen"\?/);
  const explained = await box.mcpx(["search", "parrot", "--explain"]);
  assert.match(explained.stdout, /fixture\.echo\s+parrot tag 50/);

  // Tags are read from the configuration, not the cache: a new one is found without a refresh.
  await box.write("work/.mcpx.json", {
    mcpServers: { fixture: { ...faultyServer(), mcpx: { toolTags: { pid: ["lighthouse"] } } } },
  });
  assert.deepEqual((await hits(["lighthouse"])).hits.map((h) => h.fn), ["fixture.pid"]);
  assert.deepEqual((await hits(["parrot"])).hits, []);
});

Deno.test("config: a project .mcpx.json that is a dangling symlink, a loop or a folder is said in one line, not passed over for the parent's", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { parentsrv: faultyServer() } });
  const repo = `${box.root}/work/repo`;
  for (
    const [make, why] of [
      [
        () => Deno.symlinkSync("/nonexistent/x.json", `${repo}/.mcpx.json`),
        /is a dangling symlink to "\/nonexistent\/x\.json"/,
      ],
      [() => Deno.symlinkSync(`${repo}/.mcpx.json`, `${repo}/.mcpx.json`), /is a symlink loop/],
      [() => Deno.mkdirSync(`${repo}/.mcpx.json`), /is a directory, not a file/],
    ] as const
  ) {
    Deno.mkdirSync(repo, { recursive: true });
    make();
    for (const args of [["ls"], ["call", "parentsrv.echo", "text=hi"]]) {
      const r = await box.mcpx(args, { cwd: "work/repo" });
      assert.equal(r.code, 3, `${args}: ${r.stderr}`);
      const line = oneLine(r.stderr);
      assert.ok(line.startsWith(`mcpx: Configuration ${repo}/.mcpx.json `), line);
      assert.match(line, why);
      assert.ok(!r.stdout.includes("parentsrv"), r.stdout);
    }
    Deno.removeSync(repo, { recursive: true });
  }
  // Without it, the parent's is used, as before.
  Deno.mkdirSync(repo);
  const ls = await box.mcpx(["ls"], { cwd: "work/repo" });
  assert.equal(ls.code, 0, ls.stderr);
  assert.match(ls.stdout, /parentsrv/);
});
