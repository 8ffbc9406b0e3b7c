/**
 * Small things a fault probe found: files of old configuration versions, which pid a log record
 * carries, and an exec program that would close its wrapper.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { alive, daemonLog, ONE_SERVER, Sandbox } from "../_helpers.ts";

interface Health {
  pid: number;
  fingerprint: string;
}

/** Names under the sandbox's daemons and logs folders that carry `short`. */
function filesOf(box: Sandbox, short: string): string[] {
  const out: string[] = [];
  for (const d of ["daemons", "logs"]) {
    const dir = join(box.root, "state", "mcpx", d);
    for (const e of Deno.readDirSync(dir)) if (e.name.includes(short)) out.push(`${d}/${e.name}`);
  }
  return out.sort();
}

Deno.test("housekeeping: a daemon removes the files of older versions of its configuration, not of running ones", async () => {
  await using box = await Sandbox.create();
  const path = await box.write("work/.mcpx.json", ONE_SERVER);
  await box.write("other/.mcpx.json", ONE_SERVER);
  const v1 = await box.json<Health>(["health"]);
  const otherConfig = await box.json<Health>(["health"], { cwd: "other" });
  await box.json(["stop"]);
  // A start error of that version, as a daemon that could not start leaves one.
  const startError = join(box.root, "state", "mcpx", "daemons", `${v1.fingerprint}.start-error`);
  await Deno.writeTextFile(startError, '{"code":"INTERNAL","message":"x"}\n');
  const left = filesOf(box, v1.fingerprint);
  for (const kind of [".spawn.lock", ".bind.lock", ".start-error", ".version.json", ".jsonl"]) {
    assert.ok(left.some((f) => f.endsWith(kind)), `version 1 left its ${kind}: ${left}`);
  }

  await Deno.writeTextFile(path, JSON.stringify({ mcpServers: { echo: { command: "false" } } }));
  const v2 = await box.json<Health>(["start"]); // by hand: it stays up after the next edit
  assert.notEqual(v2.fingerprint, v1.fingerprint);
  assert.deepEqual(filesOf(box, v1.fingerprint), [], "version 1's files are gone");
  const cleaned = (await daemonLog(box)).find((r) => r.event === "daemon.cleaned");
  assert.deepEqual(cleaned?.fingerprints, [v1.fingerprint]);
  assert.ok(filesOf(box, otherConfig.fingerprint).length > 0, "another configuration's stay");

  await Deno.writeTextFile(path, JSON.stringify({ mcpServers: { echo: { command: "true" } } }));
  const v3 = await box.json<Health>(["health"]);
  assert.notEqual(v3.fingerprint, v2.fingerprint);
  assert.ok(alive(v2.pid));
  const kept = filesOf(box, v2.fingerprint);
  assert.ok(
    kept.some((f) => f.endsWith(`${v2.fingerprint}.json`)) && kept.some((f) => f.endsWith(".sock")),
    `a version whose daemon still runs keeps its record and socket: ${kept}`,
  );
});

Deno.test("housekeeping: a server's log records carry the daemon's pid as pid and the server's as serverPid", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { fixture: faultyServer() },
    logging: { trace: true },
  });
  const call = await box.json<{ mcpx: { instance: { pid: number } } }>(["call", "fixture.pid"]);
  const daemon = await box.json<Health>(["health"]);
  const records = await daemonLog(box);
  const server = call.mcpx.instance.pid;
  for (const event of ["instance.ready", "call.trace"]) {
    const r = records.find((r) => r.event === event);
    assert.ok(r, `a ${event} record`);
    assert.equal(r.pid, daemon.pid, `${event}: pid is the daemon's`);
    assert.equal(r.serverPid, server, `${event}: serverPid is the server's`);
  }
  assert.ok(records.every((r) => r.pid === daemon.pid), "every record names the daemon by pid");
});

Deno.test("housekeeping: an exec program that would close its wrapper is a one-line syntax error", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", ONE_SERVER);
  for (const code of ["}{", "return 1 }\nfunction f() {"]) {
    const r = await box.mcpx(["exec", code]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr,
      /^mcpx: Cannot run the exec program: SyntaxError: Unexpected token .*\n$/,
    );
  }
  const module = await box.mcpx(["exec", "export const x = 1\n}{"]);
  assert.equal(module.code, 1);
  assert.match(module.stderr, /^exec:2:\d+: SyntaxError: .*\n$/, "a module's error has its place");
  const fine = await box.mcpx(["exec", "const s: string = '}{'; return s"]);
  assert.equal(fine.code, 0, fine.stderr);
  assert.equal(fine.stdout, "}{\n");
});
