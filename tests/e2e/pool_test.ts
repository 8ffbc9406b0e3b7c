/**
 * Pools under pressure, end to end: real daemons, real fixture servers, real CLI and script
 * processes. A waiter is woken by the release it waits for, fifty calls over ten sessions with
 * `max: 4` all succeed, a session whose process was stopped to make room is told so (`--json`
 * and a script's `.raw`), and a stop with callers queued ends at once and leaves no process.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { daemonLog, type Run, Sandbox, until } from "../_helpers.ts";

interface Status {
  servers: {
    namespace: string;
    queue: { waiting: number; oldestWaitMs: number };
    instances: { key: string; leases: number; pinned: boolean }[];
  }[];
}

async function status(box: Sandbox): Promise<Status["servers"][number][]> {
  return (await box.json<Status>(["status"])).servers;
}

/**
 * Whether `ns` has a process leased right now under a key starting with `prefix` (a run's
 * first listing of the tools has a process of its own, keyed `refresh:`).
 */
async function busy(box: Sandbox, ns: string, prefix: string): Promise<boolean> {
  const s = (await status(box)).find((x) => x.namespace === ns);
  return (s?.instances ?? []).some((i) => i.leases > 0 && i.key.startsWith(prefix));
}

/** A script line that waits (up to a minute) until the file `path` exists. */
function waitFor(path: string): string {
  return `for (let i = 0; i < 2400; i++) { try { Deno.statSync(${
    JSON.stringify(path)
  }); break; } catch { await new Promise((r) => setTimeout(r, 25)); } }`;
}

const exclusive = (extra: Record<string, unknown> = {}) => ({
  sharing: "exclusive",
  scope: "session",
  max: 1,
  // Before pool.queueTimeout a wait was bounded by these two together.
  startTimeout: "10s",
  callTimeout: "5s",
  ...extra,
});

Deno.test("pool: with max 1 a second session gets the process as soon as the first releases it", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { f: { ...faultyServer(), mcpx: exclusive() } },
  });
  const done = join(box.root, "b-done");
  // Session A (a run's own session) holds the only process for one call, then stays alive,
  // calling nothing, until B has finished: B can only have been served by A's release.
  const a = box.mcpx(["exec", `await f.sleep({ ms: 1500 }); ${waitFor(done)}; return "a done"`]);
  assert.ok(await until(() => busy(box, "f", "session:run-"), 30_000), "A's call is under way");
  const b = await box.mcpx(["call", "f.pid"]);
  await Deno.writeTextFile(done, "");
  const first = await a;
  assert.equal(b.code, 0, b.stderr);
  assert.match(b.stdout, /^\d+\n$/);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, "a done\n");
});

Deno.test("pool: fifty calls over ten sessions with max 4 all succeed", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      f: { ...faultyServer(), mcpx: exclusive({ max: 4, startTimeout: "5s", callTimeout: "3s" }) },
    },
  });
  await box.mcpx(["start"]);
  // Each run keeps its process busy, one call after another: a waiter is served by those
  // releases, not only when a whole run (two rounds of them, before the fix) has ended.
  const program = "const out = []; for (let i = 0; i < 5; i++) " +
    "out.push(String(await f.sleep({ ms: 1000 }))); " +
    "return out.join(',')";
  const runs: Run[] = await Promise.all(
    Array.from({ length: 10 }, () => box.mcpx(["exec", program])),
  );
  for (const r of runs) {
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "slept,slept,slept,slept,slept\n");
  }
  // Every call went through the pool and none waited in vain.
  const log = await daemonLog(box);
  assert.equal(log.filter((r) => r.level === "error").length, 0);
});

Deno.test("pool: a session whose process was stopped to make room is told (--json and .raw)", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      // cwd scope: each directory is its own unnamed key, so the CLI can be evicted too.
      c: { ...faultyServer(), mcpx: exclusive({ scope: "cwd" }) },
      s: { ...faultyServer(), mcpx: exclusive() },
    },
  });
  await Deno.mkdir(join(box.root, "work", "one"));
  await Deno.mkdir(join(box.root, "work", "two"));

  // The CLI: state set from one directory, the process taken by another, then read again.
  const set = await box.mcpx(["call", "c.set", "key=k", "value=v"], { cwd: "work/one" });
  assert.equal(set.code, 0, set.stderr);
  assert.equal(set.stderr, "", "a first call is no restart");
  const other = await box.mcpx(["call", "c.pid"], { cwd: "work/two" });
  assert.equal(other.code, 0, other.stderr);
  const again = await box.mcpx(["--json", "call", "c.get", "key=k"], { cwd: "work/one" });
  assert.equal(again.code, 0, again.stderr);
  const doc = JSON.parse(again.stdout);
  assert.equal(doc.content[0].text, "(unset)", "the state was lost");
  assert.equal(doc.mcpx.restarted, true);
  assert.match(doc.mcpx.restartReason, /^stopped to make room for cwd ".*two" \(max 1\)$/);
  assert.match(
    again.stderr,
    /^mcpx: warning: c\.get ran on a fresh process for cwd:.*one: the one before was stopped to make room .* is gone\n$/,
  );
  const told = await box.mcpx(["--json", "call", "c.get", "key=k"], { cwd: "work/one" });
  assert.equal(JSON.parse(told.stdout).mcpx.restarted, undefined, "told once");

  // A script: its own session's process is taken between two of its calls.
  const go = join(box.root, "go");
  const stored = join(box.root, "stored");
  const script = box.mcpx([
    "exec",
    `await s.set({ key: "k", value: "v" }); Deno.writeTextFileSync(${JSON.stringify(stored)}, "");
     ${waitFor(go)};
     const r = await s.get({ key: "k" });
     return { value: String(r), mcpx: r.raw.mcpx }`,
  ]);
  assert.ok(await until(() => Deno.stat(stored).then(() => true, () => false), 30_000));
  const taker = await box.mcpx(["call", "s.pid"]);
  assert.equal(taker.code, 0, taker.stderr);
  await Deno.writeTextFile(go, "");
  const ran = await script;
  assert.equal(ran.code, 0, ran.stderr);
  const out = JSON.parse(ran.stdout);
  assert.equal(out.value, "(unset)");
  assert.equal(out.mcpx.restarted, true);
  assert.match(out.mcpx.restartReason, /^stopped to make room for call ".*" \(max 1\)$/);
  assert.match(ran.stderr, /s\.get ran on a fresh process for session:run-/);
});

Deno.test("pool: a named session's process is never taken; the newcomer's wait names it", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    pool: { queueTimeout: "300ms" },
    mcpServers: { s: { ...faultyServer(), mcpx: exclusive() } },
  });
  const mine = { env: { MCPX_SESSION_ID: "mine" } };
  assert.equal((await box.mcpx(["call", "s.set", "key=k", "value=v"], mine)).code, 0);
  const newcomer = await box.mcpx(["call", "s.pid"], { env: { MCPX_SESSION_ID: "other" } });
  assert.equal(newcomer.code, 7, newcomer.stderr);
  assert.match(
    newcomer.stderr,
    /Waited 300ms for a process of "s": all 1 \(max 1\) are held, by session "mine" \(idle, named\)/,
  );
  const kept = await box.mcpx(["call", "s.get", "key=k"], mine);
  assert.equal(kept.stdout, "v\n", "the named session kept its state");
  assert.equal(kept.stderr, "");
  const [row] = await status(box);
  assert.deepEqual(row.instances.map((i) => [i.key, i.pinned]), [["session:mine", true]]);
});

Deno.test("pool: stop with callers queued ends at once, fails them, and leaves no process", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { f: { ...faultyServer(), mcpx: exclusive({ scope: "global" }) } },
  });
  const holder = box.mcpx(["call", "f.sleep", "ms=4000"]);
  assert.ok(await until(() => busy(box, "f", "global"), 30_000));
  const queued = Array.from({ length: 3 }, () => box.mcpx(["call", "f.pid"]));
  assert.ok(
    await until(async () => (await status(box))[0].queue.waiting === 3, 30_000),
    "three callers wait",
  );
  const [row] = await status(box);
  assert.equal(row.queue.waiting, 3);
  const text = await box.mcpx(["status"]);
  assert.match(text.stdout, /QUEUE/);
  assert.match(text.stdout, /\b3 \(oldest \d+(ms|s)\)/);

  const stop = await box.json<{ stopped: { forced: boolean }[] }>(["stop"]);
  assert.deepEqual(stop.stopped.map((s) => s.forced), [false], "no signal was needed");
  for (const r of await Promise.all(queued)) {
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /Cannot lease a process of "f": the daemon is stopping/);
  }
  const held = await holder;
  assert.notEqual(held.code, 0);
  assert.ok(await until(() => box.processes().length === 0), "no server or daemon is left");
  // Nothing started once the stop began.
  const log = await daemonLog(box);
  const stopping = log.findIndex((r) => r.event === "daemon.stopping");
  assert.ok(stopping > 0);
  assert.deepEqual(log.slice(stopping).filter((r) => r.event === "server.start"), []);
});

Deno.test("pool: stop while a server is still starting does not wait for it", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      slow: { ...faultyServer(["--slow-start", "30000"]), mcpx: { startTimeout: "60s" } },
    },
  });
  const call = box.mcpx(["call", "slow.echo", "text=x"]);
  assert.ok(
    await until(async () => (await status(box))[0]?.instances.length === 1, 30_000),
    "its process is starting",
  );
  const stop = await box.json<{ stopped: { forced: boolean }[] }>(["stop"]);
  assert.deepEqual(stop.stopped.map((s) => s.forced), [false], "no signal was needed");
  const r = await call;
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stderr, /the daemon is stopping/);
  assert.ok(await until(() => box.processes().length === 0), "no server or daemon is left");
});

Deno.test("pool: SIGTERM with callers queued fails them at once and the daemon leaves nothing", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { f: { ...faultyServer(), mcpx: exclusive({ scope: "global" }) } },
  });
  const { pid } = await box.json<{ pid: number }>(["start"]);
  const holder = box.mcpx(["call", "f.sleep", "ms=4000"]);
  assert.ok(await until(() => busy(box, "f", "global"), 30_000));
  const queued = Array.from({ length: 2 }, () => box.mcpx(["call", "f.pid"]));
  assert.ok(await until(async () => (await status(box))[0].queue.waiting === 2, 30_000));
  Deno.kill(pid, "SIGTERM");
  for (const r of await Promise.all(queued)) {
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /the daemon is stopping \(signal\)/);
  }
  assert.notEqual((await holder).code, 0);
  assert.ok(await until(() => box.processes().length === 0), "no server or daemon is left");
});

Deno.test("pool: scripts that come and go, taking each other's process, leave the daemon's tables empty", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { f: { ...faultyServer(), mcpx: exclusive({ queueTimeout: "30s" }) } },
  });
  // Every request's answer is followed by a `daemon.memory` record with the pools' tables.
  const env = { MCPX_PLUMBING_MEMORY_LOG: "1" };
  // Two scripts at once over one process (each starts calling once both run): their calls keep
  // stopping the other's process.
  const started = (n: number) => join(box.root, `started-${n}`);
  const scripts = await Promise.all([0, 1].map((n) =>
    box.mcpx([
      "exec",
      `Deno.writeTextFileSync(${JSON.stringify(started(n))}, ""); ${waitFor(started(1 - n))};
       for (let i = 0; i < 4; i++) await f.echo({ text: "${n}" + i }); return "ok"`,
    ], { env })
  ));
  for (const r of scripts) assert.equal(r.code, 0, r.stderr);
  const records = async () =>
    (await daemonLog(box)).filter((r) => r.event === "daemon.memory") as unknown as {
      requests: number;
      tables: Record<string, number>;
    }[];
  const during = await records();
  assert.ok(during.some((r) => r.tables.lost > 0), "a script's process was stopped for the other");
  // Both sessions ended: nothing of them is left, neither a process nor a note to tell them.
  const last = Math.max(...during.map((r) => r.requests));
  await box.mcpx(["status"], { env });
  assert.ok(await until(async () => (await records()).some((r) => r.requests > last)));
  const after = (await records()).filter((r) => r.requests > last).at(-1)!;
  assert.deepEqual(after.tables, { pools: 1, degradedSaid: 0, instances: 0, queue: 0, lost: 0 });
  await box.mcpx(["stop"]);
});
