/**
 * Scale (issue 12 item 8): 20,000 servers in one configuration, none of them started but one.
 * Timings are bench/scale.ts's; here, that everything still answers, and answers whole.
 */
import assert from "node:assert/strict";
import { faultyServer } from "../fixtures/servers.ts";
import { Sandbox } from "../_helpers.ts";

interface Status {
  running: boolean;
  pid: number;
  servers: { namespace: string; live: number; sharedWith: string[] }[];
}

Deno.test("scale: with 20,000 servers configured a call, status, health and ls all answer", async () => {
  await using box = await Sandbox.create();
  const servers: Record<string, unknown> = { fixture: faultyServer() };
  // Half are pools of their own; half are one pool under 10,000 names (same command and leasing).
  for (let i = 0; i < 10_000; i++) servers[`own${i}`] = { command: "true", args: [String(i)] };
  for (let i = 0; i < 9_999; i++) servers[`same${i}`] = { command: "true", args: ["same"] };
  await box.write("work/.mcpx.json", { mcpServers: servers });
  // Room for a loaded machine: reading 20,000 entries is no reason to fail a test.
  const env = { MCPX_DAEMON_START_TIMEOUT: "60s" };

  const call = await box.mcpx(["call", "fixture.echo", "text=one of many"], { env });
  assert.equal(call.code, 0, call.stderr);
  assert.equal(call.stdout, "one of many\n");

  // A status of them all and a health check at once: the daemon is busy, never "not a daemon".
  const [status, health] = await Promise.all([
    box.json<Status>(["status"], { env }),
    box.json<{ pid: number }>(["health"], { env }),
  ]);
  assert.equal(health.pid, status.pid);
  assert.equal(status.servers.length, 20_000);
  assert.deepEqual(
    status.servers.filter((s) => s.live > 0).map((s) => s.namespace),
    ["fixture"],
    "only the server called runs",
  );
  const same = status.servers.filter((s) => s.namespace.startsWith("same"));
  assert.equal(same[0].sharedWith.length, 9_998, "the pool's first name lists the others");
  assert.ok(same.slice(1).every((s) => s.sharedWith.length === 1 && s.sharedWith[0] === "same0"));
  assert.ok(
    status.servers.filter((s) => s.namespace.startsWith("own")).every((s) =>
      s.sharedWith.length === 0
    ),
  );

  const human = await box.mcpx(["status"], { env });
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /^same1 .*\(pool shared with same0\)$/m);

  const ls = await box.json<{ namespaces: { namespace: string; live: number }[] }>(["ls"], { env });
  assert.equal(ls.namespaces.length, 20_000);
  assert.equal(ls.namespaces.find((r) => r.namespace === "fixture")?.live, 1);
  const again = await box.mcpx(["call", "fixture.echo", "text=still"], { env });
  assert.equal(again.stdout, "still\n", again.stderr);
});
