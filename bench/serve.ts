/**
 * A tool call through the MCP surface against the same call direct: `mcpx_call` on the daemon's
 * `/mcp` (a 2025-11-25 session, Streamable HTTP over the unix socket) next to `POST /v1/call`,
 * both to the fixture server's `echo`, alternated, after a warm-up. Prints p50 and p99 of each
 * and the p50 the MCP surface adds, and gateway mode's `/mcp/fixture` calling `echo` itself; the
 * same two over the daemon's TCP listener (`daemon.listen` on 127.0.0.1, a bearer token); then
 * `--sessions` MCP sessions opened on the one daemon, one call each, all at once (p50, p99 and the
 * wall time of the lot).
 *
 *     deno run -A bench/serve.ts [--calls 300] [--sessions 100] [--json]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { wireRequest } from "../lib/daemon/wire.ts";
import { TOKEN_HEADER } from "../lib/daemon/guard.ts";
import { type Endpoint, parseHostPort } from "../lib/daemon/listen.ts";
import {
  CONFIG,
  formatTable,
  interruptible,
  makeIsolated,
  median,
  percentile,
  REPO,
  runDeno,
  teardown,
  wholeNumber,
} from "./_shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "300" },
    sessions: { type: "string", default: "100" },
    json: { type: "boolean", default: false },
  },
});
const CALLS = wholeNumber("calls", values.calls, 10);
const SESSIONS = wholeNumber("sessions", values.sessions, 1);
const mcpx = (args: string[]) => ["run", "-A", "--config", CONFIG, join(REPO, "main.ts"), ...args];

async function main() {
  const isolated = await makeIsolated("mcpx-bench-serve-");
  await interruptible(() => teardown(isolated.root, isolated.env), async () => {
    const project = join(isolated.root, "work");
    await Deno.mkdir(project, { recursive: true });
    const faulty = join(REPO, "tests", "fixtures", "servers", "faulty.ts");
    await Deno.writeTextFile(
      join(project, ".mcpx.json"),
      JSON.stringify({
        mcpServers: { fixture: { command: Deno.execPath(), args: ["run", faulty] } },
      }),
    );
    const health = JSON.parse(
      await runDeno(mcpx(["--json", "start"]), project, {
        ...isolated.env,
        MCPX_DAEMON_LISTEN: "127.0.0.1:0",
      }),
    );
    const tcp: Endpoint = { kind: "tcp", ...parseHostPort(health.listen, "listen") };
    const dir = join(isolated.env.XDG_STATE_HOME, "mcpx", "daemons");
    let token = "";
    let bearer = "";
    for await (const e of Deno.readDir(dir)) {
      if (e.name.endsWith(".token")) token = (await Deno.readTextFile(join(dir, e.name))).trim();
      if (e.name.endsWith(".listen-token")) {
        bearer = (await Deno.readTextFile(join(dir, e.name))).trim();
      }
    }
    const headers = { [TOKEN_HEADER]: token };
    const mcpHeaders = { ...headers, accept: "application/json, text/event-stream" };
    /** A new MCP session's headers: initialize, then initialized. */
    const open = async (path = "/mcp") => {
      const init = await wireRequest(health.socket, "POST", path, {
        headers: mcpHeaders,
        body: {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "bench", version: "1" },
          },
        },
      });
      const session = init.headers.get("mcp-session-id");
      if (!session) throw new Error(`/mcp initialize: ${init.status} ${init.text}`);
      const h = { ...mcpHeaders, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
      await wireRequest(health.socket, "POST", path, {
        headers: h,
        body: { jsonrpc: "2.0", method: "notifications/initialized" },
      });
      return h;
    };
    // Gateway mode: the fixture's own `echo` at the daemon's `/mcp/fixture`.
    const gwSession = await open("/mcp/fixture");
    const viaGateway = async () => {
      const t = performance.now();
      const res = await wireRequest(health.socket, "POST", "/mcp/fixture", {
        headers: gwSession,
        body: {
          jsonrpc: "2.0",
          id: id++,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "x" } },
        },
      });
      if (res.status !== 200 || !res.text.includes('"x"')) {
        throw new Error(`/mcp/fixture: ${res.text}`);
      }
      return performance.now() - t;
    };
    const inSession = await open();
    let id = 1;
    const viaMcp = async (sessionHeaders = inSession, at: string | Endpoint = health.socket) => {
      const t = performance.now();
      const res = await wireRequest(at, "POST", "/mcp", {
        headers: sessionHeaders,
        body: {
          jsonrpc: "2.0",
          id: id++,
          method: "tools/call",
          params: {
            name: "mcpx_call",
            arguments: { server: "fixture", tool: "echo", arguments: { text: "x" } },
          },
        },
      });
      if (res.status !== 200 || !res.text.includes('"x"')) throw new Error(`/mcp: ${res.text}`);
      return performance.now() - t;
    };
    const direct = async (
      at: string | Endpoint = health.socket,
      h: Record<string, string> = headers,
    ) => {
      const t = performance.now();
      const res = await wireRequest(at, "POST", "/v1/call/fixture/echo", {
        headers: h,
        body: { text: "x" },
      });
      if (res.status !== 200) throw new Error(`/v1: ${res.text}`);
      return performance.now() - t;
    };
    // Over TCP: the listener's bearer token in place of the socket's; an MCP session of its own.
    const tcpHeaders = { authorization: `Bearer ${bearer}` };
    const tcpSession = {
      ...(await open()),
      [TOKEN_HEADER]: bearer,
    };
    const viaTcpMcp = () => viaMcp(tcpSession, tcp);
    const viaTcp = () => direct(tcp, tcpHeaders);
    for (let i = 0; i < 30; i++) {
      [await viaMcp(), await direct(), await viaTcpMcp(), await viaTcp(), await viaGateway()];
    }
    const gateway: number[] = [];
    const mcp: number[] = [];
    const v1: number[] = [];
    const mcpTcp: number[] = [];
    const v1Tcp: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      mcp.push(await viaMcp());
      v1.push(await direct());
      mcpTcp.push(await viaTcpMcp());
      v1Tcp.push(await viaTcp());
      gateway.push(await viaGateway());
    }
    // Many hosts at once: SESSIONS sessions opened together, then one call each, all at once.
    const sessions = await Promise.all(Array.from({ length: SESSIONS }, open));
    const started = performance.now();
    const concurrent = await Promise.all(sessions.map((h) => viaMcp(h)));
    const wallMs = performance.now() - started;
    await runDeno(mcpx(["stop"]), project, isolated.env);
    const added = median(mcp) - median(v1);
    if (values.json) {
      console.log(JSON.stringify({
        calls: CALLS,
        mcp: { p50: median(mcp), p99: percentile(mcp, 0.99) },
        direct: { p50: median(v1), p99: percentile(v1, 0.99) },
        addedP50Ms: added,
        gateway: {
          p50: median(gateway),
          p99: percentile(gateway, 0.99),
          addedP50Ms: median(gateway) - median(v1),
        },
        tcp: {
          mcp: { p50: median(mcpTcp), p99: percentile(mcpTcp, 0.99) },
          direct: { p50: median(v1Tcp), p99: percentile(v1Tcp, 0.99) },
          addedP50Ms: median(mcpTcp) - median(v1Tcp),
        },
        concurrent: {
          sessions: SESSIONS,
          p50: median(concurrent),
          p99: percentile(concurrent, 0.99),
          wallMs,
        },
      }));
      return;
    }
    console.log(`calls: ${CALLS} each, alternated, fixture echo through one daemon; ms`);
    console.log(formatTable([
      ["path", "p50_ms", "p99_ms"],
      ["POST /v1/call/fixture/echo", median(v1).toFixed(3), percentile(v1, 0.99).toFixed(3)],
      ["/mcp tools/call mcpx_call", median(mcp).toFixed(3), percentile(mcp, 0.99).toFixed(3)],
      ["added by the MCP surface (p50)", added.toFixed(3), ""],
      [
        "/mcp/fixture tools/call echo (gateway)",
        median(gateway).toFixed(3),
        percentile(gateway, 0.99).toFixed(3),
      ],
      ["added by gateway mode (p50)", (median(gateway) - median(v1)).toFixed(3), ""],
      [
        "TCP: POST /v1/call/fixture/echo",
        median(v1Tcp).toFixed(3),
        percentile(v1Tcp, 0.99).toFixed(3),
      ],
      [
        "TCP: /mcp tools/call mcpx_call",
        median(mcpTcp).toFixed(3),
        percentile(mcpTcp, 0.99).toFixed(3),
      ],
      ["TCP: added by the MCP surface (p50)", (median(mcpTcp) - median(v1Tcp)).toFixed(3), ""],
      [
        `${SESSIONS} sessions, one call each at once`,
        median(concurrent).toFixed(3),
        percentile(concurrent, 0.99).toFixed(3),
      ],
    ]));
    console.log(`${SESSIONS} concurrent calls done in ${wallMs.toFixed(1)} ms`);
  });
}

if (import.meta.main) await main();
