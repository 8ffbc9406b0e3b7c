/**
 * Small things a fault probe found: files of old configuration versions (now one daemon serves a
 * file across its edits), which pid a log record carries, and an exec program that would close its
 * wrapper.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { daemonLog, ONE_SERVER, Sandbox } from "../_helpers.ts";

interface Health {
  pid: number;
  fingerprint: string;
}

Deno.test("housekeeping: edits of a configuration leave one daemon's files, not one set per version", async () => {
  await using box = await Sandbox.create();
  const path = await box.write("work/.mcpx.json", ONE_SERVER);
  const first = await box.json<Health>(["health"]);
  for (const command of ["false", "true", "sh"]) {
    await Deno.writeTextFile(path, JSON.stringify({ mcpServers: { echo: { command } } }));
    const health = await box.json<Health>(["health"]);
    assert.equal(health.pid, first.pid, "the daemon took the edit up");
  }
  await box.json(["stop"]);
  // A start that fails writes its start error under the same name as the rest.
  await Deno.writeTextFile(path, "{ not json");
  assert.notEqual((await box.mcpx(["health"])).code, 0);
  await Deno.writeTextFile(path, JSON.stringify(ONE_SERVER));
  const again = await box.json<Health>(["health"]);
  const names = [
    ...Deno.readDirSync(join(box.root, "state", "mcpx", "daemons")),
    ...Deno.readDirSync(join(box.root, "state", "mcpx", "logs")),
  ].map((e) => e.name);
  const keys = new Set(names.flatMap((n) => /([0-9a-f]{16})/.exec(n)?.[1] ?? []));
  assert.equal(keys.size, 1, `one key's files: ${names.join(", ")}`);
  assert.ok(names.some((n) => n.endsWith(".jsonl")) && names.some((n) => n.endsWith(".json")));
  assert.notEqual(again.pid, first.pid);
});

Deno.test("housekeeping: an edited configuration's schema cache replaces the older version's", async () => {
  await using box = await Sandbox.create();
  const path = await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  await box.write("other/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  const cached = () =>
    [...Deno.readDirSync(join(box.root, "cache", "mcpx"))].map((e) => e.name)
      .filter((n) => /^(schemas|ls)-[0-9a-f]{16}\.json$/.test(n)).sort();
  assert.equal((await box.mcpx(["refresh"], { cwd: "other" })).code, 0);
  const other = cached();
  assert.equal((await box.mcpx(["refresh"])).code, 0);
  const first = cached().filter((n) => !other.includes(n));
  assert.equal(first.filter((n) => n.startsWith("schemas-")).length, 1, `${first}`);
  for (const text of ["echo", "edited"]) {
    await Deno.writeTextFile(
      path,
      JSON.stringify({ mcpServers: { fixture: faultyServer(), [text]: faultyServer() } }),
    );
    const r = await box.mcpx(["call", "fixture.echo", `text=${text}`]);
    assert.equal(r.stdout, `${text}\n`, r.stderr);
    assert.equal((await box.mcpx(["refresh"])).code, 0);
  }
  const now = cached().filter((n) => !other.includes(n));
  assert.equal(
    now.filter((n) => n.startsWith("schemas-")).length,
    1,
    `one version's cache: ${now}`,
  );
  assert.ok(!now.includes(first[0]), "the first version's cache is gone");
  assert.ok(now.every((n) => !n.startsWith("ls-") || now.includes(n.replace("ls-", "schemas-"))));
  assert.deepEqual(cached().filter((n) => other.includes(n)), other, "another file's cache stays");
  const ls = await box.json<{ namespaces: { namespace: string; tools: number }[] }>(["ls"]);
  assert.deepEqual(ls.namespaces.map((n) => n.namespace).sort(), ["edited", "fixture"]);
  assert.ok(ls.namespaces.every((n) => n.tools > 0), "the listings were carried over");
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
  for (const event of ["server.ready", "call.trace"]) {
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
