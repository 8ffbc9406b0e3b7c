import assert from "node:assert/strict";
import { join } from "node:path";
import { serverDefs } from "../config/servers.ts";
import { cacheFile, cacheIdentity, type SchemaCache, writeCache } from "../cache/schema_cache.ts";
import { namespacesOf } from "./load.ts";
import { lsRow, readSummary, summaryFile, summaryStamp, writeSummary } from "./ls_summary.ts";

const FP = "0123456789abcdef";
const OTHER = "fedcba9876543210";

/** A cache folder with a schema cache and its summary for `FP`. */
function setUp(dir: string) {
  const defs = serverDefs({
    path: join(dir, "mcpx.json"),
    mcpServers: {
      a: { command: "a", mcpx: { description: "the a server" } },
      b: { command: "b", mcpx: { profiles: ["web"], default: false } },
    },
    pool: {},
    data: {},
  });
  const cache: SchemaCache = {
    version: 1,
    fingerprint: FP,
    config: join(dir, "mcpx.json"),
    servers: {
      a: {
        identity: cacheIdentity(defs[0].identity),
        tools: [{ name: "t", inputSchema: {} }],
        listedAt: "2026-01-01T00:00:00.000Z",
      },
    },
  };
  writeCache(dir, cache);
  const namespaces = namespacesOf(defs, cache);
  writeSummary(dir, FP, summaryStamp(dir, FP), namespaces);
  return { namespaces };
}

Deno.test("readSummary() gives back the rows written for the cache as it is", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const { namespaces } = setUp(dir);
    assert.deepEqual(
      readSummary(dir, FP),
      namespaces.map((ns) => ({
        ...lsRow(ns),
        profiles: ns.def.profiles,
        isDefault: ns.def.isDefault,
      })),
    );
    assert.deepEqual(readSummary(dir, FP)?.map((r) => [r.namespace, r.state, r.tools]), [
      ["a", "ready", 1],
      ["b", "unlisted", null],
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("readSummary() refuses a summary of another configuration, even beside a matching cache", () => {
  const dir = Deno.makeTempDirSync();
  try {
    setUp(dir);
    // Renamed, both files keep their size, mtime and inode: only the fingerprint tells them apart.
    Deno.renameSync(summaryFile(dir, FP), summaryFile(dir, OTHER));
    Deno.renameSync(cacheFile(dir, FP), cacheFile(dir, OTHER));
    assert.equal(readSummary(dir, OTHER), undefined);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("readSummary() refuses a summary once the schema cache was written after it", () => {
  const dir = Deno.makeTempDirSync();
  try {
    setUp(dir);
    const cache = JSON.parse(Deno.readTextFileSync(cacheFile(dir, FP))) as SchemaCache;
    cache.servers.a.listedAt = "2026-02-02T00:00:00.000Z";
    writeCache(dir, cache);
    assert.equal(readSummary(dir, FP), undefined);
    Deno.removeSync(cacheFile(dir, FP));
    assert.equal(readSummary(dir, FP), undefined, "no cache, no summary");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("readSummary() refuses a summary written by another mcpx, or not one at all", () => {
  const dir = Deno.makeTempDirSync();
  try {
    setUp(dir);
    const path = summaryFile(dir, FP);
    const summary = JSON.parse(Deno.readTextFileSync(path));
    Deno.writeTextFileSync(path, JSON.stringify({ ...summary, version: "0.0.0-other" }));
    assert.equal(readSummary(dir, FP), undefined);
    Deno.writeTextFileSync(path, "{ not json");
    assert.equal(readSummary(dir, FP), undefined);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
