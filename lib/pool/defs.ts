import { McpxError } from "../errors.ts";
import { parseDuration } from "../duration.ts";
import { didYouMean } from "../near.ts";
import { toNamespace } from "../names.ts";
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
  /** The identifier scripts and `mcpx call` use: `mcpx.namespace`, else the name, as {@linkcode toNamespace} makes it. */
  namespace: string;
  description?: string;
  disabled: boolean;
  transport: "stdio" | "http" | "sse";
  entry: ServerConfig;
  protocol: (typeof PROTOCOLS)[number];
  pool: PoolSettings;
  /** Everything that changes the process or how it is handed out; tool filters are not in it. */
  identity: string;
  /** The server this one exposes again under another namespace, if it is an alias. */
  aliasOf?: string;
  /** Profiles that select this server; see {@linkcode selectServers}. */
  profiles: string[];
  /** Whether the server is in the default set. */
  isDefault: boolean;
  /** Whether a tool is visible (and callable) through this namespace. */
  showsTool(name: string): boolean;
}

/** Which servers a command sees: `--profile`, `--skip-default`, `--all-profiles`. */
export interface Selection {
  profiles?: string[];
  skipDefault?: boolean;
  all?: boolean;
  /**
   * Refuse a profile no server has. Set for `--profile` on the command line; a profile from the
   * environment applies to every configuration, and one without it is not a mistake.
   */
  strict?: boolean;
}

/**
 * The servers a command sees. The default set, plus the servers of each named profile; with
 * `skipDefault` only the profiles' servers; with `all` everything.
 */
export function selectServers<T extends Pick<ServerDef, "profiles" | "isDefault">>(
  defs: readonly T[],
  selection: Selection = {},
): T[] {
  if (selection.all) return [...defs];
  const wanted = new Set(selection.profiles ?? []);
  const known = [...new Set(defs.flatMap((d) => d.profiles))].sort();
  for (const p of selection.strict ? wanted : []) {
    if (!known.includes(p)) {
      throw new McpxError("USAGE", `No server has the profile "${p}"${didYouMean(p, known)}`, {
        hint: known.length
          ? `Profiles in this configuration: ${known.join(", ")}`
          : `No server in this configuration has a profile (\`"mcpx": { "profiles": [...] }\`)`,
      });
    }
  }
  return defs.filter((d) =>
    (!selection.skipDefault && d.isDefault) || d.profiles.some((p) => wanted.has(p))
  );
}

/** A tool-name pattern: an exact name, a glob (`delete_*`), or a `/regexp/`. */
export function toolPattern(pattern: string, where: string): (name: string) => boolean {
  const re = /^\/(.*)\/([a-z]*)$/.exec(pattern);
  if (re) {
    try {
      const rx = new RegExp(re[1], re[2]);
      return (name) => rx.test(name);
    } catch (e) {
      throw new McpxError(
        "CONFIG_INVALID",
        `${where}: ${pattern} is not a valid regular expression: ${(e as Error).message}`,
      );
    }
  }
  if (/[*?]/.test(pattern)) {
    const rx = new RegExp(
      "^" +
        pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll("?", ".") +
        "$",
    );
    return (name) => rx.test(name);
  }
  return (name) => name === pattern;
}

function patterns(
  value: unknown,
  field: string,
  where: string,
): ((n: string) => boolean)[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new McpxError(
      "CONFIG_INVALID",
      `${where}: "${field}" must be an array of tool names, globs or /regexps/`,
    );
  }
  return value.map((v) => toolPattern(v, `${where}: "${field}"`));
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
  for (const [name, own] of Object.entries(config.mcpServers)) {
    const where = `Server "${name}" in ${config.path}`;
    const block = own.mcpx ?? {};
    let entry = own;
    const aliasOf = typeof own.aliasOf === "string" ? own.aliasOf : undefined;
    if (own.aliasOf !== undefined) {
      const target = aliasOf === undefined ? undefined : config.mcpServers[aliasOf];
      if (!target) {
        throw new McpxError(
          "CONFIG_INVALID",
          `${where}: "aliasOf" names no server${
            didYouMean(String(own.aliasOf), Object.keys(config.mcpServers))
          }`,
        );
      }
      if (target.aliasOf !== undefined) {
        throw new McpxError(
          "CONFIG_INVALID",
          `${where}: "${aliasOf}" is itself an alias; point "aliasOf" at "${target.aliasOf}", the original`,
        );
      }
      // The alias runs the target's process; only its mcpx block is its own.
      const { mcpx: _targetBlock, ...connection } = target;
      entry = { ...connection, mcpx: block };
    }
    for (const key of Object.keys(block)) {
      if (!MCPX_KEYS.includes(key)) {
        throw new McpxError(
          "CONFIG_INVALID",
          `${where}: unknown mcpx field "${key}"${didYouMean(key, MCPX_KEYS)}`,
        );
      }
    }
    const namespace = typeof block.namespace === "string"
      ? toNamespace(block.namespace)
      : toNamespace(name);
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
    const disabled = own.disabled === true || block.disabled === true;
    const only = patterns(block.tools, "tools", where);
    const extra = patterns(block.extraIncludeTools, "extraIncludeTools", where) ?? [];
    const exclude = patterns(block.excludeTools, "excludeTools", where) ?? [];
    const showsTool = (tool: string) =>
      (!only || only.some((m) => m(tool)) || extra.some((m) => m(tool))) &&
      !exclude.some((m) => m(tool));
    const profiles = block.profiles ?? [];
    if (!Array.isArray(profiles) || !profiles.every((p) => typeof p === "string")) {
      throw new McpxError("CONFIG_INVALID", `${where}: "profiles" must be an array of names`);
    }
    const defaultOn = block.default ?? config.pool.default ?? true;
    if (typeof defaultOn !== "boolean") {
      throw new McpxError("CONFIG_INVALID", `${where}: "default" must be true or false`);
    }
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
      aliasOf,
      profiles,
      isDefault: defaultOn,
      showsTool,
    });
  }
  return defs;
}
