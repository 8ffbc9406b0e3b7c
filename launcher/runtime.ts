// The launcher proper: installs the globals, imports the script, calls its entry point and
// reports the outcome, identically under a Deno Worker, Deno, Bun and Node. The host (worker.ts or
// main.ts) supplies the few things that differ. Erasable TypeScript only.

import { createLogger, LEVEL_RANK as RANK, type Logger } from "./log.ts";
import { describeFailure, type FailureContext, userLocation } from "./failure.ts";
import {
  type ControlRecord,
  EXIT_FAILED,
  EXIT_USAGE,
  type LaunchConfig,
  type Level,
  type LogRecord,
  RECORD_MARK,
  type ScriptFailure,
} from "./protocol.ts";
import { formatArgs, type Inspect, jsonProblem, jsonSafe, unbox } from "./values.ts";

/** What differs between runtimes. */
export interface Host {
  /** Writes to the script's stdout (the result). */
  out(text: string): void;
  /** Writes to the script's stderr (diagnostics and records). */
  err(text: string): void;
  /** Ends the run with `code`, after what was written has been delivered. */
  exit(code: number): void;
  inspect: Inspect;
  setArgs(args: string[], script: string): void;
  setEnv(env: Record<string, string>): void;
  /** Registers the handler for errors nothing caught (uncaught exceptions, unhandled rejections). */
  onUncaught(handler: (error: unknown) => void): void;
  /** The status the script set without exiting (`Deno.exitCode`, `process.exitCode`). */
  exitCode(): number;
  /**
   * Whether console.log and the other stdout members must be rerouted through `out` (a Worker
   * shares the process's stdout, which the CLI must see to cap and collect).
   */
  routeConsole: boolean;
}

/** A `file:` URL for an absolute path, each segment escaped. */
export function fileUrl(path: string): string {
  return "file://" + path.split("/").map(encodeURIComponent).join("/");
}

function install(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, {
    value,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

function named<T extends (...args: never[]) => unknown>(name: string, fn: T): T {
  Object.defineProperty(fn, "name", { value: name });
  return fn;
}

/**
 * Redirects the console faithfully: error, warn, info, debug, trace and failed asserts become
 * records at their level; console.log stays the script's stdout. In a Worker the members that
 * print to stdout are reimplemented over `host.out`, with the runtime's own inspect.
 */
function captureConsole(host: Host, record: (r: LogRecord) => void, min: number): void {
  const c = console as unknown as Record<string, unknown>;
  const toRecord = (level: Level, prefix = "") => (...args: unknown[]) => {
    if (RANK[level] < min) return;
    record({
      ts: new Date().toISOString(),
      level,
      msg: prefix + formatArgs(args, host.inspect),
      ...(args.length > 0 ? { args: args.map((a) => jsonSafe(a)) } : {}),
      console: true,
    });
  };
  for (const level of ["error", "warn", "info", "debug"] as const) {
    c[level] = named(level, toRecord(level));
  }
  const trace = toRecord("debug", "Trace: ");
  c.trace = named("trace", (...args: unknown[]) => {
    const stack = (new Error().stack ?? "").split("\n").slice(2).join("\n");
    trace(...args, ...(stack ? ["\n" + stack] : []));
  });
  const failed = toRecord("error", "Assertion failed");
  c.assert = named("assert", (condition?: unknown, ...args: unknown[]) => {
    if (!condition) failed(...(args.length ? [":", ...args] : []));
  });
  if (!host.routeConsole) return;
  let indent = "";
  const print = (text: string) =>
    host.out((indent ? text.split("\n").map((l) => indent + l).join("\n") : text) + "\n");
  const log = (...args: unknown[]) => print(formatArgs(args, host.inspect));
  c.log = named("log", log);
  c.dir = named("dir", (value: unknown) => print(host.inspect(value)));
  c.dirxml = named("dirxml", log);
  c.table = named("table", (data: unknown) => print(host.inspect(data)));
  c.group = named("group", (...args: unknown[]) => {
    if (args.length) log(...args);
    indent += "  ";
  });
  c.groupCollapsed = named("groupCollapsed", c.group as (...a: unknown[]) => void);
  c.groupEnd = named("groupEnd", () => void (indent = indent.slice(2)));
  const counts = new Map<string, number>();
  c.count = named("count", (label = "default") => {
    const n = (counts.get(label) ?? 0) + 1;
    counts.set(label, n);
    print(`${label}: ${n}`);
  });
  c.countReset = named("countReset", (label = "default") => void counts.delete(label));
  const timers = new Map<string, number>();
  const elapsed = (label: string) =>
    `${label}: ${(performance.now() - timers.get(label)!).toFixed(3)}ms`;
  c.time = named("time", (label = "default") => void timers.set(label, performance.now()));
  c.timeLog = named("timeLog", (label = "default", ...args: unknown[]) => {
    if (timers.has(label)) log(elapsed(label), ...args);
  });
  c.timeEnd = named("timeEnd", (label = "default") => {
    if (!timers.has(label)) return;
    print(elapsed(label));
    timers.delete(label);
  });
}

function renderResult(value: unknown): string {
  const v = unbox(value);
  if (typeof v === "string") return v.endsWith("\n") ? v : v + "\n";
  return JSON.stringify(v, null, 2) + "\n";
}

function exportsOf(mod: Record<string, unknown>): string[] {
  return Object.keys(mod).filter((k) => typeof mod[k] === "function").sort();
}

/** Runs one script under `host`, then calls `host.exit` with its status. */
export async function launch(host: Host, cfg: LaunchConfig): Promise<void> {
  const fctx: FailureContext = {
    script: cfg.script,
    launcherDir: cfg.launcherDir,
    ...(cfg.client ? { client: cfg.client } : {}),
  };
  let finished = false;
  const write = (line: unknown) => host.err(RECORD_MARK + JSON.stringify(line) + "\n");
  const control = (c: ControlRecord) => write(c);
  const finish = (code: number) => {
    if (finished) return;
    finished = true;
    host.exit(code);
  };
  const fail = (failure: ScriptFailure, code = EXIT_FAILED) => {
    if (finished) return;
    control({ mcpx: "error", failure });
    finish(code);
  };

  if (cfg.env) host.setEnv(cfg.env);
  host.setArgs(cfg.args, cfg.script);
  // The client's namespaces, so that a misspelt one (or tool) is named with what exists.
  let namespaces: Record<string, unknown> = {};
  const explain = (failure: ScriptFailure): ScriptFailure => {
    if (failure.kind !== "uncaught" || !cfg.client) return failure;
    const names = Object.keys(namespaces);
    const undefinedName = /^([\p{L}\p{N}\p{M}_$]+) is not defined/u.exec(failure.message)?.[1];
    if (undefinedName && !names.includes(undefinedName)) {
      return {
        ...failure,
        hint: `no namespace "${undefinedName}"; the namespaces are ${
          names.join(", ") || "(none)"
        } (\`mcpx ls\`)`,
      };
    }
    const call = /^([\p{L}\p{N}\p{M}_$]+)\.([\p{L}\p{N}\p{M}_$]+) is not a function/u.exec(
      failure.message,
    );
    const ns = call && names.includes(call[1])
      ? namespaces[call[1]] as Record<string, unknown>
      : undefined;
    if (call && ns) {
      const tools = Object.keys(ns);
      return {
        ...failure,
        hint: tools.length
          ? `${call[1]} has no tool "${call[2]}"; its tools are ${tools.join(", ")} (\`mcpx types ${
            call[1]
          }\`)`
          : `the client has no tools for ${
            call[1]
          }: it was never listed, or listing failed (\`mcpx ls\` says which; \`mcpx refresh\` lists it)`,
      };
    }
    return failure;
  };
  host.onUncaught((error) => fail(explain(describeFailure(error, fctx))));

  const g = globalThis as unknown as Record<string, unknown>;
  const callSite = (stack: string) => {
    const at = userLocation(stack, fctx);
    return at ? `${at.file}:${at.line}${at.col ? `:${at.col}` : ""}` : undefined;
  };
  const log: Logger = createLogger({
    write,
    level: cfg.logLevel,
    source: cfg.logSource ?? "warn",
    inspect: host.inspect,
    callSite,
  });
  const emit = named("emit", (value: unknown) => {
    const problem = jsonProblem(value, "the value");
    if (problem) throw new TypeError(`emit() takes JSON values: ${problem}`);
    if (cfg.json) control({ mcpx: "emit", value: unbox(value) });
    else host.out(JSON.stringify(unbox(value)) + "\n");
  });
  install(g, "log", log);
  install(g, "emit", emit);
  install(g, "args", [...cfg.args]);
  captureConsole(host, write, RANK[cfg.logLevel] ?? 1);

  if (cfg.client) {
    let client: Record<string, unknown>;
    try {
      client = await import(fileUrl(cfg.client));
    } catch (error) {
      return fail(describeFailure(error, fctx, true));
    }
    namespaces = (client.default ?? {}) as Record<string, unknown>;
    const globals = (client.__mcpxGlobals ?? {}) as Record<string, unknown>;
    // A namespace never hides a runtime global (a server named "process" stays tools.process).
    for (const [name, value] of Object.entries(globals)) if (!(name in g)) install(g, name, value);
  }

  let mod: Record<string, unknown>;
  try {
    mod = await import(fileUrl(cfg.script));
  } catch (error) {
    return fail(explain(describeFailure(error, fctx, true)));
  }
  if (finished) return;

  let result: unknown;
  let what = "the default export";
  try {
    if (cfg.export !== undefined) {
      what = `export "${cfg.export}"`;
      const fn = mod[cfg.export];
      if (typeof fn !== "function") {
        const exports = exportsOf(mod);
        return fail({
          kind: "export",
          name: "UsageError",
          message: `${
            fn === undefined ? "There is no" : "Not a function:"
          } export "${cfg.export}"; ${
            exports.length
              ? `the functions it exports: ${exports.join(", ")}`
              : "it exports no functions"
          }`,
          exports,
        }, EXIT_USAGE);
      }
      result = await fn(...cfg.args);
    } else if (typeof mod.default === "function") {
      result = await mod.default([...cfg.args]);
    }
  } catch (error) {
    return fail(explain(describeFailure(error, fctx)));
  }
  if (finished) return;
  if (result !== undefined) {
    const problem = jsonProblem(result, "the result");
    if (problem) {
      return fail({
        kind: "result",
        name: "TypeError",
        message: `${what[0].toUpperCase()}${
          what.slice(1)
        } returned a value that is not JSON: ${problem}`,
      });
    }
    if (cfg.json) control({ mcpx: "result", value: unbox(result) });
    else host.out(renderResult(result));
  }
  finish(host.exitCode());
}
