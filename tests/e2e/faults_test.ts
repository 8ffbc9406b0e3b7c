/**
 * The fault-injection suite (issue 12, "Must show"): fault servers (tests/fixtures/servers/
 * faulty.ts, one flag or tool per fault) run through `mcpx call` and through a script
 * (`mcpx exec`), asserting the one line each prints (it names the server and the cause), the exit
 * status, and the process table afterwards: which server processes live, and, when the Sandbox
 * is disposed, that nothing is left. Timeouts are short so that the suite stays quick.
 */
import assert from "node:assert/strict";
import { faultyServer } from "../fixtures/servers.ts";
import { alive, daemonLog, type Run, Sandbox, until } from "../_helpers.ts";

interface Call {
  content: { type: string; text?: string }[];
  mcpx: { instance: { pid: number; key: string } };
}

interface Status {
  pid: number;
  servers: {
    namespace: string;
    state: string;
    error?: string;
    instances: { pid: number | null; stderrTail: string[] }[];
  }[];
}

/** Asserts `r` failed with `code` and said so in exactly one line matching `line`. */
function failsWith(r: Run, code: number, line: RegExp, what: string): void {
  assert.equal(r.code, code, `${what}: exit ${r.code}, stderr: ${r.stderr}`);
  assert.equal(r.stdout, "", `${what}: nothing on stdout`);
  assert.equal(r.stderr.split("\n").length, 2, `${what}: one line, got: ${r.stderr}`);
  assert.match(r.stderr, line, what);
  assert.doesNotMatch(r.stderr, /internal error|\n {4}at /, `${what}: no bug report, no stack`);
}

/** The pids of live server processes, per namespace, as the daemon reports them. */
async function serverPids(box: Sandbox): Promise<Map<string, number[]>> {
  const status = await box.json<Status>(["status"]);
  return new Map(
    status.servers.map((s) => [s.namespace, s.instances.flatMap((i) => i.pid ? [i.pid] : [])]),
  );
}

/** Every process of the sandbox is the daemon or a server the daemon reports. */
async function onlyKnownProcesses(box: Sandbox): Promise<void> {
  const status = await box.json<Status>(["status"]);
  const known = new Set([
    status.pid,
    ...status.servers.flatMap((s) => s.instances.flatMap((i) => i.pid ? [i.pid] : [])),
  ]);
  // A process that just ended may linger for a moment while its parent reaps it.
  assert.ok(
    await until(() => box.processes().every((p) => known.has(p)), 3000),
    `processes outside the daemon's servers: ${box.processes().filter((p) => !known.has(p))}`,
  );
}

Deno.test("faults: servers that never start — no initialize, crash on start, exit at once, no such command", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      mute: { ...faultyServer(["--no-initialize"]), mcpx: { startTimeout: "600ms" } },
      crashing: faultyServer(["--exit-at-start"]),
      gone: faultyServer(["--exit-quietly"]),
      absent: { command: "/nonexistent/mcp-server" },
    },
  });
  const cases: [string, RegExp][] = [
    ["mute", /Cannot start server "mute": no answer to initialize within 600 ms/],
    ["crashing", /Cannot start server "crashing": .*exited with code 3.*refusing to start/],
    ["gone", /Cannot start server "gone": .*exited with code 0 before initialize/],
    ["absent", /Cannot start server "absent": command "\/nonexistent\/mcp-server" was not found/],
  ];
  for (const [ns, cause] of cases) {
    failsWith(await box.mcpx(["call", `${ns}.echo`, "text=x"]), 6, cause, `call ${ns}`);
  }
  // Within the cooldown a second call fails at once, with the same cause and when it will retry.
  failsWith(
    await box.mcpx(["call", "crashing.echo", "text=x"]),
    6,
    /Cannot start server "crashing": .*refusing to start.*\(retrying in \d+s\)/,
    "call crashing again",
  );
  const status = await box.json<Status>(["status"]);
  for (const [ns, cause] of cases) {
    const row = status.servers.find((s) => s.namespace === ns)!;
    assert.equal(row.state, "error", ns);
    assert.match(row.error ?? "", cause, `status of ${ns}`);
    assert.deepEqual(row.instances, [], `${ns}: no process left running`);
  }
  assert.deepEqual(box.processes(), [status.pid], "only the daemon runs");

  // A script calling the same servers hears the same cause, as one line naming its own place.
  for (const [ns, cause] of cases) {
    await box.mcpx(["restart", ns]); // past the cooldown: the script's call starts it again
    const r = await box.mcpx(["exec", `await ${ns}.echo({ text: "x" })`]);
    failsWith(r, 1, new RegExp(`^exec:1:\\d+: ToolError: ${cause.source}`), `exec ${ns}`);
  }
  assert.deepEqual(box.processes(), [status.pid], "still only the daemon runs");
});

Deno.test("faults: a hung call, a server that dies mid-call, one that exits 0 mid-call", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      stuck: { ...faultyServer(), mcpx: { callTimeout: "600ms" } },
      fragile: faultyServer(),
      vanishing: faultyServer(["--fault-tools"]),
    },
  });
  const stuck = await box.json<Call>(["call", "stuck.pid"]);
  failsWith(
    await box.mcpx(["call", "stuck.hang"]),
    7,
    /^mcpx: Tool stuck\.hang did not answer within 600 ms/,
    "call stuck.hang",
  );
  failsWith(
    await box.mcpx(["exec", "await stuck.hang({})"]),
    1,
    /^exec:1:\d+: ToolError: Tool stuck\.hang did not answer within 600 ms/,
    "exec stuck.hang",
  );
  await box.write(
    "work/hang.ts",
    "// Waits on a call that never ends.\nexport default async () => await stuck.hang({});\n",
  );
  failsWith(
    await box.mcpx(["run", "./hang.ts"]),
    1,
    /^hang\.ts:2:\d+: ToolError: Tool stuck\.hang did not answer within 600 ms/,
    "run ./hang.ts",
  );
  const still = await box.json<Call>(["call", "stuck.pid"]);
  assert.equal(
    still.mcpx.instance.pid,
    stuck.mcpx.instance.pid,
    "a hung call does not cost the process",
  );

  for (const via of ["call", "exec"] as const) {
    const before = await box.json<Call>(["call", "fragile.pid"]);
    const r = via === "call"
      ? await box.mcpx(["call", "fragile.crash"])
      : await box.mcpx(["exec", "await fragile.crash({})"]);
    failsWith(
      r,
      via === "call" ? 6 : 1,
      /Server "fragile" ended during the call to "crash": the process exited with code 7; stderr: fixture: crashing/,
      `${via} fragile.crash`,
    );
    assert.ok(await until(() => !alive(before.mcpx.instance.pid)), "the dead server is gone");
    const after = await box.json<Call>(["call", "fragile.pid"]);
    assert.notEqual(
      after.mcpx.instance.pid,
      before.mcpx.instance.pid,
      "the next call starts afresh",
    );
  }

  failsWith(
    await box.mcpx(["call", "vanishing.vanish"]),
    6,
    /Server "vanishing" ended during the call to "vanish": the process exited with code 0/,
    "call vanishing.vanish",
  );
  failsWith(
    await box.mcpx(["exec", "await vanishing.vanish({})"]),
    1,
    /^exec:1:\d+: ToolError: Server "vanishing" ended during the call to "vanish"/,
    "exec vanishing.vanish",
  );
  const pids = await serverPids(box);
  assert.deepEqual(pids.get("stuck"), [stuck.mcpx.instance.pid]);
  assert.equal(pids.get("fragile")?.length, 1);
  assert.deepEqual(pids.get("vanishing"), [], "the vanished server is not counted as live");
  await onlyKnownProcesses(box);
});

Deno.test("faults: garbage and a 70 MB line on stdout, floods on stderr, are survived", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      garbled: faultyServer(["--garbage-stdout"]),
      noisy: faultyServer(["--fault-tools", "--flood-stderr", "8"]),
    },
  });
  const garbled = await box.json<Call>(["call", "garbled.echo", "text=clean"]);
  assert.equal(garbled.content[0].text, "clean");
  const viaScript = await box.mcpx(["exec", 'String(await garbled.echo({ text: "also clean" }))']);
  assert.equal(viaScript.code, 0, viaScript.stderr);
  assert.equal(viaScript.stdout, "also clean\n");

  const first = await box.json<Call>(["call", "noisy.pid"]);
  const long = await box.mcpx(["call", "noisy.long_line", "mb=70"]);
  assert.equal(long.code, 0, long.stderr);
  assert.equal(long.stdout, "survived\n");
  const longScript = await box.mcpx(["exec", "String(await noisy.long_line({ mb: 70 }))"]);
  assert.equal(longScript.stdout, "survived\n", longScript.stderr);
  const flood = await box.mcpx(["exec", "String(await noisy.flood({ mb: 16 }))"]);
  assert.equal(flood.stdout, "flooded\n", flood.stderr);
  const again = await box.json<Call>(["call", "noisy.pid"]);
  assert.equal(again.mcpx.instance.pid, first.mcpx.instance.pid, "one process survived it all");

  const status = await box.json<Status>(["status"]);
  const tail = status.servers.find((s) => s.namespace === "noisy")!.instances[0].stderrTail;
  assert.ok(tail.length > 0 && tail.length <= 10, "the stderr tail is kept, and bounded");
  assert.ok(tail.every((l) => l.length <= 2048), "each line of it is bounded");
  const rss = Number(
    /VmRSS:\s+(\d+) kB/.exec(await Deno.readTextFile(`/proc/${status.pid}/status`))?.[1],
  );
  assert.ok(rss < 512 * 1024, `the daemon did not keep the floods (${rss} kB resident)`);
  await onlyKnownProcesses(box);
});

Deno.test("faults: a server that ignores stdin EOF and SIGTERM is stopped with its process group", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      stubborn: faultyServer(["--ignore-eof", "--ignore-sigterm"]),
      session: {
        ...faultyServer(["--ignore-eof", "--ignore-sigterm"]),
        mcpx: { sharing: "exclusive", scope: "session" },
      },
    },
  });
  const shared = await box.json<Call>(["call", "stubborn.pid"]);
  // A script's own session process: stopped when the run ends, though it ignores EOF and SIGTERM.
  const run = await box.mcpx(["exec", "String(await session.pid({}))"]);
  assert.equal(run.code, 0, run.stderr);
  const sessionPid = Number(run.stdout.trim());
  assert.ok(await until(() => !alive(sessionPid)), "the run's session process was stopped");
  assert.ok(alive(shared.mcpx.instance.pid));

  const stop = await box.json<{ stopped: { forced: boolean }[] }>(["stop"]);
  assert.deepEqual(
    stop.stopped.map((s) => s.forced),
    [false],
    "the daemon stopped without SIGKILL",
  );
  assert.ok(await until(() => !alive(shared.mcpx.instance.pid), 3000), "the server is gone");
  assert.deepEqual(box.processes(), [], "stop leaves nothing behind");
  const stopped = (await daemonLog(box)).find((r) => r.event === "daemon.stop");
  assert.ok(stopped, "the daemon finished its shutdown");
});

// Issue 12 item 7: a reply over the line limit (daemon.maxMessageBytes) fails the call at once,
// naming the limit, and is logged; it once surfaced as a timeout.
Deno.test("faults: a reply over the 64 MiB line limit fails that call at once, naming the limit", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { huge: { ...faultyServer(["--fault-tools"]), mcpx: { callTimeout: "20s" } } },
  });
  const first = await box.json<Call>(["call", "huge.pid"]);
  for (const via of ["call", "exec"] as const) {
    const r = via === "call"
      ? await box.mcpx(["call", "huge.huge", "mb=70"])
      : await box.mcpx(["exec", "await huge.huge({ mb: 70 })"]);
    assert.notEqual(r.code, 0, `${via}: ${r.stderr}`);
    assert.notEqual(r.code, 7, `${via}: not a timeout: ${r.stderr}`);
    assert.equal(r.stderr.split("\n").length, 2, `${via}: one line: ${r.stderr}`);
    assert.match(r.stderr, /"huge"/, `${via}: names the server`);
    assert.match(r.stderr, /64 MiB|limit/i, `${via}: names the limit`);
  }
  const logged = (await daemonLog(box)).filter((r) =>
    (r.level === "warn" || r.level === "error") && /64 MiB|limit/i.test(String(r.msg))
  );
  assert.ok(logged.length > 0, "the daemon logged it");
  const after = await box.json<Call>(["call", "huge.echo", "text=after"]);
  assert.equal(after.content[0].text, "after", "the server (or a fresh one) answers again");
  assert.ok(after.mcpx.instance.pid > 0 && first.mcpx.instance.pid > 0);
  await onlyKnownProcesses(box);
});
