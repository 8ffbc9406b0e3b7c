/**
 * A daemon that survives its own upgrade (docs/daemon.md, "Upgrading without a restart"): real
 * daemons on a real socket, the stateful fixture server and a real MCP server, real CLI processes
 * and scripts. Ten upgrades in a row under a load of concurrent calls on four sessions lose no
 * call and every session's counter goes on where it was; a command of another version upgrades
 * the daemon itself unless told not to; a new daemon that cannot start, and `kill -9` of either
 * daemon mid-handoff, leave one owner of every server, no duplicate and no orphan.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { alive, daemonLog, npmServer, Sandbox, until } from "../_helpers.ts";
import { messageOf } from "../../lib/errors.ts";

interface Health {
  pid: number;
  version: string;
  socket: string;
}

interface Upgraded {
  upgraded: boolean;
  from: { pid: number; version: string };
  to: { pid: number; version: string };
  handedOver: { server: string; key: string; pid: number }[];
  stopped: { server: string; key: string; why: string }[];
  durationMs: number;
}

async function upgradeBox(): Promise<Sandbox> {
  const box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      c: { ...faultyServer(["--bump"]), mcpx: { scope: "session" } },
      everything: npmServer("server-everything"),
    },
  });
  return box;
}

async function bump(box: Sandbox, session: string): Promise<number> {
  const r = await box.mcpx(["call", "c.bump", "--session", session]);
  assert.equal(r.code, 0, `c.bump in ${session}: ${r.stderr}`);
  return Number(r.stdout.trim());
}

async function pidOf(box: Sandbox, session: string): Promise<number> {
  const r = await box.mcpx(["call", "c.pid", "--session", session]);
  assert.equal(r.code, 0, r.stderr);
  return Number(r.stdout.trim());
}

/** Every process of the sandbox that is a server (not a daemon, not a command). */
function serverPids(box: Sandbox): number[] {
  return box.processes().filter((pid) => {
    try {
      const cmd = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
      return cmd.includes("faulty.ts") || cmd.includes("server-everything");
    } catch {
      return false;
    }
  });
}

Deno.test("upgrade: ten upgrades in a row under load on four sessions lose no call", async () => {
  await using box = await upgradeBox();
  const sessions = ["s1", "s2", "s3", "s4"];
  const first = await box.json<Health>(["start"]);
  const pids = new Map<string, number>();
  for (const s of sessions) {
    assert.equal(await bump(box, s), 1);
    pids.set(s, await pidOf(box, s));
  }
  const everything = await box.mcpx(["call", "everything.echo", "message=before"]);
  assert.equal(everything.code, 0, everything.stderr);
  let before: number[] = [];
  // Two sessions call from separate commands, two from a script each that calls as fast as it
  // can; one long call is in flight across each upgrade too.
  let stop = false;
  const seen = new Map<string, number[]>(sessions.map((s) => [s, [1]]));
  const failures: string[] = [];
  const cliLoop = async (s: string) => {
    while (!stop) {
      const r = await box.mcpx(["call", "c.bump", "--session", s]);
      if (r.code !== 0) failures.push(`${s}: ${r.stderr.trim()}`);
      else seen.get(s)!.push(Number(r.stdout.trim()));
    }
  };
  const scriptLoop = async (s: string) => {
    await box.write(`work/stop-${s}`, "");
    while (!stop) {
      const r = await box.mcpx([
        "exec",
        "--session",
        s,
        `const out = []; for (let i = 0; i < 400; i++) { out.push(await c.bump({})); try { Deno.statSync("stop-${s}"); } catch { break; } } return out.join(",");`,
      ]);
      if (r.code !== 0) failures.push(`${s}: ${r.stderr.trim()}`);
      else seen.get(s)!.push(...r.stdout.trim().split(",").map(Number));
    }
  };
  let longCalls = 0;
  const longLoop = async () => {
    while (!stop) {
      const r = await box.mcpx(["call", "c.sleep", "ms=400", "--session", "long"]);
      if (r.code !== 0) failures.push(`long: ${r.stderr.trim()}`);
      else if (r.stdout.trim() === "slept") longCalls++;
      else failures.push(`long: ${r.stdout.trim()}`);
    }
  };
  const loops = [cliLoop("s1"), cliLoop("s2"), scriptLoop("s3"), scriptLoop("s4"), longLoop()];
  const upgrades: Upgraded[] = [];
  try {
    let daemon = first.pid;
    for (let round = 0; round < 10; round++) {
      // Some calls of every session between two upgrades.
      const counts = sessions.map((s) => seen.get(s)!.length);
      const long = longCalls;
      assert.ok(
        await until(
          () => longCalls > long && sessions.every((s, i) => seen.get(s)!.length >= counts[i] + 2),
          30_000,
        ),
        `round ${round}: the load made no progress (${failures.join("; ")})`,
      );
      // Every server the load uses runs by now: the long session's too.
      if (round === 0) before = serverPids(box).sort();
      let out: Upgraded;
      try {
        out = await box.json<Upgraded>(["daemon", "upgrade"]);
      } catch (e) {
        // What the daemons logged of it, to tell which step failed.
        const steps = (await daemonLog(box)).filter((l) =>
          /adopt|ready|upgrade|stopp|fail/.test(String(l.event))
        ).map((l) => `${l.pid} ${l.event} ${l.msg}`);
        throw new Error(`round ${round}: ${messageOf(e)}\n${steps.join("\n")}`);
      }
      assert.equal(out.upgraded, true);
      assert.equal(out.from.pid, daemon);
      assert.notEqual(out.to.pid, daemon);
      assert.ok(!alive(daemon) || (await until(() => !alive(daemon), 10_000)), "old daemon left");
      daemon = out.to.pid;
      upgrades.push(out);
    }
  } finally {
    stop = true;
    for (const s of ["s3", "s4"]) {
      await Deno.remove(join(box.root, `work/stop-${s}`)).catch(() => {});
    }
    await Promise.all(loops);
  }
  assert.deepEqual(failures, [], "calls failed during the upgrades");
  // Every session's counter went on where it was: 1, 2, 3, … with no gap and no restart.
  for (const s of sessions) {
    const values = seen.get(s)!;
    assert.deepEqual(values, values.map((_, i) => i + 1), `${s} counted ${values.join(",")}`);
    assert.ok(values.length > 20, `${s}: only ${values.length} calls`);
    assert.equal(await pidOf(box, s), pids.get(s), `${s} is served by another process`);
  }
  // The same server processes, none more, none less; each upgrade handed every idle one over.
  assert.deepEqual(serverPids(box).sort(), before);
  for (const u of upgrades) {
    assert.ok(u.handedOver.some((h) => h.server === "everything"), JSON.stringify(u));
    assert.ok(u.handedOver.filter((h) => h.server === "c").length >= 4, JSON.stringify(u));
  }
  const echoed = await box.mcpx(["call", "everything.echo", "message=after"]);
  assert.equal(echoed.code, 0, echoed.stderr);
  assert.match(echoed.stdout, /after/);
  const status = await box.json<{ pid: number }>(["status"]);
  assert.equal(status.pid, upgrades.at(-1)!.to.pid);
  // One daemon left: the last.
  const daemons = box.processes().filter((pid) =>
    Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes("\0daemon")
  );
  assert.deepEqual(daemons, [upgrades.at(-1)!.to.pid]);
});

Deno.test("upgrade: a command of another version upgrades the daemon itself, unless told not to", async () => {
  await using box = await upgradeBox();
  // A daemon "of version 0.0.9": the stand-in the tests give these very sources.
  const old = await box.json<Health>(["start"], { env: { MCPX_TEST_VERSION: "0.0.9" } });
  assert.equal(old.version, "0.0.9");
  // daemon.autoUpgrade off: the daemon of the other version serves on.
  const optOut = { MCPX_DAEMON_AUTO_UPGRADE: "false" };
  for (const n of ["1", "2"]) {
    const kept = await box.mcpx(["call", "c.bump", "--session", "a"], { env: optOut });
    assert.equal(kept.stdout.trim(), n, kept.stderr);
    assert.doesNotMatch(kept.stderr, /upgraded/);
  }
  const still = await box.json<Health>(["health"], { env: optOut });
  assert.equal(still.pid, old.pid);
  // By default: the next command upgrades it, says so once, and the session goes on.
  const r = await box.mcpx(["call", "c.bump", "--session", "a"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "3");
  assert.match(r.stderr, /upgraded it in place to 0\.1\.0/);
  const now = await box.json<Health>(["health"]);
  assert.notEqual(now.pid, old.pid);
  assert.equal(now.version, "0.1.0");
  assert.equal(await bump(box, "a"), 4);
  const quiet = await box.mcpx(["call", "c.bump", "--session", "a"]);
  assert.equal(quiet.stderr, "", "a daemon of the command's version is not upgraded");
});

Deno.test("upgrade: a new daemon that cannot start leaves the old one serving, nothing lost", async () => {
  await using box = await upgradeBox();
  const first = await box.json<Health>(["start"]);
  assert.equal(await bump(box, "a"), 1);
  for (
    const [command, why] of [
      [["/nonexistent/mcpx", "daemon"], /did not take over|exited|not found|No such file/],
      [[Deno.execPath(), "eval", "Deno.exit(3)"], /exited before it answered/],
    ] as const
  ) {
    const r = await box.mcpx(["daemon", "upgrade", ...command.flatMap((w) => ["--command", w])]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, why);
    assert.match(r.stderr, /keeps serving/);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr); // one line, its fix in it
    const h = await box.json<Health>(["health"]);
    assert.equal(h.pid, first.pid);
  }
  assert.equal(await bump(box, "a"), 2, "the session's process and its state are still there");
  const bad = await box.mcpx(["daemon", "upgrade", "--command", ""]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /words of a command line/);
});

async function stalled(box: Sandbox): Promise<{ pid: number; phase: string }> {
  const file = join(box.root, "state", "mcpx", "daemons", "upgrade-stall");
  assert.ok(
    await until(() => {
      try {
        return Deno.statSync(file).isFile;
      } catch {
        return false;
      }
    }, 30_000),
    "the handoff never reached the stall",
  );
  const [pid, phase] = Deno.readTextFileSync(file).trim().split(" ");
  Deno.removeSync(file);
  return { pid: Number(pid), phase };
}

Deno.test("upgrade: kill -9 of the new daemon mid-handoff: the old one takes every server back", async () => {
  await using box = await upgradeBox();
  const env = { MCPX_TEST_UPGRADE_STALL: "adopting" };
  const first = await box.json<Health>(["start"], { env });
  assert.equal(await bump(box, "a"), 1);
  const server = await pidOf(box, "a");
  const upgrading = box.mcpx(["daemon", "upgrade"]);
  const at = await stalled(box);
  assert.notEqual(at.pid, first.pid);
  Deno.kill(at.pid, "SIGKILL");
  const r = await upgrading;
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /died during the handoff/);
  assert.match(r.stderr, /1 server process\(es\) it had handed over taken back/);
  const h = await box.json<Health>(["health"]);
  assert.equal(h.pid, first.pid);
  // The same process, its state, no duplicate.
  assert.equal(await bump(box, "a"), 2);
  assert.equal(await pidOf(box, "a"), server);
  assert.equal(serverPids(box).filter((p) => p === server).length, 1);
});

Deno.test("upgrade: kill -9 of the old daemon mid-handoff: the new one serves, nothing orphaned", async () => {
  await using box = await upgradeBox();
  const env = { MCPX_TEST_UPGRADE_STALL: "detached" };
  const first = await box.json<Health>(["start"], { env });
  assert.equal(await bump(box, "a"), 1);
  const server = await pidOf(box, "a");
  const upgrading = box.mcpx(["daemon", "upgrade"]);
  const at = await stalled(box);
  assert.equal(at.pid, first.pid);
  Deno.kill(first.pid, "SIGKILL");
  const r = await upgrading;
  assert.notEqual(r.code, 0);
  // The successor found its predecessor gone: it stopped the server it had left (no orphan) and
  // serves; the session starts afresh, and is told so.
  assert.ok(await until(() => !alive(server), 10_000), "the old daemon's server was left running");
  const next = await box.mcpx(["call", "c.bump", "--session", "a"]);
  assert.equal(next.code, 0, next.stderr);
  assert.equal(next.stdout.trim(), "1");
  const h = await box.json<Health>(["health"]);
  assert.notEqual(h.pid, first.pid);
  const log = await daemonLog(box);
  assert.ok(log.some((l) => l.event === "daemon.upgrade_alone"), "the successor did not say so");
  assert.equal(serverPids(box).length, 1);
});

Deno.test("upgrade: with no daemon there is nothing to upgrade; a foreground daemon is refused", async () => {
  await using box = await upgradeBox();
  const none = await box.mcpx(["daemon", "upgrade"]);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /nothing to upgrade/);
  const fg = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      `${box.entry.replace(/main\.ts$/, "deno.json")}`,
      box.entry,
      "daemon",
    ],
    cwd: join(box.root, "work"),
    env: box.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    assert.ok(await until(async () => (await box.mcpx(["health"])).code === 0, 20_000));
    const r = await box.mcpx(["daemon", "upgrade"]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /foreground or under a supervisor/);
  } finally {
    fg.kill("SIGTERM");
    await fg.status;
  }
});
