import type { Io } from "../io.ts";
import { renderRecord } from "../../launcher/log.ts";
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
  /** Bytes kept of each stream (stdout, stderr); 0 keeps everything. */
  maxOutput: number;
  /** How a record's `source` (`/abs/file.ts:12:3`) is shown: relative, exec lines mapped. */
  source: (source: string) => string;
}

const MAGIC: [number[], string][] = [
  [[0x89, 0x50, 0x4e, 0x47], "PNG image"],
  [[0xff, 0xd8, 0xff], "JPEG image"],
  [[0x47, 0x49, 0x46, 0x38], "GIF image"],
  [[0x25, 0x50, 0x44, 0x46], "PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "zip archive"],
  [[0x1f, 0x8b], "gzip data"],
  [[0x52, 0x49, 0x46, 0x46], "RIFF (WebP/WAV) data"],
  [[0x7f, 0x45, 0x4c, 0x46], "ELF executable"],
];

function sniff(bytes: Uint8Array): string {
  for (const [magic, name] of MAGIC) if (magic.every((b, i) => bytes[i] === b)) return name;
  return "binary data";
}

/** One stream's budget: what was kept, and how much was dropped past the cap. */
class Budget {
  kept = 0;
  dropped = 0;
  readonly #max: number;
  constructor(max: number) {
    this.#max = max;
  }
  /** The part of `text` that fits; the rest is counted as dropped. */
  take(text: string): { text: string; cut: boolean } {
    const bytes = new TextEncoder().encode(text);
    if (this.#max <= 0 || this.kept + bytes.length <= this.#max) {
      this.kept += bytes.length;
      return { text, cut: false };
    }
    const room = Math.max(0, this.#max - this.kept);
    this.kept += room;
    this.dropped += bytes.length - room;
    // Cutting may split a character; the decoder drops the partial one.
    return {
      text: new TextDecoder().decode(bytes.subarray(0, room)).replace(/\uFFFD$/, ""),
      cut: true,
    };
  }
  get full(): boolean {
    return this.#max > 0 && this.kept >= this.#max;
  }
}

/**
 * Reads what a running script writes: stdout is the result (capped, binary described instead of
 * shown); stderr carries records behind U+001E, rendered for a person or collected for the
 * envelope, and the script's own text, passed through.
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
  /** Binary stdout seen: its size and a guess at its type. */
  binary?: { bytes: number; type: string };

  readonly #o: OutputOptions;
  readonly #out: Budget;
  readonly #err: Budget;
  #outDecoder = new TextDecoder("utf-8", { fatal: true });
  #errDecoder = new TextDecoder();
  #pending = "";
  #inRecord = false;
  #marked = { out: false, err: false };

  constructor(options: OutputOptions) {
    this.#o = options;
    this.#out = new Budget(options.maxOutput);
    this.#err = new Budget(options.maxOutput);
  }

  /** Bytes dropped past the cap, per stream. */
  get truncated(): { stdout?: number; stderr?: number } | undefined {
    if (!this.#out.dropped && !this.#err.dropped) return undefined;
    return {
      ...(this.#out.dropped ? { stdout: this.#out.dropped } : {}),
      ...(this.#err.dropped ? { stderr: this.#err.dropped } : {}),
    };
  }

  #writeOut(text: string): void {
    if (!text) return;
    const part = this.#out.take(text);
    if (this.#o.json) this.stdoutText += part.text;
    else if (part.text) this.#o.io.out(part.text);
    if (part.cut && !this.#marked.out) {
      this.#marked.out = true;
      const mark =
        `\n[mcpx: stdout truncated at ${this.#o.maxOutput} bytes (script.maxOutput); write large output to a file]\n`;
      if (this.#o.json) this.stdoutText += mark;
      else this.#o.io.out(mark);
    }
  }

  #writeErr(text: string): void {
    if (!text) return;
    const part = this.#err.take(text);
    if (this.#o.json) this.stderrText += part.text;
    else if (part.text) this.#o.io.err(part.text);
    if (part.cut && !this.#marked.err) {
      this.#marked.err = true;
      const mark = `\n[mcpx: stderr truncated at ${this.#o.maxOutput} bytes (script.maxOutput)]\n`;
      if (this.#o.json) this.stderrText += mark;
      else this.#o.io.err(mark);
    }
  }

  /** Takes a chunk of the script's stdout. */
  stdout(bytes: Uint8Array): void {
    if (this.binary) {
      this.binary.bytes += bytes.length;
      return;
    }
    let text: string;
    try {
      if (bytes.includes(0)) throw new TypeError("NUL byte");
      text = this.#outDecoder.decode(bytes, { stream: true });
    } catch {
      this.binary = { bytes: bytes.length, type: sniff(bytes) };
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
      if (this.#o.json) {
        const part = this.#err.take(line);
        if (!part.cut) this.logs.push(record);
      } else {
        this.#writeErr(renderRecord(record) + "\n");
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
      this.#writeOut(
        `[mcpx: ${this.binary.bytes} bytes of ${this.binary.type} on stdout, not shown; write binary data to a file and print its path]\n`,
      );
    }
    if (!this.#o.json && this.#out.dropped) {
      this.#o.io.err(`mcpx: dropped ${this.#out.dropped} bytes of stdout past script.maxOutput\n`);
    }
  }
}
