import assert from "node:assert/strict";
import { pidAlive, processToken } from "./pid.ts";

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
