// The ladder's last rung (docs/daemon.md, "The ladder"): `--inline` / daemon.inline hosts the
// daemon inside the command, on files of its own, and nothing of it outlives the command; an
// existing daemon is still used first, and `status`/`health` say which rung answered.

import assert from "node:assert/strict";
import { join } from "node:path";
import { Sandbox } from "../_helpers.ts";
import { faultyServer } from "../fixtures/servers.ts";

const REPO = new URL("../..", import.meta.url).pathname;

function inlineFiles(box: Sandbox): string[] {
  try {
    return [...Deno.readDirSync(join(box.root, "state", "mcpx", "daemons"))]
      .map((e) => e.name).filter((n) => n.includes(".inline-"));
  } catch {
    return [];
  }
}

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

Deno.test("--inline serves a call and a stateful script from the command itself, leaving nothing", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { f: faultyServer() } });

  const health = await box.json<{ pid: number; rung: string }>(["--inline", "health"]);
  assert.equal(health.rung, "inline");
  assert.deepEqual(box.processes(), [], "the command's servers stopped with it");
  assert.deepEqual(inlineFiles(box), [], "and its files are gone");

  const call = await box.mcpx(["--inline", "call", "f.echo", "text=hi"]);
  assert.equal(call.code, 0, call.stderr);
  assert.equal(call.stdout.trim(), "hi");
  assert.equal(call.stderr, "", "an inline daemon writes nothing on the command's stderr");

  // One session across a script's calls: the same process holds what the first call set.
  const run = await box.mcpx([
    "exec",
    `await f.set({ key: "k", value: "v" }); console.log(String(await f.get({ key: "k" })));`,
  ], { env: { MCPX_DAEMON_INLINE: "1" } });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "v");

  const status = await box.mcpx(["status"]);
  assert.match(status.stdout, /no daemon running/, "no shared daemon was started");
  assert.deepEqual(box.processes(), []);
  assert.deepEqual(inlineFiles(box), []);
});

Deno.test("the ladder: a running daemon answers before the inline rung, and status names the rung", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { f: faultyServer() } });
  const spawned = await box.json<{ pid: number; rung: string }>(["health"]);
  assert.equal(spawned.rung, "spawn");
  const status = await box.json<{ pid: number; rung: string }>(["status"]);
  assert.equal(status.rung, "socket");
  assert.equal(status.pid, spawned.pid);
  const inline = await box.json<{ pid: number; rung: string }>(["--inline", "health"]);
  assert.equal(inline.rung, "socket", "the existing daemon is used, inline or not");
  assert.equal(inline.pid, spawned.pid);
  assert.match((await box.mcpx(["status"])).stdout, /via its socket/);

  // A named daemon stops the ladder: never an inline one in its place.
  const remote = await box.mcpx(["--inline", "call", "f.pid"], {
    env: { MCPX_DAEMON_ENDPOINT: "http://127.0.0.1:9" },
  });
  assert.notEqual(remote.code, 0);
  assert.match(remote.stderr, /127\.0\.0\.1:9/);
  assert.equal(inlineFiles(box).length, 0);
});

Deno.test("an inline command stopped by SIGINT stops its servers; one killed outright is swept by the next", async () => {
  await using box = await Sandbox.create();
  // A server that outlives a closed stdin: most exit when their client goes, this one does not.
  await box.write("work/.mcpx.json", { mcpServers: { f: faultyServer(["--ignore-eof"]) } });
  const start = (args: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--config", `${REPO}deno.json`, box.entry, "--inline", ...args],
      cwd: join(box.root, "work"),
      env: box.env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();

  // SIGINT (Ctrl-C) mid-call: the call fails, the servers go with the command.
  const interrupted = start(["call", "f.hang"]);
  await until("the server to start", () => box.processes().some((p) => p !== interrupted.pid));
  interrupted.kill("SIGINT");
  const out = await interrupted.output();
  assert.notEqual(out.code, 0);
  await until("nothing left after SIGINT", () => box.processes().length === 0);
  assert.deepEqual(inlineFiles(box), []);

  // SIGKILL: nothing of the command runs; its server is left, and the next inline command of
  // the same file stops it before it starts its own.
  const killed = start(["call", "f.hang"]);
  await until("the server to start", () => box.processes().some((p) => p !== killed.pid));
  // Its children file names the server once it has started (the window before is the same as a
  // daemon's: docs/daemon.md, "Crash recovery").
  await until("the children file to name the server", () => {
    const file = inlineFiles(box).find((n) => n.endsWith(".children.json"));
    if (!file) return false;
    try {
      const text = Deno.readTextFileSync(join(box.root, "state", "mcpx", "daemons", file));
      return (JSON.parse(text).children ?? []).length > 0;
    } catch {
      return false; // being written
    }
  });
  killed.kill("SIGKILL");
  await killed.output();
  await until("the command to be gone", () => !box.processes().includes(killed.pid));
  assert.ok(box.processes().length >= 1, "its server was left behind");
  assert.ok(inlineFiles(box).length > 0, "the killed command's files are still there");
  const next = await box.mcpx(["--inline", "call", "f.echo", "text=after"]);
  assert.equal(next.code, 0, next.stderr);
  assert.equal(next.stdout.trim(), "after");
  await until("the orphan to be stopped", () => box.processes().length === 0);
  assert.deepEqual(inlineFiles(box), [], `files left: ${inlineFiles(box)}`);
});

Deno.test("--inline refuses to create a named session: its record would end with the command", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { f: faultyServer() } });
  const made = await box.mcpx(["--inline", "session", "new", "--name", "kept"]);
  assert.equal(made.code, 2, made.stdout + made.stderr);
  assert.match(made.stderr, /^mcpx: A named session needs a daemon that outlives this command/);
  assert.equal(made.stderr.trim().split("\n").length, 1);
  assert.deepEqual(box.processes(), []);
  assert.deepEqual(inlineFiles(box), []);
});

Deno.test("`mcpx start` under daemon.inline starts a daemon that outlives it, which inline commands then use", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { f: faultyServer() } });
  const env = { MCPX_DAEMON_INLINE: "1" };
  const started = await box.mcpx(["start"], { env });
  assert.equal(started.code, 0, started.stderr);
  assert.doesNotMatch(started.stdout, /\.inline-/, started.stdout);
  const status = await box.json<{ pid: number; rung: string }>(["status"], { env });
  assert.equal(status.rung, "socket", "the started daemon is still there");
  assert.deepEqual(inlineFiles(box), []);
  await box.mcpx(["stop", "--all"]);
});
