/**
 * A configuration with many servers: how a call of one of them, `mcpx status` and `mcpx health`
 * (asked while a status is being answered: the event loop must stay free) take with 20,000
 * servers configured against one, each a whole process on a warm daemon. The other servers are
 * never started (`true` with a distinct argument each, so each is its own pool). Issue 12 item 8:
 * status and the live state were O(n²), a call took 48 s, and a busy daemon was reported as "not
 * an mcpx daemon".
 *
 *     deno run -A bench/scale.ts [--servers 20000] [--runs 5]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { faultyServer } from "../tests/fixtures/servers.ts";
import {
  ENTRY,
  formatTable,
  makeIsolated,
  mcpxArgs,
  median,
  runDeno,
  teardown,
  timeRun,
  wholeNumber,
} from "./_shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    servers: { type: "string", default: "20000" },
    runs: { type: "string", default: "5" },
  },
});
const many = wholeNumber("--servers", values.servers!, 2);
const runs = wholeNumber("--runs", values.runs!, 1);

/** A configuration of `n` servers, one of which (`fixture`) is real. */
function config(n: number): string {
  const servers: Record<string, unknown> = { fixture: faultyServer() };
  for (let i = 1; i < n; i++) servers[`s${i}`] = { command: "true", args: [String(i)] };
  return JSON.stringify({ mcpServers: servers });
}

interface Figures {
  first: number;
  call: number;
  status: number;
  health: number;
  /** The slowest of /v1/health requests sent every 2 ms over the socket while a status runs. */
  stall: number;
}

/**
 * Asks the daemon's `/v1/health` over its socket every 2 ms until `done` settles; resolves to
 * the slowest answer in ms (how long the event loop was held, plus a round trip).
 */
async function slowestHealth(
  socket: string,
  token: string,
  done: Promise<unknown>,
): Promise<number> {
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socket } });
  let over = false;
  void done.finally(() => (over = true));
  let worst = 0;
  try {
    while (!over) {
      const t0 = performance.now();
      const res = await fetch("http://mcpx/v1/health", {
        client,
        headers: { "x-mcpx-token": token },
      });
      await res.body?.cancel();
      worst = Math.max(worst, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    client.close();
  }
  return worst;
}

async function measure(n: number): Promise<Figures> {
  const box = await makeIsolated(`mcpx-bench-scale-${n}-`);
  const work = join(box.root, "work");
  await Deno.mkdir(work);
  await Deno.writeTextFile(join(work, ".mcpx.json"), config(n));
  const call = mcpxArgs(["call", "fixture.echo", "text=hi"]);
  const status = mcpxArgs(["--json", "status"]);
  const health = mcpxArgs(["health"]);
  const samples: Record<keyof Figures, number[]> = {
    first: [],
    call: [],
    status: [],
    health: [],
    stall: [],
  };
  try {
    samples.first.push(await timeRun(call, work, box.env)); // starts the daemon and the server
    const listed = JSON.parse(await runDeno(status, work, box.env));
    if (listed.servers.length !== n) {
      throw new Error(`status listed ${listed.servers.length} servers of ${n}`);
    }
    const token = (await Deno.readTextFile(
      join(
        box.env.XDG_STATE_HOME,
        "mcpx",
        "daemons",
        `${listed.socket.split("/").pop().slice(0, 16)}.token`,
      ),
    )).trim();
    for (let i = 0; i < runs; i++) {
      samples.call.push(await timeRun(call, work, box.env));
      const busy = timeRun(status, work, box.env);
      const stall = slowestHealth(listed.socket, token, busy);
      samples.health.push(await timeRun(health, work, box.env));
      samples.status.push(await busy);
      samples.stall.push(await stall);
    }
  } finally {
    for (const p of await teardown(box.root, box.env)) console.error(`problem: ${p}`);
  }
  return {
    first: samples.first[0],
    call: median(samples.call),
    status: median(samples.status),
    health: median(samples.health),
    stall: median(samples.stall),
  };
}

const one = await measure(1);
const lots = await measure(many);
console.log(`runs: ${runs}, deno ${Deno.version.deno}, ${ENTRY}`);
const rows: [string, keyof Figures][] = [
  ["first call (daemon + server start)", "first"],
  ["mcpx call fixture.echo (warm)", "call"],
  ["mcpx --json status", "status"],
  ["mcpx health while a status is answered", "health"],
  ["slowest /v1/health (every 2 ms) during a status", "stall"],
];
console.log(formatTable([
  ["case", "1_server_ms", `${many}_servers_ms`, "ratio"],
  ...rows.map(([name, key]) => [
    name,
    one[key].toFixed(1),
    lots[key].toFixed(1),
    `${(lots[key] / one[key]).toFixed(2)}x`,
  ]),
]));
