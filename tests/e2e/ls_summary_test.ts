import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { Sandbox } from "../_helpers.ts";

const VARIANTS = [
  ["ls"],
  ["--json", "ls"],
  ["--profile", "web", "ls"],
  ["--all-profiles", "--json", "ls"],
];

function config(description: string) {
  return {
    mcpServers: {
      fixture: { ...faultyServer(), mcpx: { description } },
      narrow: { ...faultyServer(), mcpx: { tools: ["echo", "s*"] } },
      peek: { aliasOf: "fixture", mcpx: { tools: ["pid"], description: "a view" } },
      broken: faultyServer(["--exit-at-start"]),
      web: { ...faultyServer(), mcpx: { profiles: ["web"], default: false } },
    },
  };
}

/** The cache folder's files whose names match `pattern`. */
function cached(box: Sandbox, pattern: RegExp): string[] {
  const dir = join(box.root, "cache", "mcpx");
  return [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => pattern.test(n)).sort()
    .map((n) => join(dir, n));
}

/** Each variant's stdout, stderr and exit status. */
async function listings(box: Sandbox): Promise<string[]> {
  const out = [];
  for (const args of VARIANTS) {
    const r = await box.mcpx(args);
    out.push(`${args.join(" ")} → ${r.code}\n${r.stdout}${r.stderr}`);
  }
  return out;
}

Deno.test("ls: the summary beside the schema cache prints what the cache itself gives", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", config("our fixture"));
  assert.equal((await box.mcpx(["refresh"])).code, 6, "broken cannot start: exit 6");
  await box.json(["stop"]);
  const [summary] = cached(box, /^ls-[0-9a-f]{16}\.json$/);
  assert.ok(summary, "the daemon wrote the summary with the schema cache");

  const fast = await listings(box);
  assert.match(fast[0], /fixture .*ready.*our fixture/);
  assert.match(fast[0], /broken .*error/);
  assert.doesNotMatch(fast.join(""), /warning/);

  Deno.removeSync(summary);
  const slow = await listings(box);
  assert.deepEqual(slow, fast);
  assert.ok(Deno.statSync(summary).isFile, "ls the long way wrote the summary again");

  // Proof that the summary is what answers: a cache spoilt in place, its size and mtime kept,
  // is not read while the summary stands; without the summary it is, and is found corrupt.
  const [schemas] = cached(box, /^schemas-[0-9a-f]{16}\.json$/);
  const info = Deno.statSync(schemas);
  const file = Deno.openSync(schemas, { write: true });
  file.writeSync(new TextEncoder().encode("{".repeat(info.size)));
  file.close();
  Deno.utimeSync(schemas, info.atime!, info.mtime!);
  assert.deepEqual(await listings(box), fast);
  Deno.removeSync(summary);
  assert.match((await box.mcpx(["ls"])).stderr, /schema cache .* is corrupt/);
});

Deno.test("ls: a changed configuration is not masked by the summary of the old one", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", config("before"));
  assert.equal((await box.mcpx(["refresh"])).code, 6);
  await box.json(["stop"]);
  const [old] = cached(box, /^ls-[0-9a-f]{16}\.json$/);
  assert.match((await box.mcpx(["ls"])).stdout, /our fixture|before/);

  const changed = config("after");
  delete (changed.mcpServers as Record<string, unknown>).narrow;
  (changed.mcpServers as Record<string, unknown>).added = faultyServer();
  await box.write("work/.mcpx.json", changed);
  const ls = await box.json<{ namespaces: { namespace: string; description: string }[] }>(["ls"]);
  assert.deepEqual(ls.namespaces.map((r) => r.namespace), ["fixture", "peek", "broken", "added"]);
  assert.equal(ls.namespaces[0].description, "after");
  // The old summary is still there, and no other: the new configuration has no schema cache
  // of its own yet (ls carried the old one's entries over), and a summary needs one.
  assert.deepEqual(cached(box, /^ls-[0-9a-f]{16}\.json$/), [old]);
  // Put back, the old configuration finds its summary again.
  await box.write("work/.mcpx.json", config("before"));
  assert.match((await box.mcpx(["ls"])).stdout, /fixture .*ready.*before/);
});
