import assert from "node:assert/strict";
import { bounded } from "./_bounded.ts";

Deno.test("bounded() runs every task, never more than the limit at once, in order of arrival", async () => {
  const run = bounded(3);
  let inFlight = 0;
  let most = 0;
  const started: number[] = [];
  const gates: (() => void)[] = [];
  const tasks = Array.from({ length: 10 }, (_, i) =>
    run(async () => {
      started.push(i);
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((done) => gates.push(done));
      inFlight--;
      if (i === 4) throw new Error("four fails");
      return i;
    }));
  const settled = Promise.allSettled(tasks);
  // Release the tasks one at a time, as each is waiting.
  while (started.length < 10 || gates.length > 0) {
    await new Promise((r) => setTimeout(r, 0));
    gates.shift()?.();
  }
  const got = await settled;
  assert.equal(most, 3);
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(
    got.map((g) => g.status === "fulfilled" ? g.value : "failed"),
    [0, 1, 2, 3, "failed", 5, 6, 7, 8, 9],
  );
});
