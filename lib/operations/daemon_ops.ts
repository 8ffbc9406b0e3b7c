import { McpxError } from "../errors.ts";
import { defineOperation } from "./define.ts";
import { formatDuration } from "../duration.ts";
import { clip, renderTable } from "../table.ts";
import { VERSION } from "../version.ts";
import type { PoolStatus } from "../pool/pool.ts";
import type { Health } from "../daemon/client.ts";
import type { DaemonEntry } from "../daemon/records.ts";
import type { Context, DaemonHandle } from "../context.ts";
import { load } from "../_load.ts";
import { DAEMON_LOADED, DAEMON_LOADING } from "../daemon/start_output.ts";

function running(ctx: Context): DaemonHandle {
  if (!ctx.daemon) throw new McpxError("INTERNAL", "This operation runs inside the daemon");
  return ctx.daemon;
}

/** How `mcpx status` names each rung of the ladder. */
const RUNG_WORDS = {
  socket: "its socket",
  url: "daemon.endpoint",
  spawn: "a daemon this command started",
  inline: "inline (hosted by this command)",
} as const;

/** `mcpx daemon`: run the daemon for this configuration in the foreground. */
export const daemonRun = defineOperation<{ listen?: string }, { exitCode: number }>({
  id: "daemon.run",
  summary: "Run the daemon for this configuration in the foreground",
  description:
    "A daemon started this way never exits on idle. Commands start one on demand (detached), so running it by hand is only needed under a supervisor. With --listen it also serves /v1 and /mcp over TCP, every request there carrying the listener token as a bearer token (docs/daemon.md).",
  params: [{
    name: "listen",
    type: "string",
    doc:
      "Also serve /v1 and /mcp on this TCP host:port (daemon.listen); a bearer token is required on it",
  }],
  cli: {
    command: ["daemon"],
    examples: [["mcpx daemon", "Run the daemon in the foreground, as a supervisor would"], [
      "mcpx daemon --listen 127.0.0.1:7311",
      "Also serve /v1 and /mcp on a TCP port, with a token",
    ]],
  },
  http: { none: "it is the daemon that serves /v1" },
  mcp: { expose: false },
  where: "local",
  needsTrust: true,
  output: (z) => z.object({ exitCode: z.number() }),
  async run(input, ctx) {
    // A daemon a command started says when its modules are in: what Deno fetches into an empty
    // cache before then is not counted against the command's daemon.startTimeout
    // (lib/daemon/client.ts reads these lines from the daemon's stderr file).
    const child = ctx.io.env.MCPX_DAEMON_CHILD !== undefined;
    if (child) ctx.io.err(`${DAEMON_LOADING}\n`);
    const loaded = () => {
      if (child) ctx.io.err(`${DAEMON_LOADED}\n`);
    };
    return {
      exitCode: await ctx.host.runDaemon(
        ctx,
        ctx.io.env.MCPX_DAEMON_CHILD === "auto",
        input.listen,
        loaded,
      ),
    };
  },
  render: () => "",
});

/** `mcpx start`: make sure a daemon runs for this configuration, starting it detached. */
export const daemonStart = defineOperation<Record<string, never>, Health>({
  id: "daemon.start",
  summary: "Start the daemon for this configuration in the background, if it is not running",
  params: [],
  cli: {
    command: ["start"],
    examples: [[
      "mcpx start",
      "Start this configuration's daemon in the background (commands do it on demand)",
    ], ["mcpx --config ~/work/.mcpx.json start", "The daemon of another configuration"]],
  },
  http: { none: "a daemon that answers /v1 has already started" },
  mcp: { expose: false },
  where: "local",
  needsTrust: true,
  output: (z) => z.object({ pid: z.number(), socket: z.string() }).loose(),
  async run(_input, ctx) {
    const { ensureDaemon } = await load<typeof import("../daemon/client.ts")>(
      "../daemon/client.ts",
      import.meta.url,
    );
    return await ensureDaemon(ctx, { deliberate: true });
  },
  render: (h) => `daemon ${h.pid} on ${h.socket}\n`,
});

interface UpgradeOutput {
  upgraded: boolean;
  /** Why nothing was upgraded (no daemon runs). */
  reason?: string;
  from?: { pid: number; version: string };
  to?: { pid: number; version: string };
  handedOver: { server: string; key: string; pid: number }[];
  stopped: { server: string; key: string; pid?: number; why: string }[];
  durationMs?: number;
  drainMs?: number;
}

/** `mcpx daemon upgrade`: hand the running daemon's socket and servers to one of this version. */
export const daemonUpgrade = defineOperation<{ command?: string[] }, UpgradeOutput>({
  id: "daemon.upgrade",
  summary: "Replace the running daemon with one of this version, keeping its server processes",
  description:
    'The new daemon takes the socket at once (new calls wait for it, none fails), the old one finishes its calls in flight (daemon.upgradeDrain), then hands over every idle stdio server, which goes on with its state: a logged-in browser stays logged in. A server still busy, an ad-hoc one, or one spoken to through the SDK (HTTP, the 2026-07-28 era) is stopped instead, and its session\'s next call is told. Should the new daemon fail to start or die mid-way, the old one keeps serving with every server. A command that finds a daemon of another version does this by itself (daemon.autoUpgrade). docs/daemon.md, "Upgrading without a restart".',
  params: [{
    name: "command",
    type: "list",
    doc:
      "One word of the new daemon's command line, program first, repeated for each (default: this mcpx's own `daemon`), e.g. --command /opt/mcpx-2/mcpx --command daemon",
  }],
  cli: {
    command: ["daemon", "upgrade"],
    request: async (input) => {
      if (input.command !== undefined) return input;
      const { selfCommand, DAEMON_V8_FLAGS } = await load<typeof import("../daemon/client.ts")>(
        "../daemon/client.ts",
        import.meta.url,
      );
      const self = selfCommand(["daemon"], DAEMON_V8_FLAGS);
      return { command: [self.command, ...self.args] };
    },
    examples: [
      ["mcpx daemon upgrade", "Hand the running daemon's servers to one of this version"],
      [
        "mcpx daemon upgrade --command /opt/mcpx-2/mcpx --command daemon",
        "Hand them to another mcpx",
      ],
    ],
  },
  http: { method: "POST", path: "/v1/daemon/upgrade" },
  mcp: { expose: false },
  where: { daemon: "running" },
  needsTrust: true,
  output: (z) =>
    z.object({
      upgraded: z.boolean(),
      reason: z.string().optional(),
      from: z.object({ pid: z.number(), version: z.string() }).optional(),
      to: z.object({ pid: z.number(), version: z.string() }).optional(),
      handedOver: z.array(z.object({ server: z.string(), key: z.string(), pid: z.number() })),
      stopped: z.array(
        z.object({
          server: z.string(),
          key: z.string(),
          pid: z.number().optional(),
          why: z.string(),
        }),
      ),
      durationMs: z.number().optional(),
      drainMs: z.number().optional(),
    }),
  async run(input, ctx) {
    const d = running(ctx);
    if (ctx.caller.overTcp) {
      throw new McpxError("FORBIDDEN", "A daemon is upgraded from its own machine, not over TCP", {
        hint: "Run `mcpx daemon upgrade` where the daemon runs",
      });
    }
    const words = input.command;
    if (
      !Array.isArray(words) || words.length === 0 ||
      !words.every((w) => typeof w === "string" && !w.includes("\0")) || words[0] === ""
    ) {
      throw new McpxError(
        "USAGE",
        "--command takes the words of a command line, the program first",
        {
          hint: "e.g. --command /opt/mcpx-2/mcpx --command daemon",
        },
      );
    }
    if (!d.upgrade) throw new McpxError("INTERNAL", "This daemon cannot be upgraded");
    const out = await d.upgrade({ command: words[0], args: words.slice(1) });
    return { upgraded: true, ...out };
  },
  offline: () =>
    Promise.resolve({
      upgraded: false,
      reason: "no daemon runs for this configuration: the next command starts one of this version",
      handedOver: [],
      stopped: [],
    }),
  render(out) {
    if (!out.upgraded) return `nothing to upgrade: ${out.reason}\n`;
    const lines = [
      `upgraded daemon ${out.from!.pid} (${out.from!.version}) to ${out.to!.pid} (${
        out.to!.version
      }) in ${
        formatDuration(out.durationMs ?? 0)
      }: ${out.handedOver.length} server process(es) handed over, ${out.stopped.length} stopped`,
    ];
    for (const s of out.stopped) lines.push(`  stopped ${s.server} (${s.key}): ${s.why}`);
    return lines.join("\n") + "\n";
  },
});

/** `mcpx health`: the daemon's identity, starting it if needed. */
export const health = defineOperation<Record<string, never>, Health>({
  id: "daemon.health",
  summary: "Check that the daemon answers, starting it if needed",
  params: [],
  cli: {
    command: ["health"],
    examples: [["mcpx health", "Check that the daemon answers, starting it if needed"], [
      "mcpx --json health",
      "The same as JSON",
    ]],
  },
  http: { method: "GET", path: "/v1/health" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "start" },
  needsTrust: true,
  output: (z) =>
    z.object({
      service: z.literal("mcpx"),
      version: z.string(),
      pid: z.number(),
      fingerprint: z.string(),
      config: z.string(),
      socket: z.string(),
      listen: z.string().optional(),
      startedAt: z.string(),
      uptimeMs: z.number(),
      autostarted: z.boolean(),
      logId: z.string().describe("The daemon's id in the log (`dmn-…`)"),
      recovered: z.string().optional(),
    }),
  run(_input, ctx) {
    const d = running(ctx);
    return Promise.resolve({
      service: "mcpx",
      version: d.version ?? VERSION,
      pid: d.pid,
      fingerprint: d.fingerprint,
      config: d.configPath,
      socket: d.socket,
      ...(d.listen ? { listen: d.listen } : {}),
      startedAt: new Date(d.startedAt).toISOString(),
      uptimeMs: Date.now() - d.startedAt,
      autostarted: d.autostarted,
      logId: d.logId,
      ...(d.recovered ? { recovered: d.recovered } : {}),
    });
  },
  json: (h, ctx) => ctx.rung ? { ...h, rung: ctx.rung } : h,
  render: (h, ctx) =>
    `ok: daemon ${h.pid}, up ${formatDuration(h.uptimeMs)}${
      ctx.rung ? `, via ${RUNG_WORDS[ctx.rung]}` : ""
    }, config ${h.config}\n`,
});

/** One live process, as the pool reports it. */
type InstanceRow = PoolStatus["instances"][number];

interface StatusOutput {
  running: boolean;
  config: string;
  socket: string;
  /** The TCP address it also serves on (`daemon.listen`). */
  listen?: string;
  pid?: number;
  uptimeMs?: number;
  autostarted?: boolean;
  idleExitMs?: number;
  servers: {
    namespace: string;
    name: string;
    transport: string;
    sharing: string;
    scope: string;
    live: number;
    state: string;
    error?: string;
    retryInMs?: number;
    /** Other namespaces served by the same pool (an alias whose leasing matches). */
    sharedWith: string[];
    /** Calls waiting for a lease, and how long the first of them has waited. */
    queue: { waiting: number; oldestWaitMs: number };
    instances: InstanceRow[];
  }[];
}

/**
 * The namespaces the schema cache has no good listing of, as `mcpx ls` names their state
 * (`error`, with the listing's failure, or `unlisted`); empty when the cache cannot be read.
 */
async function listedStates(
  ctx: Context,
): Promise<Map<string, { state: string; error?: string }>> {
  const out = new Map<string, { state: string; error?: string }>();
  try {
    const { loadNamespaces } = await load<typeof import("../discovery/load.ts")>(
      "../discovery/load.ts",
      import.meta.url,
    );
    for (const n of (await loadNamespaces(ctx)).namespaces) {
      if (n.state === "error" || n.state === "unlisted") {
        out.set(n.def.namespace, {
          state: n.state,
          ...(n.cached?.error ? { error: n.cached.error } : {}),
        });
      }
    }
  } catch { /* no cache to read: the pools' own states stand */ }
  return out;
}

/** `mcpx status`: the daemon and the server processes it holds. */
export const daemonStatus = defineOperation<Record<string, never>, StatusOutput>({
  id: "daemon.status",
  summary: "Show the daemon and the server processes it holds",
  description:
    "Does not start a daemon: with none running it says so. Each live process shows the KEY it serves (its scope key), its pid, uptime, calls and stderr tail; a server that failed to start shows why. STATE uses `ls`'s words: a server this daemon has not started yet shows what its last listing found (`error` with why, or `unlisted`), `ready` otherwise, and `stopping` or `disabled`. QUEUE counts the calls waiting for a lease (for a busy exclusive process, or for room under max) and how long the first has waited.",
  params: [],
  cli: {
    command: ["status"],
    examples: [[
      "mcpx status",
      "The daemon, its pools and processes, each process's last stderr line",
    ], ["mcpx --json status", "The same as JSON"]],
  },
  http: { method: "GET", path: "/v1/status" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "running" },
  output: (z) =>
    z.object({
      running: z.boolean(),
      config: z.string(),
      socket: z.string(),
      listen: z.string().optional(),
      pid: z.number().optional(),
      uptimeMs: z.number().optional(),
      autostarted: z.boolean().optional(),
      idleExitMs: z.number().optional(),
      servers: z.array(
        z.object({
          namespace: z.string(),
          name: z.string(),
          transport: z.string(),
          sharing: z.string(),
          scope: z.string(),
          live: z.number(),
          state: z.string(),
          error: z.string().optional(),
          retryInMs: z.number().optional(),
          sharedWith: z.array(z.string()),
          queue: z.object({ waiting: z.number(), oldestWaitMs: z.number() }),
          instances: z.array(
            z.object({ id: z.string(), key: z.string(), pid: z.number().nullable() }).loose(),
          ),
        }),
      ),
    }),
  async run(_input, ctx) {
    const d = running(ctx);
    const servers = await d.registry.statusInSlices();
    const listed = await listedStates(ctx);
    return {
      running: true,
      config: d.configPath,
      socket: d.socket,
      ...(d.listen ? { listen: d.listen } : {}),
      pid: d.pid,
      uptimeMs: Date.now() - d.startedAt,
      autostarted: d.autostarted,
      idleExitMs: d.idleExitMs,
      servers: servers.map((p) => {
        // A pool with nothing against it that this daemon has not started says what `ls` says
        // of it: the last listing's failure, or that it was never listed.
        const kept = p.state === "ready" && p.instances.length === 0
          ? listed.get(p.namespace)
          : undefined;
        return {
          namespace: p.namespace,
          name: p.name,
          transport: p.transport,
          sharing: p.sharing,
          scope: p.scope,
          live: p.instances.length,
          state: kept?.state ?? p.state,
          ...(p.error ? { error: p.error, retryInMs: p.retryInMs } : {}),
          ...(kept?.error ? { error: kept.error } : {}),
          sharedWith: p.sharedWith,
          queue: p.queue,
          instances: p.instances,
        };
      }),
    };
  },
  async offline(_input, ctx) {
    const fp = await ctx.fingerprint();
    return { running: false, config: fp.path, socket: (await ctx.paths()).socket, servers: [] };
  },
  // Which rung of the ladder answered (docs/daemon.md, "The ladder"): only the command knows.
  json: (s, ctx) => s.running && ctx.rung ? { ...s, rung: ctx.rung } : s,
  render(s, ctx) {
    if (!s.running) return `no daemon running for ${s.config}\n`;
    const rung = ctx.rung ? `  via ${RUNG_WORDS[ctx.rung]}` : "";
    let out = `daemon ${s.pid}  up ${formatDuration(s.uptimeMs!)}  ${
      s.autostarted ? "auto-started" : "started by hand"
    }${rung}  config ${s.config}\n`;
    if (s.servers.length === 0) return out + "no servers configured\n";
    out += "\n" + renderTable(
      ["NAMESPACE", "TRANSPORT", "SHARING", "SCOPE", "LIVE", "QUEUE", "STATE"],
      s.servers.map((r) => [
        r.namespace,
        r.transport,
        r.sharing,
        r.scope,
        String(r.live),
        r.queue.waiting
          ? `${r.queue.waiting} (oldest ${formatDuration(r.queue.oldestWaitMs)})`
          : "-",
        r.state + (r.sharedWith.length ? ` (pool shared with ${r.sharedWith.join(", ")})` : ""),
      ]),
    );
    const live = s.servers.flatMap((r) =>
      r.instances.map((i) => ({ ...i, namespace: r.namespace }))
    );
    if (live.length > 0) {
      out += "\n" + renderTable(
        ["NAMESPACE", "KEY", "PID", "UPTIME", "CALLS", "STATE", "STDERR"],
        live.map((i) => [
          i.namespace,
          clip(i.key, 40) + (i.pinned ? " (named)" : ""),
          i.pid === null ? "-" : String(i.pid),
          formatDuration(i.uptimeMs),
          String(i.calls),
          i.leases > 0 ? `busy${i.waiting ? ` (+${i.waiting} waiting)` : ""}` : i.state,
          clip(i.stderrTail.at(-1) ?? "", 60),
        ]),
      );
    }
    for (const r of s.servers.filter((r) => r.error)) {
      out += `\n${r.namespace}: ${r.error}\n`;
    }
    return out;
  },
});

interface StopOutput {
  stopped: { pid: number; config: string; forced: boolean }[];
  stale: string[];
}

/** `mcpx stop [--all]`: stop this configuration's daemon, or every daemon. */
export const daemonStop = defineOperation<{ all?: boolean }, StopOutput>({
  id: "daemon.stop",
  summary: "Stop this configuration's daemon, or every daemon with --all",
  description: "Server processes go with the daemon. Stopping what is not running is not an error.",
  params: [{ name: "all", type: "boolean", doc: "Stop every mcpx daemon of this user" }],
  cli: {
    command: ["stop"],
    examples: [["mcpx stop", "Stop this configuration's daemon and its servers"], [
      "mcpx stop --all",
      "Stop every mcpx daemon of this user",
    ]],
  },
  http: { method: "POST", path: "/v1/stop" },
  mcp: { expose: true, destructive: true },
  where: "local",
  output: (z) =>
    z.object({
      stopped: z.array(z.object({ pid: z.number(), config: z.string(), forced: z.boolean() })),
      stale: z.array(z.string()),
    }),
  async run(input, ctx) {
    const { stopDaemons } = await load<typeof import("../daemon/stop.ts")>(
      "../daemon/stop.ts",
      import.meta.url,
    );
    // A daemon elsewhere (daemon.endpoint) is asked to stop; --all stays this machine's.
    if (!ctx.daemon && ctx.boot.get("daemon.endpoint") && !input.all) {
      const { callDaemon } = await load<typeof import("../daemon/client.ts")>(
        "../daemon/client.ts",
        import.meta.url,
      );
      const answer = await callDaemon(ctx, {
        method: "POST",
        path: "/v1/stop",
        body: {},
        start: false,
      });
      return answer!.value as StopOutput;
    }
    if (!ctx.daemon) return await stopDaemons(ctx, { all: input.all ?? false });
    // Inside the daemon: stop the others first (with --all), then this one, after answering.
    const others = input.all
      ? await stopDaemons(ctx, { all: true, except: ctx.daemon.pid })
      : { stopped: [], stale: [] };
    ctx.daemon.requestStop("stop requested");
    const self = { pid: ctx.daemon.pid, config: ctx.daemon.configPath, forced: false };
    return { stopped: [...others.stopped, self], stale: others.stale };
  },
  render(out) {
    const lines = out.stopped.map((s) =>
      `stopped daemon ${s.pid}${s.forced ? " (killed)" : ""} for ${s.config}`
    );
    if (out.stale.length) lines.push(`removed ${out.stale.length} stale record(s)`);
    return (lines.length ? lines.join("\n") : "no daemon was running") + "\n";
  },
});

/** `mcpx daemons`: every daemon of this user, one per configuration. */
export const daemonsList = defineOperation<Record<string, never>, { daemons: DaemonEntry[] }>({
  id: "daemons.list",
  summary: "List every mcpx daemon of this user, one per configuration",
  params: [],
  cli: {
    command: ["daemons"],
    examples: [["mcpx daemons", "Every mcpx daemon of this user, one per configuration"], [
      "mcpx --json daemons",
      "The same as JSON",
    ]],
  },
  http: { method: "GET", path: "/v1/daemons" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  output: (z) =>
    z.object({ daemons: z.array(z.object({ pid: z.number(), state: z.string() }).loose()) }),
  async run(_input, ctx) {
    const { listDaemons } = await load<typeof import("../daemon/records.ts")>(
      "../daemon/records.ts",
      import.meta.url,
    );
    const { daemonsDir } = await load<typeof import("../paths.ts")>("../paths.ts", import.meta.url);
    return { daemons: await listDaemons(daemonsDir(ctx.boot, ctx.io.env)) };
  },
  render(out) {
    if (out.daemons.length === 0) return "no daemons\n";
    return renderTable(
      ["PID", "STATE", "UPTIME", "STARTED", "CONFIG", "SOCKET"],
      out.daemons.map((d) => [
        String(d.pid),
        d.state,
        d.uptimeMs === null ? "-" : formatDuration(d.uptimeMs),
        d.autostarted ? "auto" : "by hand",
        d.config,
        d.socket,
      ]),
    );
  },
});
