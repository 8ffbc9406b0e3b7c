// A script run's records in the durable log. The CLI process that runs the script writes them:
// it already reads every record the launcher writes behind U+001E on the script's stderr, so the
// script itself never opens a file, and a run with no daemon is logged all the same.

import { makeRecord } from "../../launcher/log.ts";
import type { Level, LogRecord } from "../../launcher/protocol.ts";
import { JsonlWriter } from "./jsonl.ts";
import { newId } from "./ids.ts";

/** What a run's log needs. */
export interface RunLogOptions {
  dir: string;
  stem: string;
  maxBytes: number;
  /** Told once, in one line, when records cannot be stored. */
  problem(line: string): void;
}

/**
 * The records of one script run, stored in `<state>/logs/runs*.jsonl`: `run.start` (the
 * creating record of its `run-…` id), every record the script logged (stamped with that id),
 * and `run.end` (exit status, duration, and `daemonId`, the daemon that served its calls).
 */
export class RunLog {
  readonly id: string = newId("run");
  readonly #writer: JsonlWriter;

  constructor(options: RunLogOptions) {
    this.#writer = new JsonlWriter(options.dir, options.stem, options);
  }

  /** Stores one event of the run itself. */
  event(level: Level, event: string, msg: string, attrs: Record<string, unknown> = {}): void {
    this.#writer.append(makeRecord(level, msg, [attrs], {
      literal: true,
      fields: { event, id: this.id },
    }));
  }

  /** Stores one record the script wrote, as the thing it happened inside. */
  record(record: LogRecord): void {
    const { ts, level, ...rest } = record;
    this.#writer.append({ ts, level, id: this.id, ...rest } as LogRecord);
  }

  /** Closes the file. */
  close(): void {
    this.#writer.close();
  }
}

/** Whether records on stderr get coloured levels: stderr is a terminal and NO_COLOR is unset. */
export function wantsColor(io: { errIsTerminal?: boolean; env: Readonly<Record<string, string>> }) {
  return !!io.errIsTerminal && !io.env.NO_COLOR;
}
