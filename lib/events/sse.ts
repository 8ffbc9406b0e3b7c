// The reader of `GET /v1/events`, beside its writer (bus.ts `sseFrame`, `sseResponse`): the
// server-sent events a client reads, a line at a time. lib/runtime/client.ts carries a copy of
// `sseLines` and `readSse`, since it imports nothing; sse_test.ts holds the copy to these.

import type { Delivery } from "./bus.ts";

/**
 * A reader of server-sent events as they arrive, a piece at a time: hands `each` the text after
 * `data: ` of every line a piece completes (the rest of the line waits for the next piece).
 */
export function sseLines(each: (data: string) => void): (piece: string) => void {
  let text = "";
  return (piece) => {
    text += piece;
    let at: number;
    while ((at = text.indexOf("\n")) >= 0) {
      const line = text.slice(0, at);
      text = text.slice(at + 1);
      if (line.startsWith("data: ")) each(line.slice(6));
    }
  };
}

/**
 * Reads the answer to `GET /v1/events` from `conn`, over which the request was written by hand:
 * resolves once the answer's head has arrived (the daemon has subscribed by then) to `reading`,
 * which hands `each` the text of every `data:` line and settles once the connection closes or
 * `each` throws; undefined when the connection closed before the head.
 */
export async function readSse(
  conn: { read(into: Uint8Array): Promise<number | null> },
  each: (data: string) => void,
): Promise<{ reading: Promise<void> } | undefined> {
  const decoder = new TextDecoder();
  const buf = new Uint8Array(65536);
  let text = "";
  while (!text.includes("\r\n\r\n")) {
    const n = await conn.read(buf);
    if (n === null) return undefined;
    text += decoder.decode(buf.subarray(0, n), { stream: true });
  }
  const push = sseLines(each);
  const reading = (async () => {
    try {
      push(text);
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) return;
        push(decoder.decode(buf.subarray(0, n), { stream: true }));
      }
    } catch { /* closed */ }
  })();
  return { reading };
}

/** The deliveries of a server-sent events text (`GET /v1/events?follow=false`'s whole answer). */
export function parseSse(text: string): Delivery[] {
  const out: Delivery[] = [];
  sseLines((data) => out.push(JSON.parse(data) as Delivery))(text);
  return out;
}
