// The daemon's TCP listeners (`daemon.listen`, the web page's loopback port) behind bounds that
// Deno.serve does not offer: at most `daemon.listenMaxConnections` connections at once, a
// request head within `daemon.listenHeaderTimeout` of connecting, and a connection that has been
// silent for `daemon.listenIdleTimeout` while nothing is being answered is closed. Each accepted
// connection is piped to a Deno.serve on a private unix socket (0600, in the daemon's folder),
// which runs the daemon's handler; the unix socket of the CLI does not come through here.

import { McpxError, messageOf } from "../errors.ts";

/** The bounds of one guarded listener. */
export interface TcpBounds {
  maxConnections: number;
  headerTimeoutMs: number;
  idleTimeoutMs: number;
}

/** What the daemon's listeners need of a server: its address and a way to stop it. */
export interface GuardedServer {
  readonly addr: Deno.NetAddr;
  /**
   * Stops accepting; the requests being answered finish (as Deno.serve's shutdown lets them),
   * then every connection and the private socket are closed. Resolves when done.
   */
  shutdown(): Promise<void>;
}

const HEAD_END = new Uint8Array([13, 10, 13, 10]);

const BUSY = new TextEncoder().encode(
  "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n" +
    "connection: close\r\ncontent-length: 57\r\n\r\n" +
    "Too many connections to the mcpx daemon; try again later\n",
);

/** Answers a connection past the cap 503 and closes it. */
async function turnAway(conn: Deno.Conn): Promise<void> {
  try {
    await conn.write(BUSY);
  } catch { /* gone already */ }
  try {
    conn.close();
  } catch { /* closed */ }
}

/**
 * Pipes `conn` and `upstream` both ways until either ends or a bound closes them: no request
 * head within the header timeout, or silence past the idle timeout while nothing is being
 * answered (`busy`). The pair is in `open` meanwhile.
 */
async function pipeBounded(
  conn: Deno.Conn,
  upstream: Deno.Conn,
  bounds: TcpBounds,
  open: Set<{ close(): void }>,
  busy: () => boolean,
  closedBy: (why: "headerTimeout" | "idleTimeout") => void,
): Promise<void> {
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(headTimer);
    clearInterval(idleTimer);
    for (const c of [conn, upstream]) {
      try {
        c.close();
      } catch { /* closed */ }
    }
    open.delete(entry);
  };
  const entry = { close };
  open.add(entry);
  let lastBytes = Date.now();
  let headSeen = false;
  let carry = new Uint8Array(0);
  // A bound of 0 is none.
  const headTimer = bounds.headerTimeoutMs > 0
    ? setTimeout(() => {
      if (headSeen) return;
      closedBy("headerTimeout");
      close();
    }, bounds.headerTimeoutMs)
    : undefined;
  const idleTimer = bounds.idleTimeoutMs > 0
    ? setInterval(() => {
      if (busy() || Date.now() - lastBytes < bounds.idleTimeoutMs) return;
      closedBy("idleTimeout");
      close();
    }, Math.max(50, Math.min(1000, bounds.idleTimeoutMs / 4)))
    : undefined;
  const pump = async (from: Deno.Conn, to: Deno.Conn, inbound: boolean) => {
    const buf = new Uint8Array(64 * 1024);
    try {
      for (;;) {
        const n = await from.read(buf);
        if (n === null) break;
        lastBytes = Date.now();
        const chunk = buf.subarray(0, n);
        if (inbound && !headSeen) {
          headSeen = endsHead(carry, chunk);
          carry = chunk.slice(Math.max(0, n - 3));
        }
        let written = 0;
        while (written < n) written += await to.write(chunk.subarray(written));
      }
    } catch { /* either side went away */ }
    close();
  };
  await Promise.all([pump(conn, upstream, true), pump(upstream, conn, false)]);
}

/** Whether `chunk`, after the `carry` bytes that ended the previous one, holds `\r\n\r\n`. */
function endsHead(carry: Uint8Array, chunk: Uint8Array): boolean {
  const joined = new Uint8Array(carry.length + chunk.length);
  joined.set(carry);
  joined.set(chunk, carry.length);
  outer: for (let i = 0; i + HEAD_END.length <= joined.length; i++) {
    for (let j = 0; j < HEAD_END.length; j++) if (joined[i + j] !== HEAD_END[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * Serves `handler` on `hostname:port` within `bounds`. `inner` is the path of the private unix
 * socket the connections are piped to; `onRefused` hears of each connection turned away or closed
 * by a bound (for the daemon's log).
 * @throws {Error} when the address cannot be bound (the caller names the setting).
 */
export function serveGuarded(
  options: { hostname: string; port: number; inner: string },
  bounds: TcpBounds,
  handler: (req: Request) => Promise<Response>,
  onError: (error: unknown) => Response,
  onRefused: (why: "maxConnections" | "headerTimeout" | "idleTimeout", active: number) => void,
): GuardedServer {
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  // Answers are being written while this is above zero: a silent connection then may be waiting
  // for one (a long tool call), so it is not idle.
  let answering = 0;
  const counted = (req: Request, info: Deno.ServeHandlerInfo): Promise<Response> => {
    answering++;
    // Counted until the answer, body included, has gone (or the client left before it had).
    info.completed.catch(() => {}).finally(() => answering--);
    return handler(req);
  };
  try {
    Deno.removeSync(options.inner);
  } catch { /* none left over */ }
  let server: Deno.HttpServer<Deno.UnixAddr>;
  try {
    server = Deno.serve({ path: options.inner, onListen() {}, onError }, counted);
    Deno.chmodSync(options.inner, 0o600);
  } catch (e) {
    listener.close();
    throw new McpxError("DAEMON_START_FAILED", `Cannot open ${options.inner}: ${messageOf(e)}`);
  }
  const open = new Set<{ close(): void }>();
  let stopping = false;

  const serveOne = async (conn: Deno.Conn) => {
    if (bounds.maxConnections > 0 && open.size >= bounds.maxConnections) {
      onRefused("maxConnections", open.size);
      return await turnAway(conn);
    }
    let upstream: Deno.UnixConn;
    try {
      upstream = await Deno.connect({ transport: "unix", path: options.inner });
    } catch {
      conn.close();
      return;
    }
    await pipeBounded(
      conn,
      upstream,
      bounds,
      open,
      () => answering > 0,
      (why) => onRefused(why, open.size),
    );
  };

  const accepting = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        if (stopping) return;
        continue;
      }
      void serveOne(conn);
    }
  })();

  return {
    addr: listener.addr as Deno.NetAddr,
    async shutdown() {
      if (stopping) return;
      stopping = true;
      try {
        listener.close();
      } catch { /* closed */ }
      await accepting;
      await server.shutdown();
      for (const c of [...open]) c.close();
      try {
        Deno.removeSync(options.inner);
      } catch { /* removed with its folder */ }
    },
  };
}
