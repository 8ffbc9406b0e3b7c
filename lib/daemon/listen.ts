// The daemon beyond its unix socket: a TCP listener (`daemon.listen`) and the checks every request
// on it passes before it reaches a route, and where a command finds a daemon elsewhere
// (`daemon.endpoint`). docs/security.md says what each check covers.

import { McpxError } from "../errors.ts";
import { writeFileAtomic } from "../_atomic.ts";
import { problem, readToken, sameText, TOKEN_HEADER } from "./guard.ts";
import type { UiGate } from "./ui_gate.ts";

/** A TCP address to listen on or connect to. */
export interface TcpAddress {
  hostname: string;
  port: number;
}

/** Where a command sends its requests: a unix socket path, or a TCP address. */
export type Endpoint = { kind: "unix"; path: string } | ({ kind: "tcp" } & TcpAddress);

/** Whether `hostname` (an IP literal or a name, without brackets) is this machine only. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** Whether `hostname` is an IP literal (v4, or v6 without brackets). */
function isIpLiteral(hostname: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(hostname) || hostname.includes(":");
}

/**
 * Reads `host:port` (`[::1]:8080` for IPv6; port 0 picks one).
 * @throws {McpxError} USAGE when it is not one.
 */
export function parseHostPort(text: string, what: string): TcpAddress {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) {
    throw new McpxError("USAGE", `${what} takes host:port, e.g. 127.0.0.1:7300, not "${text}"`);
  }
  return { hostname: m[1].replace(/^\[(.*)\]$/, "$1"), port };
}

/**
 * Reads `daemon.endpoint`: `http://host:port` (a TCP daemon), `unix:///path` (a socket by path).
 * @throws {McpxError} USAGE for anything else (https is not served: put a TLS proxy in front).
 */
export function parseEndpoint(text: string): Endpoint {
  if (text.startsWith("unix://")) {
    const path = text.slice("unix://".length);
    if (!path.startsWith("/")) {
      throw new McpxError("USAGE", `daemon.endpoint "${text}" needs an absolute path: unix:///…`);
    }
    return { kind: "unix", path };
  }
  const m = /^http:\/\/([^/]+)\/?$/.exec(text);
  if (!m) {
    throw new McpxError(
      "USAGE",
      `daemon.endpoint takes http://host:port or unix:///path, not "${text}"`,
      { hint: "Set MCPX_DAEMON_ENDPOINT to the address `mcpx daemon --listen` was given" },
    );
  }
  return { kind: "tcp", ...parseHostPort(m[1], "daemon.endpoint") };
}

/** An endpoint as the user wrote it. */
export function showEndpoint(e: Endpoint): string {
  return e.kind === "unix" ? `unix://${e.path}` : `http://${hostPort(e)}`;
}

/** `host:port`, with an IPv6 host in brackets. */
export function hostPort(a: TcpAddress): string {
  return `${a.hostname.includes(":") ? `[${a.hostname}]` : a.hostname}:${a.port}`;
}

/**
 * The token a TCP listener requires: `daemon.token` when given, else the one kept in
 * `file` (made, mode 0600, at the first listen; kept across restarts).
 */
export function listenerToken(given: string, file: string): string {
  if (given) return given;
  const kept = readToken(file);
  if (kept) return kept;
  const token = Array.from(
    crypto.getRandomValues(new Uint8Array(32)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  writeFileAtomic(file, token + "\n");
  return token;
}

/** The hostname of a Host header value (`a:1`, `[::1]:2`, `a`), lower-cased. */
function hostOf(value: string): string {
  const v = value.trim().toLowerCase();
  if (v.startsWith("[")) return v.slice(1, v.indexOf("]"));
  const colon = v.lastIndexOf(":");
  return colon < 0 ? v : v.slice(0, colon);
}

/**
 * What a request on a TCP listener is refused with, before it reaches any route; undefined lets
 * it through. In this order:
 *
 * - a Host that is not an IP address, `localhost` or the listen host is 403: a name that some
 *   DNS answer points at this machine is how a web page reaches a loopback port (DNS rebinding);
 * - an Origin that is not `http://<the request's Host>` is 403: a browser page of another site;
 * - no token, or not this listener's (`Authorization: Bearer <token>` or `x-mcpx-token`), is 401,
 *   unless `gate` admits it: the web page's files, and what a page session may read
 *   (lib/daemon/ui_gate.ts).
 */
export function refuseOnListener(
  req: Request,
  listen: TcpAddress,
  token: string,
  gate?: UiGate,
): Response | undefined {
  const host = req.headers.get("host");
  const name = host === null ? "" : hostOf(host);
  if (
    host === null ||
    !(isIpLiteral(name) || name === "localhost" || name === listen.hostname.toLowerCase())
  ) {
    return problem(
      new McpxError("FORBIDDEN", `The request's Host "${host ?? ""}" is not this daemon's`, {
        hint: `Address the daemon by IP address or as ${hostPort(listen)}`,
      }),
    );
  }
  const origin = req.headers.get("origin");
  if (origin !== null && origin.toLowerCase() !== `http://${host.trim().toLowerCase()}`) {
    return problem(
      new McpxError("FORBIDDEN", `The request's Origin "${origin}" is not this daemon's`, {
        hint: "A web page of another site may not call the daemon",
      }),
    );
  }
  const auth = req.headers.get("authorization");
  const sent = auth !== null && /^bearer\s+/i.test(auth)
    ? auth.replace(/^bearer\s+/i, "").trim()
    : req.headers.get(TOKEN_HEADER);
  if (sent !== null && sameText(sent, token)) return undefined;
  if (gate?.admits(req)) return undefined;
  return problem(
    new McpxError(
      "UNAUTHORIZED",
      sent === null
        ? "The request carries no listener token"
        : "The request's token is not this listener's",
      {
        hint:
          "Send `Authorization: Bearer <token>`: daemon.token (MCPX_DAEMON_TOKEN), else <state>/daemons/<fingerprint>.listen-token",
      },
    ),
  );
}
