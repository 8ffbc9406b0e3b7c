import assert from "node:assert/strict";
import { join } from "../_path.ts";
import { mayHoldSession, readLive, removeLive, writeLive } from "./live.ts";
import { processToken } from "../_proc.ts";

Deno.test("readLive() gives back what writeLive() kept, while its writer runs; the file is 0600", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "x.live.json");
    assert.equal(readLive(path), undefined, "none kept");
    writeLive(path, { live: { a: 2 }, keys: ["global", "session:s1"] });
    assert.deepEqual(readLive(path), {
      pid: Deno.pid,
      start: processToken(Deno.pid),
      live: { a: 2 },
      keys: ["global", "session:s1"],
    });
    assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
    assert.equal(mayHoldSession(path, Deno.pid, "s1"), true);
    assert.equal(mayHoldSession(path, Deno.pid, "s2"), false, "its own state lists no s2");
    assert.equal(mayHoldSession(path, Deno.pid + 1, "s2"), true, "another daemon's: ask it");
    await removeLive(path);
    assert.equal(readLive(path), undefined, "removed");
    await removeLive(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readLive() does not believe a pid whose start time is not the writer's, nor a garbled file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "x.live.json");
    const kept = { pid: Deno.pid, start: processToken(Deno.pid), live: { a: 1 }, keys: [] };
    for (
      const wrong of [
        { ...kept, start: `${kept.start}0` },
        { ...kept, start: undefined },
        { ...kept, keys: undefined },
        { ...kept, pid: "1" },
      ]
    ) {
      Deno.writeTextFileSync(path, JSON.stringify(wrong));
      assert.equal(readLive(path), undefined, JSON.stringify(wrong));
      assert.equal(mayHoldSession(path, Deno.pid, "s"), true, "unknown: ask the daemon");
    }
    Deno.writeTextFileSync(path, "{ not json");
    assert.equal(readLive(path), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
