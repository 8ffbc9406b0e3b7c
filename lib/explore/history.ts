// The lines typed at `mcpx explore` and `mcpx repl`, kept in a file under the state folder so
// that the next session's up-arrow finds them; bounded, oldest dropped first.

import { writeFileAtomic } from "../_atomic.ts";
import { dirname } from "../_path.ts";

/** How many lines a history file keeps. */
export const HISTORY_LINES = 500;

function entry(line: string): string {
  try {
    const value = JSON.parse(line);
    if (typeof value === "string") return value;
  } catch { /* a line written by hand: kept as it is */ }
  return line;
}

/** A history file: read once, appended to, written back bounded. */
export class History {
  readonly path: string;
  readonly max: number;
  #lines: string[];

  constructor(path: string, max = HISTORY_LINES) {
    this.path = path;
    this.max = max;
    let text = "";
    try {
      text = Deno.readTextFileSync(path);
    } catch { /* none yet */ }
    // One entry a line; a multi-line statement is kept with its newlines escaped.
    this.#lines = text.split("\n").filter((l) => l !== "").map(entry).slice(-max);
  }

  /** Newest last. */
  get lines(): readonly string[] {
    return this.#lines;
  }

  /** Adds a line (a repeat of the newest is not added twice) and writes the file. */
  add(line: string): void {
    if (line.trim() === "" || this.#lines.at(-1) === line) return;
    this.#lines.push(line);
    if (this.#lines.length > this.max) this.#lines.splice(0, this.#lines.length - this.max);
    try {
      Deno.mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      writeFileAtomic(this.path, this.#lines.map((l) => JSON.stringify(l) + "\n").join(""));
    } catch { /* a state folder we cannot write: the session goes on without saving */ }
  }
}
