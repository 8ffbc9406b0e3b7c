// How `mcpx call` shows a call's progress: before sending the call it subscribes to the daemon's
// bus (`GET /v1/events`, live), sends the call with a token it made up, and draws each
// `call.progress` event carrying that token on stderr: a bar redrawn in place on a terminal, one
// line per report otherwise. The subscription is open before the call is sent, so no report of
// it can be missed.

import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import type { BusEvent } from "../events/bus.ts";
import { readSse } from "../events/sse.ts";

/** One progress report as a line: `[######    ] 3/5 step 3`, or `3 step 3` without a total. */
export function progressLine(p: { progress: number; total?: number; message?: string }): string {
  const message = p.message ? ` ${p.message}` : "";
  if (p.total === undefined || p.total <= 0) return `${p.progress}${message}`;
  const width = 20;
  const filled = Math.max(0, Math.min(width, Math.round((p.progress / p.total) * width)));
  return `[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${p.progress}/${p.total}${message}`;
}

/** Runs `send` with a progress token, drawing the reports of its call on stderr. */
export async function withProgress<T>(
  ctx: Context,
  send: (token: string) => Promise<T>,
): Promise<T> {
  const token = crypto.randomUUID();
  const terminal = ctx.io.isTerminal && Deno.stderr.isTerminal();
  let drawn = false;
  const draw = (e: BusEvent) => {
    const p = e.data as { token?: string; progress: number; total?: number; message?: string };
    if (p.token !== token) return;
    if (terminal) {
      ctx.io.err(`\r\x1b[K${progressLine(p)}`);
      drawn = true;
    } else ctx.io.err(`progress: ${progressLine(p)}\n`);
  };
  let conn: Deno.UnixConn | undefined;
  let reading: Promise<void> = Promise.resolve();
  try {
    const { checkSocket, readToken } = await load<typeof import("../daemon/guard.ts")>(
      "../daemon/guard.ts",
      import.meta.url,
    );
    const paths = await ctx.paths();
    // Checked as every request's socket is: another user's socket is never sent a byte.
    if (checkSocket(paths.socket, { fallback: paths.socketFallback }) === "absent") {
      throw new Error("no daemon");
    }
    const key = readToken(paths.token);
    // HTTP by hand over the socket: fetch() costs a command 15-20 ms of set-up, a connection
    // well under 1. No daemon yet (this call starts it): no progress for this call.
    conn = await Deno.connect({ transport: "unix", path: paths.socket });
    const head = `GET /v1/events HTTP/1.1\r\nhost: mcpx\r\nconnection: close\r\n` +
      (key === undefined ? "" : `x-mcpx-token: ${key}\r\n`) + "\r\n";
    await conn.write(new TextEncoder().encode(head));
    // The answer's head arrives once the daemon has subscribed.
    const read = await readSse(conn, (data) => {
      if (data.includes(token)) draw(JSON.parse(data) as BusEvent);
    });
    if (read === undefined) throw new Error("closed");
    reading = read.reading;
  } catch {
    // No progress to show is no reason to fail the call: it is sent all the same.
  }
  try {
    return await send(token);
  } finally {
    try {
      conn?.close();
    } catch { /* already closed */ }
    await reading;
    if (drawn) ctx.io.err("\r\x1b[K");
  }
}
