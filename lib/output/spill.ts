import { join } from "../_path.ts";

/** How long a spill file is kept: older ones go when a new one is written. */
export const SPILL_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** A whole result that was too big to print, or bytes that are never printed. */
export interface Spilled {
  /** The file that holds it. */
  path: string;
  /** Its size in bytes. */
  bytes: number;
}

const swept = new Set<string>();

/** Removes what an earlier spill left in `dir` more than a day ago; once per folder and process. */
function sweep(dir: string, now: number): void {
  if (swept.has(dir)) return;
  swept.add(dir);
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.isFile) continue;
    const path = join(dir, entry.name);
    try {
      const mtime = Deno.statSync(path).mtime?.getTime();
      if (mtime !== undefined && now - mtime > SPILL_MAX_AGE_MS) Deno.removeSync(path);
    } catch { /* gone already, or not ours to remove */ }
  }
}

/** `call-everything.echo` stays readable; anything a file name should not hold becomes `_`. */
function safe(stem: string): string {
  return stem.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80) || "output";
}

/**
 * A file in the spill folder, created 0600 (the folder 0700) on the first write, named
 * `<stem>-<time>-<random>.<ext>` so that it sorts by when it was written.
 */
export class SpillFile {
  readonly #dir: string;
  readonly #name: string;
  #file?: Deno.FsFile;
  #bytes = 0;

  constructor(dir: string, stem: string, ext: string) {
    this.#dir = dir;
    const time = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
    this.#name = `${safe(stem)}-${time}-${crypto.randomUUID().slice(0, 6)}.${ext}`;
  }

  /** Where the file is (or will be, before the first write). */
  get path(): string {
    return join(this.#dir, this.#name);
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends `data` (text is written as UTF-8). */
  write(data: Uint8Array | string): void {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    if (!this.#file) {
      Deno.mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      sweep(this.#dir, Date.now());
      this.#file = Deno.openSync(this.path, { write: true, createNew: true, mode: 0o600 });
    }
    let done = 0;
    while (done < bytes.length) done += this.#file.writeSync(bytes.subarray(done));
    this.#bytes += bytes.length;
  }

  /** Closes the file and says where it is. */
  close(): Spilled {
    if (!this.#file) this.write(new Uint8Array());
    this.#file?.close();
    this.#file = undefined;
    return { path: this.path, bytes: this.#bytes };
  }
}

/** Writes `data` to a new spill file at once. */
export function spill(dir: string, stem: string, ext: string, data: Uint8Array | string): Spilled {
  const file = new SpillFile(dir, stem, ext);
  file.write(data);
  return file.close();
}
