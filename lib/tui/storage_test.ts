import assert from "node:assert/strict";
import { join } from "node:path";
import { storageRows } from "./storage.ts";

Deno.test("storageRows() names every part of the state and cache folders, largest first", async () => {
  const root = await Deno.makeTempDir({ prefix: "mcpx-storage-" });
  try {
    const state = join(root, "state");
    const cache = join(root, "cache");
    await Deno.mkdir(join(state, "logs"), { recursive: true });
    await Deno.mkdir(join(state, "output"), { recursive: true });
    await Deno.mkdir(cache, { recursive: true });
    await Deno.writeTextFile(join(state, "logs", "runs.jsonl"), "x".repeat(300));
    await Deno.writeTextFile(join(state, "logs", "daemon-ab.1.jsonl"), "x".repeat(200));
    await Deno.writeTextFile(join(state, "logs", "index.db"), "x".repeat(1000));
    await Deno.writeTextFile(join(state, "logs", "index.db-wal"), "x".repeat(24));
    await Deno.writeTextFile(join(state, "output", "r1.txt"), "x".repeat(5000));
    await Deno.writeTextFile(join(cache, "schemas-1.json"), "x".repeat(70));
    await Deno.writeTextFile(join(cache, "schemas-2.json"), "x".repeat(30));
    const rows = storageRows({ state, cache, missing: join(root, "nope") });
    const by = Object.fromEntries(rows.map((r) => [r.part, r]));
    assert.deepEqual(rows.map((r) => r.part), [
      "state/output/",
      "state/logs/index.db",
      "state/logs/*.jsonl",
      "cache/schemas*",
      "total",
    ]);
    assert.equal(by["state/logs/*.jsonl"].bytes, 500);
    assert.equal(by["state/logs/*.jsonl"].files, 2);
    assert.equal(by["state/logs/index.db"].bytes, 1024);
    assert.equal(by["cache/schemas*"].files, 2);
    assert.equal(by.total.bytes, 6624);
    assert.equal(by.total.size, "6.5 KiB");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
