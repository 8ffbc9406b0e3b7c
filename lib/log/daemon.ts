// The daemon's log: records built by the one record builder (launcher/log.ts) and appended by
// the JSONL writer, each stamped with the id of what it happened inside.

import { LEVEL_RANK, makeRecord, type RenderOptions, renderRecord } from "../../launcher/log.ts";
import type { Level, LogRecord } from "../../launcher/protocol.ts";
import { JsonlWriter } from "./jsonl.ts";
import { newId } from "./ids.ts";

export type { Level };

/**
 * Where a part of the daemon sends a record: {@linkcode DaemonLog.write}'s shape, handed to the
 * part instead of the log itself (a test hands a fake).
 */
export type LogSink = (
  level: Level,
  event: string,
  msg: string,
  attrs?: Record<string, unknown>,
) => void;

/** Where a daemon's records go. */
export interface DaemonLogOptions {
  dir: string;
  stem: string;
  level: Level;
  maxBytes: number;
  /** Told once when records cannot be stored. */
  problem(line: string): void;
  /** Each record rendered as a line, too (a daemon in the foreground, on a terminal). */
  render?: { write(line: string): void } & RenderOptions;
}

/**
 * The daemon's structured log. `write(level, event, msg, attrs)` stores one record whose `id` is
 * the daemon's own (`dmn-…`) unless `attrs.id` names another thing (an instance, a call);
 * `attrs.parent` is given only on the record that creates that thing.
 */
export class DaemonLog {
  /** This daemon's id, the parent of everything it creates. */
  readonly id: string = newId("dmn");
  readonly #min: number;
  readonly #writer: JsonlWriter;
  readonly #render?: DaemonLogOptions["render"];
  readonly #base: Record<string, unknown>;

  constructor(options: DaemonLogOptions, base: Record<string, unknown> = {}) {
    this.#min = LEVEL_RANK[options.level] ?? LEVEL_RANK.info;
    this.#writer = new JsonlWriter(options.dir, options.stem, {
      maxBytes: options.maxBytes,
      problem: options.problem,
    });
    this.#render = options.render;
    this.#base = base;
  }

  /** The file records go to now (undefined until the first is written). */
  get path(): string | undefined {
    return this.#writer.path;
  }

  /**
   * Writes one record if `level` is at or above the threshold. The fields given at construction
   * (the daemon's `pid`) are never replaced by `attrs`: a server's pid goes in `serverPid`.
   */
  write(level: Level, event: string, msg: string, attrs: Record<string, unknown> = {}): void {
    if (LEVEL_RANK[level] < this.#min) return;
    const { id, parent, ...rest } = attrs;
    const record: LogRecord = makeRecord(level, msg, [
      Object.assign({ ...this.#base, ...rest }, this.#base),
    ], {
      literal: true,
      fields: {
        event,
        id: typeof id === "string" ? id : this.id,
        ...(typeof parent === "string" ? { parent } : {}),
      },
    });
    this.#writer.append(record);
    if (this.#render) this.#render.write(renderRecord(record, this.#render) + "\n");
  }

  /** Closes the file. */
  close(): void {
    this.#writer.close();
  }
}
