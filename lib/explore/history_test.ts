import { strict as assert } from "node:assert";
import { History } from "./history.ts";

Deno.test("History keeps the newest lines, bounded, across instances", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/state/explore_history`;
  const a = new History(path, 3);
  for (const line of ["one", "two", "two", "", "three", "four"]) a.add(line);
  assert.deepEqual(a.lines, ["two", "three", "four"]);
  assert.deepEqual(new History(path, 3).lines, ["two", "three", "four"]);
  await Deno.writeTextFile(path, "typed by hand\n", { append: true });
  assert.deepEqual(new History(path, 10).lines, ["two", "three", "four", "typed by hand"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("History without a file starts empty", () => {
  assert.deepEqual(new History("/nonexistent/mcpx/history").lines, []);
});
