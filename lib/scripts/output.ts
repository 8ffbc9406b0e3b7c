import type { Io } from "../io.ts";
import { boundDocument, BoundedStream, type OutputBound } from "../output/bound.ts";
import { type Spilled, SpillFile } from "../output/spill.ts";
import { type RenderOptions, renderRecord } from "../../launcher/log.ts";
import {
  type ControlRecord,
  type LogRecord,
  RECORD_MARK,
  type ScriptFailure,
} from "../../launcher/protocol.ts";

/** How a run's output is handled. */
export interface OutputOptions {
  /** Collect everything for the envelope (`--json`) instead of writing it through. */
  json: boolean;
  io: Io;
  /**
   * What stdout and stderr are each held to when written through (`output.maxBytes`); under
   * --json the envelope is bounded as a whole instead. Binary stdout is saved under `bound.dir`.
   */
  bound: OutputBound;
  /** How a record's `source` (`/abs/file.ts:12:3`) is shown: relative, exec lines mapped. */
  source: (source: string) => string;
  /** How records are rendered on stderr: `--format`, and colour on a terminal. */
  render?: RenderOptions;
  /** Keeps each log record (the JSONL log), before it is shown or collected. */
  store?: (record: LogRecord) => void;
}

const MAGIC: [number[], string, string][] = [
  [[0x89, 0x50, 0x4e, 0x47], "PNG image", "png"],
  [[0xff, 0xd8, 0xff], "JPEG image", "jpg"],
  [[0x47, 0x49, 0x46, 0x38], "GIF image", "gif"],
  [[0x25, 0x50, 0x44, 0x46], "PDF document", "pdf"],
  [[0x50, 0x4b, 0x03, 0x04], "zip archive", "zip"],
  [[0x1f, 0x8b], "gzip data", "gz"],
  [[0x52, 0x49, 0x46, 0x46], "RIFF (WebP/WAV) data", "riff"],
  [[0x7f, 0x45, 0x4c, 0x46], "ELF executable", "elf"],
];

function sniff(bytes: Uint8Array): { type: string; ext: string } {
  for (const [magic, type, ext] of MAGIC) {
    if (magic.every((b, i) => bytes[i] === b)) return { type, ext };
  }
  return { type: "binary data", ext: "bin" };
}

/**
 * Reads what a running script writes: stdout is the result (held to the bound, binary saved
 * to a file instead of shown); stderr carries records behind U+001E, rendered for a person or
 * collected for the envelope, and the script's own text, passed through (held to the bound too).
 */
export class RunOutput {
  /** Collected under --json. */
  stdoutText = "";
  stderrText = "";
  readonly logs: LogRecord[] = [];
  readonly results: unknown[] = [];
  result: unknown = undefined;
  hasResult = false;
  /** The failure the launcher reported, if any. */
  failure?: ScriptFailure;
  /** Binary stdout seen: a guess at its type and the file its bytes go to. */
  binary?: { type: string; file: SpillFile };

  readonly #o: OutputOptions;
  readonly #out?: BoundedStream;
  readonly #err?: BoundedStream;
  #outDecoder = new TextDecoder("utf-8", { fatal: true });
  #errDecoder = new TextDecoder();
  #pending = "";
  #inRecord = false;
  /** What the bound withheld, per stream, once the run has finished. */
  spilled: { stdout?: Spilled; stderr?: Spilled } = {};

  constructor(options: OutputOptions) {
    this.#o = options;
    if (!options.json) {
      const { bound, io } = options;
      this.#out = new BoundedStream(bound, (t) => io.out(t));
      this.#err = new BoundedStream({ ...bound, stem: `${bound.stem}-stderr` }, (t) => io.err(t));
    }
  }

  #writeOut(text: string): void {
    if (!text) return;
    if (this.#out) this.#out.write(text);
    else this.stdoutText += text;
  }

  #writeErr(text: string): void {
    if (!text) return;
    if (this.#err) this.#err.write(text);
    else this.stderrText += text;
  }

  /** Takes a chunk of the script's stdout. */
  stdout(bytes: Uint8Array): void {
    if (this.binary) {
      this.binary.file.write(bytes);
      return;
    }
    let text: string;
    try {
      if (bytes.includes(0)) throw new TypeError("NUL byte");
      text = this.#outDecoder.decode(bytes, { stream: true });
    } catch {
      // From here on stdout is binary: never shown, its bytes saved to a file of their own.
      const { type, ext } = sniff(bytes);
      const { bound } = this.#o;
      this.binary = { type, file: new SpillFile(bound.dir, `${bound.stem}-stdout`, ext) };
      this.binary.file.write(bytes);
      return;
    }
    this.#writeOut(text);
  }

  /** Takes a chunk of the script's stderr. */
  stderr(bytes: Uint8Array): void {
    this.#pending += this.#errDecoder.decode(bytes, { stream: true });
    this.#drain(false);
  }

  #drain(final: boolean): void {
    while (this.#pending) {
      if (this.#inRecord) {
        const nl = this.#pending.indexOf("\n");
        if (nl < 0) {
          if (!final) return;
          this.#writeErr(this.#pending);
          this.#pending = "";
          return;
        }
        const line = this.#pending.slice(0, nl);
        this.#pending = this.#pending.slice(nl + 1);
        this.#inRecord = false;
        this.#record(line);
        continue;
      }
      const mark = this.#pending.indexOf(RECORD_MARK);
      if (mark < 0) {
        this.#writeErr(this.#pending);
        this.#pending = "";
        return;
      }
      this.#writeErr(this.#pending.slice(0, mark));
      this.#pending = this.#pending.slice(mark + RECORD_MARK.length);
      this.#inRecord = true;
    }
  }

  #record(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#writeErr(line + "\n");
      return;
    }
    if (value === null || typeof value !== "object") {
      this.#writeErr(line + "\n");
      return;
    }
    const control = value as ControlRecord;
    if (control.mcpx === "error") {
      this.failure ??= control.failure;
    } else if (control.mcpx === "emit") {
      if (this.#o.json) this.results.push(control.value);
      else this.#writeOut(JSON.stringify(control.value) + "\n");
    } else if (control.mcpx === "result") {
      this.result = control.value;
      this.hasResult = true;
    } else {
      const record = value as LogRecord;
      if (typeof record.source === "string") record.source = this.#o.source(record.source);
      this.#o.store?.(record);
      // Console output that reached stdout already: kept in the stored log, not shown again.
      if (record.fileOnly) return;
      if (this.#o.json) {
        this.logs.push(record);
      } else {
        this.#writeErr(renderRecord(record, this.#o.render) + "\n");
      }
    }
  }

  /** Flushes what is left; call once the script has ended. */
  finish(): void {
    try {
      if (!this.binary) this.#writeOut(this.#outDecoder.decode());
    } catch { /* a cut-off character at the very end */ }
    this.#pending += this.#errDecoder.decode();
    this.#drain(true);
    if (this.binary) {
      const saved = this.binary.file.close();
      this.#writeOut(
        `[mcpx: ${saved.bytes} bytes of ${this.binary.type} on stdout, not shown; saved in ${saved.path}]\n`,
      );
    }
    const stdout = this.#out?.end();
    const stderr = this.#err?.end();
    this.spilled = { ...(stdout ? { stdout } : {}), ...(stderr ? { stderr } : {}) };
  }
}

/** The fields of a `--json run` envelope that are never cut: the verdict and what ran. */
const ENVELOPE_KEPT = [
  "ok",
  "exitCode",
  "durationMs",
  "runtime",
  "script",
  "session",
  "runId",
  "error",
];

/**
 * A `--json run` envelope held to the bound as a whole: past it, the whole goes to a file and
 * the printed one keeps the verdict and the head of the result, emitted values, stdout, logs and
 * stderr, in that order, marked `truncated`, `spilledTo` and `bytes`.
 */
export function boundEnvelope<T extends Record<string, unknown>>(doc: T, bound: OutputBound): T {
  return boundDocument(doc, bound, ENVELOPE_KEPT) as T;
}
