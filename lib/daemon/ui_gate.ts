// Who may use the web page (`/ui`, `mcpx ui`) on a TCP listener without the listener token: a
// browser that exchanged a one-time code for a page session. docs/security.md ("The web page")
// says why it is a code in the URL's fragment and a bearer kept in sessionStorage, not a cookie.

import { sameText } from "./guard.ts";

/** How long a code `mcpx ui` prints can be exchanged. */
export const CODE_MS = 120_000;
/** The most page sessions a daemon keeps; the oldest goes first. */
const MAX_SESSIONS = 32;

/**
 * The `/v1` routes a page session may read (GET only): what the page's six views ask for, and
 * nothing else (not `/v1/config`, not any POST).
 */
const READABLE = [
  /^\/v1\/namespaces$/,
  /^\/v1\/schema$/,
  /^\/v1\/types\/[^/]+$/,
  /^\/v1\/log$/,
  /^\/v1\/stats$/,
  /^\/v1\/status$/,
  /^\/v1\/storage$/,
  /^\/v1\/health$/,
  /^\/v1\/events$/,
];

function randomHex(bytes: number): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** Whether `path` is the page itself (its HTML, script, style, and the code exchange). */
export function isPagePath(path: string): boolean {
  return path === "/ui" || path === "/ui/" || path.startsWith("/ui/");
}

/** One-time codes and the page sessions they were exchanged for, in the daemon's memory only. */
export class UiGate {
  readonly #codes = new Map<string, number>();
  readonly #sessions: string[] = [];
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A new code, good once, for {@linkcode CODE_MS}. */
  issue(): { code: string; expiresInMs: number } {
    const now = this.#now();
    for (const [c, until] of this.#codes) if (until <= now) this.#codes.delete(c);
    const code = randomHex(16);
    this.#codes.set(code, now + CODE_MS);
    return { code, expiresInMs: CODE_MS };
  }

  /** The session a code buys, once; undefined for a code unknown, used or expired. */
  exchange(code: string): string | undefined {
    let found: string | undefined;
    for (const c of this.#codes.keys()) if (sameText(c, code)) found = c;
    if (found === undefined) return undefined;
    const until = this.#codes.get(found)!;
    this.#codes.delete(found);
    if (until <= this.#now()) return undefined;
    const session = randomHex(32);
    this.#sessions.push(session);
    if (this.#sessions.length > MAX_SESSIONS) this.#sessions.shift();
    return session;
  }

  /** Whether `token` is a page session of this daemon. */
  holds(token: string): boolean {
    let held = false;
    for (const s of this.#sessions) if (sameText(s, token)) held = true;
    return held;
  }

  /**
   * Whether a request on a TCP listener (Host and Origin already checked) may pass without the
   * listener token: the page's own files and the code exchange (which checks its code itself),
   * or a GET of a route the page reads, carrying a page session as its bearer.
   */
  admits(req: Request): boolean {
    const path = new URL(req.url).pathname;
    if (isPagePath(path)) return true;
    if (req.method !== "GET" || !READABLE.some((r) => r.test(path))) return false;
    const auth = req.headers.get("authorization");
    if (auth === null || !/^bearer\s+/i.test(auth)) return false;
    return this.holds(auth.replace(/^bearer\s+/i, "").trim());
  }
}
