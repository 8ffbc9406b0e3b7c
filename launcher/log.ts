// The structured logger scripts get as `log`, and the one renderer its records are read through.
// Erasable TypeScript, no runtime APIs: the host hands in how to write and inspect.

import type { Level, LogRecord } from "./protocol.ts";
import { errorData, type Inspect, jsonSafe } from "./values.ts";

/** Levels in increasing severity. */
export const LEVELS: readonly Level[] = ["debug", "info", "warn", "error"];
const RANK: Record<string, number> = { debug: 0, info: 1, warn: 2, error: 3 };
/** Record fields that are not attributes; an attribute with one of these names gets a `_`. */
const RESERVED = new Set([
  "ts",
  "level",
  "msg",
  "template",
  "args",
  "source",
  "console",
  "fileOnly",
  "frames",
]);
const PLACEHOLDER = /\{\{|\}\}|\{([A-Za-z_$][\w$.-]*)\}/g;

/** A logging function: `log(msg)` is `log.info(msg)`. */
export interface Logger {
  (msg: unknown, ...rest: unknown[]): void;
  debug(msg: unknown, ...rest: unknown[]): void;
  info(msg: unknown, ...rest: unknown[]): void;
  warn(msg: unknown, ...rest: unknown[]): void;
  error(msg: unknown, ...rest: unknown[]): void;
  /** A logger whose records all carry `attrs` (call attributes win over bound ones). */
  with(attrs: Record<string, unknown>): Logger;
  /** The active threshold. */
  readonly level: Level;
}

/** How a logger writes and what it may ask of the runtime. */
export interface LoggerOptions {
  write(record: LogRecord): void;
  level: Level;
  inspect: Inspect;
  /** `file:line:col` of the caller of the logging function; asked for warn and above only. */
  callSite?(): string | undefined;
}

function lookup(attrs: Record<string, unknown>, name: string): { found: boolean; value?: unknown } {
  if (Object.hasOwn(attrs, name)) return { found: true, value: attrs[name] };
  let at: unknown = attrs;
  for (const part of name.split(".")) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, part)) return { found: false };
    at = (at as Record<string, unknown>)[part];
  }
  return { found: true, value: at };
}

function show(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || typeof value !== "object") return String(value);
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(jsonSafe(value));
  } catch {
    return String(value);
  }
}

/** The attribute names a template consumes (its `{placeholders}`, top-level part). */
export function placeholders(template: string): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) if (m[1]) out.push(m[1].split(".")[0]);
  return out;
}

/**
 * Fills `{name}` (or `{a.b}`) from `attrs`; `{{x}}` writes a literal `{x}`. A placeholder with no
 * attribute stays visible, since a hole in a sentence is a bug worth seeing.
 */
export function interpolate(
  template: string,
  attrs: Record<string, unknown>,
): { msg: string; templated: boolean } {
  let templated = false;
  const msg = template.replace(PLACEHOLDER, (whole, name: string | undefined) => {
    templated = true;
    if (whole === "{{") return "{";
    if (whole === "}}") return "}";
    const hit = lookup(attrs, name!);
    return hit.found ? show(hit.value) : whole;
  });
  return { msg, templated };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Makes the `log` global. */
export function createLogger(options: LoggerOptions, bound: Record<string, unknown> = {}): Logger {
  const min = RANK[options.level] ?? 1;
  const record = (level: Level, msg: unknown, rest: unknown[]) => {
    if (RANK[level] < min) return;
    const attrs: Record<string, unknown> = { ...bound };
    let args = rest;
    if (rest.length > 0 && isPlainObject(rest[0])) {
      Object.assign(attrs, rest[0]);
      args = rest.slice(1);
    }
    let text: string;
    if (typeof msg === "string") text = msg;
    else if (msg instanceof Error) {
      text = `${msg.name}: ${msg.message}`;
      args = [msg, ...args];
    } else text = options.inspect(msg);
    const { msg: filled, templated } = interpolate(text, attrs);
    const out: LogRecord = { ts: new Date().toISOString(), level, msg: filled };
    if (templated) out.template = text;
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined) continue;
      out[RESERVED.has(key) ? `_${key}` : key] = value instanceof Error
        ? errorData(value)
        : jsonSafe(value);
    }
    if (args.length > 0) out.args = args.map((a) => jsonSafe(a));
    if (RANK[level] >= 2 && options.callSite) {
      const site = options.callSite();
      if (site) out.source = site;
    }
    options.write(out);
  };
  const log = ((msg: unknown, ...rest: unknown[]) => record("info", msg, rest)) as Logger;
  for (const level of LEVELS) {
    Object.defineProperty(log, level, {
      value: (msg: unknown, ...rest: unknown[]) => record(level, msg, rest),
      enumerable: true,
    });
  }
  Object.defineProperty(log, "with", {
    value: (attrs: Record<string, unknown>) => createLogger(options, { ...bound, ...attrs }),
  });
  Object.defineProperty(log, "level", { value: options.level, enumerable: true });
  return log;
}

function two(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

function attrText(value: unknown): string {
  if (typeof value === "string") {
    return value === "" || /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  }
  if (
    isPlainObject(value) && typeof value.name === "string" && typeof value.message === "string" &&
    "stack" in value
  ) {
    return JSON.stringify(`${value.name}: ${value.message}`);
  }
  return JSON.stringify(value);
}

/**
 * One record as a terminal line: `19:44:45.911 INFO  fetched 3 pages in 412ms url=https://…`.
 * Attributes the template consumed are not repeated.
 */
export function renderRecord(record: LogRecord): string {
  const d = new Date(record.ts);
  const time = Number.isNaN(d.getTime())
    ? "--:--:--.---"
    : `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${
      two(d.getMilliseconds(), 3)
    }`;
  const level = String(record.level ?? "info").toUpperCase().padEnd(5);
  const parts = [time, level, String(record.msg ?? "")];
  if (Array.isArray(record.args) && !record.console) {
    for (const a of record.args) parts.push(typeof a === "string" ? a : attrText(a));
  }
  const used = new Set(record.template ? placeholders(record.template) : []);
  for (const [key, value] of Object.entries(record)) {
    if (RESERVED.has(key) || used.has(key)) continue;
    parts.push(`${key}=${attrText(value)}`);
  }
  if (typeof record.source === "string") parts.push(`source=${record.source}`);
  return parts.join(" ");
}
