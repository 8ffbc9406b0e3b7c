/**
 * `mcpx tui`: the browser on this terminal, over mcpx's own operations, until `q` or Ctrl-C; the
 * terminal is given back as it was (alternate screen left, mouse reporting and raw mode off).
 */

import "./production.ts";
// @ts-types="@types/react"
import React from "react";
import { render } from "ink";
import { Context } from "../context.ts";
import { App } from "./app.ts";
import { OperationsSource } from "./real_source.ts";
import { openTerminal } from "./terminal.ts";

/** Runs the browser; resolves with the exit status once it has ended and the terminal is back. */
export async function runTui(ctx: Context): Promise<number> {
  // What the operations would print on stderr would land in the middle of the screen.
  const quiet = new Context({ ...ctx.io, out: () => {}, err: () => {} }, ctx.flags);
  quiet.inline = ctx.inline; // a daemon this command hosts (daemon.inline) is the one to ask
  quiet.host = ctx.host;
  const source = new OperationsSource(quiet);
  const term = openTerminal();
  const app = render(React.createElement(App, { source, mouse: term.mouse }), {
    stdin: term.stdin,
    alternateScreen: true,
    // Only ever run on a terminal (lib/operations/tui_op.ts checks): draw as on one, even in CI.
    interactive: true,
    exitOnCtrlC: true,
    patchConsole: true,
  });
  const stop = () => app.unmount();
  term.onEnd(stop);
  const signals = ["SIGTERM", "SIGHUP"] as const;
  for (const s of signals) Deno.addSignalListener(s, stop);
  try {
    await app.waitUntilExit();
  } finally {
    for (const s of signals) Deno.removeSignalListener(s, stop);
    term.restore();
  }
  return 0;
}
