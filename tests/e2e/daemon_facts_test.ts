// What the daemon keeps and what it is sent, as other processes meet them: its live state is
// believed only while the process that wrote it runs, and bad `/v1` input is a 400, not a 500.
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { alive, daemonKey, Sandbox, until } from "../_helpers.ts";
import { wireRequest } from "../../lib/daemon/wire.ts";

interface Health {
  pid: number;
  socket: string;
  fingerprint: string;
}

/** Field 22 of /proc/<pid>/stat: the process's start time, in clock ticks since boot. */
function startTime(pid: number): string {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

Deno.test("daemon facts: live state naming a reused pid is not believed by ls or status", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  await box.json(["call", "fixture.echo", "text=x"]);
  const health = await box.json<Health>(["health"]);
  const live = join(
    box.env.XDG_STATE_HOME,
    "mcpx",
    "daemons",
    `${daemonKey(health)}.live.json`,
  );
  const written = JSON.parse(Deno.readTextFileSync(live));
  assert.equal(written.pid, health.pid);
  assert.equal(written.start, startTime(health.pid), "the daemon records its start time");
  const counted = async () =>
    (await box.json<{ namespaces: { namespace: string; live: number }[] }>(["ls"]))
      .namespaces.find((r) => r.namespace === "fixture")!.live;
  assert.equal(await counted(), 1);

  // The daemon dies (with its server) and leaves its socket and live state; its pid is reused, here
  // by a `sleep` of this test's.
  Deno.kill(-health.pid, "SIGKILL");
  assert.ok(await until(() => !alive(health.pid)));
  assert.ok(Deno.lstatSync(health.socket).isSocket, "the killed daemon left its socket");
  const sleep = new Deno.Command("sleep", { args: ["60"], stdout: "null", stderr: "null" }).spawn();
  try {
    const kept = (start?: string) =>
      Deno.writeTextFileSync(
        live,
        JSON.stringify({
          pid: sleep.pid,
          ...(start === undefined ? {} : { start }),
          live: { fixture: 7 },
          keys: ["global"],
        }),
      );
    // Read as it is in this state: with the sleep's own start time it would be believed.
    kept(startTime(sleep.pid));
    assert.equal(await counted(), 7, "the live state is read while its writer runs");
    // Another start time, or none: a reused pid, not the daemon that wrote it.
    for (const start of [String(Number(startTime(sleep.pid)) - 1), undefined]) {
      kept(start);
      assert.equal(await counted(), 0, `start ${start}: nothing is live`);
      const status = await box.json<{ running: boolean }>(["status"]);
      assert.equal(status.running, false, `start ${start}: status finds no daemon`);
    }
  } finally {
    sleep.kill("SIGKILL");
    await sleep.status;
  }
});

Deno.test("daemon facts: malformed percent-encoding and a garbled caller header answer 400", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  const health = await box.json<Health>(["health"]);
  const token = box.daemonToken(health);
  const ask = async (path: string, headers: Record<string, string> = {}) => {
    const res = await wireRequest(health.socket, "POST", path, {
      body: { text: "x" },
      headers: { "x-mcpx-token": token, ...headers },
    });
    return {
      status: res.status,
      problem: JSON.parse(res.text) as { code: string; detail: string },
    };
  };
  // Well-formed: answered.
  assert.equal((await ask("/v1/call/fixture/echo")).status, 200);
  const bad: [string, Record<string, string>, RegExp][] = [
    ["/v1/call/fixture/ech%zz", {}, /path has malformed percent-encoding: "ech%zz"/],
    ["/v1/call/fixture/%E0%A4%A", {}, /path has malformed percent-encoding/],
    ["/v1/call/fixture/echo?raw=%ff", {}, /query has malformed percent-encoding: "%ff"/],
    ["/v1/call/fixture/echo", { "x-mcpx-caller": "%7Bnot" }, /x-mcpx-caller header is not/],
    ["/v1/call/fixture/echo", { "x-mcpx-caller": "%7B%22cwd%22%3A" }, /not URI-encoded JSON/],
    ["/v1/call/fixture/echo", { "x-mcpx-caller": "%5B1%5D" }, /is not a JSON object/],
    [
      "/v1/call/fixture/echo",
      { "x-mcpx-caller": encodeURIComponent(JSON.stringify({ pid: "12" })) },
      /"pid" is not a number/,
    ],
  ];
  for (const [path, headers, detail] of bad) {
    const { status, problem } = await ask(path, headers);
    assert.equal(status, 400, `${path} ${JSON.stringify(headers)}: ${JSON.stringify(problem)}`);
    assert.equal(problem.code, "USAGE");
    assert.match(problem.detail, detail);
    assert.ok(!problem.detail.includes("\n"), "one line");
  }
});
