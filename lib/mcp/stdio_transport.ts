import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { McpxError, messageOf } from "../errors.ts";
import { LineRing } from "./line_ring.ts";
import { waitAtMost } from "./_wait.ts";
import { isDirectory } from "../_fs.ts";
import { type AdoptedPipes, fileWritable, groupGone, signalGroup, stillRuns } from "../_proc.ts";

// The pool names an adopted server's pipes by this module (lib/pool/pool.ts).
export type { AdoptedPipes };

/** How to start one stdio server, and the bounds its transport keeps. */
export interface StdioTransportOptions {
  /** The server's name, for messages. */
  name: string;
  command: string;
  args?: string[];
  /** The child's whole environment: it inherits nothing (lib/config/server_env.ts). */
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
  /**
   * Told of an over-long message as soon as it passes `maxMessageBytes` (`bytes` so far) and
   * again when it ends (`bytes` in all), with the request it answered when that can be told.
   */
  onOversized?: (report: OversizedReport) => void;
}

/** A stdout message over the limit, which the transport dropped. */
export interface OversizedReport {
  /** The id of the request it answered, when found in its first or last bytes. */
  id?: string | number;
  /** Its length so far, or in all once `ended`. */
  bytes: number;
  limit: number;
  ended: boolean;
}

/** The `data` of the error answer a dropped reply is replaced with; {@linkcode oversizedData}. */
const OVERSIZED = new WeakSet<object>();

/** The report behind an error answer that stands in for a dropped over-long reply, if it is one. */
export function oversizedData(data: unknown): OversizedReport | undefined {
  return data !== null && typeof data === "object" && OVERSIZED.has(data)
    ? data as OversizedReport
    : undefined;
}

/** How many bytes of the start and of the end of a dropped line are kept to find its id. */
const ID_WINDOW = 64 * 1024;

/**
 * What the first bytes of a JSON-RPC message say of it: the value of its top-level `"id"` key,
 * when it comes before the text runs out (`{"jsonrpc":"2.0","id":7,"result":…`), and whether a
 * top-level `"method"` makes it a request or notification of the server's rather than a reply.
 */
export function scanHead(head: string): { id?: string | number; method: boolean } {
  let depth = 0;
  let i = 0;
  let id: string | number | undefined;
  let method = false;
  const n = head.length;
  const skipString = (): number => {
    let j = i + 1;
    while (j < n && head[j] !== '"') j += head[j] === "\\" ? 2 : 1;
    return j < n ? j + 1 : -1;
  };
  while (i < n) {
    const c = head[i];
    if (c === '"') {
      const end = skipString();
      if (end < 0) break;
      const key = depth === 1 ? head.slice(i, end) : "";
      if (key === '"id"' && id === undefined) {
        const m = /^\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")/.exec(
          head.slice(end, end + 1024),
        );
        if (m) id = JSON.parse(m[1]);
      } else if (key === '"method"' && /^\s*:/.test(head.slice(end, end + 64))) method = true;
      i = end;
      continue;
    }
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    i++;
  }
  return { ...(id === undefined ? {} : { id }), method };
}

/** The top-level `"id"` of a JSON-RPC message from its last bytes (`…,"id":7}`). */
export function idFromTail(tail: string): string | number | undefined {
  // One closing brace after it: a nested object's "id" would be followed by two or more.
  const m = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/
    .exec(tail);
  return m ? JSON.parse(m[1]) : undefined;
}

/** How a child process ended. */
export interface ChildExit {
  /** The exit code, or null when a signal ended it. */
  code: number | null;
  signal: string | null;
  /** Whether it ended because `close()` was called. */
  closed: boolean;
  /**
   * Why the transport ended it, when it did so itself: handling what the child wrote failed,
   * and a connection that no longer reads the child's output cannot go on.
   */
  failure?: string;
}

/** The read buffer of a child's stdout (a pipe holds 64 KiB) and of its stderr, kept per child. */
const STDOUT_BUFFER = 64 * 1024;
const STDERR_BUFFER = 16 * 1024;

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
  /** The server's pid: the child's, or an adopted process's ({@linkcode StdioTransport.adopt}). */
  #pid?: number;
  /** Resolves once the process has exited: the child's status, or an adopted process gone. */
  #status?: Promise<{ code: number | null; signal: Deno.Signal | null }>;
  /** Set by {@linkcode StdioTransport.detach}: another daemon reads the pipes from now on. */
  #detached = false;
  /** stdout bytes read after the detach began, not dispatched: they go to the successor. */
  #held: Uint8Array[] = [];
  /**
   * An adopted process's pipes are files opened through /proc, read by blocking reads that no
   * cancel interrupts: a detach ends the stdout read with an answer the server gives (a ping,
   * the fence), so that no read of this daemon is left to take the successor's bytes.
   */
  #files?: AdoptedPipes;
  #fence?: { id: string; late: boolean; seen: () => void };
  #stdin?: WritableStreamDefaultWriter<Uint8Array>;
  #readers: ReadableStreamBYOBReader[] = [];
  /** stdout bytes of the message in progress, not yet joined. */
  #pending: Uint8Array[] = [];
  #pendingLength = 0;
  /** Set while dropping the rest of an over-long stdout line. */
  #skipping = false;
  /** Of the line being dropped: its length so far, its last bytes, the request it answers. */
  #skipped = 0;
  #skipTail = new Uint8Array(0);
  #skipId?: string | number;
  /** The line being dropped is a request or notification of the server's, not a reply. */
  #skipRequest = false;
  #closeRequested = false;
  #closing?: Promise<void>;
  #exit?: ChildExit;
  #finished?: Promise<void>;
  #closeFired = false;
  /** Why the transport ended the child itself ({@linkcode ChildExit.failure}). */
  #failure?: string;
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
    return this.#pid;
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
        clearEnv: true,
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
    this.#begin(child.pid, child.status, child.stdin, child.stdout, child.stderr);
  }

  /**
   * Takes over a server another daemon started (a zero-downtime upgrade, lib/daemon/upgrade.ts):
   * its stdin, stdout and stderr are the pipes `files` opened through /proc, and `held` is what
   * the previous daemon had read of stdout but not yet handled (a line's start). The process is
   * not this one's child: its end is seen as its pid going away (`start` tells it from a later
   * process of that pid), and `close()` signals its group as for a child.
   */
  adopt(
    pid: number,
    start: string,
    files: AdoptedPipes,
    held: { stdout?: Uint8Array; stderr?: string[] } = {},
  ): void {
    if (this.#pid !== undefined) {
      throw new Error(`Server "${this.#options.name}" is already started`);
    }
    for (const line of held.stderr ?? []) this.#stderr.push(this.#encoder.encode(line + "\n"));
    if (held.stdout && held.stdout.length > 0) this.#onStdout(held.stdout);
    this.#files = files;
    this.#begin(
      pid,
      adoptedStatus(pid, start),
      fileWritable(files.stdin),
      files.stdout,
      files.stderr,
    );
  }

  #begin(
    pid: number,
    status: Promise<{ code: number | null; signal: Deno.Signal | null }>,
    stdin: WritableStream<Uint8Array>,
    stdout: ReadableStream<Uint8Array> | Deno.FsFile,
    stderr: ReadableStream<Uint8Array> | Deno.FsFile,
  ): void {
    this.#pid = pid;
    this.#status = status;
    this.#stdin = stdin.getWriter();
    const stdoutDone = this.#pump(stdout, STDOUT_BUFFER, "stdout", (chunk) => {
      if (this.#detached) this.#held.push(chunk.slice());
      else this.#onStdout(chunk);
    });
    // The ring copies what it keeps.
    const stderrDone = this.#pump(
      stderr,
      STDERR_BUFFER,
      "stderr",
      (chunk) => this.#stderr.push(chunk),
    );
    this.#finished = this.#watch(pid, status, Promise.all([stdoutDone, stderrDone]));
  }

  /**
   * Stops reading the server's output and lets go of it without ending it, for a successor that
   * has already opened the same pipes (lib/daemon/upgrade.ts). Resolves to what was read and not
   * handled: the start of a line, and the stderr tail. After it the transport never reports an
   * end: the process is the successor's.
   */
  async detach(): Promise<{ stdout: Uint8Array; stderr: string[] }> {
    if (this.#pid === undefined || this.#exit || this.#closeRequested) {
      throw new Error(`Server "${this.#options.name}" is not running`);
    }
    if (this.#files) await this.#fenceStdout();
    this.#detached = true;
    this.onclose = undefined;
    this.onmessage = undefined;
    // A read under way may still hand over bytes: they are held, not dispatched.
    await Promise.all(this.#readers.map((reader) => reader.cancel().catch(() => {})));
    this.#stdin?.releaseLock();
    // The child's status no longer keeps this process alive: it is the successor's to watch.
    this.#child?.unref();
    const parts = [...this.#pending, ...this.#held];
    const stdout = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      stdout.set(p, at);
      at += p.length;
    }
    this.#pending = [];
    this.#pendingLength = 0;
    this.#held = [];
    this.#stderr.flush();
    return { stdout, stderr: this.#stderr.lines() };
  }

  /**
   * Writes a ping and waits for its answer, the last bytes this daemon's stdout read takes: from
   * that line on, what is read is held for the successor (see {@linkcode #files}).
   * @throws {Error} when the server does not answer within two seconds: it is not handed over.
   */
  async #fenceStdout(): Promise<void> {
    const id = `mcpx-handoff-${Deno.pid}-${Date.now()}`;
    const seen = Promise.withResolvers<void>();
    this.#fence = { id, late: false, seen: seen.resolve };
    await this.#stdin!.write(
      this.#encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }) + "\n"),
    );
    if (!await waitAtMost(seen.promise, 2000)) {
      // Its answer, should it still come, is dropped.
      this.#fence.late = true;
      throw new Error(`Server "${this.#options.name}" did not answer a ping before its handoff`);
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#stdin || this.#exit || this.#closeRequested || this.#detached) {
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
    const pid = this.#pid;
    // Detached: the process is the successor's now, and must not be ended from here.
    if (this.#detached) return;
    if (pid === undefined) {
      // Never started (or the spawn failed): there is nothing to end, but `exited` must settle.
      this.#exit = { code: null, signal: null, closed: true };
      this.#resolveExited(this.#exit);
      this.#fireClose();
      return;
    }
    if (!this.#exit) {
      signalGroup(pid, "SIGTERM");
      const exited = await waitAtMost(this.#status!, this.#options.killGraceMs ?? 300);
      if (!exited) signalGroup(pid, "SIGKILL");
    }
    await this.#finished;
  }

  /** Waits for the child to exit, then sweeps its group, drains its pipes and reports close. */
  async #watch(
    pid: number,
    exited: Promise<{ code: number | null; signal: Deno.Signal | null }>,
    drained: Promise<unknown>,
  ): Promise<void> {
    const status = await exited;
    if (this.#detached) return;
    this.#exit = {
      code: status.signal ? null : status.code,
      signal: status.signal,
      closed: this.#closeRequested,
      ...(this.#failure === undefined ? {} : { failure: this.#failure }),
    };
    // Whatever the server started in its group goes with it: a grandchild holding our pipes
    // (or a browser) must not outlive the server it belonged to.
    // SIGKILL is delivered asynchronously: wait until the group is really gone, so that "closed"
    // means no process of it is left (a zombie awaiting its reaper does not count). A group that
    // nobody is left in (the usual case: a server without children) needs no look at /proc.
    if (signalGroup(pid, "SIGKILL")) await groupGone(pid, 1000);
    if (!await waitAtMost(drained, DRAIN_MS) && !this.#files) {
      // Someone outside the group still holds a pipe open; stop reading it. (A read of an
      // adopted pipe cannot be stopped: it is left, and ends with this daemon.)
      await Promise.all(this.#readers.map((reader) => reader.cancel().catch(() => {})));
      await drained;
    }
    this.#stderr.flush();
    // abort(), not close(): a write still queued for a dead reader must not hold up the end.
    await this.#stdin?.abort().catch(() => {
      // The handle is released either way.
    });
    for (const file of this.#files ? [this.#files.stdout, this.#files.stderr] : []) {
      try {
        file.close();
      } catch { /* closed */ }
    }
    this.#resolveExited(this.#exit);
    this.#fireClose();
  }

  /**
   * Reads `stream` into one buffer of `size` bytes, reused for every read (a byte stream's
   * default reader allocates 64 KiB per read, which a busy daemon then holds until V8 collects
   * it). `onChunk` sees a view of that buffer: what it keeps past its return, it copies.
   *
   * An exception from `onChunk` ends the child ({@linkcode #fail}): a stream nobody reads fills
   * its pipe, the child blocks writing to it and stops reading its stdin, and every later write
   * to the child, and every call waiting for an answer, would wait for ever.
   */
  async #pump(
    stream: ReadableStream<Uint8Array> | Deno.FsFile,
    size: number,
    what: "stdout" | "stderr",
    onChunk: (chunk: Uint8Array) => void,
  ) {
    if (!(stream instanceof ReadableStream)) {
      return await this.#pumpFile(stream, size, what, onChunk);
    }
    const reader = stream.getReader({ mode: "byob" });
    this.#readers.push(reader);
    let buffer = new ArrayBuffer(size);
    try {
      for (;;) {
        const { value, done } = await reader.read(new Uint8Array(buffer));
        if (done || !value) return;
        try {
          onChunk(value);
        } catch (error) {
          this.#fail(`handling its ${what} failed: ${messageOf(error)}`);
          return;
        }
        // The read handed the buffer over and back: the same memory under a new ArrayBuffer.
        buffer = value.buffer as ArrayBuffer;
      }
    } catch {
      // Cancelled, or the pipe broke: the stream is over either way.
    } finally {
      reader.releaseLock();
    }
  }

  /** {@linkcode #pump} for a pipe opened through /proc: it ends at EOF, or once detached. */
  async #pumpFile(
    file: Deno.FsFile,
    size: number,
    what: "stdout" | "stderr",
    onChunk: (chunk: Uint8Array) => void,
  ) {
    const buffer = new Uint8Array(size);
    try {
      for (;;) {
        const n = await file.read(buffer);
        if (n === null) return;
        try {
          onChunk(buffer.subarray(0, n));
        } catch (error) {
          this.#fail(`handling its ${what} failed: ${messageOf(error)}`);
          return;
        }
        if (this.#detached) return;
      }
    } catch {
      // The pipe broke: the stream is over.
    }
  }

  /**
   * Ends the connection because of `reason` (the first one counts): reported to `onerror`, kept
   * as the exit's `failure`, and the child's group ended as by `close()`, so that `onclose` fires
   * and whoever waits for an answer hears the connection ended, and why.
   */
  #fail(reason: string): void {
    if (this.#failure !== undefined || this.#exit || this.#detached) return;
    this.#failure = reason;
    try {
      this.onerror?.(
        new Error(`Server "${this.#options.name}": ${reason}; the connection is closed`),
      );
    } catch {
      // The connection ends all the same.
    }
    void this.close();
  }

  #onStdout(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      if (this.#detached) {
        // Past the fence: the successor's, a line's start included.
        if (start < chunk.length) this.#held.push(chunk.slice(start));
        return;
      }
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) {
        // Held until the line ends, past the next read into the same buffer: copied.
        this.#append(chunk.subarray(start), true);
        return;
      }
      this.#append(chunk.subarray(start, newline), false);
      const skipped = this.#skipping;
      if (skipped) this.#endSkipped();
      const line = this.#take();
      if (!skipped) this.#dispatch(line);
      start = newline + 1;
    }
  }

  /**
   * Holds part of a line (a copy when `hold`: `bytes` is a view of the read buffer, which the
   * next read overwrites); drops a line that outgrows the limit instead of holding it all.
   */
  #append(bytes: Uint8Array, hold: boolean): void {
    if (bytes.length === 0) return;
    if (this.#skipping) {
      this.#skipped += bytes.length;
      this.#keepTail(bytes);
      return;
    }
    if (this.#pendingLength + bytes.length > this.#maxMessageBytes) {
      this.#skipping = true;
      this.#skipped = this.#pendingLength + bytes.length;
      // The line's first bytes, however the pipe cut them into chunks.
      const start = new Uint8Array(Math.min(ID_WINDOW, this.#skipped));
      let filled = 0;
      for (const part of [...this.#pending, bytes]) {
        if (filled === start.length) break;
        const piece = part.subarray(0, start.length - filled);
        start.set(piece, filled);
        filled += piece.length;
      }
      const head = this.#decoder.decode(start);
      this.#skipTail = new Uint8Array(0);
      this.#keepTail(bytes);
      this.#pending = [];
      this.#pendingLength = 0;
      const seen = scanHead(head);
      this.#skipRequest = seen.method;
      this.#skipId = seen.method ? undefined : seen.id;
      // The id is at the start: the call it answers fails now, not when the line ends.
      if (this.#skipId !== undefined) this.#oversized(false, true);
      return;
    }
    this.#pending.push(hold ? bytes.slice() : bytes);
    this.#pendingLength += bytes.length;
  }

  #keepTail(bytes: Uint8Array): void {
    const keep = bytes.length >= ID_WINDOW ? bytes.subarray(bytes.length - ID_WINDOW) : bytes;
    const old = this.#skipTail.subarray(
      Math.max(0, this.#skipTail.length + keep.length - ID_WINDOW),
    );
    const tail = new Uint8Array(old.length + keep.length);
    tail.set(old);
    tail.set(keep, old.length);
    this.#skipTail = tail;
  }

  /**
   * Reports the line being dropped; when it answered a request, that request fails with it
   * (`fail`), through an error answer standing in for the reply.
   */
  #oversized(ended: boolean, fail: boolean): void {
    const report: OversizedReport = {
      ...(this.#skipId === undefined ? {} : { id: this.#skipId }),
      bytes: this.#skipped,
      limit: this.#maxMessageBytes,
      ended,
    };
    this.#options.onOversized?.(report);
    if (this.#skipId === undefined) {
      this.onerror?.(
        new Error(
          `Server "${this.#options.name}" wrote a message of ${this.#skipped} bytes, over the ${this.#maxMessageBytes}-byte limit; it was dropped`,
        ),
      );
      return;
    }
    if (!fail) return;
    const data = { ...report };
    OVERSIZED.add(data);
    try {
      this.onmessage?.({
        jsonrpc: "2.0",
        id: this.#skipId,
        error: {
          code: -32603,
          message: `the reply is longer than the ${this.#maxMessageBytes}-byte message limit`,
          data,
        },
      } as JSONRPCMessage);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** The dropped line has ended: its id may be at its end, and its length is now known. */
  #endSkipped(): void {
    const known = this.#skipId !== undefined;
    if (!known && !this.#skipRequest) {
      this.#skipId = idFromTail(this.#decoder.decode(this.#skipTail).trimEnd());
    }
    this.#oversized(true, !known);
    this.#skipped = 0;
    this.#skipTail = new Uint8Array(0);
    this.#skipId = undefined;
    this.#skipRequest = false;
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
      message = asMessage(JSON.parse(text));
    } catch {
      // Servers that log to stdout are common; one bad line must not end the connection.
      const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
      this.onerror?.(
        new Error(`Server "${this.#options.name}" wrote a line that is not JSON-RPC: ${shown}`),
      );
      return;
    }
    const fence = this.#fence;
    if (fence && "id" in message && message.id === fence.id && !("method" in message)) {
      this.#fence = undefined;
      if (!fence.late) {
        this.#detached = true;
        fence.seen();
      }
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

/**
 * `value` as a JSON-RPC 2.0 message: a request or notification (a `method`), or an answer (an
 * `id` with a `result` or an `error`). Anything else is a `SyntaxError`, as a line that is not
 * JSON is; what each message holds is for its reader to check.
 */
export function asMessage(value: unknown): JSONRPCMessage {
  const m = value as Record<string, unknown> | null;
  const shaped = typeof m === "object" && m !== null && !Array.isArray(m) && m.jsonrpc === "2.0";
  const id = shaped ? m.id : undefined;
  const hasId = typeof id === "string" || typeof id === "number";
  if (
    shaped &&
    ((typeof m.method === "string" && (m.id === undefined || hasId)) ||
      (hasId && ("result" in m) !== ("error" in m)) ||
      (id === null && "error" in m))
  ) {
    return m as JSONRPCMessage;
  }
  throw new SyntaxError("not a JSON-RPC 2.0 message");
}

/**
 * Resolves once an adopted process (not this one's child, so there is no status to wait for) is
 * gone: looked for every 100 ms. Its exit status cannot be known.
 */
async function adoptedStatus(
  pid: number,
  start: string,
): Promise<{ code: number | null; signal: Deno.Signal | null }> {
  while (stillRuns(pid, start)) await new Promise((r) => setTimeout(r, 100));
  return { code: null, signal: null };
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
    if (cwd !== undefined && !isDirectory(cwd)) {
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

/** Describes how a child ended: `exited with code 3`, `was killed by SIGKILL`. */
export function describeExit(exit: ChildExit): string {
  if (exit.signal) return `was killed by ${exit.signal}`;
  // An adopted process (lib/daemon/upgrade.ts) is not this one's child: its status is unknown.
  return exit.code === null
    ? "exited (its status is its first daemon's to know)"
    : `exited with code ${exit.code}`;
}

/**
 * Why a connection over a transport ended, as the connections report it: closed by mcpx, ended by
 * mcpx naming the failure that made it, or how the process ended by itself.
 */
export function describeEnd(exit: ChildExit): string {
  if (exit.failure !== undefined) return `mcpx closed the connection: ${exit.failure}`;
  return exit.closed ? "closed by mcpx" : `the process ${describeExit(exit)}`;
}
