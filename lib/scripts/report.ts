// Reporting a run: where a failure happened as the user reads it, and what is printed, streamed
// to the terminal with the exit status returned, or under --json one envelope.

import { formatDuration } from "../duration.ts";
import type { Context } from "../context.ts";
import type { OutputBound } from "../output/bound.ts";
import type { LogRecord, ScriptFailure } from "../../launcher/protocol.ts";
import type { Ended } from "./launch.ts";
import { boundEnvelope, type RunOutput } from "./output.ts";
import type { RuntimeName } from "./select.ts";

/** Where a failure happened, as the envelope shows it. */
export interface FailureReport {
  kind: ScriptFailure["kind"] | "timeout";
  name: string;
  message: string;
  /** `file:line:col`, the path relative to the caller's folder when inside it. */
  location?: string;
  /** What would fix it, when known (the namespaces or tools that do exist). */
  hint?: string;
  stack?: string;
}

/** The one document `mcpx --json run` prints. */
export interface RunEnvelope {
  ok: boolean;
  exitCode: number;
  durationMs: number;
  runtime: RuntimeName;
  script: string;
  session: string;
  /** The run's id in the log (`run-…`): `mcpx log --chain` starts from it. */
  runId: string;
  result?: unknown;
  results: unknown[];
  stdout: string;
  logs: LogRecord[];
  stderr: string;
  error?: FailureReport;
  /** Set when the envelope passed `output.maxBytes`: the printed one is cut, the file whole. */
  truncated?: true;
  /** The file holding the whole envelope. */
  spilledTo?: string;
  /** The whole envelope's size in bytes. */
  bytes?: number;
}

/** What a run returns to the CLI: the exit status, or under --json the whole envelope. */
export type RunOutcome = { exitCode: number } | RunEnvelope;

/** How the files of a run are named to the user. */
export interface Places {
  /** A path relative to the caller's folder when inside it; the exec program is `exec`. */
  display(path: string): string;
  /** `file:line:col` as the user reads it; exec lines are the code's own. */
  place(file: string, line: number, col?: number): string;
  /** A `file:line:col` text (a log record's source) rewritten by {@linkcode Places.place}. */
  source(text: string): string;
}

/**
 * Names a run's files for the user of folder `cwd`. `exec` is the exec program written to
 * `execFile`, its code's first line at line `offset + 1`, `lines` lines long.
 */
export function places(
  cwd: string,
  execFile?: string,
  exec?: { offset: number; lines: number },
): Places {
  const display = (path: string) => {
    if (path === execFile) return "exec";
    return path.startsWith(cwd + "/") ? path.slice(cwd.length + 1) : path;
  };
  const place = (file: string, line: number, col?: number) => {
    const l = exec && file === execFile
      ? Math.min(exec.lines, Math.max(1, line - exec.offset))
      : line;
    return `${display(file)}:${l}${col !== undefined ? `:${col}` : ""}`;
  };
  const source = (text: string) => {
    const m = /^(.*?):(\d+)(?::(\d+))?$/.exec(text);
    return m ? place(m[1], Number(m[2]), m[3] === undefined ? undefined : Number(m[3])) : text;
  };
  return { display, place, source };
}

/** The failure of a run, if it failed: its timeout, or what the launcher reported. */
export function failureOf(
  ended: Ended,
  out: RunOutput,
  options: { name: string; timeoutMs: number; scriptPath: string; places: Places },
): FailureReport | undefined {
  if (ended.timedOut) {
    return {
      kind: "timeout",
      name: "Timeout",
      message: `Script "${options.name}" timed out after ${formatDuration(options.timeoutMs)}` +
        `; stopped it${ended.stopped ? ` and ${ended.stopped} process(es) it started` : ""}`,
    };
  }
  const f = out.failure;
  if (!f) return undefined;
  const loc = f.location;
  return {
    kind: f.kind,
    name: f.name,
    message: f.message,
    location: loc
      ? options.places.place(loc.file, loc.line, loc.col)
      : options.places.display(options.scriptPath),
    ...(f.hint ? { hint: f.hint } : {}),
    ...(f.stack ? { stack: f.stack } : {}),
  };
}

/**
 * What a finished run gives the CLI: under --json the envelope (held to `bound`), otherwise the
 * exit status, the failure printed to stderr first.
 */
export function report(
  ctx: Context,
  run: {
    ended: Ended;
    out: RunOutput;
    error?: FailureReport;
    /** `performance.now()` when the run was asked for. */
    started: number;
    runtime: RuntimeName;
    /** The script's path, or `exec`. */
    script: string;
    session: string;
    runId: string;
    bound: OutputBound;
  },
): RunOutcome {
  const { io } = ctx;
  const { out, error } = run;
  const exitCode = run.ended.code;
  if (ctx.json) {
    return boundEnvelope({
      ok: exitCode === 0 && !error,
      exitCode,
      durationMs: Math.round(performance.now() - run.started),
      runtime: run.runtime,
      script: run.script,
      session: run.session,
      runId: run.runId,
      ...(out.hasResult ? { result: out.result } : {}),
      results: out.results,
      stdout: out.stdoutText,
      logs: out.logs,
      stderr: out.stderrText,
      ...(error ? { error } : {}),
    }, run.bound);
  }
  if (error) {
    if (error.kind === "timeout") io.err(`mcpx: ${error.message}\n`);
    else {
      const named = ["export", "result"].includes(error.kind) || error.name === "Error"
        ? ""
        : `${error.name}: `;
      io.err(
        `${error.location}: ${named}${error.message}${error.hint ? `; ${error.hint}` : ""}\n`,
      );
      if (io.env.MCPX_DEBUG && error.stack) io.err(`${error.stack}\n`);
    }
  }
  return { exitCode };
}
