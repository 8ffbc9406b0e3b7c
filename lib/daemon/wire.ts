// HTTP/1.1 over the daemon's unix socket, by hand. The CLI's first `fetch()` costs 12–17 ms of
// one-time set-up here against 2–3 ms for this (timed in-process per step); the daemon side is
// Deno.serve.

import { after } from "../_timer.ts";
import { type HttpAnswer, readResponse } from "../runtime/client.ts";
import { McpxError, messageOf } from "../errors.ts";
import type { Caller } from "../pool/scope.ts";
import { type Endpoint, hostPort, showEndpoint } from "./listen.ts";

/** Every daemon answer carries its configuration's fingerprint, so one round trip both asks and checks. */
export const FINGERPRINT_HEADER = "x-mcpx-fingerprint";

/** And its version: a command of another version upgrades it in place (lib/daemon/upgrade.ts). */
export const VERSION_HEADER = "x-mcpx-version";

/**
 * Sent with a request's fingerprint when its command has found that version of the file trusted
 * (lib/config/trust.ts): a daemon serving another version takes it up on that word.
 */
export const TRUSTED_HEADER = "x-mcpx-trusted";

/**
 * Who is calling (cwd, pid, session ids, profiles), as URI-encoded JSON: what scopes are computed
 * from. The generated client's runtime (lib/runtime/client.ts, which imports nothing) writes the
 * same header by hand; wire_test.ts holds the two to one name and encoding.
 */
export const CALLER_HEADER = "x-mcpx-caller";

/**
 * On the daemon's `/mcp`: the session an MCP connection joins (sent with its initialize, or with
 * each 2026-07-28 request), which outlives the connection; a named one (`mcpx session new`)
 * rejoins it. Without it each connection is a session of its own.
 */
export const SESSION_HEADER = "x-mcpx-session";

/** The {@linkcode CALLER_HEADER} value that describes `caller`. */
export function encodeCaller(caller: Caller): string {
  return encodeURIComponent(JSON.stringify(caller));
}

/** The type of each field of a caller (a field not listed is passed over). */
const CALLER_FIELDS: Record<string, string> = {
  cwd: "string",
  pid: "number",
  session: "string",
  runId: "string",
  sessionMinted: "boolean",
  parentSession: "string",
  selection: "object",
  env: "object",
  ids: "object",
  progress: "string",
  trace: "boolean",
  holder: "string",
  user: "string",
};

/**
 * The caller a {@linkcode CALLER_HEADER} value describes; no header is an unknown caller.
 * @throws {McpxError} USAGE when it is not URI-encoded JSON of a caller.
 */
export function decodeCaller(header: string | null): Caller {
  if (header === null) return {};
  let caller: unknown;
  try {
    caller = JSON.parse(decodeURIComponent(header));
  } catch {
    throw new McpxError("USAGE", `The ${CALLER_HEADER} header is not URI-encoded JSON`);
  }
  if (caller === null || typeof caller !== "object" || Array.isArray(caller)) {
    throw new McpxError("USAGE", `The ${CALLER_HEADER} header is not a JSON object`);
  }
  for (const [key, value] of Object.entries(caller)) {
    const want = CALLER_FIELDS[key];
    if (want && value !== null && (typeof value !== want || Array.isArray(value))) {
      const type = want === "object" ? "an object" : `a ${want}`;
      throw new McpxError("USAGE", `The ${CALLER_HEADER} header's "${key}" is not ${type}`);
    }
  }
  const env = (caller as Caller).env;
  if (env && Object.values(env).some((v) => typeof v !== "string")) {
    throw new McpxError(
      "USAGE",
      `The ${CALLER_HEADER} header's "env" holds a value that is not text`,
    );
  }
  const ids = (caller as Caller).ids;
  if (
    ids &&
    Object.values(ids).some((v) =>
      typeof v !== "string" && !(Array.isArray(v) && v.every((x) => typeof x === "string"))
    )
  ) {
    throw new McpxError(
      "USAGE",
      `The ${CALLER_HEADER} header's "ids" holds a value that is not text or a list of text`,
    );
  }
  return caller as Caller;
}

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

function concat(chunks: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) [all.set(c, o), o += c.length];
  return all;
}

/**
 * Sends one request with `Connection: close` and reads the whole answer, over a unix socket (a
 * path) or TCP (a daemon's `daemon.listen`).
 */
export async function wireRequest(
  target: string | Endpoint,
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
  const endpoint: Endpoint = typeof target === "string" ? { kind: "unix", path: target } : target;
  const socket = endpoint.kind === "unix" ? endpoint.path : showEndpoint(endpoint);
  let conn: Deno.Conn;
  try {
    conn = endpoint.kind === "unix"
      ? await Deno.connect({ transport: "unix", path: endpoint.path })
      : await Deno.connect({ hostname: endpoint.hostname, port: endpoint.port });
  } catch (e) {
    const kind = e instanceof Deno.errors.NotFound
      ? "absent"
      : e instanceof Deno.errors.ConnectionRefused
      ? "refused"
      : "other";
    throw new WireConnectError(kind, messageOf(e));
  }
  // Over TCP the daemon checks Host against DNS rebinding: the address it was reached at.
  const host = endpoint.kind === "unix" ? "mcpx" : hostPort(endpoint);
  const head = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n` +
    (body.length ? "Content-Type: application/json\r\n" : "") +
    Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join("") +
    `Content-Length: ${body.length}\r\n\r\n`;
  let timedOut = false;
  const cancel = options.timeoutMs === undefined ? undefined : after(options.timeoutMs, () => {
    timedOut = true;
    conn.close();
  });
  let answer: HttpAnswer | undefined;
  try {
    // One write: head and body in separate writes cost the server an extra read and an event-loop
    // turn (~0.3 ms per call: round trip minus the daemon's own durationMs).
    const request = concat([encoder.encode(head), body]);
    for (let sent = 0; sent < request.length;) sent += await conn.write(request.subarray(sent));
    // The one reader of an answer, the generated client's too; it stops once the body is
    // complete rather than waiting for the server to close.
    answer = await readResponse(conn);
  } catch (e) {
    if (timedOut) {
      throw new WireTimeoutError(`No answer on "${socket}" within ${options.timeoutMs} ms`);
    }
    throw new WireConnectError("lost", messageOf(e));
  } finally {
    cancel?.();
    try {
      conn.close();
    } catch { /* closed by the timer */ }
  }
  if (timedOut) {
    throw new WireTimeoutError(`No answer on "${socket}" within ${options.timeoutMs} ms`);
  }
  if (!answer) {
    throw new WireConnectError("lost", `The connection on "${socket}" closed before an answer`);
  }
  const { status, headers } = answer;
  if (!Number.isInteger(status)) {
    throw new WireConnectError("other", `A malformed HTTP answer on "${socket}"`);
  }
  return { status, headers, text: decoder.decode(answer.body) };
}
