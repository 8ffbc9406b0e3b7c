/** Levels in increasing severity. */
export const LEVELS = ["debug", "info", "warn", "error"] as const;
/** A log level. */
export type Level = (typeof LEVELS)[number];

/** Appends JSON-lines records to one file; the record of truth later indexes read. */
export class JsonlLog {
  readonly #file: Deno.FsFile;
  readonly #min: number;
  readonly #base: Record<string, unknown>;
  readonly #encoder = new TextEncoder();

  private constructor(file: Deno.FsFile, min: Level, base: Record<string, unknown>) {
    this.#file = file;
    this.#min = LEVELS.indexOf(min);
    this.#base = base;
  }

  /** Opens (creating) the log at `path` for appending. */
  static async open(
    path: string,
    min: Level,
    base: Record<string, unknown> = {},
  ): Promise<JsonlLog> {
    const file = await Deno.open(path, { append: true, create: true, mode: 0o600 });
    // `mode` applies only to a new file: one left by an older mcpx is tightened here.
    if (((await file.stat()).mode! & 0o077) !== 0) await Deno.chmod(path, 0o600);
    return new JsonlLog(file, min, base);
  }

  /**
   * Writes one record if `level` is at or above the minimum. The fields every record carries
   * (`ts`, `level`, `event`, `msg` and those given at open, such as the daemon's `pid`) are never
   * overwritten by `attrs`: a server's pid goes in `serverPid`.
   */
  write(level: Level, event: string, msg: string, attrs: Record<string, unknown> = {}): void {
    if (LEVELS.indexOf(level) < this.#min) return;
    const own = { ts: new Date().toISOString(), level, event, msg, ...this.#base };
    const record = Object.assign({ ...own, ...attrs }, own);
    this.#file.writeSync(this.#encoder.encode(JSON.stringify(record) + "\n"));
  }

  /** Closes the file. */
  close(): void {
    this.#file.close();
  }
}
