// Adapter declarations: a command-line program described as an MCP server (docs/adapters.md).
// `paths.adapters` names files or folders of them; each adapter becomes a server entry that runs
// `mcpx adapter serve <name>`, so it is a namespace like any other. Nothing here runs a program.

import { McpxError, messageOf } from "../errors.ts";
import { dirname, join, resolve } from "../_path.ts";
import { hash64 } from "../_hash.ts";
import { stripJsonc } from "../config/load.ts";
import { unsafeReason } from "../config/trust.ts";
import type { Settings } from "../settings/resolve.ts";
import type { AdapterSource } from "../config/servers.ts";

/** The types a parameter takes. */
export const PARAM_TYPES = ["string", "number", "integer", "boolean"] as const;

/** One declared parameter of an adapter tool. */
export interface AdapterParam {
  name: string;
  type: (typeof PARAM_TYPES)[number];
  description?: string;
  /** Passed as `flag value` (`flag` alone for a boolean); without it, as a positional word. */
  flag?: string;
  /** Where a positional goes among the positionals, smaller first (declaration order ties). */
  positional?: number;
  /** The value used when the caller gives none (as typed, or as text: `"10"` for an integer). */
  default?: string | number | boolean;
  enum?: (string | number)[];
  /** Given an array, the flag (or positional) is repeated once per value. */
  repeatable?: boolean;
  required?: boolean;
}

/**
 * Which exit statuses make a call's result an error (`isError`): a list of codes, or `"nonzero"`
 * for every status but 0. Undeclared, no status does: the caller judges `exitCode`.
 */
export type ErrorExitCodes = number[] | "nonzero";

/** One tool: fixed argument words (with `{param}` holes) and the parameters it accepts. */
export interface AdapterTool {
  name: string;
  description?: string;
  args: string[];
  params: AdapterParam[];
  /** The tool's own `errorExitCodes`, over the adapter's. */
  errorExitCodes?: ErrorExitCodes;
}

/** One adapter: a program and the tools that may run it. */
export interface Adapter extends AdapterSource {
  name: string;
  command: string;
  description?: string;
  /** Folder the program runs in; relative to the declaration's folder. Default: the daemon's. */
  cwd?: string;
  /** The exit statuses that are failures for every tool that declares none of its own. */
  errorExitCodes?: ErrorExitCodes;
  tools: AdapterTool[];
  /** The file it was declared in. */
  file: string;
  /** 16 hex digits over the declaration: a server's identity changes when it does. */
  digest: string;
}

const FILE_ENDINGS = /\.jsonc?$/;

function invalid(where: string, what: string): McpxError {
  return new McpxError("CONFIG_INVALID", `${where}: ${what}`, {
    hint: "docs/adapters.md describes an adapter declaration",
  });
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

function name(v: unknown, where: string, field = "name"): string {
  if (typeof v !== "string" || !/^[A-Za-z_][\w-]*$/.test(v)) {
    throw invalid(
      where,
      `"${field}" must be a word of letters, digits, _ and - (got ${JSON.stringify(v)})`,
    );
  }
  return v;
}

function optionalString(o: Record<string, unknown>, field: string, where: string) {
  const v = o[field];
  if (v !== undefined && typeof v !== "string") throw invalid(where, `"${field}" must be a string`);
  return v as string | undefined;
}

function checkExitCodes(o: Record<string, unknown>, where: string): ErrorExitCodes | undefined {
  const v = o.errorExitCodes;
  if (v === undefined || v === "nonzero") return v;
  if (
    !Array.isArray(v) || v.length === 0 ||
    !v.every((c) => Number.isInteger(c) && c >= 0 && c <= 255)
  ) {
    throw invalid(
      where,
      `"errorExitCodes" must be "nonzero" or a non-empty array of exit statuses 0..255 (got ${
        JSON.stringify(v)
      })`,
    );
  }
  return v as number[];
}

function checkParam(pname: string, raw: unknown, where: string): AdapterParam {
  const at = `${where}, param "${pname}"`;
  if (!isObject(raw)) throw invalid(at, "expected an object");
  const known = [
    "name",
    "type",
    "description",
    "flag",
    "positional",
    "default",
    "enum",
    "repeatable",
    "required",
  ];
  for (const k of Object.keys(raw)) {
    if (!known.includes(k)) throw invalid(at, `unknown field "${k}"`);
  }
  const type = raw.type ?? "string";
  if (!PARAM_TYPES.includes(type as never)) {
    throw invalid(
      at,
      `"type" must be one of ${PARAM_TYPES.join(", ")} (got ${JSON.stringify(type)})`,
    );
  }
  const flag = optionalString(raw, "flag", at);
  if (flag !== undefined && !/^-{1,2}[^\s=-][^\s=]*$/.test(flag)) {
    throw invalid(
      at,
      `"flag" must start with - or -- and hold no spaces (got ${JSON.stringify(flag)})`,
    );
  }
  if (
    raw.positional !== undefined &&
    (!Number.isInteger(raw.positional) || (raw.positional as number) < 0)
  ) {
    throw invalid(at, `"positional" must be a whole number of at least 0`);
  }
  if (flag !== undefined && raw.positional !== undefined) {
    throw invalid(at, `has both "flag" and "positional": a parameter is one or the other`);
  }
  if (type === "boolean" && flag === undefined) {
    throw invalid(at, `a boolean needs a "flag": it is passed as the flag's presence`);
  }
  if (raw.enum !== undefined) {
    if (
      !Array.isArray(raw.enum) || raw.enum.length === 0 ||
      !raw.enum.every((e) => ["string", "number"].includes(typeof e))
    ) {
      throw invalid(at, `"enum" must be a non-empty array of strings or numbers`);
    }
  }
  const d = raw.default;
  if (d !== undefined && !["string", "number", "boolean"].includes(typeof d)) {
    throw invalid(at, `"default" must be a string, a number or a boolean`);
  }
  for (const f of ["repeatable", "required"]) {
    if (raw[f] !== undefined && typeof raw[f] !== "boolean") {
      throw invalid(at, `"${f}" must be true or false`);
    }
  }
  return {
    name: pname,
    type: type as AdapterParam["type"],
    description: optionalString(raw, "description", at),
    flag,
    positional: raw.positional as number | undefined,
    default: d as AdapterParam["default"],
    enum: raw.enum as AdapterParam["enum"],
    repeatable: raw.repeatable as boolean | undefined,
    required: raw.required as boolean | undefined,
  };
}

function checkTool(raw: unknown, where: string): AdapterTool {
  if (!isObject(raw)) throw invalid(where, "each tool must be an object");
  const tname = name(raw.name, where);
  const at = `${where}, tool "${tname}"`;
  for (const k of Object.keys(raw)) {
    if (!["name", "description", "args", "params", "errorExitCodes"].includes(k)) {
      throw invalid(at, `unknown field "${k}"`);
    }
  }
  const args = raw.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) {
    throw invalid(at, `"args" must be an array of strings`);
  }
  const params: AdapterParam[] = [];
  if (Array.isArray(raw.params)) {
    for (const p of raw.params) {
      if (!isObject(p)) throw invalid(at, "each param must be an object");
      params.push(checkParam(name(p.name, at), p, at));
    }
  } else if (isObject(raw.params)) {
    for (const [k, p] of Object.entries(raw.params)) {
      params.push(checkParam(name(k, at, "params"), p, at));
    }
  } else if (raw.params !== undefined) {
    throw invalid(at, `"params" must be an object (or an array) of parameters`);
  }
  const names = new Set<string>();
  for (const p of params) {
    if (names.has(p.name)) throw invalid(at, `param "${p.name}" is declared twice`);
    names.add(p.name);
  }
  for (const a of args) {
    for (const m of a.matchAll(/\{([^{}]*)\}/g)) {
      if (!names.has(m[1])) {
        throw invalid(at, `"args" has the hole {${m[1]}}, which names no param`);
      }
    }
  }
  return {
    name: tname,
    description: optionalString(raw, "description", at),
    args: args as string[],
    params,
    errorExitCodes: checkExitCodes(raw, at),
  };
}

/** Checks one declaration. @throws {McpxError} CONFIG_INVALID naming the file and the field. */
export function checkAdapter(raw: unknown, file: string): Adapter {
  if (!isObject(raw)) throw invalid(file, "an adapter must be an object");
  const aname = name(raw.name, `Adapter in ${file}`);
  const where = `Adapter "${aname}" in ${file}`;
  for (const k of Object.keys(raw)) {
    if (
      !["name", "command", "description", "cwd", "errorExitCodes", "tools", "$schema"].includes(k)
    ) {
      throw invalid(where, `unknown field "${k}"`);
    }
  }
  if (typeof raw.command !== "string" || raw.command === "") {
    throw invalid(where, `needs "command", the program to run (a name on PATH or a path)`);
  }
  if (!Array.isArray(raw.tools) || raw.tools.length === 0) {
    throw invalid(where, `needs "tools", a non-empty array`);
  }
  const tools = raw.tools.map((t) => checkTool(t, where));
  const seen = new Set<string>();
  for (const t of tools) {
    if (seen.has(t.name)) throw invalid(where, `tool "${t.name}" is declared twice`);
    seen.add(t.name);
  }
  const cwd = optionalString(raw, "cwd", where);
  return {
    name: aname,
    command: raw.command,
    description: optionalString(raw, "description", where),
    cwd: cwd === undefined ? undefined : resolve(dirname(file), cwd),
    errorExitCodes: checkExitCodes(raw, where),
    tools,
    file,
    digest: hash64(new TextEncoder().encode(JSON.stringify(raw))),
  };
}

/** The declarations in one file's text: one adapter, `{ "adapters": [...] }`, or an array. */
export function parseAdapters(text: string, file: string): Adapter[] {
  let value: unknown;
  try {
    value = JSON.parse(stripJsonc(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
  } catch (e) {
    throw new McpxError("CONFIG_INVALID", `Cannot parse adapter file ${file}: ${messageOf(e)}`);
  }
  const list = Array.isArray(value)
    ? value
    : isObject(value) && Array.isArray(value.adapters)
    ? value.adapters
    : [value];
  return list.map((a) => checkAdapter(a, file));
}

/**
 * Every adapter `paths.adapters` names: comma-separated files (`.json`, `.jsonc`) or folders of
 * them, relative entries read against `base`. A file another user could write is refused, as a
 * configuration would be (lib/config/trust.ts): it decides what programs run.
 * @throws {McpxError} CONFIG_INVALID for a missing, unsafe or malformed file, or a name twice.
 */
export function readAdapters(paths: string, base: string): Adapter[] {
  const files: string[] = [];
  for (const entry of paths.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const path = resolve(base, entry);
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(path);
    } catch {
      throw new McpxError("CONFIG_INVALID", `paths.adapters names "${path}", which does not exist`);
    }
    if (info.isDirectory) {
      const inDir = [...Deno.readDirSync(path)]
        .filter((e) => e.isFile && FILE_ENDINGS.test(e.name))
        .map((e) => join(path, e.name))
        .sort();
      files.push(...inDir);
    } else files.push(path);
  }
  const out: Adapter[] = [];
  const byName = new Map<string, string>();
  for (const file of files) {
    const unsafe = unsafeReason(file);
    if (unsafe) {
      throw new McpxError("CONFIG_UNTRUSTED", `Adapter file ${file} is not used: ${unsafe}`, {
        hint: `It decides which programs run; make it yours and writable only by you (chmod go-w)`,
      });
    }
    let text: string;
    try {
      text = Deno.readTextFileSync(file);
    } catch (e) {
      throw new McpxError("CONFIG_INVALID", `Cannot read adapter file ${file}: ${messageOf(e)}`);
    }
    for (const a of parseAdapters(text, file)) {
      const clash = byName.get(a.name);
      if (clash) {
        throw new McpxError(
          "CONFIG_INVALID",
          `Adapter "${a.name}" is declared in both ${clash} and ${file}`,
        );
      }
      byName.set(a.name, file);
      out.push(a);
    }
  }
  return out;
}

/** The adapters the `paths.adapters` setting names (none when it is empty). */
export function configuredAdapters(settings: Settings, cwd: string): Adapter[] {
  const text = settings.get("paths.adapters");
  if (text === "") return [];
  const source = settings.describe("paths.adapters").source;
  return readAdapters(text, source.kind === "file" ? dirname(source.where) : cwd);
}

/**
 * Sizes and mtimes of what `paths.adapters` names (each entry, and each file of a folder), for the
 * daemon to notice an edited declaration: those do not change the configuration's fingerprint.
 */
export function adapterStamp(settings: Settings, cwd: string): string {
  const text = settings.get("paths.adapters");
  if (text === "") return "";
  const source = settings.describe("paths.adapters").source;
  const base = source.kind === "file" ? dirname(source.where) : cwd;
  const parts: string[] = [];
  const stat = (path: string) => {
    try {
      const info = Deno.statSync(path);
      parts.push(`${path}:${info.size}:${info.mtime?.getTime()}:${info.ino}`);
      return info;
    } catch {
      parts.push(`${path}:absent`);
    }
  };
  for (const entry of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const path = resolve(base, entry);
    if (!stat(path)?.isDirectory) continue;
    try {
      for (const e of [...Deno.readDirSync(path)].sort((a, b) => a.name < b.name ? -1 : 1)) {
        if (FILE_ENDINGS.test(e.name)) stat(join(path, e.name));
      }
    } catch { /* unreadable: reading the adapters says why */ }
  }
  return parts.join("\n");
}
