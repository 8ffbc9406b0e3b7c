import assert from "node:assert/strict";
import { childRecord, type ChildrenFile, stopOrphans, writeChildren } from "./children.ts";
import { processToken } from "../_proc.ts";

/** A `sleep` in its own process group, as the daemon starts servers. */
function sleeper(): Deno.ChildProcess {
  return new Deno.Command("sleep", { args: ["30"], detached: true, stdin: "null" }).spawn();
}

/** A pid that names no process: a child that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true").spawn();
  await child.status;
  return child.pid;
}

Deno.test("stopOrphans() leaves a process whose start time differs from its record", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/x.children.json`;
  const child = sleeper();
  try {
    const rec = childRecord(child.pid, "s", "s#1")!;
    assert.equal(rec.pgid, child.pid, "it leads its own group");
    const start = String(Number(rec.start) + 1); // the pid, reused by another process
    writeChildren(path, { pid: await deadPid(), start: "1" }, [{ ...rec, start }]);
    assert.equal((Deno.statSync(path).mode ?? 0) & 0o777, 0o600);
    const out = stopOrphans(path);
    assert.deepEqual(out?.stopped, [], "nothing was stopped");
    assert.equal(processToken(child.pid), rec.start, "the process still runs");
  } finally {
    child.kill("SIGKILL");
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stopOrphans() kills the group of a dead daemon's child whose start time matches", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/x.children.json`;
  const child = sleeper();
  try {
    const rec = childRecord(child.pid, "s", "s#1")!;
    writeChildren(path, { pid: await deadPid(), start: "1" }, [rec]);
    const out = stopOrphans(path);
    assert.deepEqual(out?.stopped, [rec]);
    const status = await child.status;
    assert.equal(status.signal, "SIGKILL");
    assert.throws(() => Deno.statSync(path), "the file is removed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stopOrphans() touches nothing while the daemon that wrote the file runs", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/x.children.json`;
  const owner = sleeper();
  const child = sleeper();
  try {
    const file: ChildrenFile = {
      daemon: { pid: owner.pid, start: processToken(owner.pid)! },
      children: [childRecord(child.pid, "s", "s#1")!],
    };
    await Deno.writeTextFile(path, JSON.stringify(file));
    assert.equal(stopOrphans(path), undefined);
    assert.ok(processToken(child.pid) !== undefined, "the child still runs");
  } finally {
    for (const c of [owner, child]) {
      c.kill("SIGKILL");
      await c.status;
    }
    await Deno.remove(dir, { recursive: true });
  }
});
