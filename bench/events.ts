/**
 * Event bus benchmark (lib/events/bus.ts).
 *
 *     deno run -A bench/events.ts [--events 100000] [--calls 200]
 *
 * 1. Throughput: `--events` publishes, drained by 1 and by 50 subscribers reading as fast as
 *    they can (each a `next()` loop); events per second from the first publish to the last
 *    subscriber having read the last event (a reader that fell behind the ring counts what it
 *    missed, which is printed).
 * 2. A slow subscriber: `--calls` sequential tool calls through a real daemon's
 *    `POST /v1/call/…` with no subscriber, then with a `GET /v1/events?since=0` stream that is
 *    opened and never read. The medians and their ratio show whether the stalled reader slows a
 *    call (publishing never waits on a reader).
 */
import { parseArgs } from "node:util";
import { EventBus } from "../lib/events/bus.ts";
import { Sandbox } from "../tests/_helpers.ts";
import { ASKING, cacheModern } from "../lib/mcp/_testing.ts";
import { wireRequest } from "../lib/daemon/wire.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    events: { type: "string", default: "100000" },
    calls: { type: "string", default: "200" },
  },
});
const EVENTS = Number(args.values.events);
const CALLS = Number(args.values.calls);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function throughput(subscribers: number): Promise<{ perSecond: number; missed: number }> {
  const bus = new EventBus();
  const subs = Array.from({ length: subscribers }, () => bus.subscribe());
  const start = performance.now();
  const readers = subs.map(async (sub) => {
    let seen = 0;
    while (sub.cursor < EVENTS) {
      const got = await sub.next();
      seen += got.length;
    }
    return seen;
  });
  // Published in slices, yielding between them, as a daemon's work would.
  for (let i = 0; i < EVENTS; i++) {
    bus.publish("call.finished", { server: "bench", tool: "echo", i });
    if (i % 1000 === 999) await new Promise((r) => setTimeout(r, 0));
  }
  await Promise.all(readers);
  const ms = performance.now() - start;
  return {
    perSecond: Math.round(EVENTS / (ms / 1000)),
    missed: subs.reduce((n, s) => n + s.missed, 0),
  };
}

console.log(`1. Bus throughput, ${EVENTS} events`);
for (const n of [1, 50]) {
  const r = await throughput(n);
  console.log(
    `   ${String(n).padStart(2)} subscriber(s): ${r.perSecond.toLocaleString("en")} events/s` +
      ` (missed in all: ${r.missed})`,
  );
}

console.log(`2. A tool call with and without a stalled subscriber, ${CALLS} sequential calls`);
await cacheModern();
{
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { asking: ASKING } });
  await box.json(["call", "asking.heard"]);
  const health = await box.json<{ socket: string }>(["health"]);
  const token = box.daemonToken(health);
  const call = async () => {
    const t = performance.now();
    const res = await wireRequest(health.socket, "POST", "/v1/call/asking/heard", {
      body: {},
      headers: { "x-mcpx-token": token },
    });
    if (res.status !== 200) throw new Error(`call failed: ${res.status} ${res.text}`);
    return performance.now() - t;
  };
  const round = async () => {
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) times.push(await call());
    return median(times);
  };
  for (let i = 0; i < 20; i++) await call();
  const alone = await round();
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: health.socket } });
  const stalled = await fetch("http://mcpx/v1/events?since=0", {
    client,
    headers: { "x-mcpx-token": token },
  });
  const withSlow = await round();
  await stalled.body?.cancel();
  client.close();
  console.log(`   no subscriber:      median ${alone.toFixed(2)} ms`);
  console.log(`   stalled subscriber: median ${withSlow.toFixed(2)} ms`);
  console.log(`   ratio (stalled / none): ${(withSlow / alone).toFixed(2)}`);
  await box.mcpx(["stop"]);
}
