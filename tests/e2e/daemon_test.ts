import assert from "node:assert/strict";
import { join } from "node:path";
import { alive, ONE_SERVER, Sandbox, until } from "../_helpers.ts";
import { echoArgsServer } from "../fixtures/servers.ts";

interface Health {
  pid: number;
  socket: string;
  fingerprint: string;
  config: string;
  autostarted: boolean;
}

Deno.test("daemon: two configurations get two daemons, listed by `mcpx daemons`", async () => {
  await using box = await Sandbox.create();
  await box.write("a/.mcpx.json", ONE_SERVER);
  await box.write("b/.mcpx.json", { mcpServers: { other: { command: "true" } } });
  const a = await box.json<Health>(["health"], { cwd: "a" });
  const b = await box.json<Health>(["health"], { cwd: "b" });
  assert.notEqual(a.pid, b.pid);
  assert.notEqual(a.socket, b.socket);
  assert.equal(a.config, join(box.root, "a/.mcpx.json"));
  const again = await box.json<Health>(["health"], { cwd: "a" });
  assert.equal(again.pid, a.pid, "a second command reuses the first daemon");
  const listed = await box.json<{ daemons: { pid: number; state: string }[] }>(["daemons"]);
  assert.deepEqual(listed.daemons.map((d) => d.pid).sort(), [a.pid, b.pid].sort());
  assert.ok(listed.daemons.every((d) => d.state === "running"));
});

Deno.test("daemon: an edited configuration is taken up by the daemon already running", async () => {
  await using box = await Sandbox.create();
  const path = await box.write("work/.mcpx.json", ONE_SERVER);
  const first = await box.json<Health>(["health"]);
  await Deno.writeTextFile(path, JSON.stringify({ mcpServers: { echo: { command: "false" } } }));
  const second = await box.json<Health>(["health"]);
  assert.equal(second.pid, first.pid, "the same daemon");
  assert.notEqual(second.fingerprint, first.fingerprint, "now serving the edited file");
  assert.deepEqual(box.processes(), [first.pid], "and no second daemon");
  // An edit that cannot be loaded is said so, and the daemon keeps serving the one before.
  await Deno.writeTextFile(path, `{ "mcpServers": { "echo": 3 } }`);
  const bad = await box.mcpx(["health"]);
  assert.equal(bad.code, 3, bad.stderr);
  assert.match(bad.stderr, /Server "echo"/);
  assert.ok(alive(first.pid));
});

Deno.test("daemon: ten concurrent first commands start exactly one daemon", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", ONE_SERVER);
  const runs = await Promise.all(Array.from({ length: 10 }, () => box.json<Health>(["health"])));
  const pids = new Set(runs.map((r) => r.pid));
  assert.equal(pids.size, 1, `one daemon answered all ten, got ${[...pids].join(", ")}`);
  const daemons = box.processes();
  assert.deepEqual(daemons, [...pids], "exactly one process of the sandbox is left: the daemon");
});

Deno.test("daemon: `mcpx stop --all` leaves no mcpx process behind", async () => {
  await using box = await Sandbox.create();
  await box.write("a/.mcpx.json", ONE_SERVER);
  await box.write("b/.mcpx.json", { mcpServers: {} });
  await box.json(["health"], { cwd: "a" });
  await box.json(["start"], { cwd: "b" });
  assert.equal(box.processes().length, 2);
  const out = await box.json<{ stopped: { forced: boolean }[] }>(["stop", "--all"]);
  assert.equal(out.stopped.length, 2);
  assert.ok(out.stopped.every((s) => !s.forced), "both stopped politely");
  assert.deepEqual(box.processes(), []);
  assert.deepEqual((await box.json<{ daemons: unknown[] }>(["daemons"])).daemons, []);
  const status = await box.json<{ running: boolean }>(["status"], { cwd: "a" });
  assert.equal(status.running, false, "status does not start a daemon");
  assert.deepEqual(box.processes(), []);
});

Deno.test("daemon: a stale socket from a killed daemon is recovered from", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", ONE_SERVER);
  const first = await box.json<Health>(["health"]);
  Deno.kill(first.pid, "SIGKILL");
  assert.ok(await until(() => !alive(first.pid)));
  assert.ok(Deno.lstatSync(first.socket).isSocket, "the killed daemon left its socket");
  const stale = await box.json<{ daemons: { state: string }[] }>(["daemons"]);
  assert.deepEqual(stale.daemons.map((d) => d.state), ["stale"]);
  const second = await box.json<Health>(["health"]);
  assert.notEqual(second.pid, first.pid);
  assert.equal(second.socket, first.socket);
});

Deno.test("daemon: the socket is 0600, and a long path falls back to a short hashed one", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", ONE_SERVER);
  const normal = await box.json<Health>(["health"]);
  assert.equal(Deno.statSync(normal.socket).mode! & 0o777, 0o600);
  assert.ok(normal.socket.startsWith(join(box.root, "state", "mcpx", "daemons")));
  await box.json(["stop"]);
  const env = { MCPX_PLUMBING_SUN_PATH_MAX: "30" };
  const short = await box.json<Health>(["health"], { env });
  assert.ok(short.socket.startsWith(join(box.root, "tmp", "mcpx-")), short.socket);
  const status = await box.json<{ running: boolean; pid: number }>(["status"], { env });
  assert.equal(status.running, true);
  assert.equal(status.pid, short.pid);
});

Deno.test("daemon: an auto-started daemon exits when idle; one started by hand stays", async () => {
  await using box = await Sandbox.create();
  await box.write("a/.mcpx.json", ONE_SERVER);
  await box.write("b/.mcpx.json", { mcpServers: {} });
  const env = { MCPX_DAEMON_IDLE_EXIT: "400ms" };
  const auto = await box.json<Health>(["health"], { cwd: "a", env });
  const byHand = await box.json<Health>(["start"], { cwd: "b", env });
  assert.equal(auto.autostarted, true);
  assert.equal(byHand.autostarted, false);
  assert.ok(await until(() => !alive(auto.pid), 5000), "the auto-started daemon idled out");
  assert.ok(alive(byHand.pid), "the deliberately started daemon is still up");
  const status = await box.json<{ running: boolean }>(["status"], { cwd: "a", env });
  assert.equal(status.running, false);
});

Deno.test("daemon: `mcpx daemon` runs in the foreground and stops on SIGTERM", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", ONE_SERVER);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      new URL("../../main.ts", import.meta.url).pathname,
      "daemon",
    ],
    cwd: join(box.root, "work"),
    env: box.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let health: Health | undefined;
  await until(async () => {
    const r = await box.mcpx(["--json", "status"]);
    const s = JSON.parse(r.stdout);
    if (s.running) health = s;
    return Boolean(s.running);
  });
  assert.equal(health?.pid, child.pid);
  assert.equal(health?.autostarted, false);
  child.kill("SIGTERM");
  const status = await child.status;
  await child.stderr.cancel();
  assert.equal(status.code, 0);
  assert.equal((await box.json<{ running: boolean }>(["status"])).running, false);
});

Deno.test("daemon: status says of a server it never started what ls says: the last listing's error", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      broken: { command: "sh", args: ["-c", "echo boom >&2; exit 3"] },
      pets: echoArgsServer(),
    },
  });
  // The listing fails and is kept; a daemon started afterwards has never tried the server.
  await box.mcpx(["refresh"]);
  assert.equal((await box.mcpx(["stop"])).code, 0);
  const ls = await box.json<{ namespaces: { namespace: string; state: string }[] }>(["ls"]);
  const lsStates = Object.fromEntries(ls.namespaces.map((n) => [n.namespace, n.state]));
  assert.deepEqual(lsStates, { broken: "error", pets: "ready" });
  assert.equal((await box.mcpx(["start"])).code, 0);
  const status = await box.json<
    { servers: { namespace: string; state: string; error?: string }[] }
  >(
    ["status"],
  );
  assert.deepEqual(
    Object.fromEntries(status.servers.map((s) => [s.namespace, s.state])),
    lsStates,
  );
  assert.match(status.servers.find((s) => s.namespace === "broken")!.error!, /stderr: boom/);
  const text = await box.mcpx(["status"]);
  assert.match(text.stdout, /^broken .* error$/m);
  assert.equal((await box.mcpx(["stop"])).code, 0);
});
