import { McpxError, messageOf } from "../errors.ts";
import { parseDuration } from "../duration.ts";
import { didYouMean, editDistance } from "../near.ts";
import { toNamespace } from "../names.ts";
import type { McpxConfig } from "./load.ts";
import { ENV_FROM, referencedVariables } from "./server_env.ts";
import { selfCommand } from "../_self.ts";
import { missingIsolation, statefulReason, statefulServer } from "./stateful.ts";

/** One entry of `mcpServers`, as other MCP hosts write it, plus mcpx's own block. */
export interface ServerConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  type?: string;
  headers?: Record<string, string>;
  disabled?: boolean;
  mcpx?: Record<string, unknown>;
  [other: string]: unknown;
}

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

/**
 * The `protocol` of a server that names none (nor does the `pool` block): over Streamable HTTP,
 * the newest revision both sides speak (`prefer-modern`: a `server/discover` probe, one round
 * trip, then `initialize` if the server is a 2025 one); over stdio and the 2024 SSE transport,
 * `legacy`. Why stdio stays on `legacy`, with the figures: docs/decisions/2026-12-protocol-default.md.
 */
export function defaultProtocol(transport: "stdio" | "http" | "sse"): Protocol {
  return transport === "http" ? "prefer-modern" : "legacy";
}

export type Protocol = (typeof PROTOCOLS)[number];
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
  /** How long a call may queue for a lease (the `pool.queueTimeout` setting, or the block's own). */
  queueTimeoutMs: number;
  /**
   * Whether an idle process of a named session may be stopped to make room under `max` (the
   * `pool.evictNamed` setting, or the block's own); by default it never is.
   */
  evictNamed: boolean;
}

/** What the server model needs of an adapter declaration (lib/adapters/declare.ts). */
export interface AdapterSource {
  name: string;
  description?: string;
  /** The file it was declared in. */
  file: string;
  /** 16 hex digits over the declaration: a server's identity changes when it does. */
  digest: string;
}
type Adapter = AdapterSource;

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
  /**
   * Where `pool.sharing` and `pool.scope` came from: the server's `mcpx` block (or its retired
   * `mode`), the top-level `pool` block, the stateful default (a server lib/config/stateful.ts
   * knows to keep per-caller state: `exclusive` + `session`), or the plain default.
   */
  leasing: "server" | "pool" | "stateful" | "default";
  /**
   * Set when its command is one lib/config/stateful.ts knows to keep per-caller state (a
   * browser), whatever its leasing: one line saying what it is and what it keeps.
   */
  stateful?: string;
  /**
   * For such a server: the flag its arguments lack for two of its processes to run at once
   * (`--isolated`), which `mcpx doctor` asks for when it may run one per session.
   */
  statefulNeeds?: string;
  /**
   * The tool filters and `disabled` it has, each with where it came from: its own block (`mcpx`;
   * `disabled` beside `command` counts as its own) or the top-level `pool` block, which applies
   * to every server whose own block does not set that key.
   */
  filters: Partial<Record<FilterKey, { value: unknown; from: "mcpx" | "pool" }>>;
  /** Everything that changes the process or how it is handed out; tool filters are not in it. */
  identity: string;
  /**
   * Where its `${VAR}` references are read: the daemon's environment, or each caller's (then
   * its processes are keyed by the values too; lib/pool/scope.ts).
   */
  envFrom: (typeof ENV_FROM)[number];
  /** The variables its entry references as `${VAR}`. */
  envNames: string[];
  /** The adapter declaration this server runs (`mcpx adapter serve`), if it is one. */
  adapter?: Adapter;
  /** The server this one exposes again under another namespace, if it is an alias. */
  aliasOf?: string;
  /**
   * Its mcpx block's `roots`, as written (paths or `file:` URIs; relative to the configuration's
   * directory). Not part of its identity: a change is told to the running process instead.
   */
  roots?: string[];
  /** Profiles that select this server; see {@linkcode selectServers}. */
  profiles: string[];
  /** Whether the server is in the default set. */
  isDefault: boolean;
  /**
   * The tools as this namespace shows them, after its `curate` block: renamed, with fixed and
   * hidden parameters taken out of their input schemas. Filters (`showsTool`) apply first.
   */
  curateTools<T extends { name: string; inputSchema: Record<string, unknown> }>(tools: T[]): T[];
  /** The server's own name of a tool shown as `name`, and the arguments fixed for it. */
  curatedCall(name: string): { tool: string; fixed: Record<string, unknown>; hidden: string[] };
  /** Whether a tool is visible (and callable) through this namespace. */
  showsTool(name: string): boolean;
  /** The configured tags of one tool: the server's `tags`, then its `toolTags` entries. */
  tagsOf(tool: string): string[];
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
        `${where}: ${pattern} is not a valid regular expression: ${messageOf(e)}`,
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
  queueTimeoutMs: 30_000,
  evictNamed: false,
};

/** How a server lib/config/stateful.ts knows to keep per-caller state is leased by default. */
export const STATEFUL_LEASING = { sharing: "exclusive", scope: "session" } as const satisfies {
  sharing: Sharing;
  scope: Scope;
};

/**
 * What the retired `mode` key meant, before `sharing` and `scope` split its two questions apart
 * (reference `sharing-and-scope`): a stateless server shared by everyone, or a process leased to
 * one session at a time.
 */
export const MODES = {
  shared: { sharing: "shared", scope: "global" },
  session: { sharing: "exclusive", scope: "session" },
} as const satisfies Record<string, { sharing: Sharing; scope: Scope }>;

/** `sharing` and `scope` from a block's retired `mode`, with the note saying what to write. */
function fromMode(
  block: Record<string, unknown>,
  where: string,
  warnings: string[],
): { sharing: Sharing; scope: Scope } | undefined {
  const mode = block.mode;
  if (mode === undefined) return undefined;
  const modes = Object.keys(MODES);
  if (typeof mode !== "string" || !Object.hasOwn(MODES, mode)) {
    throw new McpxError(
      "CONFIG_INVALID",
      `${where}: "mode" is ${JSON.stringify(mode)}; "mode" was replaced by "sharing" and "scope"`,
      {
        hint: `Write e.g. "sharing": "exclusive", "scope": "session" (docs/pools.md); "mode" ` +
          `still reads ${modes.map((m) => `"${m}"`).join(" and ")}`,
      },
    );
  }
  const both = ["sharing", "scope"].filter((k) => block[k] !== undefined);
  if (both.length > 0) {
    throw new McpxError(
      "CONFIG_INVALID",
      `${where}: has both "mode" and ${both.map((k) => `"${k}"`).join(" and ")}; drop "mode", ` +
        `which "sharing" and "scope" replace`,
    );
  }
  const { sharing, scope } = MODES[mode as keyof typeof MODES];
  warnings.push(
    `${where}: "mode" is deprecated; "mode": "${mode}" is "sharing": "${sharing}", ` +
      `"scope": "${scope}": write that instead`,
  );
  return { sharing, scope };
}

function poolSettings(
  block: Record<string, unknown>,
  base: PoolSettings,
  where: string,
  warnings: string[],
): PoolSettings {
  const out = { ...base, ...fromMode(block, where, warnings) };
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
  out.queueTimeoutMs = duration("queueTimeout") ?? out.queueTimeoutMs;
  const evict = block.evictNamed;
  if (evict !== undefined && typeof evict !== "boolean") {
    throw bad("evictNamed", evict, "true or false");
  }
  out.evictNamed = evict ?? out.evictNamed;
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
  "queueTimeout",
  "evictNamed",
  "protocol",
  "mode",
];
/**
 * The keys the top-level `pool` block shares with a server's `mcpx` block beyond leasing: tool
 * filters and `disabled`, applied to every server whose own block leaves that key out.
 */
const FILTER_KEYS = ["tools", "extraIncludeTools", "excludeTools", "disabled"] as const;
type FilterKey = (typeof FILTER_KEYS)[number];
/** Every key the top-level `pool` block accepts. */
const TOP_POOL_KEYS = [...POOL_KEYS, "default", ...FILTER_KEYS];

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
  "tags",
  "toolTags",
  "envFrom",
  "roots",
  "oauth",
  "curate",
];

/** Keys of a server entry outside its `mcpx` block that mcpx reads. */
const ENTRY_KEYS = [
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "type",
  "transport",
  "headers",
  "auth",
  "disabled",
  "aliasOf",
  "mcpx",
];

/**
 * mcpx's own fields, which mean something only inside the `mcpx` block. Written beside
 * `command` they would be ignored; `tools`, `excludeTools`, `description` and the like are left
 * out, since other hosts read fields of those names at that level.
 */
const BLOCK_ONLY = new Set([
  ...POOL_KEYS,
  "namespace",
  "extraIncludeTools",
  "profiles",
  "toolTags",
  "envFrom",
  "oauth",
  "curate",
]);

/**
 * The keys of a server entry, beside its `mcpx` block: an mcpx field written there, or a near
 * miss of a key mcpx reads (`comand`), is refused; any other key is another host's and is left
 * alone, since the same `mcpServers` object serves several hosts.
 */
function checkEntryKeys(entry: Record<string, unknown>, where: string): void {
  for (const key of Object.keys(entry)) {
    if (ENTRY_KEYS.includes(key)) continue;
    if (BLOCK_ONLY.has(key)) {
      throw new McpxError(
        "CONFIG_INVALID",
        `${where}: "${key}" belongs in the server's "mcpx" block, where mcpx reads it`,
        { hint: `Write "mcpx": { "${key}": ${JSON.stringify(entry[key])} }` },
      );
    }
    // Two edits at most: a looser match would catch other hosts' keys (`transportType`).
    const near = ENTRY_KEYS.find((k) => editDistance(key.toLowerCase(), k.toLowerCase()) <= 2);
    if (near !== undefined && key.length > 2) {
      throw new McpxError(
        "CONFIG_INVALID",
        `${where}: unknown field "${key}": did you mean "${near}"?`,
      );
    }
  }
}

/** `"tags": ["browser", "web"]`: words a search term can match whole. */
function tagList(value: unknown, field: string, where: string): string[] {
  const word = (t: unknown) =>
    typeof t === "string" && /^[^\s]+$/.test(t) && /[\p{L}\p{N}]/u.test(t);
  if (!Array.isArray(value) || !value.every(word)) {
    throw new McpxError(
      "CONFIG_INVALID",
      `${where}: "${field}" must be an array of words, such as ["browser", "web"]`,
      {
        hint:
          "A tag is one word (no spaces) with a letter or a digit in it; search matches it whole",
      },
    );
  }
  return [...new Set(value as string[])];
}

/** The `tags` and `toolTags` of a block as one function of a tool's name. */
function tagsOfBlock(block: Record<string, unknown>, where: string): (tool: string) => string[] {
  const own = block.tags === undefined ? [] : tagList(block.tags, "tags", where);
  const per: [(name: string) => boolean, string[]][] = [];
  if (block.toolTags !== undefined) {
    const t = block.toolTags;
    if (t === null || typeof t !== "object" || Array.isArray(t)) {
      throw new McpxError(
        "CONFIG_INVALID",
        `${where}: "toolTags" must be an object from tool names (or globs, or /regexps/) to tags`,
        { hint: `e.g. "toolTags": { "take_screenshot": ["image"] }` },
      );
    }
    for (const [pattern, tags] of Object.entries(t)) {
      const field = `toolTags.${pattern}`;
      per.push([toolPattern(pattern, `${where}: "${field}"`), tagList(tags, field, where)]);
    }
  }
  return (tool) => {
    const out = [...own];
    for (const [matches, tags] of per) if (matches(tool)) out.push(...tags);
    return [...new Set(out)];
  };
}

/** One tool's curation: a new name, arguments fixed (and hidden), parameters hidden. */
interface Curation {
  rename?: string;
  fixed: Record<string, unknown>;
  hide: string[];
}

/**
 * The `curate` block: `{ "<tool>": { "rename"?: "new_name", "fixed"?: { arg: value }, "hide"?:
 * ["param"] } }` (docs/configuration.md, "Curating tools").
 */
function curationOf(
  block: Record<string, unknown>,
  where: string,
): Pick<ServerDef, "curateTools" | "curatedCall"> {
  const raw = block.curate;
  const byTool = new Map<string, Curation>();
  if (raw !== undefined) {
    if (!isObject(raw)) {
      throw new McpxError(
        "CONFIG_INVALID",
        `${where}: "curate" must be an object from tool names to { rename, fixed, hide }`,
        { hint: `e.g. "curate": { "search": { "rename": "find", "fixed": { "limit": 5 } } }` },
      );
    }
    const shown = new Map<string, string>();
    for (const [tool, c] of Object.entries(raw)) {
      const at = `${where}: "curate.${tool}"`;
      if (!isObject(c)) throw new McpxError("CONFIG_INVALID", `${at} must be an object`);
      for (const k of Object.keys(c)) {
        if (!["rename", "fixed", "hide"].includes(k)) {
          throw new McpxError(
            "CONFIG_INVALID",
            `${at}: unknown field "${k}"${didYouMean(k, ["rename", "fixed", "hide"])}`,
          );
        }
      }
      if (c.rename !== undefined && (typeof c.rename !== "string" || c.rename === "")) {
        throw new McpxError("CONFIG_INVALID", `${at}: "rename" must be a tool name`);
      }
      if (c.fixed !== undefined && !isObject(c.fixed)) {
        throw new McpxError("CONFIG_INVALID", `${at}: "fixed" must be an object of arguments`);
      }
      if (
        c.hide !== undefined &&
        !(Array.isArray(c.hide) && c.hide.every((h) => typeof h === "string"))
      ) {
        throw new McpxError("CONFIG_INVALID", `${at}: "hide" must be an array of parameter names`);
      }
      const name = (c.rename as string | undefined) ?? tool;
      const clash = shown.get(name);
      if (clash !== undefined) {
        throw new McpxError(
          "CONFIG_INVALID",
          `${at}: "${name}" is also the name "curate.${clash}" shows`,
        );
      }
      shown.set(name, tool);
      byTool.set(tool, {
        rename: c.rename as string | undefined,
        fixed: (c.fixed ?? {}) as Record<string, unknown>,
        hide: (c.hide ?? []) as string[],
      });
    }
  }
  const original = new Map<string, string>();
  for (const [tool, c] of byTool) if (c.rename !== undefined) original.set(c.rename, tool);
  return {
    curateTools<T extends { name: string; inputSchema: Record<string, unknown> }>(tools: T[]) {
      if (byTool.size === 0) return tools;
      const out: T[] = [];
      for (const t of tools) {
        const c = byTool.get(t.name);
        // A tool whose name another tool was renamed to is shadowed by it.
        if (c?.rename === undefined && (original.get(t.name) ?? t.name) !== t.name) continue;
        if (!c) {
          out.push(t);
          continue;
        }
        const drop = new Set([...Object.keys(c.fixed), ...c.hide]);
        const schema = { ...t.inputSchema };
        if (isObject(schema.properties)) {
          schema.properties = Object.fromEntries(
            Object.entries(schema.properties).filter(([k]) => !drop.has(k)),
          );
        }
        if (Array.isArray(schema.required)) {
          schema.required = schema.required.filter((k) => !drop.has(String(k)));
        }
        out.push({ ...t, name: c.rename ?? t.name, inputSchema: schema });
      }
      return out;
    },
    curatedCall(name: string) {
      const tool = original.get(name) ?? name;
      const c = byTool.get(tool);
      return {
        tool,
        fixed: c?.fixed ?? {},
        hidden: c ? [...Object.keys(c.fixed), ...c.hide] : [],
      };
    },
  };
}

/**
 * A server's tool filters and `disabled`, key by key: its own block's value where it sets one
 * (for `disabled`, also the entry's own field, which other hosts read too), else the top-level
 * `pool` block's.
 */
function filtersOf(
  own: ServerConfig,
  block: Record<string, unknown>,
  pool: Record<string, unknown>,
): ServerDef["filters"] {
  const filters: ServerDef["filters"] = {};
  for (const key of FILTER_KEYS) {
    const mine = key === "disabled"
      ? (own.disabled === true || block.disabled === true ? true : block.disabled ?? own.disabled)
      : block[key];
    if (mine !== undefined) filters[key] = { value: mine, from: "mcpx" };
    else if (pool[key] !== undefined) filters[key] = { value: pool[key], from: "pool" };
  }
  return filters;
}

/**
 * Turns a configuration into server definitions, checking every field mcpx reads: the
 * entries' connection fields, their `mcpx` blocks and the top-level `pool` block.
 * @param options.warnings collects one line per deprecated key met (the caller prints them).
 * @param options.queueTimeoutMs the `pool.queueTimeout` setting (which also holds the top-level
 * pool block's `queueTimeout`); a server's mcpx block may set its own.
 * @param options.evictNamed the `pool.evictNamed` setting, likewise.
 * @throws {McpxError} CONFIG_INVALID naming the server, the field and what it expects.
 */
export function serverDefs(
  config: McpxConfig,
  options: {
    warnings?: string[];
    queueTimeoutMs?: number;
    evictNamed?: boolean;
    adapters?: readonly Adapter[];
  } = {},
): ServerDef[] {
  const warnings = options.warnings ?? [];
  const poolWhere = `"pool" in ${config.path}`;
  for (const key of Object.keys(config.pool)) {
    if (TOP_POOL_KEYS.includes(key)) continue;
    if (MCPX_KEYS.includes(key)) {
      throw new McpxError(
        "CONFIG_INVALID",
        `${poolWhere}: "${key}" is a server's own field, not one for every server`,
        { hint: `Write it in a server's "mcpx" block: "mcpx": { "${key}": … }` },
      );
    }
    throw new McpxError(
      "CONFIG_INVALID",
      `${poolWhere}: unknown field "${key}"${didYouMean(key, TOP_POOL_KEYS)}`,
    );
  }
  // Checked once here, so that a bad pool-wide filter names the pool block, not every server.
  for (const key of ["tools", "extraIncludeTools", "excludeTools"] as const) {
    patterns(config.pool[key], key, poolWhere);
  }
  if (config.pool.disabled !== undefined && typeof config.pool.disabled !== "boolean") {
    throw new McpxError("CONFIG_INVALID", `${poolWhere}: "disabled" must be true or false`);
  }
  // The top-level queueTimeout is the pool.queueTimeout setting's, resolved with its variable
  // and flag (lib/settings/resolve.ts): it is not read a second time here.
  const {
    queueTimeout: _setting,
    evictNamed: _evict,
    tools: _tools,
    extraIncludeTools: _extra,
    excludeTools: _exclude,
    disabled: _disabled,
    ...topBlock
  } = config.pool;
  const base = poolSettings(
    topBlock,
    {
      ...DEFAULTS,
      queueTimeoutMs: options.queueTimeoutMs ?? DEFAULTS.queueTimeoutMs,
      evictNamed: options.evictNamed ?? DEFAULTS.evictNamed,
    },
    `"pool" in ${config.path}`,
    warnings,
  );
  const entries: Record<string, ServerConfig> = {};
  for (const [name, raw] of Object.entries(config.mcpServers)) {
    entries[name] = checkServer(name, raw, config.path);
  }
  for (const [name, entry] of Object.entries(apiEntries(config))) {
    if (!Object.hasOwn(entries, name)) entries[name] = entry;
  }
  // Each adapter is a server entry running `mcpx adapter serve` on its own declaration.
  const adapters = new Map<string, Adapter>();
  for (const a of options.adapters ?? []) {
    if (Object.hasOwn(entries, a.name)) {
      throw new McpxError(
        "CONFIG_INVALID",
        `Adapter "${a.name}" in ${a.file} has the name of a configured server in ${config.path}; rename one`,
      );
    }
    const self = selfCommand(["adapter", "serve", a.name, "--file", a.file]);
    entries[a.name] = {
      command: self.command,
      args: self.args,
      ...(a.description ? { mcpx: { description: a.description } } : {}),
    };
    adapters.set(a.name, a);
  }
  const defs: ServerDef[] = [];
  const namespaces = new Map<string, string>();
  for (const [name, own] of Object.entries(entries)) {
    const where = `Server "${name}" in ${config.path}`;
    const block = own.mcpx ?? {};
    let entry = own;
    const aliasOf = typeof own.aliasOf === "string" ? own.aliasOf : undefined;
    if (own.aliasOf !== undefined) {
      const target = aliasOf === undefined ? undefined : entries[aliasOf];
      if (!target) {
        throw new McpxError(
          "CONFIG_INVALID",
          `${where}: "aliasOf" names no server${
            didYouMean(String(own.aliasOf), Object.keys(entries))
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
    const declared = String(entry.type ?? entry.transport ?? "");
    const transport = entry.url === undefined
      ? "stdio"
      : ["sse"].includes(declared)
      ? "sse"
      : "http";
    const protocol = block.protocol ?? config.pool.protocol ?? defaultProtocol(transport);
    if (!PROTOCOLS.includes(protocol as never)) {
      throw new McpxError(
        "CONFIG_INVALID",
        `${where}: "protocol" must be one of ${PROTOCOLS.join(", ")}`,
      );
    }
    const pool = poolSettings(block, base, where, warnings);
    const sets = (b: Record<string, unknown>) =>
      ["sharing", "scope", "mode"].some((k) => b[k] !== undefined);
    const match = adapters.has(name) ? undefined : statefulServer(entry);
    const leasing = sets(block)
      ? "server"
      : sets(topBlock)
      ? "pool"
      : match
      ? "stateful"
      : "default";
    // A server that keeps per-caller state is never shared by accident: unless a block says how
    // to lease it, each session gets a process of its own, used by one caller at a time.
    if (leasing === "stateful") Object.assign(pool, STATEFUL_LEASING);
    const tagsOf = tagsOfBlock(block, where);
    const filters = filtersOf(own, block, config.pool);
    const disabled = filters.disabled?.value === true;
    const filterWhere = (key: FilterKey) => filters[key]?.from === "pool" ? poolWhere : where;
    const only = patterns(filters.tools?.value, "tools", filterWhere("tools"));
    const extra = patterns(
      filters.extraIncludeTools?.value,
      "extraIncludeTools",
      filterWhere("extraIncludeTools"),
    ) ?? [];
    const exclude =
      patterns(filters.excludeTools?.value, "excludeTools", filterWhere("excludeTools")) ??
        [];
    const curation = curationOf(block, where);
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
    const roots = block.roots;
    if (
      roots !== undefined &&
      (!Array.isArray(roots) || !roots.every((r) => typeof r === "string" && r !== ""))
    ) {
      throw new McpxError("CONFIG_INVALID", `${where}: "roots" must be an array of directories`, {
        hint: `Write "mcpx": { "roots": ["./src", "/srv/data"] }`,
      });
    }
    const envFrom = block.envFrom ?? "daemon";
    if (!ENV_FROM.includes(envFrom as never)) {
      throw new McpxError(
        "CONFIG_INVALID",
        `${where}: "envFrom" is ${JSON.stringify(envFrom)}; expected "daemon" or "caller"`,
        {
          hint:
            `"caller" reads the server's \${VAR} references from each calling command (a process per distinct set of values)`,
        },
      );
    }
    const adapter = adapters.get(name);
    // An adapter's process is its declaration: where mcpx itself is installed does not matter.
    const identity = adapter
      ? JSON.stringify([
        "adapter",
        adapter.file,
        adapter.digest,
        protocol,
        { ...pool, queueTimeoutMs: undefined, evictNamed: undefined },
      ])
      : JSON.stringify([
        envFrom,
        entry.command,
        entry.args,
        entry.env,
        entry.cwd,
        entry.url,
        entry.headers,
        entry.auth,
        transport,
        protocol,
        // How long a caller may queue, and whether a named session's idle process may be
        // stopped to make room, change neither the process nor who shares it.
        { ...pool, queueTimeoutMs: undefined, evictNamed: undefined },
      ]);
    defs.push({
      name,
      namespace,
      description: typeof block.description === "string" ? block.description : undefined,
      disabled,
      filters,
      transport,
      entry,
      protocol: protocol as ServerDef["protocol"],
      pool,
      leasing,
      ...(match ? { stateful: statefulReason(match) } : {}),
      ...(match && missingIsolation(match, entry)
        ? { statefulNeeds: missingIsolation(match, entry) }
        : {}),
      identity,
      envFrom: envFrom as ServerDef["envFrom"],
      envNames: referencedVariables(entry),
      aliasOf,
      ...(adapter ? { adapter } : {}),
      roots: roots as string[] | undefined,
      profiles,
      isDefault: defaultOn,
      showsTool,
      ...curation,
      tagsOf,
    });
  }
  return defs;
}

/** What one `paths.apis` item says: a document, its name, and the credentials to send. */
interface ApiItem {
  spec: string;
  name?: string;
  auth?: Record<string, unknown>;
}

/**
 * The credentials of an API item as `mcpx api serve` flags and the variables they read: the
 * same `auth` shapes a server entry takes (bearer, header, query), their values `${VAR}`
 * references expanded as any server's `env` is (and checked by doctor), never from the document.
 */
function apiAuthArgs(
  auth: Record<string, unknown>,
  where: string,
): { args: string[]; env: Record<string, string> } {
  const bad = (what: string) =>
    new McpxError("CONFIG_INVALID", `The auth of ${where} ${what}`, {
      hint:
        'Write { "type": "bearer", "token": "${TOKEN}" }, or { "type": "header" | "query", "name": "…", "value": "${KEY}" }',
    });
  const text = (field: string) => {
    const v = auth[field];
    if (typeof v !== "string" || v === "") throw bad(`needs "${field}" (a string)`);
    return v;
  };
  if (auth.type === "bearer") {
    return { args: ["--bearer-env", "API_TOKEN"], env: { API_TOKEN: text("token") } };
  }
  if (auth.type === "header" || auth.type === "query") {
    return {
      args: [
        "--api-key-env",
        "API_KEY",
        auth.type === "header" ? "--api-key-header" : "--api-key-query",
        text("name"),
      ],
      env: { API_KEY: text("value") },
    };
  }
  throw bad(`has type ${JSON.stringify(auth.type)}: an API takes bearer, header or query`);
}

/**
 * The `paths.apis` of the primary configuration file, as server entries running
 * `mcpx api serve --spec <document>` (docs/sources.md).
 */
function apiEntries(config: McpxConfig): Record<string, ServerConfig> {
  const nested = isObject(config.data.paths) ? config.data.paths.apis : undefined;
  const value = nested ?? config.data["paths.apis"];
  if (value === undefined || value === "") return {};
  const list = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : null;
  const item = (v: unknown) =>
    typeof v === "string" || (isObject(v) && typeof v.spec === "string" &&
      (v.name === undefined || typeof v.name === "string") &&
      (v.auth === undefined || isObject(v.auth)));
  if (!list || !list.every(item)) {
    throw new McpxError(
      "CONFIG_INVALID",
      `"paths.apis" in ${config.path} must be a list of OpenAPI documents (files or URLs, or { "spec", "name", "auth" } objects)`,
    );
  }
  const items: ApiItem[] = [];
  for (const v of list as (string | ApiItem)[]) {
    if (typeof v !== "string") {
      items.push(v);
      continue;
    }
    const raw = v.trim();
    if (!raw) continue;
    const eq = /^([A-Za-z_][\w-]*)=(.+)$/.exec(raw);
    if (!eq && raw.includes("=") && !/^https?:/i.test(raw)) {
      throw new McpxError(
        "CONFIG_INVALID",
        `"${raw}" in paths.apis of ${config.path} is not <name>=<document>`,
        { hint: "Write a file or URL, or name=<file or URL>" },
      );
    }
    items.push(eq ? { name: eq[1], spec: eq[2] } : { spec: raw });
  }
  const dir = config.path.slice(0, config.path.lastIndexOf("/")) || "/";
  const out: Record<string, ServerConfig> = {};
  for (const it of items) {
    let spec = it.spec.trim();
    const remote = /^https?:\/\//i.test(spec);
    if (!remote && !spec.startsWith("/")) spec = `${dir}/${spec.replace(/^\.\//, "")}`;
    if (remote && !URL.canParse(spec)) {
      throw new McpxError(
        "CONFIG_INVALID",
        `"${spec}" in paths.apis of ${config.path} is not a URL`,
        { hint: "Write https://host/path/openapi.json, or a file's path" },
      );
    }
    const last = (remote ? new URL(spec).pathname : spec).split("/").filter((p) => p).at(-1) ?? "";
    let name = it.name ?? last.replace(/\.(json|ya?ml)$/i, "");
    if (!it.name && (name === "" || /^(openapi|swagger|api|spec)$/i.test(name)) && remote) {
      name = new URL(spec).hostname.split(".")[0];
    }
    if (Object.hasOwn(out, name)) continue;
    const auth = it.auth ? apiAuthArgs(it.auth, `"${name}" in paths.apis of ${config.path}`) : {
      args: [],
      env: {},
    };
    const self = selfCommand(["api", "serve", "--spec", spec, ...auth.args]);
    out[name] = {
      ...self,
      ...(Object.keys(auth.env).length ? { env: auth.env } : {}),
      mcpx: { description: `OpenAPI document ${spec}` },
    };
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The connection fields of one entry, as other MCP hosts write them. */
function checkServer(name: string, raw: unknown, path: string): ServerConfig {
  const bad = (what: string) =>
    new McpxError("CONFIG_INVALID", `Server "${name}" in ${path}: ${what}`);
  if (!isObject(raw)) throw bad("expected an object");
  const s = raw as ServerConfig;
  if (s.command === undefined && s.url === undefined && s.aliasOf === undefined) {
    throw bad(`needs "command" (a program to start) or "url" (a remote server)`);
  }
  if (s.command !== undefined && typeof s.command !== "string") {
    throw bad(`"command" must be a string`);
  }
  if (s.command !== undefined && s.url !== undefined) {
    throw bad(`has both "command" and "url": a server is a program to start or a remote one`);
  }
  if (typeof s.url === "string" && !/^https?:\/\/[^/\s]+/.test(s.url) && !s.url.includes("${")) {
    throw bad(`"url" is ${JSON.stringify(s.url)}: expected http://host[:port]/path or https://…`);
  }
  if (s.url !== undefined && typeof s.url !== "string") throw bad(`"url" must be a string`);
  if (
    s.args !== undefined && !(Array.isArray(s.args) && s.args.every((a) => typeof a === "string"))
  ) {
    throw bad(`"args" must be an array of strings`);
  }
  for (const field of ["env", "headers"] as const) {
    const v = s[field];
    if (v !== undefined && !(isObject(v) && Object.values(v).every((x) => typeof x === "string"))) {
      throw bad(`"${field}" must be an object of strings`);
    }
  }
  if (s.mcpx !== undefined && !isObject(s.mcpx)) throw bad(`"mcpx" must be an object`);
  checkEntryKeys(s, `Server "${name}" in ${path}`);
  return s;
}
