// Who may use a daemon's socket, and how much they may send it: the file-system checks a command
// makes before it connects, the token the daemon asks of every request, and the bound on a
// request's body. docs/security.md says what each covers.

import { dirname } from "../_path.ts";
import { McpxError, messageOf, toProblem } from "../errors.ts";
import { writeFileAtomic } from "../_atomic.ts";

/** The request header carrying the daemon's token (`<state>/daemons/<fingerprint>.token`). */
export const TOKEN_HEADER = "x-mcpx-token";

const me = (): number => Deno.uid() ?? -1;
const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0");

function refuse(what: string, path: string, why: string, hint: string): McpxError {
  return new McpxError("UNSAFE_PATH", `Refusing ${what} ${path}: ${why}`, { hint });
}

function ownerWhy(info: Deno.FileInfo): string | undefined {
  return info.uid === me() ? undefined : `owned by uid ${info.uid}, not you (${me()})`;
}

const ELSEWHERE = "daemon.socket (MCPX_DAEMON_SOCKET) or TMPDIR to a directory of your own";

/**
 * Makes (mode 0700) or checks the directory the fallback socket lives in, `$TMPDIR/mcpx-<uid>`:
 * in a folder others can write, so it must be a real directory (not a symlink), owned by this
 * user, mode 0700, or a second user could have planted a socket in it.
 * @throws {McpxError} UNSAFE_PATH naming what was wrong and the fix.
 */
export function secureSocketDir(dir: string, options: { create: boolean }): "absent" | "ok" {
  if (options.create) {
    Deno.mkdirSync(dirname(dir), { recursive: true });
    try {
      Deno.mkdirSync(dir, { mode: 0o700 });
      // Ours and new: the umask may have taken bits off 0700, never added any.
      Deno.chmodSync(dir, 0o700);
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    }
  }
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(dir);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return "absent";
    throw e;
  }
  const fix = `Remove it, or set ${ELSEWHERE}`;
  if (info.isSymlink) throw refuse("socket directory", dir, "it is a symlink", fix);
  if (!info.isDirectory) throw refuse("socket directory", dir, "it is not a directory", fix);
  const owner = ownerWhy(info);
  if (owner) throw refuse("socket directory", dir, owner, fix);
  if ((info.mode! & 0o7777) !== 0o700) {
    throw refuse(
      "socket directory",
      dir,
      `its mode is ${octal(info.mode!)}, not 0700`,
      `Run \`chmod 700 ${dir}\` if you made it, else remove it`,
    );
  }
  return "ok";
}

/** Refuses a directory that another user owns (root aside), or that others may write unless sticky. */
function closedDir(dir: string, info: Deno.FileInfo, what: string): void {
  if (info.uid !== me() && info.uid !== 0) {
    throw refuse(what, dir, ownerWhy(info)!, `Set ${ELSEWHERE}`);
  }
  if ((info.mode! & 0o022) !== 0 && (info.mode! & 0o1000) === 0) {
    throw refuse(
      what,
      dir,
      `others may write to it (mode ${octal(info.mode!)})`,
      `Run \`chmod go-w ${dir}\`, or set ${ELSEWHERE}`,
    );
  }
}

/**
 * Checks a socket before a command connects to it: the socket, when there is one, belongs to this
 * user; its directory is owned by this user or root and not writable by others (unless sticky, as
 * /tmp is: then nobody else can replace a file of ours); and so is every directory above it, so
 * nobody else can swap the path between this check and the connection. A socket that passes was
 * bound by a process of this user, so what answers on it is not another user's program.
 * @throws {McpxError} UNSAFE_PATH naming what was wrong and the fix.
 */
export function checkSocket(socket: string, options: { fallback: boolean }): "absent" | "ok" {
  const dir = dirname(socket);
  let real: string;
  try {
    real = Deno.realPathSync(dir);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      return "absent";
    }
    throw e;
  }
  if (options.fallback) {
    if (secureSocketDir(dir, { create: false }) === "absent") return "absent";
  } else {
    closedDir(dir, Deno.statSync(real), "socket directory");
  }
  for (let up = dirname(real);; up = dirname(up)) {
    closedDir(up, Deno.statSync(up), "directory above the socket");
    if (up === "/" || up === dirname(up)) break;
  }
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(socket);
  } catch (e) {
    // A path through a file: no socket there (the daemon says why it cannot listen on it).
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      return "absent";
    }
    throw e;
  }
  const owner = ownerWhy(info);
  if (owner) throw refuse("socket", socket, owner, `Remove it, or set ${ELSEWHERE}`);
  return "ok";
}

/**
 * Makes a state directory (mode 0700) or checks one that exists: one owned by this user with
 * looser bits is tightened to 0700; one owned by anyone else is refused. Without `create`, an
 * absent one is left absent.
 * @throws {McpxError} UNSAFE_PATH for a directory of another user.
 */
export function secureStateDir(dir: string, options: { create: boolean } = { create: true }): void {
  if (options.create) {
    try {
      Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (e) {
      throw new McpxError(
        "DAEMON_UNAVAILABLE",
        `Cannot create state directory "${dir}": ${messageOf(e)}`,
        { hint: "Set paths.state (MCPX_PATHS_STATE) to a writable directory" },
      );
    }
  }
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(dir);
  } catch (e) {
    if (!options.create && e instanceof Deno.errors.NotFound) return;
    throw e;
  }
  const owner = ownerWhy(info);
  if (owner) {
    throw refuse(
      "state directory",
      dir,
      owner,
      "Remove it, or set paths.state (MCPX_PATHS_STATE) to a directory of your own",
    );
  }
  if ((info.mode! & 0o077) !== 0) Deno.chmodSync(dir, 0o700);
}

/** Writes a fresh random token for a daemon, mode 0600, and returns it. */
export function writeToken(path: string): string {
  const token = Array.from(
    crypto.getRandomValues(new Uint8Array(32)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  writeFileAtomic(path, token + "\n");
  return token;
}

/**
 * Reads a daemon's token: undefined when there is none (no daemon, or one from before tokens).
 * @throws {McpxError} UNSAFE_PATH when the file is not this user's, or others may read it.
 */
export function readToken(path: string): string | undefined {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
  const fix = "Remove it and run `mcpx stop`; the next command starts a daemon with a new token";
  if (!info.isFile) throw refuse("daemon token file", path, "it is not a plain file", fix);
  const owner = ownerWhy(info);
  if (owner) throw refuse("daemon token file", path, owner, fix);
  if ((info.mode! & 0o077) !== 0) {
    throw refuse(
      "daemon token file",
      path,
      `others may read or write it (mode ${octal(info.mode!)})`,
      fix,
    );
  }
  return Deno.readTextFileSync(path).trim();
}

/** An error as the problem+json response every listener answers with. */
export function problem(error: McpxError): Response {
  const body = toProblem(error);
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { "content-type": "application/problem+json" },
  });
}

/** Compares in time independent of where the strings differ. */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The 401 answer for a request without this daemon's token; undefined when it has it. */
export function refuseWithoutToken(req: Request, token: string): Response | undefined {
  const sent = req.headers.get(TOKEN_HEADER);
  if (sent !== null && sameText(sent, token)) return undefined;
  return problem(
    new McpxError(
      "UNAUTHORIZED",
      sent === null
        ? "The request carries no daemon token"
        : "The request's daemon token is not this daemon's",
      {
        hint:
          `Send the ${TOKEN_HEADER} header with the token in <state>/daemons/<fingerprint>.token`,
      },
    ),
  );
}

function tooLarge(max: number): Response {
  return problem(
    new McpxError("REQUEST_TOO_LARGE", `The request body is larger than ${max} bytes`, {
      hint: "Send less, or raise daemon.maxRequestBytes (MCPX_DAEMON_MAX_REQUEST_BYTES)",
    }),
  );
}

/**
 * The request with its body read, at most `max` bytes of it, or the 413 answer: a declared length
 * over the bound is refused before a byte is read, and an undeclared one is counted as it streams,
 * so the daemon never holds more than `max` bytes of one request.
 */
export async function readBounded(req: Request, max: number): Promise<Request | Response> {
  if (req.body === null) return req;
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > max) {
    await req.body.cancel().catch(() => {});
    return tooLarge(max);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await reader.cancel().catch(() => {});
      return tooLarge(max);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) [body.set(c, at), at += c.length];
  return new Request(req.url, {
    method: req.method,
    headers: req.headers,
    body,
    signal: req.signal,
  });
}
