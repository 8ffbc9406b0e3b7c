// How `mcpx call` shows a call's progress: before sending the call it subscribes to the daemon's
// bus (`GET /v1/events`, live), sends the call with a token it made up, and draws each
// `call.progress` event carrying that token on stderr: a bar redrawn in place on a terminal, one
// line per report otherwise. The subscription is open before the call is sent, so no report of
// it can be missed.

import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import type { BusEvent } from "../events/bus.ts";

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
  const stop = new AbortController();
  let client: Deno.HttpClient | undefined;
  let reading: Promise<void> = Promise.resolve();
  try {
    const { ensureDaemon } = await load<typeof import("../daemon/client.ts")>(
      "../daemon/client.ts",
      import.meta.url,
    );
    const { readToken } = await load<typeof import("../daemon/guard.ts")>(
      "../daemon/guard.ts",
      import.meta.url,
    );
    await ensureDaemon(ctx);
    const paths = await ctx.paths();
    const key = readToken(paths.token);
    client = Deno.createHttpClient({ proxy: { transport: "unix", path: paths.socket } });
    const res = await fetch("http://mcpx/v1/events", {
      client,
      headers: key === undefined ? {} : { "x-mcpx-token": key },
      signal: stop.signal,
    });
    if (res.ok && res.body) reading = readEvents(res.body, draw).catch(() => {});
    else await res.body?.cancel();
  } catch {
    // No progress to show is no reason to fail the call: it is sent all the same.
  }
  try {
    return await send(token);
  } finally {
    stop.abort();
    await reading;
    client?.close();
    if (drawn) ctx.io.err("\r\x1b[K");
  }
}

async function readEvents(
  body: ReadableStream<Uint8Array>,
  each: (e: BusEvent) => void,
): Promise<void> {
  let buffer = "";
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      if (!block.includes("event: call.progress")) continue;
      const data = block.split("\n").find((l) => l.startsWith("data: "));
      if (data) each(JSON.parse(data.slice(6)) as BusEvent);
    }
  }
}
