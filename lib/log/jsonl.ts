// The JSONL writer: every record of the daemon and of every script run is appended here, one
// JSON object per line, to files that are only ever appended to. The record of truth that
// lib/logindex/ reads; nothing else writes these files.

import { join } from "../_path.ts";
import { messageOf } from "../errors.ts";
import { logSegment, segmentIndex } from "../paths.ts";
import type { LogRecord } from "../../launcher/protocol.ts";

/** A line longer than this is cut (its longest strings shortened) before it is written. */
export const MAX_LINE_BYTES = 65536;

/** How a writer is set up. */
export interface JsonlOptions {
  /** A segment that reaches this size is left for the next (`<stem>.<n+1>.jsonl`); 0: never. */
  maxBytes: number;
  /**
   * Told once, in one line, when records cannot be stored (the folder cannot be written, the
   * disk is full) or when the file ends in a line that is not a record. Writing never throws.
   */
  problem(line: string): void;
}

const encoder = new TextEncoder();

function cutLine(record: LogRecord, bytes: number): string {
  // Shorten the longest strings (stacks, big args) until the line fits; say so in the record.
  const copy = JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
  let over = bytes - MAX_LINE_BYTES + 64;
  for (let round = 0; round < 32 && over > 0; round++) {
    let best:
      | { holder: Record<string, unknown> | unknown[]; key: string | number; len: number }
      | undefined;
    const walk = (v: unknown) => {
      if (v === null || typeof v !== "object") return;
      const holder = v as Record<string, unknown>;
      for (const key of Object.keys(holder)) {
        const child = holder[key];
        if (typeof child === "string" && (!best || child.length > best.len)) {
          best = { holder, key, len: child.length };
        } else walk(child);
      }
    };
    walk(copy);
    if (!best) break;
    const b = best as { holder: Record<string, unknown>; key: string; len: number };
    const keep = Math.max(0, b.len - over - 32);
    b.holder[b.key] = (b.holder[b.key] as string).slice(0, keep) + `…[cut ${b.len - keep}]`;
    copy.truncated = true;
    over = encoder.encode(JSON.stringify(copy)).length - MAX_LINE_BYTES + 64;
  }
  return JSON.stringify(copy);
}

/**
 * Appends records to `<dir>/<stem>.jsonl` (then `<stem>.1.jsonl`, `<stem>.2.jsonl`… as each
 * reaches `maxBytes`): opened with O_APPEND, each record one `write(2)` of one whole line, so
 * writers in several processes (the daemon, every running script's CLI) never interleave
 * partial lines. Files are never renamed or rewritten. A failure to open or write is reported
 * once through `problem` and the writer then drops records: a run never fails for its log.
 */
export class JsonlWriter {
  readonly dir: string;
  readonly stem: string;
  readonly #options: JsonlOptions;
  #file?: Deno.FsFile;
  #index = 0;
  #size = 0;
  #writes = 0;
  /** The lowest segment the next open may use: past a file this writer found full. */
  #next = 0;
  #broken = false;
  /** The file being written, once opened. */
  path?: string;

  constructor(dir: string, stem: string, options: JsonlOptions) {
    this.dir = dir;
    this.stem = stem;
    this.#options = options;
  }

  #fail(what: string, error: unknown): void {
    if (this.#broken) return;
    this.#broken = true;
    this.#close();
    this.#options.problem(
      `mcpx: cannot store log records ${what}: ${
        messageOf(error)
      }; records from here on are not kept`,
    );
  }

  #highest(): number {
    let high = 0;
    try {
      for (const e of Deno.readDirSync(this.dir)) {
        const n = segmentIndex(this.stem, e.name);
        if (n !== undefined && n > high) high = n;
      }
    } catch { /* an absent folder is made on open */ }
    return high;
  }

  #open(index: number): void {
    Deno.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const path = logSegment(this.dir, this.stem, index);
    const file = Deno.openSync(path, { append: true, create: true, mode: 0o600 });
    try {
      const info = file.statSync();
      // `mode` applies only to a new file: one left by an older mcpx is tightened here.
      if (info.isFile && (info.mode! & 0o077) !== 0) Deno.chmodSync(path, 0o600);
      this.#size = info.size;
      if (info.isFile && info.size > 0) this.#checkTail(file, path, info.size);
    } catch (e) {
      file.close();
      throw e;
    }
    this.#file = file;
    this.#index = index;
    this.path = path;
  }

  /**
   * A file ending in half a line (a crash, a hand edit) gets a newline first, so that the next
   * record starts on a line of its own; a last line that is not a record is named once.
   */
  #checkTail(file: Deno.FsFile, path: string, size: number): void {
    const tail = new Uint8Array(Math.min(size, 8192));
    using reader = Deno.openSync(path, { read: true });
    reader.seekSync(size - tail.length, Deno.SeekMode.Start);
    let got = 0;
    while (got < tail.length) {
      const n = reader.readSync(tail.subarray(got));
      if (n === null || n === 0) break;
      got += n;
    }
    const text = new TextDecoder().decode(tail.subarray(0, got));
    const ended = text.endsWith("\n");
    const lines = text.split("\n");
    const last = ended ? lines.at(-2) : lines.at(-1);
    let ok = true;
    if (last !== undefined && (lines.length > 1 || size <= tail.length)) {
      try {
        const v = JSON.parse(last);
        ok = v !== null && typeof v === "object" && !Array.isArray(v);
      } catch {
        ok = false;
      }
    }
    if (!ended) {
      file.writeSync(encoder.encode("\n"));
      this.#size++;
    }
    if (!ok || !ended) {
      this.#options.problem(
        `mcpx: the last line of ${path} is not a whole JSON record; it is left as it is and new records start on the next line`,
      );
    }
  }

  #close(): void {
    try {
      this.#file?.close();
    } catch { /* already closed */ }
    this.#file = undefined;
  }

  /** Appends one record as one line. */
  append(record: LogRecord): void {
    if (this.#broken) return;
    try {
      if (!this.#file) this.#openCurrent();
    } catch (e) {
      this.#fail(`in ${this.dir}`, e);
      return;
    }
    let line = JSON.stringify(record);
    let bytes = encoder.encode(line + "\n");
    if (bytes.length > MAX_LINE_BYTES) {
      line = cutLine(record, bytes.length);
      bytes = encoder.encode(line + "\n");
    }
    try {
      const n = this.#file!.writeSync(bytes);
      if (n !== bytes.length) {
        this.#takeBack(n);
        throw new Error(`only ${n} of ${bytes.length} bytes were written (no space left?)`);
      }
    } catch (e) {
      this.#fail(`in ${this.path}`, e);
      return;
    }
    this.#size += bytes.length;
    this.#writes++;
    const max = this.#options.maxBytes;
    // Other writers grow the same file: its real size is read when ours says it is full, and
    // every hundred records.
    if (max > 0 && (this.#size >= max || this.#writes % 100 === 0)) this.#maybeRotate(max);
  }

  /**
   * A short write (the disk filled mid-line) leaves half a record: it is cut off again when it
   * is still the file's end, so that no reader meets it. Nothing before it is touched.
   */
  #takeBack(n: number): void {
    try {
      const end = this.#file!.seekSync(0, Deno.SeekMode.Current);
      if (n > 0 && this.#file!.statSync().size === end) this.#file!.truncateSync(end - n);
    } catch { /* then the next writer to open it starts a new line */ }
  }

  /** Opens the newest segment, or the one after it when that is full already. */
  #openCurrent(): void {
    this.#open(Math.max(this.#highest(), this.#next));
    const max = this.#options.maxBytes;
    for (let tries = 0; max > 0 && this.#size >= max && tries < 8; tries++) {
      this.#close();
      this.#open(this.#index + 1);
    }
  }

  /**
   * Leaves a full segment: the file is closed and the next record opens the one after it, so a
   * writer that stops here leaves no empty file behind.
   */
  #maybeRotate(max: number): void {
    try {
      this.#size = this.#file!.statSync().size;
      if (this.#size < max) return;
      this.#next = this.#index + 1;
      this.#close();
    } catch (e) {
      this.#fail(`in ${this.dir}`, e);
    }
  }

  /** Closes the file; a later append opens it again. */
  close(): void {
    this.#close();
  }
}

/** Every segment of `stem` in `dir`, oldest first. */
export function segments(dir: string, stem: string): string[] {
  const found: [number, string][] = [];
  try {
    for (const e of Deno.readDirSync(dir)) {
      const n = segmentIndex(stem, e.name);
      if (n !== undefined) found.push([n, join(dir, e.name)]);
    }
  } catch { /* no folder, no segments */ }
  return found.sort((a, b) => a[0] - b[0]).map(([, p]) => p);
}
