// What the launcher and the CLI agree on. Erasable TypeScript only: Node's type stripping and Bun
// load this file as it is, so no enums, parameter properties or value namespaces.

/**
 * Starts every structured line the launcher writes on stderr: a log record, or a control record
 * (`{"mcpx": …}`) carrying an emitted value, the result or a failure. Anything else on stderr is
 * the script's own and passes through untouched.
 */
export const RECORD_MARK = "\x1e";

/** The variable that hands a subprocess launcher its {@linkcode LaunchConfig}; removed at once. */
export const LAUNCH_VARIABLE = "_MCPX_LAUNCH";

/** Exit status of a script that threw, failed to load, or returned a value JSON cannot hold. */
export const EXIT_FAILED = 1;
/** Exit status when `--export` names nothing callable. */
export const EXIT_USAGE = 2;
/** Exit status when the run outlived `script.timeout` and was stopped (as timeout(1) does). */
export const EXIT_TIMEOUT = 124;

/** Log levels in increasing severity. */
export type Level = "trace" | "debug" | "info" | "warn" | "error" | "fatal";

/** Everything a launcher needs to run one script. */
export interface LaunchConfig {
  /** Absolute path of the module to import. */
  script: string;
  /** The script's arguments: `Deno.args`, `process.argv.slice(2)`, the global `args`. */
  args: string[];
  /** A named export to call with the arguments spread, instead of the default export. */
  export?: string;
  /** Absolute path of the generated client whose `__mcpxGlobals` become globals. */
  client?: string;
  /** Collect emitted values and the result as records (`mcpx --json run`) instead of printing. */
  json: boolean;
  /** Records below this level are dropped where they are made. */
  logLevel: Level;
  /** From which level records carry their call site (`off`: none); `warn` when absent. */
  logSource?: Level | "off";
  /** Variables to set before anything is imported (a Worker shares the process environment). */
  env?: Record<string, string>;
  /** Folder of the launcher's own files: their frames are left out of locations and stacks. */
  launcherDir: string;
  /**
   * Absolute path of the generated launcher program (the template, filled), which calls the
   * launcher's steps; absent, the built-in steps run in order.
   */
  program?: string;
  /** The script's name as the user gave it (`script.name` in --prefix and the rest). */
  name?: string;
}

/** Where a failure happened, when it could be found. */
export interface Location {
  file: string;
  line: number;
  col?: number;
}

/** Why a script failed, as the launcher classified it. */
export interface ScriptFailure {
  kind: "uncaught" | "syntax" | "load" | "export" | "result";
  name: string;
  message: string;
  location?: Location;
  /** The stack without launcher or runtime-internal frames. */
  stack?: string;
  /** The same frames as data, the script's innermost first. */
  frames?: {
    fn?: string;
    file?: string;
    line?: number;
    col?: number;
    async?: boolean;
    native?: boolean;
  }[];
  /** For `export`: the module's callable exports. */
  exports?: string[];
  /** What would fix it, when the launcher can tell (an unknown namespace or tool). */
  hint?: string;
}

/**
 * A structured log record, as written behind {@linkcode RECORD_MARK} and stored as one JSON line
 * (docs/logging.md). Attributes are flat, beside the fields below.
 */
export interface LogRecord {
  ts: string;
  level: Level;
  /** What happened, dotted (`daemon.start`, `instance.ready`, `call.end`, `run.start`). */
  event?: string;
  /** The id of the thing the record happened inside: `dmn-…`, `ins-…`, `run-…`, `cal-…`. */
  id?: string;
  /** Only on the record that creates `id`: the id of what created it. */
  parent?: string;
  msg: string;
  /** The message before interpolation, when it had placeholders. */
  template?: string;
  /** Values passed after the message that were not attributes. */
  args?: unknown[];
  /** `file:line:col` of the call, for warn and above (`--log-source`). */
  source?: string;
  /** Kept in the log but not shown: its text already went to stdout (a captured console.log). */
  fileOnly?: boolean;
  [attribute: string]: unknown;
}

/** A control record: a value for the envelope, or the reason the run failed. */
export type ControlRecord =
  | { mcpx: "emit"; value: unknown }
  | { mcpx: "result"; value: unknown }
  | { mcpx: "error"; failure: ScriptFailure };

/** What `mcpx repl` posts to its Worker: a statement to evaluate, or the end of the session. */
export type ReplRequest = { t: "eval"; code: string } | { t: "end" };

/** What the repl's Worker posts once a statement is evaluated (its output was posted before). */
export type ReplReply = { t: "evaluated"; ok: boolean };

/** Messages a Worker launcher posts to the CLI. */
export type WorkerMessage =
  | { t: "out"; fd: 1 | 2; data: Uint8Array }
  | { t: "exit"; code: number }
  | ReplReply;

/**
 * What the CLI posts to a Worker launcher after its {@linkcode LaunchConfig}: that the daemon is
 * ready (or why it is not). The run starts without waiting; the client's first call waits.
 */
export interface DaemonReady {
  t: "daemon";
  error?: string;
}
