/**
 * `log sql` for the daemon: the query runs in a process of its own (`mcpx log sql --json`), so
 * that a long one (a recursive CTE, a cross join) never holds the daemon's one thread. The
 * process is killed when `timeoutMs` runs out or `signal` aborts (the client went away): a
 * synchronous SQLite step cannot be interrupted from JavaScript, not even in a Worker, so a
 * process is the unit that can be stopped.
 */
import { type ErrorCode, ERRORS, McpxError } from "../errors.ts";
import { selfCommand } from "../_self.ts";
import { envName } from "../settings/table.ts";

type Row = Record<string, unknown>;

/** What bounds a query run apart, and where the process finds the same index. */
export interface ApartOptions {
  /** Most rows answered (logging.sqlMaxRows); 0 for no limit. */
  maxRows: number;
  /** How long it may run (logging.sqlTimeout); 0 for no limit. */
  timeoutMs: number;
  /** The daemon's environment: the same state folder, hence the same index. */
  env: Record<string, string>;
  /** The daemon's configuration, so the process reads the same settings. */
  configPath?: string;
  /** Aborted when the request's client goes away. */
  signal?: AbortSignal;
  /** Told when the query was stopped, and why. */
  onStop?: (why: "timeout" | "client gone", pid: number) => void;
}

/** Runs `sql` (a read, checked again by the process) in a process of its own; its rows. */
export async function readSqlApart(sql: string, options: ApartOptions): Promise<Row[]> {
  const self = selfCommand(["--json", "log", "sql", sql]);
  const env: Record<string, string> = {
    ...options.env,
    [envName("logging.sqlMaxRows")]: String(options.maxRows),
    ...(options.configPath ? { [envName("config")]: options.configPath } : {}),
  };
  if (options.signal?.aborted) throw gone();
  const child = new Deno.Command(self.command, {
    args: self.args,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let stopped: "timeout" | "client gone" | undefined;
  const stop = (why: "timeout" | "client gone") => {
    if (stopped) return;
    stopped = why;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    options.onStop?.(why, child.pid);
  };
  const timer = options.timeoutMs > 0
    ? setTimeout(() => stop("timeout"), options.timeoutMs)
    : undefined;
  const onAbort = () => stop("client gone");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const out = await child.output();
    if (stopped === "timeout") {
      throw new McpxError(
        "USAGE",
        `The query ran longer than ${options.timeoutMs} ms (logging.sqlTimeout) and was stopped`,
        {
          hint:
            "Narrow it (a WHERE, a LIMIT, a bound on a recursive CTE), or raise logging.sqlTimeout",
        },
      );
    }
    if (stopped) throw gone();
    const text = new TextDecoder().decode(out.stdout);
    let doc: { rows?: Row[]; error?: { code?: string; message?: string; hint?: string } };
    try {
      doc = JSON.parse(text);
    } catch {
      throw new McpxError(
        "INTERNAL",
        `The query's process ended (status ${out.code}) without an answer`,
      );
    }
    if (doc.error) {
      const code =
        (doc.error.code && doc.error.code in ERRORS ? doc.error.code : "INTERNAL") as ErrorCode;
      throw new McpxError(code, doc.error.message ?? "The query failed", {
        hint: doc.error.hint,
      });
    }
    return doc.rows ?? [];
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

function gone(): McpxError {
  return new McpxError("USAGE", "The query was stopped: its client went away");
}
