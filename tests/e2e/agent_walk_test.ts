/**
 * What an agent reads before its first call, following AGENTS.md with `--json`, on four real
 * servers: under 6,000 bytes in all (bench/agent_walk.ts prints the figures). `--json search`
 * carries the human table's limit and cut descriptions; AGENTS.md says how to get more.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fourServers, walkSteps } from "../fixtures/walk.ts";
import { Sandbox } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname;
const bytes = (text: string) => new TextEncoder().encode(text).length;

Deno.test("agent walk: AGENTS.md, --json ls, search and types on four real servers stay under 6,000 bytes", async () => {
  await using box = await Sandbox.create();
  await box.write(
    "work/.mcpx.json",
    fourServers(join(box.root, "work"), join(box.root, "memory.jsonl")),
  );
  const refresh = await box.mcpx(["--json", "refresh"]);
  assert.equal(refresh.code, 0, refresh.stdout + refresh.stderr);
  const listed = JSON.parse(refresh.stdout).servers as { namespace: string; tools: number }[];
  assert.equal(listed.length, 4);
  for (const s of listed) assert.ok(s.tools > 0, `${s.namespace} listed its tools`);

  const out: string[] = [];
  for (const args of walkSteps()) {
    const run = await box.mcpx(args);
    assert.equal(run.code, 0, `mcpx ${args.join(" ")}: ${run.stderr}`);
    out.push(run.stdout);
  }
  const [agents, , search] = out;
  const total = out.reduce((n, text) => n + bytes(text), 0);
  assert.ok(total < 6000, `the walk is ${total} bytes: ${out.map(bytes).join(" + ")}`);
  assert.equal(agents, await Deno.readTextFile(join(REPO, "AGENTS.md")), "agents-md is AGENTS.md");
  assert.match(agents, /--limit/, "AGENTS.md tells how to see more hits");

  // The hit the task needs is on the first screen, its description cut as the table cuts it.
  const found = JSON.parse(search) as {
    total: number;
    hits: { fn: string; description: string }[];
  };
  assert.equal(found.hits.length, 8, "the default limit");
  assert.ok(found.total > 8);
  assert.ok(found.hits.some((h) => h.fn === "filesystem.list_directory"));
  for (const h of found.hits) assert.ok([...h.description].length <= 80, h.description);
  const more = await box.json<{ hits: unknown[] }>([
    "search",
    "list",
    "files",
    "folder",
    "--limit",
    "12",
  ]);
  assert.ok(more.hits.length > 8, "--limit gives more");
});
