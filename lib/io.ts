import { McpxError } from "./errors.ts";

/** What a command may touch of the outside world; tests pass their own. */
export interface Io {
  /** Writes to standard output. */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
  /** The environment the command sees. Only the settings module reads it. */
  readonly env: Readonly<Record<string, string>>;
  /** The working directory the command resolves relative paths against. */
  readonly cwd: string;
  /** Whether standard output is a terminal. */
  readonly isTerminal: boolean;
  /**
   * Whether standard input is a terminal: bare `mcpx` opens the browser only then, and `mcpx
   * explore` and `mcpx repl` need one.
   */
  readonly stdinIsTerminal?: boolean;
  /** Whether standard error is a terminal (log levels are coloured there). */
  readonly errIsTerminal?: boolean;
  /** The parent process: what a `pid`-scoped server belongs to. */
  readonly ppid?: number;
  /** Reads standard input to its end (`mcpx call ns.tool -`, `mcpx exec -`). */
  readStdin(): Promise<string>;
}

const encoder = new TextEncoder();

/**
 * Thrown by {@linkcode realIo}'s `out` once whoever reads standard output has gone
 * (`mcpx ls | head -1`): the command ends there, quietly, as any Unix tool does.
 */
export class OutputClosed extends Error {
  override name = "OutputClosed";
  constructor() {
    super("standard output was closed by its reader");
  }
}

/** Whether an error is (or was caused by) standard output's reader going away. */
export function isOutputClosed(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 10; depth++) {
    if (e instanceof OutputClosed) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The process's own standard streams, environment and working directory. */
export function realIo(): Io {
  let outClosed = false;
  let errClosed = false;
  return {
    out: (text) => {
      if (outClosed || !writeAll(Deno.stdout, text)) {
        outClosed = true;
        throw new OutputClosed();
      }
    },
    // A closed stderr loses only diagnostics: the command goes on.
    err: (text) => {
      if (!errClosed && !writeAll(Deno.stderr, text)) errClosed = true;
    },
    env: Deno.env.toObject(),
    cwd: Deno.cwd(),
    isTerminal: Deno.stdout.isTerminal(),
    stdinIsTerminal: Deno.stdin.isTerminal(),
    errIsTerminal: Deno.stderr.isTerminal(),
    ppid: Deno.ppid,
    readStdin: () => {
      if (Deno.stdin.isTerminal()) {
        // Reading would wait for typing that nobody means to do.
        return Promise.reject(
          new McpxError("USAGE", "- reads from stdin, and stdin is a terminal", {
            hint: "Pipe the input in (`… - < file`), or name a file with @file",
          }),
        );
      }
      return new Response(Deno.stdin.readable).text();
    },
  };
}

/** Writes all of `text`; false when the stream's reader has gone (EPIPE). */
function writeAll(stream: { writeSync(p: Uint8Array): number }, text: string): boolean {
  let bytes = encoder.encode(text);
  try {
    while (bytes.length > 0) bytes = bytes.subarray(stream.writeSync(bytes));
  } catch (error) {
    if (error instanceof Deno.errors.BrokenPipe) return false;
    throw error;
  }
  return true;
}

/** An {@linkcode Io} that records what was written, for tests and in-process calls. */
export function captureIo(
  options: { env?: Record<string, string>; cwd?: string; stdin?: string } = {},
): Io & { stdout: () => string; stderr: () => string } {
  let out = "";
  let err = "";
  return {
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    env: options.env ?? {},
    cwd: options.cwd ?? Deno.cwd(),
    isTerminal: false,
    readStdin: () => Promise.resolve(options.stdin ?? ""),
    stdout: () => out,
    stderr: () => err,
  };
}
