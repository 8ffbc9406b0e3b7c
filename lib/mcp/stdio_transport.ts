import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { parseJSONRPCMessage } from "@modelcontextprotocol/client";
import { McpxError, messageOf } from "../errors.ts";
import { LineRing } from "./line_ring.ts";
import { waitAtMost } from "./_wait.ts";

/** How to start one stdio server, and the bounds its transport keeps. */
export interface StdioTransportOptions {
  /** The server's name, for messages. */
  name: string;
  command: string;
  args?: string[];
  /** Added to the daemon's own environment, which the child inherits. */
  env?: Record<string, string>;
  cwd?: string;
  /** How many stderr lines to keep (default 50). */
  stderrLines?: number;
  /** How many bytes of each stderr line to keep (default 2048). */
  stderrLineBytes?: number;
  /** How long `close()` lets the process group answer SIGTERM before SIGKILL (default 300 ms). */
  killGraceMs?: number;
  /** The longest stdout line (one JSON-RPC message) accepted (default 64 MiB). */
  maxMessageBytes?: number;
}

/** How a child process ended. */
export interface ChildExit {
  /** The exit code, or null when a signal ended it. */
  code: number | null;
  signal: string | null;
  /** Whether it ended because `close()` was called. */
  closed: boolean;
}

/** How long to keep reading a dead child's pipes: a process outside its group may hold them. */
const DRAIN_MS = 250;

/**
 * The SDK's client `Transport` over a child process started with `Deno.Command`, speaking
 * newline-delimited JSON-RPC on stdin/stdout.
 *
 * Why not the SDK's own `StdioClientTransport`: it spawns through `node:child_process` and kills
 * only the direct child, waiting for it to exit after stdin closes. Servers that advertise roots
 * support may ignore a closed stdin, and servers that start browsers leave them behind. Here the
 * child leads its own process group (`detached: true`, so `setsid`) and `close()` signals the
 * whole group, then waits for the child's status so nothing is left running or unreaped.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #options: StdioTransportOptions;
  readonly #stderr: LineRing;
  readonly #maxMessageBytes: number;
  #child?: Deno.ChildProcess;
  #stdin?: WritableStreamDefaultWriter<Uint8Array>;
  #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  /** stdout bytes of the message in progress, not yet joined. */
  #pending: Uint8Array[] = [];
  #pendingLength = 0;
  /** Set while dropping the rest of an over-long stdout line. */
  #skipping = false;
  #closeRequested = false;
  #closing?: Promise<void>;
  #exit?: ChildExit;
  #finished?: Promise<void>;
  #closeFired = false;
  #resolveExited!: (exit: ChildExit) => void;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();

  /** Resolves once the child has exited, its group is swept and its pipes are drained. */
  readonly exited: Promise<ChildExit>;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#stderr = new LineRing({
      maxLines: options.stderrLines,
      maxLineBytes: options.stderrLineBytes,
    });
    this.#maxMessageBytes = options.maxMessageBytes ?? 64 * 1024 * 1024;
    this.exited = new Promise((resolve) => this.#resolveExited = resolve);
  }

  /** The child's pid (also its process group id), once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /**
   * The last stderr lines, oldest first. Also present because the SDK classifies a transport
   * with both `pid` and `stderr` as stdio when negotiating the protocol era: on stdio a silent
   * `server/discover` probe means a legacy server, on HTTP it means an outage.
   */
  get stderr(): string[] {
    return this.#stderr.lines();
  }

  /** The last stderr lines, oldest first. */
  stderrTail(): string[] {
    return this.#stderr.lines();
  }

  /** How the child ended, once it has. */
  get exit(): ChildExit | undefined {
    return this.#exit;
  }

  // deno-lint-ignore require-await
  async start(): Promise<void> {
    if (this.#child) throw new Error(`Server "${this.#options.name}" is already started`);
    const { name, command, args = [], env = {}, cwd } = this.#options;
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(command, {
        args,
        env,
        cwd,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        detached: true,
      }).spawn();
    } catch (error) {
      throw spawnError(name, command, cwd, error);
    }
    this.#child = child;
    this.#stdin = child.stdin.getWriter();
    const stdoutDone = this.#pump(child.stdout, (chunk) => this.#onStdout(chunk));
    const stderrDone = this.#pump(child.stderr, (chunk) => this.#stderr.push(chunk));
    this.#finished = this.#watch(child, Promise.all([stdoutDone, stderrDone]));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#stdin || this.#exit || this.#closeRequested) {
      throw new Error(`Server "${this.#options.name}" is not running`);
    }
    await this.#stdin.write(this.#encoder.encode(JSON.stringify(message) + "\n"));
  }

  /**
   * Ends the server: SIGTERM to the whole process group, SIGKILL to it if the child is still
   * alive after the grace period, then waits for the child's status and the pipes. No waiting
   * for the server to notice a closed stdin: some never do.
   */
  close(): Promise<void> {
    this.#closing ??= this.#terminate();
    return this.#closing;
  }

  async #terminate(): Promise<void> {
    this.#closeRequested = true;
    const child = this.#child;
    if (!child) {
      // Never started (or the spawn failed): there is nothing to end, but `exited` must settle.
      this.#exit = { code: null, signal: null, closed: true };
      this.#resolveExited(this.#exit);
      this.#fireClose();
      return;
    }
    if (!this.#exit) {
      signalGroup(child.pid, "SIGTERM");
      const exited = await waitAtMost(child.status, this.#options.killGraceMs ?? 300);
      if (!exited) signalGroup(child.pid, "SIGKILL");
    }
    await this.#finished;
  }

  /** Waits for the child to exit, then sweeps its group, drains its pipes and reports close. */
  async #watch(child: Deno.ChildProcess, drained: Promise<unknown>): Promise<void> {
    const status = await child.status;
    this.#exit = {
      code: status.signal ? null : status.code,
      signal: status.signal,
      closed: this.#closeRequested,
    };
    // Whatever the server started in its group goes with it: a grandchild holding our pipes
    // (or a browser) must not outlive the server it belonged to.
    signalGroup(child.pid, "SIGKILL");
    // SIGKILL is delivered asynchronously: wait until the group is really gone, so that "closed"
    // means no process of it is left (a zombie awaiting its reaper does not count).
    await groupGone(child.pid, 1000);
    if (!await waitAtMost(drained, DRAIN_MS)) {
      // Someone outside the group still holds a pipe open; stop reading it.
      await Promise.all(this.#readers.map((reader) => reader.cancel().catch(() => {})));
      await drained;
    }
    this.#stderr.flush();
    // abort(), not close(): a write still queued for a dead reader must not hold up the end.
    await this.#stdin?.abort().catch(() => {
      // The handle is released either way.
    });
    this.#resolveExited(this.#exit);
    this.#fireClose();
  }

  async #pump(stream: ReadableStream<Uint8Array>, onChunk: (chunk: Uint8Array) => void) {
    const reader = stream.getReader();
    this.#readers.push(reader);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        onChunk(value);
      }
    } catch {
      // Cancelled, or the pipe broke: the stream is over either way.
    } finally {
      reader.releaseLock();
    }
  }

  #onStdout(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) {
        this.#append(chunk.subarray(start));
        return;
      }
      this.#append(chunk.subarray(start, newline));
      const skipped = this.#skipping;
      const line = this.#take();
      if (!skipped) this.#dispatch(line);
      start = newline + 1;
    }
  }

  /** Holds part of a line; drops a line that outgrows the limit instead of holding it all. */
  #append(bytes: Uint8Array): void {
    if (bytes.length === 0 || this.#skipping) return;
    if (this.#pendingLength + bytes.length > this.#maxMessageBytes) {
      this.#skipping = true;
      this.#pending = [];
      this.#pendingLength = 0;
      this.onerror?.(
        new Error(
          `Server "${this.#options.name}" wrote a message longer than ${this.#maxMessageBytes} bytes; it was dropped`,
        ),
      );
      return;
    }
    this.#pending.push(bytes);
    this.#pendingLength += bytes.length;
  }

  #take(): Uint8Array {
    // Joining once per line keeps a message that arrives in many chunks linear, not quadratic.
    const parts = this.#pending;
    let line = parts[0] ?? new Uint8Array();
    if (parts.length > 1) {
      line = new Uint8Array(this.#pendingLength);
      let offset = 0;
      for (const part of parts) {
        line.set(part, offset);
        offset += part.length;
      }
    }
    this.#pending = [];
    this.#pendingLength = 0;
    this.#skipping = false;
    return line;
  }

  #dispatch(bytes: Uint8Array): void {
    const text = this.#decoder.decode(bytes).trim();
    if (text === "") return;
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(JSON.parse(text));
    } catch {
      // Servers that log to stdout are common; one bad line must not end the connection.
      const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
      this.onerror?.(
        new Error(`Server "${this.#options.name}" wrote a line that is not JSON-RPC: ${shown}`),
      );
      return;
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #fireClose(): void {
    if (this.#closeFired) return;
    this.#closeFired = true;
    this.onclose?.();
  }
}

/** Sends `signal` to every process in the group `pgid`; a group already gone is not an error. */
/** Waits until no live process is in group `pgid` (Linux: read from /proc), up to `ms`. */
async function groupGone(pgid: number, ms: number): Promise<void> {
  if (Deno.build.os !== "linux") return;
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    let alive = false;
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      try {
        const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(pgrp) === pgid && state !== "Z") {
          alive = true;
          break;
        }
      } catch {
        // It exited while we looked.
      }
    }
    if (!alive) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

function signalGroup(pgid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(-pgid, signal);
  } catch {
    // ESRCH: nobody left in the group.
  }
}

/** Says why a spawn failed in the user's terms. */
function spawnError(name: string, command: string, cwd: string | undefined, error: unknown) {
  const fail = (reason: string, hint?: string) =>
    new McpxError("SERVER_START_FAILED", `Cannot start server "${name}": ${reason}`, {
      cause: error,
      hint,
    });
  if (error instanceof Deno.errors.NotFound) {
    // Deno reports a missing working directory the same way as a missing program.
    if (cwd !== undefined && !directoryExists(cwd)) {
      return fail(
        `working directory "${cwd}" does not exist`,
        `Fix "cwd" of server "${name}" in the configuration`,
      );
    }
    return fail(
      `command "${command}" was not found`,
      `Install it, or fix "command" of server "${name}"; it is looked up on the daemon's PATH`,
    );
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return fail(`command "${command}" is not executable`);
  }
  return fail(messageOf(error));
}

function directoryExists(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** Describes how a child ended: `exited with code 3`, `was killed by SIGKILL`. */
export function describeExit(exit: ChildExit): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}
