/**
 * A fake {@linkcode ViewSource} with answers held until a test releases them, and a terminal made
 * of two streams, so that the browser runs in a test as it runs on a terminal.
 */

import { EventEmitter } from "node:events";
// @ts-types="@types/react"
import React from "react";
import { render } from "ink";
import { App, type MouseEvent, type ViewName } from "./app.ts";
import type { Grid, NamespaceItem, StatsKind, ToolItem, ViewSource } from "./source.ts";

/** A call the fake received, with the means to answer it. */
export interface Pending {
  method: string;
  args: unknown[];
  resolve(value?: unknown): void;
  reject(error: Error): void;
}

/** The fixture the fake answers from. */
export interface Fixture {
  namespaces: NamespaceItem[];
  tools: Record<string, ToolItem[]>;
  log: Grid;
  stats: Partial<Record<StatsKind, Grid>>;
  servers: Grid;
  sessions: Grid;
  storage: Grid;
}

/** The fixture of the browser tests: two namespaces, one with a "q" in its name. */
export function fixture(): Fixture {
  return {
    namespaces: [
      { name: "everything", tools: 3, state: "ready", description: "test server" },
      { name: "quotes", tools: 2, state: "ready", description: "has a q" },
      { name: "memory", tools: 1, state: "ready", description: "a graph" },
    ],
    tools: {
      everything: [
        { name: "echo", description: "Echoes" },
        { name: "add", description: "Adds" },
        { name: "longRunning", description: "Waits" },
      ],
      quotes: [{ name: "random", description: "" }, { name: "quote_of_day", description: "" }],
      memory: [{ name: "read_graph", description: "" }],
    },
    log: {
      columns: ["ts", "level", "event", "msg"],
      rows: [
        { ts: "2026-12-04T04:00:00Z", level: "info", event: "daemon.start", msg: "started" },
        {
          ts: "2026-12-04T04:00:01Z",
          level: "error",
          event: "call.end",
          msg: "failed",
          stack: "Error: boom\n    at one (a.ts:1)\n    at two (b.ts:2)",
        },
      ],
    },
    stats: {
      calls: { rows: [{ server: "everything", tool: "echo", calls: 4, p50Ms: 1.5 }] },
      servers: { rows: [{ server: "everything", starts: 1, ready: 1 }] },
      errors: { rows: [{ template: "boom {x}", count: 2 }] },
      sessions: { rows: [{ run: "run-1", calls: 3 }] },
      slowest: { rows: [{ id: "cal-9", durationMs: 880 }] },
      volume: { rows: [{ hour: "2026-12-04T04:00", records: 12 }], note: "12 records in 1 file" },
    },
    servers: { rows: [{ server: "everything", pid: 4242, uptime: "3s", why: "" }] },
    sessions: { rows: [{ session: "ses-abc", calls: 3, cost: 0.12 }] },
    storage: { rows: [{ part: "log", files: 2, bytes: 2048, size: "2.0 KiB" }] },
  };
}

/**
 * A source over a fixture. With `hold`, each call waits for the test to answer it (from
 * `pending`); otherwise it answers at once from the fixture.
 */
export class FakeSource implements ViewSource {
  readonly pending: Pending[] = [];
  readonly calls: string[] = [];
  hold: boolean;
  constructor(readonly data: Fixture = fixture(), options: { hold?: boolean } = {}) {
    this.hold = options.hold ?? false;
  }
  #answer<T>(method: string, args: unknown[], value: () => T): Promise<T> {
    this.calls.push(`${method}(${args.join(",")})`);
    if (!this.hold) return Promise.resolve().then(value);
    return new Promise<T>((resolve, reject) => {
      this.pending.push({
        method,
        args,
        resolve: (v) => resolve(v === undefined ? value() : v as T),
        reject,
      });
    });
  }
  /** The oldest held call of `method` for these arguments, once it has been made. */
  async next(method: string, ...args: unknown[]): Promise<Pending> {
    for (let i = 0; i < 400; i++) {
      if (this.pending.some((p) => p.method === method && args.every((a, j) => p.args[j] === a))) {
        return this.take(method, ...args);
      }
      await settle(1);
    }
    return this.take(method, ...args);
  }
  /** The oldest held call of `method` for these arguments. */
  take(method: string, ...args: unknown[]): Pending {
    const i = this.pending.findIndex((p) =>
      p.method === method && args.every((a, j) => p.args[j] === a)
    );
    if (i < 0) {
      throw new Error(
        `no pending ${method}(${args.join(",")}): ${
          this.pending.map((p) => `${p.method}(${p.args.join(",")})`).join(" ")
        }`,
      );
    }
    return this.pending.splice(i, 1)[0];
  }
  namespaces() {
    return this.#answer("namespaces", [], () => this.data.namespaces);
  }
  tools(ns: string) {
    return this.#answer("tools", [ns], () => this.data.tools[ns] ?? []);
  }
  signature(ns: string, tool: string) {
    return this.#answer(
      "signature",
      [ns, tool],
      () => `/** ${tool} of ${ns} */\n${tool}(args: { message: string }): Promise<unknown>`,
    );
  }
  log(limit: number) {
    return this.#answer("log", [limit], () => this.data.log);
  }
  stats(kind: StatsKind) {
    return this.#answer("stats", [kind], () => this.data.stats[kind] ?? { rows: [] });
  }
  servers() {
    return this.#answer("servers", [], () => this.data.servers);
  }
  sessions() {
    return this.#answer("sessions", [], () => this.data.sessions);
  }
  storage() {
    return this.#answer("storage", [], () => this.data.storage);
  }
}

class FakeStdout extends EventEmitter {
  frames: string[] = [];
  isTTY = true;
  constructor(public columns: number, public rows: number) {
    super();
  }
  write(frame: string, ...rest: unknown[]): boolean {
    this.frames.push(frame);
    const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    if (done) queueMicrotask(done);
    return true;
  }
}

class FakeStdin extends EventEmitter {
  isTTY = true;
  #queue: string[] = [];
  setRawMode() {}
  setEncoding() {}
  ref() {}
  unref() {}
  resume() {}
  pause() {}
  read(): string | null {
    return this.#queue.shift() ?? null;
  }
  push(text: string) {
    this.#queue.push(text);
    this.emit("readable");
  }
}

/** The browser on a fake terminal. */
export interface Screen {
  /** The last frame drawn, without colours. */
  frame(): string;
  /** Types `text` (one chunk, as a terminal delivers a key or a paste). */
  press(text: string): Promise<void>;
  click(x: number, y: number): Promise<void>;
  resize(columns: number, rows: number): Promise<void>;
  /** Waits until the frame satisfies `test`, or fails saying what the frame was. */
  until(test: (frame: string) => boolean, what: string): Promise<string>;
  exited(): Promise<unknown>;
  unmount(): Promise<void>;
}

// deno-lint-ignore no-control-regex -- terminal control characters are what it matches
const ANSI = /\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b\][^\x07]*\x07/g;

/** Lets the event loop run: timers of 0 ms, then a few more turns. */
export async function settle(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setTimeout(r, 1));
}

/** Renders the browser on a fake terminal of `columns` × `rows`. */
export function screen(
  source: ViewSource,
  options: { columns?: number; rows?: number; initial?: ViewName } = {},
): Screen {
  const stdout = new FakeStdout(options.columns ?? 100, options.rows ?? 24);
  const stdin = new FakeStdin();
  const listeners = new Set<(e: MouseEvent) => void>();
  const mouse = (l: (e: MouseEvent) => void) => {
    listeners.add(l);
    return () => void listeners.delete(l);
  };
  const app = render(React.createElement(App, { source, mouse, initial: options.initial }), {
    stdout: stdout as never,
    stdin: stdin as never,
    stderr: new FakeStdout(100, 24) as never,
    debug: true,
    exitOnCtrlC: true,
    patchConsole: false,
    interactive: true,
  });
  let done = false;
  const exit = app.waitUntilExit().finally(() => void (done = true));
  const frame = () => (stdout.frames.at(-1) ?? "").replace(ANSI, "");
  return {
    frame,
    async press(text) {
      stdin.push(text);
      await settle();
    },
    async click(x, y) {
      for (const l of listeners) l({ button: 0, x, y, release: false });
      await settle();
    },
    async resize(columns, rows) {
      stdout.columns = columns;
      stdout.rows = rows;
      stdout.emit("resize");
      await settle();
    },
    async until(test, what) {
      for (let i = 0; i < 400; i++) {
        if (test(frame())) return frame();
        await settle(1);
      }
      throw new Error(`the screen never showed ${what}; it shows:\n${frame()}`);
    },
    exited: () => exit,
    async unmount() {
      if (!done) app.unmount();
      await exit.catch(() => {});
      await settle();
    },
  };
}
