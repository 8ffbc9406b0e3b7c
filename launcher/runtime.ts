// The launcher's steps: install the globals, capture the console, import the script, call its entry
// point and report the outcome, identically under a Deno Worker, Deno, Bun and Node. The generated
// program (the template of lib/scripts/template.ts, filled) calls them in its own order; the host
// (worker.ts or main.ts) supplies the few things that differ. Erasable TypeScript only.

import { type CallSite, createLogger, LEVEL_RANK as RANK, type Logger } from "./log.ts";
import { describeFailure, type FailureContext, siteText } from "./failure.ts";
import { captureConsole, type ConsoleFactory } from "./console.ts";
import {
  captureFrames,
  errorFrames,
  fileUrl,
  type FrameOptions,
  installStackTraces,
  isRuntimeFrame,
} from "./frames.ts";
import {
  type ControlRecord,
  EXIT_FAILED,
  EXIT_USAGE,
  type LaunchConfig,
  RECORD_MARK,
  type ScriptFailure,
} from "./protocol.ts";
import { type Inspect, jsonProblem, unbox } from "./values.ts";

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
  /** The runtime's own Console, printing through a function (console capture). */
  makeConsole: ConsoleFactory;
  /** A Worker shares the process's streams: its console must print through `out` and `err`. */
  sharesStdio?: boolean;
  /** How stack frames are shown and mapped back to their sources. */
  frames: Omit<FrameOptions, "hide">;
}

export { fileUrl };

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

/** A result as `mcpx run` prints it: a string as it is, anything else as indented JSON. */
export function renderResult(value: unknown): string {
  const v = unbox(value);
  if (typeof v === "string") return v.endsWith("\n") ? v : v + "\n";
  return JSON.stringify(v, null, 2) + "\n";
}

function exportsOf(mod: Record<string, unknown>): string[] {
  return Object.keys(mod).filter((k) => typeof mod[k] === "function").sort();
}

/** What a run's generated program sees of the script (`script` in --prefix and the rest). */
export interface ScriptInfo {
  path: string;
  name: string;
  args: string[];
  export?: string;
}

/** How the entry ended: `result` in --suffix and --on-error. */
export interface RunResult {
  ok: boolean;
  value?: unknown;
  error?: unknown;
  ms: number;
}

/**
 * The steps a generated launcher program calls, in template order (@globals, @console, @import,
 * @entry, @onSuccess, @onError, @suffix). Installed as `globalThis[Symbol.for("mcpx.launcher")]`.
 */
export interface Launcher {
  script: ScriptInfo;
  globals(): Promise<void>;
  captureConsole(): void;
  importScript(load?: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>>;
  entry(mod: Record<string, unknown>): Promise<unknown>;
  succeed(value: unknown): void;
  /** `outside`: thrown by the program itself, outside its try (not parsing, or @globals left out). */
  fail(error: unknown, outside?: boolean): void;
  end(result?: RunResult): void;
}

/** Where the generated program finds its {@linkcode Launcher}. */
export const LAUNCHER_KEY: unique symbol = Symbol.for("mcpx.launcher") as never;

/** A failure already classified (an import that failed, a missing export), carried as a throw. */
class Classified extends Error {
  readonly failure: ScriptFailure;
  readonly code: number;
  constructor(failure: ScriptFailure, code: number) {
    super(failure.message);
    this.name = failure.name;
    this.failure = failure;
    this.code = code;
  }
}

/** Makes the steps of one run under `host`. */
export function createLauncher(host: Host, cfg: LaunchConfig): Launcher {
  const fctx: FailureContext = {
    script: cfg.script,
    launcherDir: cfg.launcherDir,
    ...(cfg.client ? { client: cfg.client } : {}),
    ...(cfg.program ? { program: cfg.program } : {}),
  };
  const dir = cfg.launcherDir.endsWith("/") ? cfg.launcherDir : cfg.launcherDir + "/";
  installStackTraces({
    ...host.frames,
    hide: (f) =>
      isRuntimeFrame(f) || f.file!.startsWith(dir) ||
      (cfg.program !== undefined && f.file === cfg.program),
  });
  let finished = false;
  let failed = false;
  const write = (line: unknown) => host.err(RECORD_MARK + JSON.stringify(line) + "\n");
  const control = (c: ControlRecord) => write(c);
  const finish = (code: number) => {
    if (finished) return;
    finished = true;
    host.exit(code);
  };
  const report = (failure: ScriptFailure, code = EXIT_FAILED) => {
    if (finished || failed) return;
    failed = true;
    exitWith = code;
    control({ mcpx: "error", failure });
  };
  let exitWith = EXIT_FAILED;

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
  host.onUncaught((error) => {
    report(explain(describeFailure(error, fctx)));
    finish(exitWith);
  });

  const g = globalThis as unknown as Record<string, unknown>;
  const min = RANK[cfg.logLevel] ?? 1;
  const what = cfg.export !== undefined ? `export "${cfg.export}"` : "the default export";

  let consoleDone = false;
  // Without capture (--no-capture-console, or a --launcher leaving @console out) a Worker's
  // console still has to print through the CLI, which holds its output to the bound.
  const routeOnly = () => {
    if (consoleDone || !host.sharesStdio) return;
    consoleDone = true;
    captureConsole({
      make: host.makeConsole,
      out: host.out,
      err: host.err,
      record: write,
      min,
      inspect: host.inspect,
    });
  };

  const launcher: Launcher = {
    script: {
      path: cfg.script,
      name: cfg.name ?? cfg.script.split("/").pop()!.replace(/\.[mc]?[jt]s$/, ""),
      args: [...cfg.args],
      ...(cfg.export !== undefined ? { export: cfg.export } : {}),
    },
    async globals() {
      // The logger hands over the few call sites above its call, as data: only their places are
      // read (no stack text rendered), each mapped once.
      const map = host.frames.map;
      const callSite = (sites: readonly CallSite[]) => siteText(sites, fctx, map);
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
      install(
        g,
        "captureFrames",
        // This wrapper's own frame is the launcher's, left out with the rest of them.
        named(
          "captureFrames",
          (skip = 0, limit = 50) => captureFrames(Number(skip), Number(limit)),
        ),
      );
      install(g, "errorFrames", named("errorFrames", (error: unknown) => errorFrames(error)));
      if (cfg.client) {
        let client: Record<string, unknown>;
        try {
          client = await import(fileUrl(cfg.client));
        } catch (error) {
          throw new Classified(describeFailure(error, fctx, true), EXIT_FAILED);
        }
        namespaces = (client.default ?? {}) as Record<string, unknown>;
        const globals = (client.__mcpxGlobals ?? {}) as Record<string, unknown>;
        // A namespace never hides a runtime global (a server named "process" stays tools.process).
        for (const [name, value] of Object.entries(globals)) {
          if (!(name in g)) install(g, name, value);
        }
      }
    },
    captureConsole() {
      captureConsole({
        make: host.makeConsole,
        out: host.out,
        record: write,
        min,
        inspect: host.inspect,
      });
      consoleDone = true;
    },
    async importScript(load) {
      routeOnly();
      try {
        return load ? await load() : await import(fileUrl(cfg.script));
      } catch (error) {
        throw new Classified(explain(describeFailure(error, fctx, true)), EXIT_FAILED);
      }
    },
    async entry(mod) {
      if (cfg.export !== undefined) {
        const fn = mod[cfg.export];
        if (typeof fn !== "function") {
          const exports = exportsOf(mod);
          throw new Classified(
            {
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
            },
            EXIT_USAGE,
          );
        }
        return await fn(...cfg.args);
      }
      if (typeof mod.default === "function") return await mod.default([...cfg.args]);
      return undefined;
    },
    succeed(value) {
      if (finished || value === undefined) return;
      const problem = jsonProblem(value, "the result");
      if (problem) {
        throw new Classified(
          {
            kind: "result",
            name: "TypeError",
            message: `${what[0].toUpperCase()}${
              what.slice(1)
            } returned a value that is not JSON: ${problem}`,
          },
          EXIT_FAILED,
        );
      }
      if (cfg.json) control({ mcpx: "result", value: unbox(value) });
      else host.out(renderResult(value));
    },
    fail(error, outside) {
      if (error instanceof Classified) return report(error.failure, error.code);
      const failure = explain(describeFailure(error, fctx, outside));
      if (outside && failure.name === "ReferenceError" && /\b__mcpx\w*\b/.test(failure.message)) {
        failure.hint = "a --launcher uses the launcher's steps after @globals, which defines them";
      }
      report(failure);
    },
    end() {
      finish(failed ? exitWith : host.exitCode());
    },
  };
  return launcher;
}

/**
 * The built-in sequence, for a run with no generated program: what the default template
 * expands to.
 */
async function defaultProgram(l: Launcher): Promise<void> {
  const started = performance.now();
  const result: RunResult = { ok: false, ms: 0 };
  try {
    await l.globals();
    l.captureConsole();
    const mod = await l.importScript();
    result.value = await l.entry(mod);
    l.succeed(result.value);
    result.ok = true;
  } catch (error) {
    result.error = error;
    l.fail(error);
  } finally {
    result.ms = performance.now() - started;
    l.end(result);
  }
}

/** Runs one script under `host`: its generated program when there is one, else the built-in steps. */
export async function launch(host: Host, cfg: LaunchConfig): Promise<void> {
  const l = createLauncher(host, cfg);
  (globalThis as Record<symbol, unknown>)[LAUNCHER_KEY] = l;
  if (!cfg.program) return await defaultProgram(l);
  try {
    await import(fileUrl(cfg.program));
    // A --launcher without @suffix never ends the run itself: its entry has finished by now.
    l.end();
  } catch (error) {
    // The program did not load (a --launcher that does not parse), or stopped outside its try (a
    // --launcher without @globals, a --before that threw).
    l.fail(error, true);
    l.end();
  }
}
