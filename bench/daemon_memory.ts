/**
 * Daemon memory: the resident set (VmRSS) of a real daemon holding 8 pooled stdio servers, next
 * to a daemon of a configuration with no servers (the baseline), and one with no servers after
 * one MCP client's initialize and tools/list on `/mcp` (which loads the MCP surface), in the same
 * run.
 *
 *     deno run -A bench/daemon_memory.ts [--runs 5] [--json]
 *
 * Each run starts both daemons (`mcpx start`, which runs the daemon from the sources as the
 * installed CLI does), calls `echo` once on each of the 8 servers (tests/fixtures/servers/faulty.ts
 * under `deno run`, so each one is started, listed and pooled), waits for the daemon to settle,
 * then reads VmRSS and VmHWM from /proc/<pid>/status of each daemon (its own process only: the
 * servers are children with their own memory). The figures are medians over the runs.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { TOKEN_HEADER } from "../lib/daemon/guard.ts";
import { wireRequest } from "../lib/daemon/wire.ts";
import {
  formatTable,
  interruptible,
  makeIsolated,
  mcpxArgs,
  median,
  REPO,
  runDeno,
  teardown,
  wholeNumber,
} from "./_shared.ts";

const SERVERS = 8;
/** The aim of issue 11, in MiB. */
const TARGET_MIB = 64;
/** After the last call: let the daemon finish what the calls started (cache writes, GC). */
const SETTLE_MS = 1500;

interface Options {
  runs: number;
  json: boolean;
}

function options(): Options {
  const { values } = parseArgs({
    args: Deno.args,
    options: { runs: { type: "string", default: "5" }, json: { type: "boolean", default: false } },
  });
  return { runs: wholeNumber("runs", values.runs, 1), json: values.json };
}

/** VmRSS and VmHWM of `pid`, in KiB. */
function memoryOf(pid: number): { rssKiB: number; hwmKiB: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const field = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(status);
    if (!m) throw new Error(`/proc/${pid}/status has no ${name}`);
    return Number(m[1]);
  };
  return { rssKiB: field("VmRSS"), hwmKiB: field("VmHWM") };
}

interface Sample {
  rssKiB: number;
  hwmKiB: number;
}

/** The token of the one daemon running under `env` (every `/v1` request carries it). */
async function daemonToken(env: Record<string, string>): Promise<string> {
  const dir = join(env.XDG_STATE_HOME, "mcpx", "daemons");
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(".token")) {
      return (await Deno.readTextFile(join(dir, entry.name))).trim();
    }
  }
  throw new Error(`no daemon token in ${dir}`);
}

/** One daemon for `servers` fixture servers: started, each server called once, then measured. */
async function measure(
  env: Record<string, string>,
  project: string,
  servers: number,
  mcp = false,
): Promise<Sample> {
  const faulty = join(REPO, "tests", "fixtures", "servers", "faulty.ts");
  const mcpServers = Object.fromEntries(
    Array.from({ length: servers }, (_, i) => [
      `s${i}`,
      // A variable of its own, so that no two entries share a pool.
      { command: Deno.execPath(), args: ["run", faulty], env: { FIXTURE_INSTANCE: String(i) } },
    ]),
  );
  await Deno.mkdir(project, { recursive: true });
  await Deno.writeTextFile(join(project, ".mcpx.json"), JSON.stringify({ mcpServers }));
  const health = JSON.parse(await runDeno(mcpxArgs(["--json", "start"]), project, env));
  const headers = { [TOKEN_HEADER]: await daemonToken(env) };
  for (const ns of Object.keys(mcpServers)) {
    const res = await wireRequest(health.socket, "POST", `/v1/call/${ns}/echo`, {
      body: { text: "x" },
      headers,
      timeoutMs: 30_000,
    });
    if (res.status !== 200) throw new Error(`${ns}.echo: HTTP ${res.status}: ${res.text}`);
  }
  const status = await wireRequest(health.socket, "GET", "/v1/status", { headers });
  if (status.status !== 200) throw new Error(`status: HTTP ${status.status}: ${status.text}`);
  const live = (JSON.parse(status.text).servers as { live: number }[])
    .reduce((n, s) => n + s.live, 0);
  if (live !== servers) throw new Error(`the daemon holds ${live} processes, not ${servers}`);
  if (mcp) {
    // One MCP client's handshake and tools/list: what loads the MCP surface and the SDK's server.
    const mcpHeaders = { ...headers, accept: "application/json, text/event-stream" };
    const init = await wireRequest(health.socket, "POST", "/mcp", {
      headers: mcpHeaders,
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "bench", version: "1" },
        },
      },
    });
    const session = init.headers.get("mcp-session-id");
    if (init.status !== 200 || !session) throw new Error(`/mcp initialize: HTTP ${init.status}`);
    const list = await wireRequest(health.socket, "POST", "/mcp", {
      headers: { ...mcpHeaders, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      body: { jsonrpc: "2.0", id: 2, method: "tools/list" },
    });
    if (list.status !== 200) throw new Error(`/mcp tools/list: HTTP ${list.status}`);
  }
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const sample = memoryOf(health.pid);
  await runDeno(mcpxArgs(["stop"]), project, env);
  return sample;
}

async function main(): Promise<void> {
  const opts = options();
  const isolated = await makeIsolated("mcpx-bench-memory-");
  await interruptible(() => teardown(isolated.root, isolated.env), async (stopIfInterrupted) => {
    const empty: Sample[] = [];
    const served: Sample[] = [];
    const full: Sample[] = [];
    for (let run = 0; run < opts.runs; run++) {
      stopIfInterrupted();
      // Alternated, so that machine noise lands on both alike.
      empty.push(await measure(isolated.env, join(isolated.root, `empty${run}`), 0));
      stopIfInterrupted();
      served.push(await measure(isolated.env, join(isolated.root, `mcp${run}`), 0, true));
      stopIfInterrupted();
      full.push(await measure(isolated.env, join(isolated.root, `full${run}`), SERVERS));
    }
    const mib = (kib: number) => kib / 1024;
    const rows = [
      { name: "daemon, 0 servers (baseline)", samples: empty },
      { name: `daemon, ${SERVERS} pooled stdio servers`, samples: full },
      { name: "daemon, 0 servers, after one /mcp client", samples: served },
    ].map((r) => ({
      name: r.name,
      rssMiB: mib(median(r.samples.map((s) => s.rssKiB))),
      hwmMiB: mib(median(r.samples.map((s) => s.hwmKiB))),
      rssSamplesMiB: r.samples.map((s) => mib(s.rssKiB)),
    }));
    const perServerMiB = (rows[1].rssMiB - rows[0].rssMiB) / SERVERS;
    const met = rows[1].rssMiB <= TARGET_MIB;
    if (opts.json) {
      console.log(JSON.stringify(
        {
          runs: opts.runs,
          deno: Deno.version.deno,
          servers: SERVERS,
          rows,
          perServerMiB,
          targetMiB: TARGET_MIB,
          met,
        },
        null,
        2,
      ));
      return;
    }
    console.log(
      `runs: ${opts.runs}, deno ${Deno.version.deno}, daemon = deno run main.ts daemon, ` +
        `servers = tests/fixtures/servers/faulty.ts, each called once; medians`,
    );
    console.log(formatTable([
      ["daemon", "VmRSS_MiB", "VmHWM_MiB", "target"],
      [rows[0].name, rows[0].rssMiB.toFixed(1), rows[0].hwmMiB.toFixed(1), ""],
      [
        rows[1].name,
        rows[1].rssMiB.toFixed(1),
        rows[1].hwmMiB.toFixed(1),
        `<= ${TARGET_MIB} MiB: ${met ? "met" : "MISSED"}`,
      ],
      ["per pooled server", perServerMiB.toFixed(2), "", ""],
      [rows[2].name, rows[2].rssMiB.toFixed(1), rows[2].hwmMiB.toFixed(1), ""],
    ]));
  });
}

if (import.meta.main) await main();
