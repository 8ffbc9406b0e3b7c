// HTTP/1.1 over the daemon's unix socket, by hand. The CLI's first `fetch()` costs 12–17 ms of
// one-time set-up here against 2–3 ms for this (timed in-process per step); the daemon side is
// Deno.serve.

import { after } from "../_timer.ts";
import { McpxError } from "../errors.ts";

/** Every daemon answer carries its configuration's fingerprint, so one round trip both asks and checks. */
export const FINGERPRINT_HEADER = "x-mcpx-fingerprint";

/** One answer from the daemon. */
export interface WireResponse {
  status: number;
  headers: Map<string, string>;
  text: string;
}

/**
 * The connection could not be made (`absent`: no such socket, `refused`: nobody listens, `other`),
 * or it was `lost` after the request was sent: then the request may have run, and must not be
 * sent again.
 */
export class WireConnectError extends Error {
  override name = "WireConnectError";
  readonly kind: "absent" | "refused" | "other" | "lost";
  constructor(kind: "absent" | "refused" | "other" | "lost", message: string) {
    super(message);
    this.kind = kind;
  }
}

/** The socket accepted the request but did not answer within the time allowed. */
export class WireTimeoutError extends Error {
  override name = "WireTimeoutError";
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function decodeChunked(body: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let i = 0;
  while (i < body.length) {
    const eol = body.indexOf(13, i);
    const size = parseInt(decoder.decode(body.subarray(i, eol)), 16);
    if (!size) break;
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) [out.set(p, o), o += p.length];
  return out;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) [all.set(c, o), o += c.length];
  return all;
}

/** Sends one request with `Connection: close` and reads the whole answer. */
export async function wireRequest(
  socket: string,
  method: string,
  path: string,
  options: {
    body?: unknown;
    timeoutMs?: number;
    headers?: Record<string, string>;
    /** The daemon's `daemon.maxRequestBytes`: a larger body is refused here, before connecting. */
    maxBody?: number;
  } = {},
): Promise<WireResponse> {
  const body = options.body === undefined
    ? new Uint8Array()
    : encoder.encode(JSON.stringify(options.body));
  if (options.maxBody !== undefined && body.length > options.maxBody) {
    // What the daemon would answer (413), said without sending it megabytes it would not read.
    throw new McpxError(
      "REQUEST_TOO_LARGE",
      `The request body is ${body.length} bytes, larger than the ${options.maxBody} bytes the daemon reads`,
      { hint: "Send less, or raise daemon.maxRequestBytes (MCPX_DAEMON_MAX_REQUEST_BYTES)" },
    );
  }
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path: socket });
  } catch (e) {
    const kind = e instanceof Deno.errors.NotFound
      ? "absent"
      : e instanceof Deno.errors.ConnectionRefused
      ? "refused"
      : "other";
    throw new WireConnectError(kind, (e as Error).message);
  }
  const head = `${method} ${path} HTTP/1.1\r\nHost: mcpx\r\nConnection: close\r\n` +
    (body.length ? "Content-Type: application/json\r\n" : "") +
    Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join("") +
    `Content-Length: ${body.length}\r\n\r\n`;
  let timedOut = false;
  const cancel = options.timeoutMs === undefined ? undefined : after(options.timeoutMs, () => {
    timedOut = true;
    conn.close();
  });
  const chunks: Uint8Array[] = [];
  try {
    // One write: head and body in separate writes cost the server an extra read and an event-loop
    // turn (~0.3 ms per call: round trip minus the daemon's own durationMs).
    const request = concat([encoder.encode(head), body]);
    for (let sent = 0; sent < request.length;) sent += await conn.write(request.subarray(sent));
    // Stop reading once the body is complete rather than waiting for the server to close.
    const buf = new Uint8Array(64 * 1024);
    let total = 0;
    let expected = -1;
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
      total += n;
      if (expected < 0) {
        const text = decoder.decode(concat(chunks));
        const end = text.indexOf("\r\n\r\n");
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end));
        if (end >= 0 && length) {
          expected = encoder.encode(text.slice(0, end + 4)).length + Number(length[1]);
        }
      }
      if (expected >= 0 && total >= expected) break;
    }
  } catch (e) {
    if (timedOut) {
      throw new WireTimeoutError(`No answer on "${socket}" within ${options.timeoutMs} ms`);
    }
    throw new WireConnectError("lost", (e as Error).message);
  } finally {
    cancel?.();
    try {
      conn.close();
    } catch { /* closed by the timer */ }
  }
  if (timedOut) {
    throw new WireTimeoutError(`No answer on "${socket}" within ${options.timeoutMs} ms`);
  }
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) [all.set(c, o), o += c.length];
  let split = -1;
  for (let i = 0; i + 3 < all.length; i++) {
    if (all[i] === 13 && all[i + 1] === 10 && all[i + 2] === 13 && all[i + 3] === 10) {
      split = i;
      break;
    }
  }
  if (split < 0) {
    throw new WireConnectError("lost", `The connection on "${socket}" closed before an answer`);
  }
  const [statusLine, ...lines] = decoder.decode(all.subarray(0, split)).split("\r\n");
  const status = Number(statusLine.split(" ")[1]);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const c = line.indexOf(":");
    if (c > 0) headers.set(line.slice(0, c).trim().toLowerCase(), line.slice(c + 1).trim());
  }
  let rest: Uint8Array = all.subarray(split + 4);
  if (headers.get("transfer-encoding")?.includes("chunked")) rest = decodeChunked(rest);
  if (!Number.isInteger(status)) {
    throw new WireConnectError("other", `A malformed HTTP answer on "${socket}"`);
  }
  return { status, headers, text: decoder.decode(rest) };
}
