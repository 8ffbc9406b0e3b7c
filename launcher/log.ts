// The one structured logger (scripts get it as `log`, the daemon writes through it) and the one
// renderer every record is read through. Erasable TypeScript, no runtime APIs: the host hands in
// how to write, inspect and find a call site. lib/ imports this file; it imports nothing of lib/.

import type { Level, LogRecord } from "./protocol.ts";
import { type Inspect, jsonSafe } from "./values.ts";

/** Levels in increasing severity. */
export const LEVELS: readonly Level[] = ["trace", "debug", "info", "warn", "error", "fatal"];
/** Each level's rank: a record is kept when its rank is at least the threshold's. */
export const LEVEL_RANK: Readonly<Record<Level, number>> = {
  trace: 0,
  debug: 1,
  info: 2,
  warn: 3,
  error: 4,
  fatal: 5,
};
/** What `--log-source` takes: a level (sites from it up), `true` (every level) or `false`. */
export type SourceSetting = Level | "true" | "false";
/** The lowest level whose records carry their call site, or `off`. */
export type SourceLevel = Level | "off";

/**
 * Record fields that are not attributes. An attribute given one of these names is stored with a
 * leading `_`, so that a script's `{ id }` never passes for the id of what it happened inside.
 */
export const RESERVED: ReadonlySet<string> = new Set([
  "ts",
  "level",
  "event",
  "id",
  "parent",
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
  trace(msg: unknown, ...rest: unknown[]): void;
  debug(msg: unknown, ...rest: unknown[]): void;
  info(msg: unknown, ...rest: unknown[]): void;
  warn(msg: unknown, ...rest: unknown[]): void;
  error(msg: unknown, ...rest: unknown[]): void;
  fatal(msg: unknown, ...rest: unknown[]): void;
  /** A logger whose records all carry `attrs` (call attributes win over bound ones). */
  with(attrs: Record<string, unknown>): Logger;
  /** The active threshold. */
  readonly level: Level;
}

/** How a logger writes and what it may ask of the runtime. */
export interface LoggerOptions {
  write(record: LogRecord): void;
  level: Level;
  /** From which level records carry their call site (default `warn`). */
  source?: SourceLevel;
  inspect: Inspect;
  /**
   * `file:line:col` of the caller, from `sites`: the call sites just above the logging call (the
   * logger's own frames left out, innermost first, a few deep), as V8 hands them to
   * `Error.prepareStackTrace`. No stack text is rendered for them. Asked only from `source` up.
   */
  callSite?(sites: readonly CallSite[]): string | undefined;
}

/** The part of a V8 call site (Deno, Node, Bun) the logger's hosts read. */
export interface CallSite {
  getFileName(): string | undefined | null;
  getScriptNameOrSourceURL?(): string | undefined | null;
  getFunctionName(): string | null;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  isNative?(): boolean;
  toString(): string;
}

/**
 * How many frames above a logging call are captured: the caller, and one more in case that is
 * the generated client. Each frame costs (it is source-mapped when rendered), so no more.
 */
const SITE_FRAMES = 2;

type StackHost = {
  stackTraceLimit?: number;
  captureStackTrace?(target: object, above?: unknown): void;
  prepareStackTrace?: unknown;
};

/** Hands back V8's call sites as they are, instead of rendering a stack text from them. */
const sitesAsData = (_error: unknown, sites: unknown) => sites;
/** Reused for every capture: its `stack` is overwritten by each. */
const holder: { stack?: unknown } = {};

/**
 * The call sites above `fn`'s frame, `SITE_FRAMES` deep, as data: for this one capture the
 * runtime's (and the launcher's) frames hook is set aside, so no frame is rendered to text and
 * none is looked up beyond what the caller reads. [] where the runtime has no V8 stack API.
 */
export function captureAbove(fn: unknown): CallSite[] {
  const E = Error as unknown as StackHost;
  if (!E.captureStackTrace) return [];
  const limit = E.stackTraceLimit;
  const hook = E.prepareStackTrace;
  E.stackTraceLimit = SITE_FRAMES;
  E.prepareStackTrace = sitesAsData;
  try {
    E.captureStackTrace(holder, fn);
    const sites = holder.stack;
    holder.stack = undefined;
    return Array.isArray(sites) ? sites : [];
  } finally {
    E.prepareStackTrace = hook;
    E.stackTraceLimit = limit;
  }
}

/** `--log-source` as given (`true`, `false`, a level) as the level sites are recorded from. */
export function sourceLevel(setting: string): SourceLevel {
  if (setting === "true" || setting === "") return "trace";
  if (setting === "false") return "off";
  return (LEVELS as readonly string[]).includes(setting) ? setting as Level : "warn";
}

/** What a missing placeholder looks up to (a value no attribute can hold). */
const MISSING: unique symbol = Symbol("missing");

function lookup(attrs: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(attrs, name)) return attrs[name];
  if (name.indexOf(".") < 0) return MISSING;
  let at: unknown = attrs;
  for (const part of name.split(".")) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, part)) return MISSING;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
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

interface Parsed {
  /** Literal text around the placeholders: `texts.length === names.length + 1`. */
  texts: string[];
  names: string[];
  /** Whether the text had any placeholder or `{{`/`}}`. */
  templated: boolean;
}

const PARSED = new Map<string, Parsed>();

function parse(template: string): Parsed {
  let parsed = PARSED.get(template);
  if (parsed) return parsed;
  const texts: string[] = [];
  const names: string[] = [];
  let templated = false;
  let last = 0;
  let text = "";
  for (const m of template.matchAll(PLACEHOLDER)) {
    templated = true;
    text += template.slice(last, m.index);
    last = m.index! + m[0].length;
    if (m[0] === "{{") text += "{";
    else if (m[0] === "}}") text += "}";
    else {
      texts.push(text);
      names.push(m[1]);
      text = "";
    }
  }
  texts.push(text + template.slice(last));
  parsed = { texts, names, templated };
  // Templates are the literal strings of a program's log calls: few. Interpolated text passed
  // as a template (a message built by hand) is not kept forever.
  if (PARSED.size >= 2000) PARSED.clear();
  PARSED.set(template, parsed);
  return parsed;
}

/**
 * Fills `{name}` (or `{a.b}`) from `attrs`; `{{x}}` writes a literal `{x}`. A placeholder with no
 * attribute stays visible, since a hole in a sentence is a bug worth seeing.
 */
export function interpolate(
  template: string,
  attrs: Record<string, unknown>,
): { msg: string; templated: boolean } {
  if (template.indexOf("{") < 0 && template.indexOf("}") < 0) {
    return { msg: template, templated: false };
  }
  const parsed = parse(template);
  return { msg: fill(parsed, attrs), templated: parsed.templated };
}

function fill({ texts, names }: Parsed, attrs: Record<string, unknown>): string {
  let msg = texts[0];
  for (let i = 0; i < names.length; i++) {
    const v = lookup(attrs, names[i]);
    msg += (v === MISSING ? `{${names[i]}}` : typeof v === "string" ? v : show(v)) + texts[i + 1];
  }
  return msg;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * An Error as data: name, message, stack, its own fields (`code`…) and its cause chain (`cause`,
 * each one captured the same way, up to eight deep).
 */
export function errorRecord(error: Error, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  for (const key of Object.keys(error)) {
    if (key === "cause") continue;
    out[key] = jsonSafe((error as unknown as Record<string, unknown>)[key]);
  }
  if (error.stack) out.stack = error.stack;
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== undefined) {
    out.cause = cause instanceof Error
      ? (depth < 8 ? errorRecord(cause, depth + 1) : `${cause.name}: ${cause.message}`)
      : jsonSafe(cause);
  }
  return out;
}

function value(v: unknown): unknown {
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "number":
      if (Number.isFinite(v)) return v;
  }
  return v instanceof Error ? errorRecord(v) : jsonSafe(v);
}

let lastMs = -1;
let lastIso = "";

/** The time as ISO text, formatted once per millisecond however many records share it. */
function now(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** The fields a record carries besides its attributes: what it is and what it happened inside. */
export interface RecordFields {
  /** What happened, dotted: `server.start`, `call.end`, `run.start`. */
  event?: string;
  /** The id of the thing the record happened inside (daemon, instance, session, run, call). */
  id?: string;
  /** Only on the record that creates `id`: the id of what created it. */
  parent?: string;
}

/**
 * Builds one record: `msg` is a template unless `literal`; a plain-object first rest argument is
 * attributes (over `bound`), anything else goes to `args`; an Error message becomes `args[0]`.
 */
export function makeRecord(
  level: Level,
  msg: unknown,
  rest: readonly unknown[],
  options: {
    bound?: Record<string, unknown>;
    fields?: RecordFields;
    inspect?: Inspect;
    literal?: boolean;
    source?: string;
  } = {},
): LogRecord {
  return build(
    level,
    msg,
    rest,
    options.bound,
    options.inspect,
    options.source,
    options.fields,
    options.literal,
  );
}

function build(
  level: Level,
  msg: unknown,
  rest: readonly unknown[],
  bound: Record<string, unknown> | undefined,
  inspect: Inspect | undefined,
  source: string | undefined,
  fields?: RecordFields,
  literal?: boolean,
): LogRecord {
  let attrs: Record<string, unknown> | undefined = bound;
  let args: readonly unknown[] = rest;
  if (rest.length > 0 && isPlainObject(rest[0])) {
    attrs = bound ? { ...bound, ...rest[0] } : rest[0];
    args = rest.length === 1 ? [] : rest.slice(1);
  }
  let text: string;
  if (typeof msg === "string") text = msg;
  else if (msg instanceof Error) {
    text = `${msg.name}: ${msg.message}`;
    args = [msg, ...args];
  } else text = inspect ? inspect(msg) : show(msg);
  // Field order is the stored line's: ts, level, event, id, parent, msg, template, attributes.
  const out = { ts: now(), level } as LogRecord;
  if (fields) {
    if (fields.event !== undefined) out.event = fields.event;
    if (fields.id !== undefined) out.id = fields.id;
    if (fields.parent !== undefined) out.parent = fields.parent;
  }
  out.msg = text;
  if (!literal && (text.indexOf("{") >= 0 || text.indexOf("}") >= 0)) {
    const parsed = parse(text);
    out.msg = fill(parsed, attrs ?? {});
    if (parsed.templated) out.template = text;
  }
  if (attrs) {
    for (const key in attrs) {
      const v = attrs[key];
      if (v === undefined) continue;
      out[RESERVED.has(key) ? `_${key}` : key] = value(v);
    }
  }
  if (args.length > 0) out.args = args.map(value);
  if (source) out.source = source;
  return out;
}

function noop(): void {}

/** Makes the `log` global: a level below the threshold is a function that does nothing. */
export function createLogger(options: LoggerOptions, bound?: Record<string, unknown>): Logger {
  const min = LEVEL_RANK[options.level] ?? LEVEL_RANK.info;
  const from = options.source ?? "warn";
  const siteFrom = from === "off" ? Infinity : LEVEL_RANK[from] ?? LEVEL_RANK.warn;
  const { write, inspect, callSite } = options;
  const method = (level: Level) => {
    const rank = LEVEL_RANK[level];
    if (rank < min) return noop;
    if (rank < siteFrom || callSite === undefined) {
      return (msg: unknown, ...rest: unknown[]) => {
        write(build(level, msg, rest, bound, inspect, undefined));
      };
    }
    const traced = (msg: unknown, ...rest: unknown[]) => {
      write(build(level, msg, rest, bound, inspect, callSite(captureAbove(above ?? traced))));
    };
    return traced;
  };
  // `log()` itself is info: its call site is read above it, not above the info method.
  let above: unknown;
  const info = method("info");
  const log = ((msg: unknown, ...rest: unknown[]) => {
    above = log;
    try {
      info(msg, ...rest);
    } finally {
      above = undefined;
    }
  }) as Logger;
  for (const level of LEVELS) {
    Object.defineProperty(log, level, { value: method(level), enumerable: true });
  }
  Object.defineProperty(log, "with", {
    value: (attrs: Record<string, unknown>) => createLogger(options, { ...bound, ...attrs }),
  });
  Object.defineProperty(log, "level", { value: options.level, enumerable: true });
  return log;
}

/** The forms a record is rendered in: `text` for people, `logfmt`, `json` (one line each). */
export const FORMATS = ["text", "logfmt", "json"] as const;
/** A rendering format. */
export type Format = (typeof FORMATS)[number];

/** How records are rendered. */
export interface RenderOptions {
  format?: Format;
  /** ANSI colour for the level (a terminal, and no NO_COLOR). */
  color?: boolean;
}

const COLOR: Record<string, string> = {
  trace: "\x1b[90m",
  debug: "\x1b[36m",
  info: "\x1b[32m",
  warn: "\x1b[33m",
  error: "\x1b[31m",
  fatal: "\x1b[1;35m",
};

function two(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

function isErrorData(value: unknown): value is { name: string; message: string } {
  return isPlainObject(value) && typeof value.name === "string" &&
    typeof value.message === "string" && "stack" in value;
}

function attrText(value: unknown): string {
  if (typeof value === "string") {
    return value === "" || /[\s"=\\]/.test(value) ? JSON.stringify(value) : value;
  }
  if (isErrorData(value)) return JSON.stringify(`${value.name}: ${value.message}`);
  return JSON.stringify(value) ?? String(value);
}

function clock(ts: unknown): string {
  const d = new Date(String(ts));
  return Number.isNaN(d.getTime())
    ? "--:--:--.---"
    : `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${
      two(d.getMilliseconds(), 3)
    }`;
}

/** Fields shown in their own place, never as `key=value` in text form. */
const HIDDEN = new Set([...RESERVED]);

/**
 * One record as one line (no newline). `text`: `19:44:45.911 INFO  fetched 3 pages in 412ms
 * url=https://…`, attributes the template consumed not repeated; `logfmt`: every field as
 * `key=value`; `json`: the record itself.
 */
export function renderRecord(record: LogRecord, options: RenderOptions = {}): string {
  const format = options.format ?? "text";
  if (format === "json") return JSON.stringify(record);
  const levelName = String(record.level ?? "info");
  if (format === "logfmt") {
    const parts: string[] = [];
    for (const [key, v] of Object.entries(record)) {
      if (v === undefined || key === "console" || key === "fileOnly") continue;
      if (key === "args" && record.console) continue;
      parts.push(`${key}=${attrText(v)}`);
    }
    return parts.join(" ");
  }
  let level = levelName.toUpperCase().padEnd(5);
  if (options.color) level = `${COLOR[levelName] ?? ""}${level}\x1b[0m`;
  const parts = [clock(record.ts), level, String(record.msg ?? "")];
  if (Array.isArray(record.args) && !record.console) {
    for (const a of record.args) parts.push(typeof a === "string" ? a : attrText(a));
  }
  const used = new Set(record.template ? placeholders(record.template) : []);
  for (const [key, v] of Object.entries(record)) {
    if (HIDDEN.has(key) || used.has(key) || v === undefined) continue;
    parts.push(`${key}=${attrText(v)}`);
  }
  if (typeof record.event === "string") parts.push(`event=${record.event}`);
  if (typeof record.source === "string") parts.push(`source=${record.source}`);
  return parts.join(" ");
}
