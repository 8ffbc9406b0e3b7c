/**
 * What outlives what: a daemon killed with SIGKILL, a `mcpx run` killed with SIGKILL, a call a
 * script never awaited, and an edited configuration (docs/daemon.md, "Crash recovery" and
 * "Configuration edits").
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { alive, daemonLog, Sandbox, until } from "../_helpers.ts";

interface Health {
  pid: number;
  fingerprint: string;
  recovered?: string;
}

async function callText(box: Sandbox, args: string[], env?: Record<string, string>) {
  const r = await box.mcpx(["call", ...args], { env });
  assert.equal(r.code, 0, `mcpx call ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

Deno.test("lifecycle: the next daemon stops the servers a SIGKILLed daemon left, and says so", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      stubborn: faultyServer(["--ignore-eof", "--spawn-child"], { allowRun: true }),
    },
  });
  const server = Number(await callText(box, ["stubborn.pid"]));
  const child = Number(await callText(box, ["stubborn.child"]));
  const daemon = (await box.json<Health>(["health"])).pid;
  assert.ok(alive(server) && alive(child));
  const children = JSON.parse(
    await Deno.readTextFile(
      join(box.root, "state", "mcpx", "daemons", (await childrenFile(box))!),
    ),
  );
  assert.deepEqual(children.children.map((c: { pid: number }) => c.pid), [server]);
  assert.equal(children.children[0].pgid, server, "the server leads its own process group");

  Deno.kill(daemon, "SIGKILL");
  assert.ok(await until(() => !alive(daemon)));
  // The server ignores its closed stdin: without a successor it would run for ever.
  assert.ok(alive(server) && alive(child), "the orphans outlive the daemon");

  const next = await box.mcpx(["call", "stubborn.pid"]);
  assert.equal(next.code, 0, next.stderr);
  assert.notEqual(Number(next.stdout.trim()), server, "a new server serves the call");
  assert.match(
    next.stderr,
    new RegExp(`mcpx: Stopped 1 server process\\(es\\) left by daemon ${daemon}, which died`),
  );
  assert.ok(await until(() => !alive(server) && !alive(child)), "the old server and its child");
  const log = await daemonLog(box);
  const said = log.find((r) => r.event === "daemon.orphans_stopped");
  assert.ok(said, "a log record says what was stopped");
  assert.equal(said.predecessor, daemon);
});

/** The name of the sandbox's one children file. */
async function childrenFile(box: Sandbox): Promise<string | undefined> {
  for await (const e of Deno.readDir(join(box.root, "state", "mcpx", "daemons"))) {
    if (e.name.endsWith(".children.json")) return e.name;
  }
  return undefined;
}

/** A sandbox whose `sess` server keeps one process per session, as scripts use it. */
async function sessionBox(flags: string[] = []): Promise<Sandbox> {
  const box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      sess: { ...faultyServer(flags), mcpx: { sharing: "exclusive", scope: "session" } },
    },
  });
  return box;
}

for (const runtime of ["worker", "deno"]) {
  Deno.test(`lifecycle: a call a script never awaited leaves no server process behind (${runtime})`, async () => {
    await using box = await sessionBox();
    const daemon = (await box.json<Health>(["health"])).pid;
    const flags = runtime === "worker" ? [] : ["--runtime", runtime];
    for (let i = 0; i < 10; i++) {
      // The script ends while its call is on its way: before it is sent, in flight, or served.
      const wait = [0, 1, 3, 10, 30][i % 5];
      const r = await box.mcpx([
        "exec",
        ...flags,
        `sess.pid(); await new Promise((r) => setTimeout(r, ${wait}))`,
      ]);
      assert.equal(r.code, 0, r.stderr);
      const left = box.processes();
      assert.deepEqual(left, [daemon], `run ${i + 1}: only the daemon is left`);
    }
  });
}

for (const runtime of ["worker", "deno"]) {
  Deno.test(`lifecycle: a run that ends while its call's server is starting fails nothing after it (${runtime})`, async () => {
    await using box = await Sandbox.create();
    // While the file `hang` exists, a process of `sess` asked tools/list removes it and never
    // answers: it is still starting when the run that asked for it ends.
    const hang = join(box.root, "hang");
    await box.write("work/.mcpx.json", {
      mcpServers: {
        sess: {
          ...faultyServer(["--hang-list-if", hang], { allowWrite: hang }),
          mcpx: { sharing: "exclusive", scope: "session" },
        },
      },
    });
    const daemon = (await box.json<Health>(["health"])).pid;
    const refreshed = await box.mcpx(["refresh"]);
    assert.equal(refreshed.code, 0, refreshed.stderr);
    await Deno.writeTextFile(hang, "");
    const flags = runtime === "worker" ? [] : ["--runtime", runtime];
    const cutOff = await box.mcpx([
      "exec",
      ...flags,
      `sess.pid();
      for (;;) {
        try {
          Deno.statSync(${JSON.stringify(hang)});
          await new Promise((r) => setTimeout(r, 10));
        } catch {
          break;
        }
      }`,
    ]);
    assert.equal(cutOff.code, 0, cutOff.stderr);
    assert.equal(cutOff.stderr, "");
    assert.deepEqual(box.processes(), [daemon], "the server stopped mid-start is gone");
    // Stopping it was mcpx's doing, not the server's failure: nothing records one, and the next
    // run's call (the one after it, not awaited either) is not refused by a start failure's cooldown.
    const log = await daemonLog(box);
    assert.deepEqual(log.filter((r) => r.event === "server.start_failed"), []);
    assert.ok(
      log.some((r) => r.event === "server.stop" && String(r.key).startsWith("session:")),
      "the run's end stopped its process",
    );
    const ls = await box.json<{ namespaces: { namespace: string; error?: string }[] }>(["ls"]);
    assert.equal(ls.namespaces.find((s) => s.namespace === "sess")?.error, undefined);
    const next = await box.mcpx([
      "exec",
      ...flags,
      "console.log(String(await sess.pid()))",
    ]);
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stdout, /^\d+\n$/);
    // A call never awaited that fails on its own while the script runs still fails the run (the
    // promise finally() makes is as unhandled as the call's; the script goes on until it failed).
    const failing = await box.mcpx([
      "exec",
      ...flags,
      `let failed = false;
      sess.fail().finally(() => (failed = true));
      while (!failed) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 50));`,
    ]);
    assert.equal(failing.code, 1, failing.stderr);
    assert.match(failing.stderr, /ToolError: sess\.fail failed: it failed on purpose/);
    assert.deepEqual(box.processes(), [daemon]);
  });
}

/**
 * Starts `mcpx run <script>` in the sandbox and reads its stdout until a line `ready …`: the
 * words after `ready` are returned with the process.
 */
async function startRun(
  box: Sandbox,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: Deno.ChildProcess; words: string[]; rest: Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${REPO}/deno.json`, box.entry, "run", ...args],
    cwd: join(box.root, "work"),
    env: { ...box.env, ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  for (;;) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`the run ended before it was ready; it printed: ${seen}`);
    seen += value;
    const m = seen.match(/^ready ([^\n]*)\n/m);
    if (m) {
      const rest = (async () => {
        while (!(await lines.read()).done) { /* drain */ }
      })();
      return { child, words: m[1].split(" "), rest };
    }
  }
}

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** A script that starts a child, calls the session's server, then hangs in a call. */
const HANGING_SCRIPT = `
const child = new Deno.Command("sleep", { args: ["600"], stdin: "null" }).spawn();
const server = await sess.pid();
console.log(\`ready \${Deno.pid} \${child.pid} \${server}\`);
await sess.hang();
`;

interface Status {
  servers: { namespace: string; instances: { key: string; pid: number; leases: number }[] }[];
}

for (const runtime of ["deno", "worker"]) {
  Deno.test(`lifecycle: SIGKILL of \`mcpx run\` (${runtime}) ends its session and what the script started`, async () => {
    await using box = await sessionBox();
    await box.write("work/hang.ts", HANGING_SCRIPT);
    const daemon = (await box.json<Health>(["health"])).pid;
    const run = await startRun(box, ["--runtime", runtime, "hang.ts"]);
    const [runtimePid, child, server] = run.words.map(Number);
    assert.ok(alive(child) && alive(server));
    if (runtime === "deno") assert.notEqual(runtimePid, run.child.pid, "a runtime of its own");

    run.child.kill("SIGKILL");
    await run.child.status;
    // The daemon notices the run is gone: the session's server is stopped (which fails the call
    // in flight), and under a runtime of its own, its whole process group with it.
    assert.ok(await until(() => !alive(server)), "the session's server was stopped");
    // Under a runtime of its own, the script's process group goes; under a Worker, what the run
    // had started (its children share the caller's group), as the daemon last read it.
    assert.ok(await until(() => !alive(runtimePid) && !alive(child)), "the script's children");
    await run.rest; // the pipe closes once nothing of the script holds it
    const status = await box.json<Status>(["status"]);
    assert.deepEqual(status.servers.flatMap((s) => s.instances), [], "no process, no lease left");
    const log = await daemonLog(box);
    assert.ok(log.some((r) => r.event === "session.owner_exited"), "the log says why");
    assert.ok(
      await until(() => box.processes().join() === String(daemon)),
      `left: ${
        box.processes().map((p) => {
          try {
            return Deno.readTextFileSync(`/proc/${p}/cmdline`).replaceAll("\0", " ");
          } catch {
            return p;
          }
        }).join(" | ")
      }`,
    );
  });
}

for (const runtime of ["deno", "worker"]) {
  Deno.test(`lifecycle: SIGHUP of \`mcpx run\` (${runtime}) ends it with 129 and stops what the script started`, async () => {
    await using box = await sessionBox();
    await box.write("work/hang.ts", HANGING_SCRIPT);
    const run = await startRun(box, ["--runtime", runtime, "hang.ts"]);
    const [runtimePid, child, server] = run.words.map(Number);
    assert.ok(alive(child) && alive(server));
    // A closed terminal or SSH session.
    run.child.kill("SIGHUP");
    const status = await run.child.status;
    assert.equal(status.code, 129);
    assert.ok(
      await until(() => !alive(child) && !alive(runtimePid)),
      "the script's child was left",
    );
    await run.rest; // the pipe closes once nothing of the script holds it
  });
}

for (const runtime of ["deno", "worker"]) {
  Deno.test(`lifecycle: SIGKILL of a run (${runtime}) in a session of the user's frees its lease at once`, async () => {
    await using box = await Sandbox.create();
    await box.write("work/.mcpx.json", {
      mcpServers: {
        sess: {
          ...faultyServer(),
          // A lease the dead run kept would be held this long.
          mcpx: { sharing: "exclusive", scope: "session", callTimeout: "10m" },
        },
      },
    });
    await box.write("work/hang.ts", HANGING_SCRIPT);
    const env = { MCPX_SESSION_ID: "mine" };
    const leases = async () =>
      (await box.json<Status>(["status"])).servers.flatMap((s) => s.instances)
        .find((i) => i.key === "session:mine")?.leases;
    const run = await startRun(box, ["--runtime", runtime, "hang.ts"], env);
    const [runtimePid, child, server] = run.words.map(Number);
    assert.ok(await until(async () => await leases() === 1), "the hanging call holds the lease");
    run.child.kill("SIGKILL");
    await run.child.status;
    assert.ok(await until(() => !alive(runtimePid) && !alive(child)), "the script is gone");
    await run.rest;
    assert.ok(await until(async () => await leases() === 0), "the lease is free long before 10m");
    const next = await box.mcpx(["call", "sess.pid"], { env });
    assert.equal(next.code, 0, next.stderr);
    assert.equal(Number(next.stdout.trim()), server, "the session keeps its process");
    await box.mcpx(["end-session", "mine"]);
  });
}

Deno.test("lifecycle: an edit of the configuration restarts only the servers it changed", async () => {
  await using box = await Sandbox.create();
  const sess = (flags: string[]) => ({
    ...faultyServer(flags),
    mcpx: { sharing: "exclusive", scope: "session" },
  });
  const path = await box.write("work/.mcpx.json", { mcpServers: { keep: sess([]) } });
  const env = { MCPX_SESSION_ID: "edit" };
  const pid = () => callText(box, ["keep.pid"], env);
  const first = await pid();
  const daemon = (await box.json<Health>(["health"])).pid;

  // Whitespace, and another server (of another identity: one of the same would share the pool,
  // lib/pool/registry.ts): the session keeps its process.
  await Deno.writeTextFile(
    path,
    "\n\n" +
      JSON.stringify({ mcpServers: { keep: sess([]), other: sess(["--output-tools"]) } }, null, 8) +
      "\n",
  );
  assert.equal(await pid(), first, "the same process after an edit that did not change it");
  assert.equal(await callText(box, ["other.echo", "text=hi"], env), "hi", "the new server serves");
  assert.equal((await box.json<Health>(["health"])).pid, daemon, "the same daemon");

  // Its args change: a fresh process, and the old one is gone.
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      mcpServers: { keep: sess(["--slow-start", "1"]), other: sess(["--output-tools"]) },
    }),
  );
  const second = await pid();
  assert.notEqual(second, first, "a changed server restarts");
  assert.ok(await until(() => !alive(Number(first))), "its old process was stopped");
  const log = await daemonLog(box);
  const reloads = log.filter((r) => r.event === "config.reloaded");
  assert.deepEqual(reloads.map((r) => r.restarted), [[], ["keep"]]);
  await box.mcpx(["end-session", "edit"]);
});

Deno.test("lifecycle: a running daemon takes up an edit only once it is trusted", async () => {
  await using box = await Sandbox.create(undefined, { trustAll: false });
  const entry = { ...faultyServer(), mcpx: { sharing: "exclusive", scope: "session" } };
  const path = await box.write("work/.mcpx.json", { mcpServers: { keep: entry } });
  assert.equal((await box.mcpx(["trust"])).code, 0);
  const env = { MCPX_SESSION_ID: "trusting" };
  const first = await callText(box, ["keep.pid"], env);
  const health = await box.json<Health>(["health"]);

  // An edit no one trusted: the daemon keeps serving the version before, and starts nothing new.
  await Deno.writeTextFile(
    path,
    JSON.stringify({ mcpServers: { keep: entry, more: { command: "sleep", args: ["600"] } } }),
  );
  for (const args of [["status"], ["call", "keep.pid"]]) {
    const r = await box.mcpx(args, { env });
    assert.equal(r.code, 9, `mcpx ${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, /changed since it was trusted/);
  }
  const log = await daemonLog(box);
  assert.ok(!log.some((r) => r.event === "config.reloaded"), "nothing was taken up");

  // Trusted, it is taken up, and the unchanged server keeps its process.
  assert.equal((await box.mcpx(["trust"])).code, 0);
  assert.equal(await callText(box, ["keep.pid"], env), first);
  const now = await box.json<Health>(["health"]);
  assert.equal(now.pid, health.pid);
  assert.notEqual(now.fingerprint, health.fingerprint);
  await box.mcpx(["end-session", "trusting"], { env });
});

for (const runtime of ["worker", "deno"]) {
  Deno.test(`lifecycle: a script's client starts a new daemon when its own was killed (${runtime})`, async () => {
    await using box = await Sandbox.create();
    await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
    const marker = join(box.root, "work", "go");
    await box.write(
      "work/again.ts",
      `const before = await fixture.pid();
console.log(\`ready \${before}\`);
while (true) {
  try {
    Deno.statSync(${JSON.stringify(marker)});
    break;
  } catch { await new Promise((r) => setTimeout(r, 25)); }
}
console.log(\`after \${await fixture.pid()}\`);
`,
    );
    const daemon = (await box.json<Health>(["health"])).pid;
    const run = await startRun(box, ["--runtime", runtime, "again.ts"]);
    const before = Number(run.words[0]);
    Deno.kill(daemon, "SIGKILL");
    assert.ok(await until(() => !alive(daemon)));
    await Deno.writeTextFile(marker, "");
    const status = await run.child.status;
    await run.rest;
    assert.equal(status.code, 0, "the call after the daemon died succeeded");
    const now = await box.json<Health>(["health"]);
    assert.notEqual(now.pid, daemon, "a new daemon answers");
    const log = await daemonLog(box);
    const calls = log.filter((r) => r.event === "call.end" && r.pid === now.pid);
    assert.equal(calls.length, 1, "the script's second call reached the new daemon");
    assert.ok(!alive(before), "the old server process is gone");
  });
}
