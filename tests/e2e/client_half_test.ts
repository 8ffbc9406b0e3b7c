// The client half of MCP through a real daemon: roots answered from the configuration, a
// server's log message in the daemon's log, list_changed and calls on the event bus
// (`GET /v1/events`, replayed and followed), and the filesystem server no longer told that its
// client has no roots.
import assert from "node:assert/strict";
import { join } from "node:path";
import { daemonLog, npmServer, Sandbox, until } from "../_helpers.ts";
import { ASKING, cacheModern } from "../../lib/mcp/_testing.ts";
import { wireRequest } from "../../lib/daemon/wire.ts";

const REPO = new URL("../../", import.meta.url).pathname;

interface Health {
  pid: number;
  socket: string;
}

interface Sse {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** The text of a `call --json` envelope's first content item. */
function firstText(envelope: { content?: { text?: string }[] }): string {
  return envelope.content?.[0]?.text ?? "";
}

function parseSse(text: string): Sse[] {
  return text.split("\n\n").filter((b) => b.includes("data: ")).map((block) => {
    const field = (name: string) =>
      block.split("\n").find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2) ?? "";
    return { id: field("id"), event: field("event"), data: JSON.parse(field("data")) };
  });
}

Deno.test("client half: roots from the mcpx block, a server's log in the daemon log, events replayed and followed", async () => {
  await cacheModern();
  await using box = await Sandbox.create();
  await Deno.mkdir(join(box.root, "work", "data"));
  await box.write("work/.mcpx.json", {
    mcpServers: { asking: { ...ASKING, mcpx: { roots: ["./data"] } } },
  });
  const roots = await box.json<{ content?: { text?: string }[] }>(["call", "asking.roots"]);
  assert.deepEqual(JSON.parse(firstText(roots)), [{
    uri: `file://${join(box.root, "work", "data")}`,
    name: "data",
  }]);

  await box.json(["call", "asking.say", "line=retrying against the replica"]);
  assert.ok(
    await until(async () =>
      (await daemonLog(box)).some((r) =>
        r.event === "server.log" && r.server === "asking" &&
        String(r.msg ?? r.message).includes("retrying against the replica")
      )
    ),
    "the server's notifications/message is in the daemon log under its name",
  );
  const heard = await box.json<{ content?: { text?: string }[] }>(["call", "asking.heard"]);
  assert.deepEqual(
    JSON.parse(firstText(heard)).levels,
    ["info"],
    "logging/setLevel was sent at servers.logLevel",
  );

  const health = await box.json<Health>(["health"]);
  const token = box.daemonToken(health);
  const get = (path: string, headers: Record<string, string> = {}) =>
    wireRequest(health.socket, "GET", path, { headers: { "x-mcpx-token": token, ...headers } });

  // Replay of everything retained, then only what follows a position.
  const all = parseSse((await get("/v1/events?since=0&follow=false")).text);
  const types = all.map((e) => e.event);
  assert.ok(types.includes("server.started"), types.join(","));
  assert.ok(types.includes("call.finished"), types.join(","));
  const ids = all.map((e) => Number(e.id));
  assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
  assert.equal(ids[0], 1);
  const last = ids[ids.length - 1];
  const after = parseSse(
    (await get(`/v1/events?follow=false`, { "last-event-id": String(last - 1) })).text,
  );
  assert.deepEqual(after.map((e) => Number(e.id)), [last]);
  const bad = await get("/v1/events?since=x");
  assert.equal(bad.status, 400);

  // Followed: a list change and the call that caused it arrive on the open stream.
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: health.socket } });
  const abort = new AbortController();
  try {
    const res = await fetch(`http://mcpx/v1/events?since=${last}`, {
      client,
      headers: { "x-mcpx-token": token },
      signal: abort.signal,
    });
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    await box.json(["call", "asking.grow"]);
    let text = "";
    while (!text.includes("event: tools.changed") || !text.includes("event: call.finished")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    // list_changed refreshed the schema cache: `types` (which reads it) knows the new tool.
    assert.ok(
      await until(async () => (await box.mcpx(["types", "asking.added"])).code === 0, 10_000),
      "the tool added after start is in the schema cache",
    );
    const followed = parseSse(text);
    assert.ok(followed.some((e) => e.event === "tools.changed" && e.data.data?.toString() !== ""));
    assert.ok(followed.every((e) => Number(e.id) > last));
    await reader.cancel();
  } finally {
    abort.abort();
    client.close();
  }
  // The CLI's view of the same bus: what is retained, as lines and as JSON.
  const printed = await box.mcpx(["events"]);
  assert.equal(printed.code, 0, printed.stderr);
  assert.match(printed.stdout, /^1 \S+ server\.started server=asking/m);
  assert.match(printed.stdout, / tools\.changed server=asking/);
  const doc = await box.json<{ events: { id: number; type: string }[] }>([
    "events",
    "--since",
    "2",
  ]);
  assert.equal(doc.events[0].id, 3);

  // `events -f` prints each event as it happens.
  const follower = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${REPO}/deno.json`, box.entry, "--json", "events", "-f"],
    cwd: join(box.root, "work"),
    env: box.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = follower.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  try {
    // Calls until the follower, connected by then, has printed one of them (one read is kept
    // pending across the rounds, so nothing it prints is lost).
    let pending = lines.read();
    for (let round = 0; round < 120 && !seen.includes('"call.finished"'); round++) {
      await box.json(["call", "asking.heard"]);
      const next = await Promise.race([
        pending,
        new Promise<"later">((r) => setTimeout(() => r("later"), 500)),
      ]);
      if (next === "later") continue;
      if (next.done) break;
      seen += next.value;
      pending = lines.read();
    }
    const first = JSON.parse(seen.split("\n").find((l) => l.includes("call.finished"))!);
    assert.equal(first.data.tool, "heard");
  } finally {
    follower.kill("SIGTERM");
    await follower.status;
    await lines.cancel().catch(() => {});
  }
  assert.equal((await box.mcpx(["stop"])).code, 0);
});

Deno.test("client half: progress reaches mcpx call on stderr, and Ctrl-C of a call reaches the server", async () => {
  await cacheModern();
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { asking: ASKING } });
  // The call that starts the daemon shows no progress: there was nothing to subscribe to.
  await box.json(["call", "asking.heard"]);
  const counted = await box.mcpx(["call", "asking.count", "n=3"]);
  assert.equal(counted.code, 0, counted.stderr);
  assert.equal(counted.stdout.trim(), "counted 3");
  assert.deepEqual(counted.stderr.trim().split("\n"), [
    "progress: [#######             ] 1/3 step 1",
    "progress: [#############       ] 2/3 step 2",
    "progress: [####################] 3/3 step 3",
  ]);

  const waiting = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${REPO}/deno.json`, box.entry, "call", "asking.wait"],
    cwd: join(box.root, "work"),
    env: box.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const heard = async () =>
    JSON.parse(
      firstText(await box.json<{ content?: { text?: string }[] }>(["call", "asking.heard"])),
    ) as { cancelled: unknown[] };
  // Interrupted once the call is in flight (its call.finished has not come, its lease is held).
  const health = await box.json<Health>(["health"]);
  const token = box.daemonToken(health);
  assert.ok(
    await until(async () => {
      const st = await box.json<{ servers: { instances: { leases?: number }[] }[] }>(["status"]);
      return JSON.stringify(st).includes('"leases":1') ||
        (await wireRequest(health.socket, "GET", "/v1/events?since=0&follow=false", {
          headers: { "x-mcpx-token": token },
        })).text.includes('"tool":"wait"');
    }, 20_000),
  );
  waiting.kill("SIGINT");
  await waiting.status;
  assert.ok(
    await until(async () => (await heard()).cancelled.length === 1, 10_000),
    "the server heard notifications/cancelled",
  );
  assert.equal((await box.mcpx(["stop"])).code, 0);
});

Deno.test("client half: a script hears progress through onProgress, and its AbortSignal cancels upstream", async () => {
  await cacheModern();
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { asking: ASKING } });
  await box.write(
    "work/progress.ts",
    `export default async () => {
  const seen: string[] = [];
  const counted = String(await asking.count({ n: 2 }, { onProgress: (p) => seen.push(\`\${p.progress}/\${p.total} \${p.message}\`) }));
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 1000);
  let code = "";
  try {
    await asking.wait({}, { signal: controller.signal });
  } catch (e) {
    code = (e as { code?: string }).code ?? String(e);
  }
  let heard = { cancelled: [] as unknown[] };
  for (let i = 0; i < 100 && heard.cancelled.length === 0; i++) {
    heard = (await asking.heard()) as unknown as { cancelled: unknown[] };
    if (heard.cancelled.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  return { counted, seen, code, cancelled: heard.cancelled.length };
};
`,
  );
  const ran = await box.mcpx(["--json", "run", "progress.ts"]);
  assert.equal(ran.code, 0, ran.stdout + ran.stderr);
  const out = JSON.parse(ran.stdout) as Record<string, unknown>;
  const result = (out.result ?? out) as Record<string, unknown>;
  assert.deepEqual(result, {
    counted: "counted 2",
    seen: ["1/2 step 1", "2/2 step 2"],
    code: "CANCELLED",
    cancelled: 1,
  }, JSON.stringify(out));
  assert.equal((await box.mcpx(["stop"])).code, 0);
});

Deno.test("client half: the filesystem server gets roots and no longer says its client has none", async () => {
  await using box = await Sandbox.create();
  await Deno.mkdir(join(box.root, "work", "shared"));
  await box.write("work/.mcpx.json", {
    mcpServers: {
      filesystem: { ...npmServer("server-filesystem", ["."]), mcpx: { roots: ["./shared"] } },
    },
  });
  // The server asks for roots once initialized, and takes up the answer on its own time.
  const allowed = async () =>
    firstText(
      await box.json<{ content?: { text?: string }[] }>([
        "call",
        "filesystem.list_allowed_directories",
      ]),
    );
  assert.ok(
    await until(async () => /shared/.test(await allowed())),
    "the roots replaced the arguments' directory",
  );
  const status = await box.json<{ servers: { instances: { stderrTail: string[] }[] }[] }>([
    "status",
  ]);
  const stderr = status.servers.flatMap((s) => s.instances.flatMap((i) => i.stderrTail));
  assert.ok(stderr.length > 0, "the server's stderr is read");
  assert.ok(
    !stderr.some((line) => line.includes("Client does not support MCP Roots")),
    stderr.join("\n"),
  );
  assert.equal((await box.mcpx(["stop"])).code, 0);
});
