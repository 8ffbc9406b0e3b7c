import { McpxError } from "../errors.ts";
import { parseDuration } from "../duration.ts";
import { didYouMean } from "../near.ts";
import { envName, flagName, type SettingKey, SETTINGS, type SettingSpec } from "./table.ts";

/** Where a value came from. */
export interface SettingSource {
  kind: "default" | "file" | "env" | "flag";
  /** The file path, variable name or flag spelling. */
  where: string;
}

/** A resolved setting: its value, where it came from, and what it overrode. */
export interface ResolvedSetting {
  key: string;
  value: string | number | boolean;
  /** The value as it was written. */
  text: string;
  source: SettingSource;
  overrode: { value: string | number | boolean; text: string; source: SettingSource }[];
}

/** A value given on the command line, before parsing. */
export interface FlagValue {
  key: string;
  text: string;
  spelling: string;
}

/** A configuration file's settings layer: its path and its parsed top-level object. */
export interface FileLayer {
  path: string;
  data: Record<string, unknown>;
}

type Value<K extends SettingKey> = (typeof SETTINGS)[K]["type"] extends "boolean" ? boolean
  : (typeof SETTINGS)[K]["type"] extends "integer" | "duration" ? number
  : string;

/** Top-level configuration keys that are configuration, not settings. */
const CONFIG_KEYS = new Set(["mcpServers", "pool", "$schema"]);
/** `MCPX_*` variables that are not settings. */
const OTHER_VARIABLES = new Set([
  "MCPX_SESSION_ID",
  "MCPX_SESSION_OWNER",
  "MCPX_SESSION_HOLDER",
  "MCPX_RUN_PID",
  "MCPX_SESSION_MINTED",
  "MCPX_PARENT_SESSION_ID",
  "MCPX_DAEMON_CHILD",
  "MCPX_DEBUG",
  "MCPX_TOKEN_FILE",
  "MCPX_CALLER_ENV",
  "MCPX_TRACE_IDS",
  "MCPX_SERVE_TOKEN",
  "MCPX_DAEMON_START",
]);

const SPECS = SETTINGS as Record<string, SettingSpec>;

/** The resolved set of settings, each remembering its source and what it overrode. */
export class Settings {
  /** The settings given somewhere; a key absent here holds its default. */
  readonly #values: Map<string, ResolvedSetting>;
  /** Warnings met while resolving (unknown keys and the like), one line each. */
  readonly warnings: readonly string[];

  constructor(values: Map<string, ResolvedSetting>, warnings: string[]) {
    this.#values = values;
    this.warnings = warnings;
  }

  /** The value of one setting. */
  get<K extends SettingKey>(key: K): Value<K> {
    return this.describe(key).value as Value<K>;
  }

  /** The full record of one setting. */
  describe(key: SettingKey): ResolvedSetting {
    return this.#values.get(key) ?? defaultSetting(key);
  }

  /** Every setting, in table order. */
  all(): ResolvedSetting[] {
    return Object.keys(SPECS).map((key) => this.describe(key as SettingKey));
  }
}

// Defaults are parsed when first read, not at every start: most commands read a handful of the
// table's settings, and parsing all of them cost a start ~0.25 ms (performance.now() around
// resolveSettings() in the built CLI). A test parses every default.
const DEFAULTS = new Map<string, ResolvedSetting>();

function defaultSetting(key: string): ResolvedSetting {
  let found = DEFAULTS.get(key);
  if (!found) {
    const text = SPECS[key].default;
    const source: SettingSource = { kind: "default", where: "default" };
    found = { key, value: parseSettingValue(key, text, source), text, source, overrode: [] };
    DEFAULTS.set(key, found);
  }
  return found;
}

/**
 * Parses one value of a setting from the text a user typed.
 * @throws {McpxError} USAGE for flags, SETTING_INVALID otherwise, naming the value and the fix.
 */
export function parseSettingValue(
  key: string,
  text: string,
  source: SettingSource,
): string | number | boolean {
  const spec = SPECS[key];
  const fail = (expected: string): never => {
    const where = source.kind === "default" ? "its default" : source.where;
    throw new McpxError(
      source.kind === "flag" ? "USAGE" : "SETTING_INVALID",
      `Invalid value "${text}" for ${key} (from ${where}): expected ${expected}`,
    );
  };
  switch (spec.type) {
    case "boolean": {
      const t = text.trim().toLowerCase();
      if (["true", "1", "yes", "on"].includes(t)) return true;
      if (["false", "0", "no", "off", ""].includes(t)) return false;
      return fail("true or false");
    }
    case "integer": {
      // By hand: a regular expression's first use costs a start-up ~0.15 ms, and every start
      // parses the integer defaults.
      const t = text.trim();
      let i = t[0] === "-" ? 1 : 0;
      if (i === t.length) return fail("a whole number");
      for (; i < t.length; i++) if (t[i] < "0" || t[i] > "9") return fail("a whole number");
      return Number(t);
    }
    case "duration": {
      const ms = parseDuration(text);
      return ms === undefined ? fail("a duration such as 500ms, 30s, 5m or 4h") : ms;
    }
    case "enum": {
      if (!spec.values!.includes(text)) return fail(`one of ${spec.values!.join(", ")}`);
      return text;
    }
    default:
      return text;
  }
}

/** Collects `{dotted key → raw value}` from one file, with its unknown keys and double spellings. */
function fileEntries(layer: FileLayer, warnings: string[]): Map<string, unknown> {
  const found = new Map<string, { value: unknown; spelling: string }>();
  const put = (key: string, value: unknown, spelling: string) => {
    if (!Object.hasOwn(SPECS, key)) {
      warnings.push(
        `Unknown setting "${spelling}" in ${layer.path}${didYouMean(key, Object.keys(SPECS))}`,
      );
      return;
    }
    const prior = found.get(key);
    if (prior) {
      throw new McpxError(
        "SETTING_INVALID",
        `${key} is set twice in ${layer.path}, as "${prior.spelling}" and as "${spelling}": keep one`,
      );
    }
    if (SPECS[key].early) {
      warnings.push(
        `Setting "${key}" in ${layer.path} is ignored: it is read before files, so set ${
          envName(key)
        } or ${flagName(key)}`,
      );
      return;
    }
    found.set(key, { value, spelling });
  };
  for (const [top, value] of Object.entries(layer.data)) {
    if (top === "pool" && value !== null && typeof value === "object" && !Array.isArray(value)) {
      // The pool block is server configuration (lib/config/servers.ts), but a key of it that is
      // also a setting (pool.queueTimeout) is that setting's file spelling.
      for (const [sub, v] of Object.entries(value)) {
        if (Object.hasOwn(SPECS, `pool.${sub}`)) put(`pool.${sub}`, v, `pool.${sub}`);
      }
      continue;
    }
    if (CONFIG_KEYS.has(top)) continue;
    if (top.includes(".")) put(top, value, top);
    else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const [sub, v] of Object.entries(value)) put(`${top}.${sub}`, v, `${top}.${sub}`);
    } else put(top, value, top);
  }
  return new Map([...found].map(([k, v]) => [k, v.value]));
}

/**
 * Resolves every setting: defaults, then files (nearest last), then the environment, then flags.
 * @throws {McpxError} when a value is malformed or a setting is spelled twice at one level.
 */
export function resolveSettings(input: {
  env: Readonly<Record<string, string>>;
  files?: readonly FileLayer[];
  flags?: readonly FlagValue[];
  /** Warnings met before resolving (files left out), kept first. */
  warnings?: readonly string[];
}): Settings {
  const warnings: string[] = [...(input.warnings ?? [])];
  const values = new Map<string, ResolvedSetting>();
  // Every malformed value is found before any is reported, so that a command with two bad flags
  // is told about both at once.
  const invalid: McpxError[] = [];
  const set = (key: string, text: string, source: SettingSource) => {
    let value: string | number | boolean;
    try {
      value = parseSettingValue(key, text, source);
    } catch (e) {
      if (!(e instanceof McpxError)) throw e;
      invalid.push(e);
      return;
    }
    const prior = values.get(key) ?? defaultSetting(key);
    values.set(key, {
      key,
      value,
      text,
      source,
      overrode: prior
        ? [{ value: prior.value, text: prior.text, source: prior.source }, ...prior.overrode]
        : [],
    });
  };
  for (const layer of input.files ?? []) {
    for (const [key, raw] of fileEntries(layer, warnings)) {
      if (SPECS[key].splice && Array.isArray(raw)) {
        // A list of sources, null standing for the layers below: one line `-` in the text.
        if (raw.every((x) => x === null || typeof x === "string")) {
          set(key, raw.map((x) => x ?? "-").join("\n"), { kind: "file", where: layer.path });
          continue;
        }
      }
      if (SPECS[key].items && Array.isArray(raw)) {
        const text = raw.map((x) =>
          typeof x === "string"
            ? x
            : x !== null && typeof x === "object" && typeof x.spec === "string"
            ? (typeof x.name === "string" ? `${x.name}=${x.spec}` : x.spec)
            : JSON.stringify(x)
        );
        set(key, text.join(", "), { kind: "file", where: layer.path });
        continue;
      }
      if (raw !== null && typeof raw === "object") {
        throw new McpxError(
          "SETTING_INVALID",
          `Invalid value for ${key} in ${layer.path}: expected a ${SPECS[key].type}, not an object`,
        );
      }
      set(key, String(raw), { kind: "file", where: layer.path });
    }
  }
  // Every setting's variable (and alias) starts MCPX_: with none set, there is nothing to read or
  // to warn about, and the start skips deriving the names.
  const mentioned = Object.keys(input.env).some((name) => name.startsWith("MCPX_"));
  const known = new Set<string>(OTHER_VARIABLES);
  for (const [key, spec] of mentioned ? Object.entries(SPECS) : []) {
    const names = [envName(key), ...(spec.envAliases ?? [])];
    names.forEach((n) => known.add(n));
    const given = names.filter((n) => input.env[n] !== undefined);
    const distinct = new Set(given.map((n) => input.env[n]));
    if (distinct.size > 1) {
      throw new McpxError(
        "SETTING_INVALID",
        `${given.join(" and ")} both set ${key} and disagree ("${
          given.map((n) => input.env[n]).join('" vs "')
        }"): unset one`,
      );
    }
    if (given.length > 0) set(key, input.env[given[0]], { kind: "env", where: given[0] });
  }
  for (const name of Object.keys(input.env)) {
    if (name.startsWith("MCPX_") && !known.has(name)) {
      warnings.push(`Unknown variable ${name}${didYouMean(name, known)}`);
    }
  }
  const spellings = new Map<string, string>();
  for (const flag of input.flags ?? []) {
    const prior = spellings.get(flag.key);
    if (prior !== undefined && prior !== flag.spelling) {
      throw new McpxError(
        "USAGE",
        `${flag.key} is given twice on the command line, as ${prior} and ${flag.spelling}: keep one`,
      );
    }
    spellings.set(flag.key, flag.spelling);
    set(flag.key, flag.text, { kind: "flag", where: flag.spelling });
  }
  if (invalid.length === 1) throw invalid[0];
  if (invalid.length > 1) {
    throw new McpxError(
      invalid[0].code,
      `${invalid.length} invalid settings:\n${invalid.map((e) => `  - ${e.message}`).join("\n")}`,
    );
  }
  return new Settings(values, warnings);
}
