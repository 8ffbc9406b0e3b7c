// Console capture: every member of the runtime's console, redirected faithfully. The runtime's own
// Console class does the formatting (format specifiers, inspect, group indentation, table, count,
// time, assert, trace), printing through a function of ours; each member then decides where its
// text goes. Erasable TypeScript, no runtime APIs: the host hands in the runtime's Console.

import { LEVEL_RANK } from "./log.ts";
import type { Level, LogRecord } from "./protocol.ts";
import { captureFrames } from "./frames.ts";
import { formatArgs, type Inspect, jsonSafe } from "./values.ts";

/** The runtime's console, made to print through `print` (`stderr`: where the runtime sends it). */
export type ConsoleFactory = (
  print: (text: string, stderr: boolean) => void,
) => Record<string, unknown> | undefined;

/** Members that carry a level: their text becomes a record at that level. */
const LEVELED: Record<string, Level> = {
  debug: "debug",
  info: "info",
  warn: "warn",
  error: "error",
  assert: "error",
  trace: "info",
};

/** Devtools markers: nothing to print, kept as file-only records rather than lost. */
const MARKERS = ["profile", "profileEnd", "timeStamp"];

/**
 * The members handled by printing through the runtime's Console: what reaches stdout stays on
 * stdout (it is the script's result) and is also recorded, marked file-only.
 */
const PRINTING = [
  "log",
  "dir",
  "dirxml",
  "table",
  "count",
  "countReset",
  "time",
  "timeLog",
  "timeEnd",
  "group",
  "groupCollapsed",
  "groupEnd",
  "clear",
];

/** What capture needs of the launcher. */
export interface CaptureOptions {
  make: ConsoleFactory;
  /** Writes to the script's stdout. */
  out(text: string): void;
  record(record: LogRecord): void;
  /** Records below this rank are dropped (debug 0 … error 3). */
  min: number;
  /**
   * Set when nothing is to be recorded (`--no-capture-console` in a Worker, which shares the
   * process's streams): the text goes to `out` and `err` as the runtime would write it.
   */
  err?(text: string): void;
  /** The runtime's inspect, for a runtime whose Console cannot print through a function. */
  inspect: Inspect;
}

const RANK = LEVEL_RANK;

function named<T>(name: string, fn: T): T {
  Object.defineProperty(fn, "name", { value: name });
  return fn;
}

/**
 * Redirects every member of `console`. Where the runtime's Console cannot be made to print
 * through a function (Bun's is native), the members that print to stdout are left as they are,
 * and the levelled ones are formatted with the runtime's inspect; false is returned then.
 */
export function captureConsole(options: CaptureOptions): boolean {
  const target = console as unknown as Record<string, unknown>;
  let chunks: { text: string; stderr: boolean }[] | undefined;
  const inner = options.make((text, stderr) => {
    if (chunks) chunks.push({ text, stderr });
    else options.out(text);
  });
  if (!inner && options.err === undefined) {
    for (const [member, level] of Object.entries(LEVELED)) {
      const original = target[member] as (...a: unknown[]) => void;
      if (typeof original !== "function") continue;
      target[member] = named(member, (...args: unknown[]) => {
        if (member === "assert") {
          if (args[0]) return;
          args = args.length > 1 ? ["Assertion failed:", ...args.slice(1)] : ["Assertion failed"];
        }
        if (RANK[level] < options.min) return;
        const msg = (member === "trace" ? "Trace: " : "") + formatArgs(args, options.inspect);
        const record: LogRecord = { ts: new Date().toISOString(), level, msg, console: member };
        if (args.length > 0) record.args = args.map((a) => jsonSafe(a));
        if (member === "trace") {
          record.frames = captureFrames(0, 50).map(({ text: _text, ...f }) => f);
        }
        options.record(record);
      });
    }
    // What reaches stdout stays the runtime's own; the stored copy is formatted with its inspect.
    for (const member of ["log", "dir", "dirxml"]) {
      const original = target[member] as (...a: unknown[]) => void;
      if (typeof original !== "function") continue;
      target[member] = named(member, (...args: unknown[]) => {
        original.apply(console, args);
        if (RANK.info < options.min) return;
        const record: LogRecord = {
          ts: new Date().toISOString(),
          level: "info",
          msg: formatArgs(args, options.inspect),
          console: member,
          fileOnly: true,
        };
        if (args.length > 0) record.args = args.map((a) => jsonSafe(a));
        options.record(record);
      });
    }
    return false;
  }
  if (!inner) return false;
  const call = (member: string, args: unknown[]) => {
    const outer = chunks;
    chunks = [];
    try {
      (inner[member] as (...a: unknown[]) => unknown).apply(inner, args);
    } finally {
      const got = chunks;
      chunks = outer;
      settle(member, args, got);
    }
  };
  const settle = (member: string, args: unknown[], got: { text: string; stderr: boolean }[]) => {
    if (got.length === 0) return;
    if (options.err) {
      for (const c of got) (c.stderr ? options.err : options.out)(c.text);
      return;
    }
    const stdout = got.filter((c) => !c.stderr).map((c) => c.text).join("");
    const stderr = got.filter((c) => c.stderr).map((c) => c.text).join("");
    const level = LEVELED[member];
    if (level === undefined && stdout) {
      options.out(stdout);
      emit("info", stdout, member, args, true);
    }
    const text = level === undefined ? stderr : stdout + stderr;
    if (text) emit(level ?? "warn", text, member, args, false);
  };
  const emit = (
    level: Level,
    text: string,
    member: string,
    args: unknown[],
    fileOnly: boolean,
  ) => {
    if (RANK[level] < options.min) return;
    const record: LogRecord = {
      ts: new Date().toISOString(),
      level,
      msg: text.endsWith("\n") ? text.slice(0, -1) : text,
      console: member,
    };
    if (args.length > 0) record.args = args.map((a) => jsonSafe(a));
    if (fileOnly) record.fileOnly = true;
    if (member === "trace") {
      record.frames = captureFrames(0, 50).map(({ text: _text, ...f }) => f);
    }
    options.record(record);
  };
  for (const member of [...Object.keys(LEVELED), ...PRINTING]) {
    if (typeof inner[member] !== "function") continue;
    target[member] = named(member, (...args: unknown[]) => call(member, args));
  }
  for (const member of options.err ? [] : MARKERS) {
    target[member] = named(member, (...args: unknown[]) => {
      emit("debug", `console.${member}(${args.map(String).join(", ")})`, member, args, true);
    });
  }
  return true;
}
