import { McpxError } from "../errors.ts";
import { parseDuration } from "../duration.ts";
import { didYouMean } from "../near.ts";
import type { McpxConfig, ServerConfig } from "../config/load.ts";

/** How many callers may use one process at a time. */
export const SHARING = ["shared", "exclusive"] as const;
/** What a process is keyed by: one live process per distinct key. */
export const SCOPES = [
  "global",
  "repo",
  "worktree",
  "cwd",
  "session",
  "parent-session",
  "pid",
  "call",
] as const;
/** Protocol era choices for one server. */
export const PROTOCOLS = ["legacy", "prefer-modern", "force-legacy", "force-modern"] as const;

export type Sharing = (typeof SHARING)[number];
export type Scope = (typeof SCOPES)[number];

/** Leasing settings of one server: the top-level `pool` block, overridden by its `mcpx` block. */
export interface PoolSettings {
  sharing: Sharing;
  scope: Scope;
  max: number;
  min: number;
  idleTimeoutMs: number;
  callTimeoutMs: number;
  startTimeoutMs: number;
}

/** A configured server as the daemon uses it. */
export interface ServerDef {
  /** The key under `mcpServers`. */
  name: string;
  /** The identifier scripts and `mcpx call` use: `mcpx.namespace`, else the name with non-identifier characters as `_`. */
  namespace: string;
  description?: string;
  disabled: boolean;
  transport: "stdio" | "http" | "sse";
  entry: ServerConfig;
  protocol: (typeof PROTOCOLS)[number];
  pool: PoolSettings;
  /** Everything that changes the process or how it is handed out; tool filters are not in it. */
  identity: string;
}

const DEFAULTS: PoolSettings = {
  sharing: "shared",
  scope: "global",
  max: 8,
  min: 0,
  idleTimeoutMs: 10 * 60_000,
  callTimeoutMs: 60_000,
  startTimeoutMs: 30_000,
};

/** `chrome-devtools` → `chrome_devtools`; a leading digit gets a leading `_`. */
export function toIdentifier(name: string): string {
  const id = name.replace(/[^A-Za-z0-9_$]/g, "_");
  return /^[0-9]/.test(id) ? `_${id}` : id;
}

function poolSettings(
  block: Record<string, unknown>,
  base: PoolSettings,
  where: string,
): PoolSettings {
  const out = { ...base };
  const bad = (field: string, value: unknown, expected: string) =>
    new McpxError(
      "CONFIG_INVALID",
      `${where}: "${field}" is ${JSON.stringify(value)}; expected ${expected}`,
    );
  const pick = <T extends string>(field: string, values: readonly T[]): T | undefined => {
    const v = block[field];
    if (v === undefined) return undefined;
    if (typeof v !== "string" || !values.includes(v as T)) {
      throw bad(field, v, `one of ${values.join(", ")}${didYouMean(String(v), values)}`);
    }
    return v as T;
  };
  const count = (field: string, min: number): number | undefined => {
    const v = block[field];
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min) {
      throw bad(field, v, `a whole number of at least ${min}`);
    }
    return v;
  };
  const duration = (field: string): number | undefined => {
    const v = block[field];
    if (v === undefined) return undefined;
    const ms = typeof v === "number" ? v : typeof v === "string" ? parseDuration(v) : undefined;
    if (ms === undefined || ms < 0) {
      throw bad(field, v, "a duration such as 30s or 5m (or milliseconds)");
    }
    return ms;
  };
  out.sharing = pick("sharing", SHARING) ?? out.sharing;
  out.scope = pick("scope", SCOPES) ?? out.scope;
  out.max = count("max", 1) ?? out.max;
  out.min = count("min", 0) ?? out.min;
  out.idleTimeoutMs = duration("idleTimeout") ?? out.idleTimeoutMs;
  out.callTimeoutMs = duration("callTimeout") ?? out.callTimeoutMs;
  out.startTimeoutMs = duration("startTimeout") ?? out.startTimeoutMs;
  if (out.min > out.max) throw bad("min", out.min, `at most max (${out.max})`);
  return out;
}

const POOL_KEYS = [
  "sharing",
  "scope",
  "max",
  "min",
  "idleTimeout",
  "callTimeout",
  "startTimeout",
  "protocol",
];
const MCPX_KEYS = [
  ...POOL_KEYS,
  "namespace",
  "description",
  "protocol",
  "disabled",
  "tools",
  "extraIncludeTools",
  "excludeTools",
  "profiles",
  "default",
  "mode",
];

/**
 * Turns a configuration into server definitions, checking every field mcpx reads.
 * @throws {McpxError} CONFIG_INVALID naming the server, the field and what it expects.
 */
export function serverDefs(config: McpxConfig): ServerDef[] {
  for (const key of Object.keys(config.pool)) {
    if (![...POOL_KEYS, "default"].includes(key)) {
      throw new McpxError(
        "CONFIG_INVALID",
        `"pool" in ${config.path}: unknown field "${key}"${didYouMean(key, POOL_KEYS)}`,
      );
    }
  }
  const base = poolSettings(config.pool, DEFAULTS, `"pool" in ${config.path}`);
  const defs: ServerDef[] = [];
  const namespaces = new Map<string, string>();
  for (const [name, entry] of Object.entries(config.mcpServers)) {
    const where = `Server "${name}" in ${config.path}`;
    const block = entry.mcpx ?? {};
    for (const key of Object.keys(block)) {
      if (!MCPX_KEYS.includes(key)) {
        throw new McpxError(
          "CONFIG_INVALID",
          `${where}: unknown mcpx field "${key}"${didYouMean(key, MCPX_KEYS)}`,
        );
      }
    }
    const namespace = typeof block.namespace === "string"
      ? toIdentifier(block.namespace)
      : toIdentifier(name);
    const clash = namespaces.get(namespace);
    if (clash) {
      throw new McpxError(
        "CONFIG_INVALID",
        `${where}: namespace "${namespace}" is also "${clash}"'s; give one an mcpx.namespace`,
      );
    }
    namespaces.set(namespace, name);
    const protocol = block.protocol ?? config.pool.protocol ?? "legacy";
    if (!PROTOCOLS.includes(protocol as never)) {
      throw new McpxError(
        "CONFIG_INVALID",
        `${where}: "protocol" must be one of ${PROTOCOLS.join(", ")}`,
      );
    }
    const declared = String(entry.type ?? entry.transport ?? "");
    const transport = entry.url === undefined
      ? "stdio"
      : ["sse"].includes(declared)
      ? "sse"
      : "http";
    const pool = poolSettings(block, base, where);
    const disabled = entry.disabled === true || block.disabled === true;
    const identity = JSON.stringify([
      entry.command,
      entry.args,
      entry.env,
      entry.cwd,
      entry.url,
      entry.headers,
      entry.auth,
      transport,
      protocol,
      pool,
    ]);
    defs.push({
      name,
      namespace,
      description: typeof block.description === "string" ? block.description : undefined,
      disabled,
      transport,
      entry,
      protocol: protocol as ServerDef["protocol"],
      pool,
      identity,
    });
  }
  return defs;
}
