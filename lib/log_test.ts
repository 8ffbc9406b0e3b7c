import assert from "node:assert/strict";
import { join } from "node:path";
import { JsonlLog } from "./log.ts";

Deno.test("JsonlLog.write() keeps the fields every record carries; attributes cannot replace them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mcpx-log-" });
  try {
    const path = join(dir, "d.jsonl");
    const log = await JsonlLog.open(path, "info", { pid: 111 });
    log.write("info", "instance.ready", "Server instance ready", { serverPid: 222, pid: 333 });
    log.write("debug", "dropped", "below the minimum");
    log.write("warn", "x", "m", { level: "error", event: "y", msg: "n", ts: "then" });
    log.close();
    const [ready, warn, ...rest] = (await Deno.readTextFile(path)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    assert.equal(rest.length, 0);
    assert.equal(ready.pid, 111, "pid is the daemon's");
    assert.equal(ready.serverPid, 222);
    assert.deepEqual(Object.keys(ready).slice(0, 5), ["ts", "level", "event", "msg", "pid"]);
    assert.deepEqual([warn.level, warn.event, warn.msg], ["warn", "x", "m"]);
    assert.notEqual(warn.ts, "then");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
