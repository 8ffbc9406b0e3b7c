// What the daemon answers and hears as the client of its servers: `roots/list` from the
// configuration (a server's mcpx block `roots`, else `servers.roots`, else the working directory
// of the call that started the process), `logging/setLevel` at `servers.logLevel` and each
// `notifications/message` into the daemon's log under the server's name, and the bus events of
// what servers say about themselves (`tools.changed`). A configuration edit that changes a
// server's roots is told to its running processes (`notifications/roots/list_changed`).

import { resolve } from "../_path.ts";
import type { ServerDef } from "../config/servers.ts";
import type { ConnectOptions } from "../mcp/connect.ts";
import type { McpConnection, ServerSpec } from "../mcp/types.ts";
import type { EventBus } from "../events/bus.ts";
import type { LogSink } from "../log/daemon.ts";

type Level = "debug" | "info" | "warn" | "error";

/** One MCP root. */
export interface Root {
  uri: string;
  name?: string;
}

/** The options of {@linkcode ClientHalf}. */
export interface ClientHalfOptions {
  /** The configuration file's directory: relative roots are read from it. */
  configDir: string;
  /** `servers.roots`: comma-separated directories, empty for the caller's working directory. */
  roots: string;
  /** `servers.logLevel`: what `logging/setLevel` asks for (`off`: nothing is asked). */
  logLevel: string;
  log: LogSink;
  bus?: EventBus;
}

/** A directory (or a `file:` URI) as a root. */
export function toRoot(dir: string, base: string): Root {
  if (/^file:/i.test(dir)) {
    const path = decodeURIComponent(new URL(dir).pathname);
    return { uri: new URL(dir).href, name: path.split("/").filter(Boolean).pop() ?? path };
  }
  const path = resolve(base, dir);
  const uri = new URL(`file://${path.split("/").map(encodeURIComponent).join("/")}`).href;
  return { uri, name: path.split("/").filter(Boolean).pop() ?? path };
}

/** The roots of one server: its own, else the global setting, else the caller's directory. */
export function rootsOf(
  def: Pick<ServerDef, "roots"> | undefined,
  global: string,
  configDir: string,
  callerCwd: string | undefined,
): Root[] {
  const own = def?.roots;
  if (own && own.length > 0) return own.map((d) => toRoot(d, configDir));
  const list = global.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (list.length > 0) return list.map((d) => toRoot(d, configDir));
  return callerCwd ? [toRoot(callerCwd, configDir)] : [];
}

/** The syslog levels of MCP, lowest first, and the daemon log level each is written at. */
const MCP_LEVELS: Record<string, Level> = {
  debug: "debug",
  info: "info",
  notice: "info",
  warning: "warn",
  error: "error",
  critical: "error",
  alert: "error",
  emergency: "error",
};

export class ClientHalf {
  readonly #options: ClientHalfOptions;
  readonly #defs = new Map<string, ServerDef>();
  /** Live connections by server name, with the caller directory each started under. */
  readonly #live = new Map<string, Set<{ conn: McpConnection; cwd?: string }>>();

  constructor(defs: ServerDef[], options: ClientHalfOptions) {
    this.#options = options;
    this.setDefs(defs);
  }

  /** Takes up a configuration's servers; those whose roots changed are told so. */
  setDefs(defs: ServerDef[]): void {
    const before = new Map(this.#defs);
    this.#defs.clear();
    for (const def of defs) this.#defs.set(def.name, def);
    for (const [name, live] of this.#live) {
      const was = before.get(name);
      const now = this.#defs.get(name);
      if (!was || !now) continue;
      if (JSON.stringify(was.roots ?? null) === JSON.stringify(now.roots ?? null)) continue;
      for (const { conn } of live) void conn.notify?.("notifications/roots/list_changed");
      this.#options.log("info", "server.roots_changed", `Told "${name}" its roots changed`, {
        server: name,
      });
    }
  }

  /** The roots one server is answered with. */
  roots(server: string, cwd: string | undefined): Root[] {
    const o = this.#options;
    return rootsOf(this.#defs.get(server), o.roots, o.configDir, cwd);
  }

  /** The client-half options of one connection. */
  options(spec: ServerSpec): Pick<
    ConnectOptions,
    "capabilities" | "onServerRequest" | "onNotification"
  > {
    const server = spec.name;
    const cwd = spec.callerCwd;
    return {
      capabilities: { roots: true },
      onServerRequest: (method) => {
        if (method === "roots/list") return Promise.resolve({ roots: this.roots(server, cwd) });
        return Promise.reject({ code: -32601, message: `Method not found: ${method}` });
      },
      onNotification: (method, params) => this.#heard(server, method, params),
    };
  }

  /** A connection that started: asked for its log messages, and kept for roots changes. */
  started(spec: ServerSpec, conn: McpConnection, timeoutMs: number): void {
    const entry = { conn, cwd: spec.callerCwd };
    let live = this.#live.get(spec.name);
    if (!live) this.#live.set(spec.name, live = new Set());
    live.add(entry);
    void conn.ended.then(() => {
      live.delete(entry);
      if (live.size === 0 && this.#live.get(spec.name) === live) this.#live.delete(spec.name);
    });
    if (this.#options.logLevel !== "off") {
      void conn.setLoggingLevel?.(this.#options.logLevel, timeoutMs);
    }
  }

  #heard(server: string, method: string, params: unknown): void {
    if (method === "notifications/message") {
      const p = (params ?? {}) as { level?: unknown; logger?: unknown; data?: unknown };
      const level = MCP_LEVELS[String(p.level)] ?? "info";
      const text = typeof p.data === "string" ? p.data : JSON.stringify(p.data);
      const attrs: Record<string, unknown> = { server, level: p.level };
      if (typeof p.logger === "string") attrs.logger = p.logger;
      if (typeof p.data !== "string") attrs.data = p.data;
      this.#options.log(level, "server.log", `${server}: ${text}`, attrs);
      return;
    }
    const changed = /^notifications\/(tools|prompts|resources)\/list_changed$/.exec(method);
    if (changed) this.#options.bus?.publish(`${changed[1]}.changed`, { server });
  }
}
