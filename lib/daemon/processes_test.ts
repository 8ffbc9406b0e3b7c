import assert from "node:assert/strict";
import { descendants, parentOf, processTable, processTree } from "./processes.ts";

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check(), "condition not reached");
}

Deno.test("processTree() walks down from a pid and agrees with the whole table", async () => {
  // A shell with two children of its own: three processes below this one.
  const shell = new Deno.Command("sh", {
    args: ["-c", "sleep 30 & sleep 30 & wait"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await until(() => descendants(shell.pid).length === 2);
    const tree = processTree(Deno.pid);
    const table = processTable();
    const below = descendants(Deno.pid, new Set(), table).sort();
    assert.deepEqual(descendants(Deno.pid, new Set(), tree).sort(), below);
    assert.ok(below.includes(shell.pid));
    for (const pid of below) assert.equal(tree.get(pid), table.get(pid), `parent of ${pid}`);
    const sleeps = descendants(shell.pid);
    for (const pid of sleeps) assert.equal(parentOf(pid), shell.pid);
    // A spared subtree is left out whole.
    assert.ok(!descendants(Deno.pid, new Set([shell.pid]), tree).some((p) => sleeps.includes(p)));
  } finally {
    for (const pid of [...descendants(shell.pid), shell.pid]) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
    await shell.status;
  }
  assert.equal(parentOf(shell.pid), undefined, "a reaped process has no parent");
});
