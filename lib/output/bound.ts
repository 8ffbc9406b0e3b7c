import type { Context } from "../context.ts";
import { outputDir } from "../paths.ts";
import { type Spilled, SpillFile } from "./spill.ts";

/**
 * What printed output is held to (`output.maxBytes`): past `maxBytes` (0: no bound) the head is
 * printed and the whole goes to a file in `dir`, named from `stem`.
 */
export interface OutputBound {
  maxBytes: number;
  dir: string;
  stem: string;
}

const encoder = new TextEncoder();

/** The bound a command's output is held to, from `output.maxBytes` and the state directory. */
export async function outputBound(ctx: Context, stem: string): Promise<OutputBound> {
  const settings = await ctx.settings();
  return { maxBytes: settings.get("output.maxBytes"), dir: outputDir(ctx.boot, ctx.io.env), stem };
}

/** `20971520` → `20.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** The line printed after a head: how much was shown, where the whole is and its size. */
export function spillLine(shown: number, spilled: Spilled): string {
  return `[mcpx: output cut at ${shown} of ${spilled.bytes} bytes; all ${
    formatBytes(spilled.bytes)
  } are in ${spilled.path}]\n`;
}

/**
 * How many of `bytes`' first bytes to show within `room`: after the last newline that fits when
 * that keeps at least half the room, else at a character boundary (never inside a UTF-8
 * sequence). A long line is shown up to the room, not dropped whole: the pretty JSON of one long
 * string (`{`, newline, then the string) once printed as its first two bytes.
 */
export function cutAt(bytes: Uint8Array, room: number): number {
  if (bytes.length <= room) return bytes.length;
  const nl = bytes.subarray(0, room).lastIndexOf(0x0a);
  if (nl >= 0 && nl + 1 >= room / 2) return nl + 1;
  let end = Math.max(0, room);
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return end;
}

/** Text bounded as a whole: the text itself, or its head, the spill line and the file. */
export function boundText(text: string, bound: OutputBound, ext = "txt"): {
  text: string;
  spilled?: Spilled;
} {
  if (bound.maxBytes <= 0) return { text };
  const bytes = encoder.encode(text);
  if (bytes.length <= bound.maxBytes) return { text };
  const file = new SpillFile(bound.dir, bound.stem, ext);
  file.write(bytes);
  const spilled = file.close();
  const shown = cutAt(bytes, bound.maxBytes);
  let head = new TextDecoder().decode(bytes.subarray(0, shown));
  if (!head.endsWith("\n")) head += "\n";
  return { text: head + spillLine(shown, spilled), spilled };
}

function size(value: unknown): number {
  return encoder.encode(JSON.stringify(value)).length;
}

/**
 * Whether `value`'s compact JSON fits `budget` bytes, found without serialising a big value
 * whole: a string longer than the budget cannot fit, and a container stops at its first excess.
 */
function fits(value: unknown, budget: number): boolean {
  let left = budget;
  const walk = (v: unknown): boolean => {
    if (typeof v === "string") {
      if (v.length + 2 > left) return false;
      left -= size(v);
    } else if (Array.isArray(v)) {
      left -= 2 + Math.max(0, v.length - 1);
      for (const item of v) if (left < 0 || !walk(item === undefined ? null : item)) return false;
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v).filter(([, item]) => item !== undefined);
      left -= 2 + Math.max(0, entries.length - 1);
      for (const [key, item] of entries) {
        left -= size(key) + 1;
        if (left < 0 || !walk(item)) return false;
      }
    } else left -= size(v ?? null);
    return left >= 0;
  };
  return walk(value);
}

/**
 * The head of a JSON value: the same shape, cut so that its compact JSON fits `budget` bytes.
 * Strings keep their start, arrays their first items, objects their first keys, in order;
 * `undefined` when not even an empty container fits.
 */
export function jsonHead(value: unknown, budget: number): unknown {
  if (value === undefined) return undefined;
  if (fits(value, budget)) return value;
  if (typeof value === "string") {
    let n = Math.min(value.length, budget);
    while (n > 0 && size(value.slice(0, n)) > budget) {
      n = Math.floor(n * Math.min(0.95, budget / size(value.slice(0, n))));
    }
    // Never end on half of a surrogate pair.
    if (n > 0 && /[\uD800-\uDBFF]/.test(value[n - 1])) n--;
    return budget >= 2 ? value.slice(0, n) : undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  if (budget < 2) return undefined;
  let left = budget - 2;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const comma = out.length > 0 ? 1 : 0;
      const head = jsonHead(item, left - comma);
      if (head === undefined) break;
      out.push(head);
      left -= comma + size(head);
      if (head !== item) break;
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  let first = true;
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const cost = (first ? 0 : 1) + size(key) + 1;
    const head = jsonHead(item, left - cost);
    if (head === undefined) break;
    out[key] = head;
    left -= cost + size(head);
    first = false;
    if (head !== item) break;
  }
  return out;
}

/** What a bounded `--json` document adds: that it was cut, where the whole is, its size. */
export interface Truncation {
  truncated: true;
  spilledTo: string;
  bytes: number;
}

/**
 * A `--json` document held to the bound: as it is when it fits; otherwise the whole is written to
 * a `.json` file and the printed document keeps the `keep` fields whole and the head of the rest
 * (in order), marked with {@linkcode Truncation}. Printed with two-space indents, it fits.
 */
export function boundDocument<T extends Record<string, unknown>>(
  doc: T,
  bound: OutputBound,
  keep: readonly string[],
): T | (Partial<T> & Truncation) {
  if (bound.maxBytes <= 0) return doc;
  const text = JSON.stringify(doc, null, 2) + "\n";
  const bytes = encoder.encode(text);
  if (bytes.length <= bound.maxBytes) return doc;
  const file = new SpillFile(bound.dir, bound.stem, "json");
  file.write(bytes);
  const spilled = file.close();
  const mark: Truncation = { truncated: true, spilledTo: spilled.path, bytes: spilled.bytes };
  const kept = Object.fromEntries(Object.entries(doc).filter(([k]) => keep.includes(k)));
  const rest = Object.fromEntries(Object.entries(doc).filter(([k]) => !keep.includes(k)));
  const build = (budget: number) => {
    const head = (jsonHead(rest, Math.max(0, budget)) ?? {}) as Record<string, unknown>;
    // The document's own key order, with the mark at the end.
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(doc)) {
      if (key in kept) out[key] = kept[key];
      else if (key in head) out[key] = head[key];
    }
    return { ...out, ...mark } as Partial<T> & Truncation;
  };
  const fixed = encoder.encode(JSON.stringify(build(0), null, 2) + "\n").length;
  let budget = bound.maxBytes - fixed;
  let out = build(budget);
  // Indentation makes the printed form larger than the compact one the head was measured by.
  for (let i = 0; i < 8; i++) {
    const printed = encoder.encode(JSON.stringify(out, null, 2) + "\n").length;
    if (printed <= bound.maxBytes || budget <= 0) break;
    budget = Math.floor(budget * Math.min(0.95, (bound.maxBytes - fixed) / (printed - fixed)));
    out = build(budget);
  }
  return out;
}

/**
 * A stream (a script's stdout or stderr) held to the bound as it goes: written through until
 * `maxBytes`, then only to a spill file, which gets everything from the first byte (the head is
 * kept for it meanwhile). {@linkcode end} prints the spill line.
 */
export class BoundedStream {
  readonly #bound: OutputBound;
  readonly #sink: (text: string) => void;
  readonly #ext: string;
  #head: Uint8Array[] = [];
  #shown = 0;
  #endsInNewline = true;
  #file?: SpillFile;

  constructor(bound: OutputBound, sink: (text: string) => void, ext = "txt") {
    this.#bound = bound;
    this.#sink = sink;
    this.#ext = ext;
  }

  /** Whether the bound was passed, so the rest goes to the file only. */
  get spilling(): boolean {
    return this.#file !== undefined;
  }

  /** Takes text; what fits is passed to the sink. */
  write(text: string): void {
    if (!text) return;
    if (this.#file) return this.#file.write(text);
    const bytes = encoder.encode(text);
    const max = this.#bound.maxBytes;
    if (max <= 0 || this.#shown + bytes.length <= max) {
      this.#sink(text);
      this.#shown += bytes.length;
      this.#endsInNewline = text.endsWith("\n");
      if (max > 0) this.#head.push(bytes);
      return;
    }
    const shown = cutAt(bytes, max - this.#shown);
    if (shown > 0) {
      const part = new TextDecoder().decode(bytes.subarray(0, shown));
      this.#sink(part);
      this.#endsInNewline = part.endsWith("\n");
    }
    this.#shown += shown;
    this.#file = new SpillFile(this.#bound.dir, this.#bound.stem, this.#ext);
    for (const chunk of this.#head) this.#file.write(chunk);
    this.#head = [];
    this.#file.write(bytes);
  }

  /** Ends the stream: when it spilled, the spill line goes to the sink and the file is named. */
  end(): Spilled | undefined {
    if (!this.#file) return undefined;
    const spilled = this.#file.close();
    this.#sink((this.#endsInNewline ? "" : "\n") + spillLine(this.#shown, spilled));
    return spilled;
  }
}
