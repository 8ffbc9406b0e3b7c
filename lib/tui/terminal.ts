/**
 * The terminal the browser draws on: ink is handed a copy of stdin from which mouse reports are
 * taken out (ink drops them, and the views want clicks), mouse reporting is turned on in
 * cell-motion mode (clicks and the wheel, no event per pixel), and everything is put back on
 * exit, however the browser ends.
 */

import process from "node:process";
import { PassThrough } from "node:stream";
import type { MouseEvent } from "./app.ts";

/** Mouse reports on: 1002 is cell motion (buttons, wheel, drags by cell), 1006 their SGR form. */
const MOUSE_ON = "\x1b[?1002h\x1b[?1006h";
const MOUSE_OFF = "\x1b[?1006l\x1b[?1002l";
/** An SGR mouse report: ESC [ < button ; x ; y, M pressed or m released. */
// deno-lint-ignore no-control-regex -- terminal control characters are what it matches
const REPORT = /\x1b\[<(\d+);(\d+);(\d+)([Mm])/g;
/** The start of a report cut off at the end of a read: kept for the next one. */
// deno-lint-ignore no-control-regex -- terminal control characters are what it matches
const PARTIAL = /\x1b(\[(<[\d;]*)?)?$/;

/** A terminal in use by the browser. */
export interface Terminal {
  /** What ink reads keys from. */
  readonly stdin: NodeJS.ReadStream;
  /** Subscribes to clicks and wheel turns; returns the unsubscribe. */
  mouse(listener: (event: MouseEvent) => void): () => void;
  /** Called once when stdin ends (the terminal went away). */
  onEnd(callback: () => void): void;
  /** Mouse reporting off, raw mode off, stdin released. Safe to call more than once. */
  restore(): void;
}

/** The streams a terminal is made of: the process's own unless a test hands others. */
export interface TerminalStreams {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

/** Takes the process's terminal for the browser. */
export function openTerminal(
  streams: TerminalStreams = { stdin: process.stdin, stdout: process.stdout },
): Terminal {
  const real = streams.stdin;
  const out = streams.stdout;
  const proxy = new PassThrough() as unknown as NodeJS.ReadStream & Record<string, unknown>;
  Object.assign(proxy, {
    isTTY: true,
    setRawMode(on: boolean) {
      real.setRawMode?.(on);
      return proxy;
    },
    ref() {
      real.ref?.();
      return proxy;
    },
    unref() {
      real.unref?.();
      return proxy;
    },
  });
  const listeners = new Set<(event: MouseEvent) => void>();
  const ended: (() => void)[] = [];
  let carry = "";
  const onData = (chunk: Buffer | string) => {
    let text = carry + chunk.toString();
    carry = "";
    text = text.replace(REPORT, (_, b: string, x: string, y: string, m: string) => {
      const event = { button: Number(b), x: Number(x), y: Number(y), release: m === "m" };
      for (const l of listeners) l(event);
      return "";
    });
    const partial = PARTIAL.exec(text);
    // A lone ESC is the escape key; only the start of a report waits for the rest.
    if (partial && partial[0].startsWith("\x1b[<")) {
      carry = partial[0];
      text = text.slice(0, partial.index);
    }
    if (text) proxy.write(text);
  };
  const onEnd = () => {
    for (const f of ended.splice(0)) f();
  };
  real.on("data", onData);
  real.on("end", onEnd);
  real.on("close", onEnd);
  out.write(MOUSE_ON);
  // Deno's stdout reports a new size through SIGWINCH; ink listens for `resize`.
  const resized = () => out.emit("resize");
  let winch = false;
  try {
    Deno.addSignalListener("SIGWINCH", resized);
    winch = true;
  } catch { /* not on this platform */ }
  let restored = false;
  return {
    stdin: proxy,
    mouse(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    onEnd(callback) {
      ended.push(callback);
    },
    restore() {
      if (restored) return;
      restored = true;
      if (winch) Deno.removeSignalListener("SIGWINCH", resized);
      real.off("data", onData);
      real.off("end", onEnd);
      real.off("close", onEnd);
      try {
        real.setRawMode?.(false);
      } catch { /* stdin is gone */ }
      real.pause();
      real.unref?.();
      out.write(MOUSE_OFF);
    },
  };
}
