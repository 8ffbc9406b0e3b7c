import assert from "node:assert/strict";
import { join } from "node:path";
import { Context } from "../context.ts";
import { captureIo } from "../io.ts";
import { storageShow } from "./ui_ops.ts";

Deno.test("storage: a part per entry, the log split, a database with its -wal as one, largest first", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "mcpx-storage-" });
  try {
    const state = join(tmp, "state", "mcpx"), cache = join(tmp, "cache", "mcpx");
    const files: [string, number][] = [
      [join(state, "logs", "daemon-0123456789abcdef.jsonl"), 300],
      [join(state, "logs", "runs.jsonl"), 200],
      [join(state, "logs", "index.db"), 4096],
      [join(state, "logs", "index.db-wal"), 1000],
      [join(state, "questions.db"), 50],
      [join(state, "questions.db-shm"), 30],
      [join(state, "daemons", "x.json"), 10],
      [join(cache, "schemas-0123456789abcdef.json"), 700],
      [join(cache, "schemas-fedcba9876543210.json"), 100],
    ];
    for (const [path, size] of files) {
      await Deno.mkdir(join(path, ".."), { recursive: true });
      await Deno.writeFile(path, new Uint8Array(size));
    }
    const io = captureIo({
      env: { XDG_STATE_HOME: join(tmp, "state"), XDG_CACHE_HOME: join(tmp, "cache") },
    });
    const out = await storageShow.run({}, new Context(io));
    assert.deepEqual(out.parts.map((p) => [p.part, p.bytes, p.files]), [
      ["log index (index.db)", 5096, 2],
      ["cache: schemas.json", 800, 2],
      ["log (JSONL)", 500, 2],
      ["questions", 80, 2],
      ["daemon records, sockets, tokens", 10, 1],
    ]);
    assert.equal(out.bytes, 6486);
    const byPart = Object.fromEntries(out.parts.map((p) => [p.part, p.path]));
    assert.equal(byPart["log index (index.db)"], join(state, "logs", "index.db"));
    assert.equal(byPart["questions"], join(state, "questions.db"));
    assert.equal(byPart["log (JSONL)"], join(state, "logs"));
    const text = await storageShow.render!(out, new Context(io), {});
    assert.match(text, /^PART +SIZE +FILES +PATH$/m);
    assert.match(text, /^total +6\.3 KiB +9$/m);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
