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
