import assert from "node:assert/strict";
import {
  descendants,
  parentOf,
  pidAlive,
  processTable,
  processToken,
  processTree,
} from "./_proc.ts";

Deno.test("processToken() names this process, and nothing once a process has exited", async () => {
  const mine = processToken(Deno.pid);
  assert.ok(mine !== undefined && /^\d+$/.test(mine), `a start time in ticks, not ${mine}`);
  assert.equal(processToken(Deno.pid), mine, "the same token every time");
  const child = new Deno.Command("true").spawn();
  const pid = child.pid;
  await child.status; // reaped: the pid names nothing
  assert.equal(processToken(pid), undefined);
  assert.equal(pidAlive(pid), false);
  assert.equal(pidAlive(Deno.pid), true);
});

Deno.test("processToken() reads a process whose name holds spaces and parentheses", async () => {
  const dir = await Deno.makeTempDir();
  const odd = `${dir}/a b) (c`;
  await Deno.symlink("/bin/sleep", odd);
  const child = new Deno.Command(odd, { args: ["5"] }).spawn();
  try {
    const stat = Deno.readTextFileSync(`/proc/${child.pid}/stat`);
    assert.match(stat, /\(a b\) \(c\)/, "the kernel keeps the odd name");
    const token = processToken(child.pid);
    assert.ok(token !== undefined && /^\d+$/.test(token), String(token));
  } finally {
    child.kill();
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});

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
