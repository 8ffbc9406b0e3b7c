import { dirname, resolve } from "../_path.ts";
import { sleep } from "../_timer.ts";
import { SETTINGS, type SettingSpec } from "../settings/table.ts";
import { fromProblem, isErrorCode, McpxError, messageOf } from "../errors.ts";
import type { Context } from "../context.ts";
import type { DaemonPaths } from "../paths.ts";
import type { Caller } from "../pool/scope.ts";
import { withLock } from "./lock.ts";
import { checkSocket, readToken, secureStateDir, TOKEN_HEADER } from "./guard.ts";
import {
  CALLER_HEADER,
  encodeCaller,
  FINGERPRINT_HEADER,
  TRUSTED_HEADER,
  VERSION_HEADER,
  WireConnectError,
  wireRequest,
  type WireResponse,
  WireTimeoutError,
} from "./wire.ts";

import { type Endpoint, parseEndpoint, showEndpoint } from "./listen.ts";
import { runningVersion } from "../version.ts";
import { type StartOutput, startOutput, startProgress } from "./start_output.ts";

export { FINGERPRINT_HEADER };

/** A daemon elsewhere (`daemon.endpoint`): where it is, and the headers that say who asks. */
interface Remote {
  endpoint: Endpoint;
  shown: string;
  headers: Record<string, string>;
}

/**
 * The daemon `daemon.endpoint` names, or undefined for this configuration's own. Its token:
 * `daemon.token` as a bearer token; else, on this machine, the listener token this
 * configuration's daemon keeps (TCP) or the token beside a `<fp>.sock` (unix).
 */
async function remoteOf(ctx: Context): Promise<Remote | undefined> {
  const text = ctx.boot.get("daemon.endpoint");
  if (!text) return undefined;
  const endpoint = parseEndpoint(text);
  const given = ctx.boot.get("daemon.token");
  let headers: Record<string, string> = {};
  if (given) headers = { authorization: `Bearer ${given}` };
  else if (endpoint.kind === "tcp") {
    // Only when this machine has this configuration: a remote caller may have none.
    const file = await ctx.paths().then((p) => p.listenToken, () => undefined);
    const kept = file === undefined ? undefined : readToken(file);
    if (kept) headers = { authorization: `Bearer ${kept}` };
  } else if (endpoint.path.endsWith(".sock")) {
    headers = tokenHeaders(endpoint.path.slice(0, -".sock".length) + ".token");
  }
  return { endpoint, shown: showEndpoint(endpoint), headers };
}

/**
 * What a script's runtime needs to reach the daemon `daemon.endpoint` names (lib/runtime/
 * client.ts): the endpoint and its bearer token, or a unix endpoint's socket and token file; empty for the local
 * daemon.
 */
export async function remoteScriptEnv(ctx: Context): Promise<Record<string, string>> {
  const remote = await remoteOf(ctx);
  if (!remote) return {};
  if (remote.endpoint.kind === "unix") {
    // The socket's token is read beside it at each call, as the command read it (checked private).
    const path = remote.endpoint.path;
    const file = path.endsWith(".sock") ? path.slice(0, -".sock".length) + ".token" : "";
    return {
      MCPX_SOCKET: path,
      ...(file && remote.headers[TOKEN_HEADER] ? { MCPX_TOKEN_FILE: file } : {}),
    };
  }
  const bearer = remote.headers.authorization?.replace(/^Bearer /, "");
  return { MCPX_DAEMON_ENDPOINT: remote.shown, ...(bearer ? { MCPX_DAEMON_TOKEN: bearer } : {}) };
}

function unreachable(remote: Remote, why: string): McpxError {
  return new McpxError(
    "DAEMON_UNAVAILABLE",
    `No mcpx daemon answers at ${remote.shown} (daemon.endpoint): ${why}`,
    {
      hint:
        "Start it there (`mcpx daemon --listen <host:port>`), or unset MCPX_DAEMON_ENDPOINT to use a local daemon",
    },
  );
}

/** One request to a daemon elsewhere; it is never started from here. */
async function remoteRequest(
  remote: Remote,
  method: string,
  path: string,
  options: { body?: unknown; caller?: Caller; timeoutMs?: number },
): Promise<unknown> {
  let res: WireResponse;
  try {
    res = await wireRequest(remote.endpoint, method, path, {
      body: options.body,
      timeoutMs: options.timeoutMs,
      headers: {
        ...remote.headers,
        ...(options.caller ? { [CALLER_HEADER]: encodeCaller(options.caller) } : {}),
      },
    });
  } catch (e) {
    if (e instanceof WireConnectError && e.kind === "lost") {
      throw new McpxError(
        "DAEMON_UNAVAILABLE",
        `The daemon at ${remote.shown} went away during the request (${e.message}); it may have run`,
        { hint: "Check `mcpx status`, then run the command again if it should run again" },
      );
    }
    throw unreachable(remote, messageOf(e));
  }
  let parsed: unknown = res.text;
  try {
    parsed = res.text === "" ? null : JSON.parse(res.text);
  } catch { /* a non-JSON answer is returned as text */ }
  const problem = parsed as Record<string, never>;
  // The listener's own refusals carry no fingerprint; a route's answers do.
  if (res.status === 401 || res.status === 403) throw fromProblem(problem, res.status);
  if (!res.headers.has(FINGERPRINT_HEADER)) {
    throw unreachable(remote, `something that is not an mcpx daemon answered (HTTP ${res.status})`);
  }
  if (res.status >= 400) throw fromProblem(problem, res.status);
  return parsed;
}

/** What `/v1/health` answers. */
export interface Health {
  service: "mcpx";
  version: string;
  pid: number;
  fingerprint: string;
  config: string;
  socket: string;
  /** The TCP address it also serves on (`daemon.listen`). */
  listen?: string;
  startedAt: string;
  uptimeMs: number;
  autostarted: boolean;
  /** The daemon's id in the log (`dmn-…`); absent from an older daemon. */
  logId?: string;
  /** What the daemon stopped at its start that a predecessor which died had left running. */
  recovered?: string;
}

function notASocket(socket: string): McpxError {
  return new McpxError("SOCKET_FOREIGN", `"${socket}" exists and is not a socket`, {
    hint: "Remove it, or set daemon.socket (MCPX_DAEMON_SOCKET) to another path",
  });
}

function foreign(socket: string): McpxError {
  return new McpxError(
    "SOCKET_FOREIGN",
    `Socket "${socket}" is answered by something that is not an mcpx daemon`,
    { hint: "Stop that program, or set daemon.socket (MCPX_DAEMON_SOCKET) to another path" },
  );
}

function refusedToken(socket: string, token: string | undefined): McpxError {
  return new McpxError(
    "UNAUTHORIZED",
    `The daemon on "${socket}" refused this command's token${
      token === undefined ? " (there is no token file)" : ""
    }`,
    {
      hint:
        "It was started with another state directory (paths.state); stop it (`mcpx stop`) and run the command again",
    },
  );
}

/** The headers that say who is asking: the daemon's token, when its file exists. */
export function tokenHeaders(tokenFile: string | undefined): Record<string, string> {
  const token = tokenFile === undefined ? undefined : readToken(tokenFile);
  return token === undefined ? {} : { [TOKEN_HEADER]: token };
}

/**
 * Looks at a socket path: `absent` (no file), `stale` (a socket nobody answers), or the health of
 * the mcpx daemon answering on it. The socket and its directory are checked first (lib/daemon/
 * guard.ts): what answers on a socket of another user is never asked.
 * @throws {McpxError} SOCKET_FOREIGN when the path is not a socket or something else answers;
 *   UNSAFE_PATH when the socket or its directory is not this user's.
 */
export async function probe(
  socket: string,
  options: { fallback?: boolean; token?: string; fingerprint?: string; trusted?: boolean } = {},
): Promise<Health | "absent" | "stale"> {
  if (checkSocket(socket, { fallback: options.fallback ?? false }) === "absent") return "absent";
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(socket);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return "absent";
    throw new McpxError(
      "DAEMON_UNAVAILABLE",
      `Cannot inspect socket path "${socket}": ${messageOf(e)}`,
    );
  }
  if (!info.isSocket) throw notASocket(socket);
  const token = options.token === undefined ? undefined : readToken(options.token);
  let res: WireResponse;
  try {
    res = await wireRequest(socket, "GET", "/v1/health", {
      timeoutMs: 3000,
      headers: {
        ...(token === undefined ? {} : { [TOKEN_HEADER]: token }),
        // The configuration this command read: a daemon that serves an older one of the same
        // file reloads it before it answers (docs/daemon.md).
        ...(options.fingerprint ? { [FINGERPRINT_HEADER]: options.fingerprint } : {}),
        ...(options.fingerprint && options.trusted
          ? { [TRUSTED_HEADER]: options.fingerprint }
          : {}),
      },
    });
  } catch (e) {
    if (e instanceof WireTimeoutError) {
      throw new McpxError(
        "SOCKET_FOREIGN",
        `Socket "${socket}" accepted a connection but never answered`,
        {
          hint:
            "Something other than an mcpx daemon holds it; stop that program or set daemon.socket",
        },
      );
    }
    return "stale";
  }
  let health: Partial<Health> | undefined;
  try {
    health = JSON.parse(res.text);
  } catch { /* judged below */ }
  if (res.status === 401 && res.headers.has(FINGERPRINT_HEADER)) {
    throw refusedToken(socket, token);
  }
  // The daemon could not take up the edited configuration: its reason, as a problem document.
  if (res.status >= 400 && res.headers.has(FINGERPRINT_HEADER) && health?.service !== "mcpx") {
    throw fromProblem(health as Record<string, never>, res.status);
  }
  if (res.status !== 200 || health?.service !== "mcpx") throw foreign(socket);
  return health as Health;
}

function otherConfig(socket: string, config: string): McpxError {
  return new McpxError(
    "SOCKET_FOREIGN",
    `Socket "${socket}" belongs to the daemon for ${config}, not this configuration`,
    { hint: "Give each configuration its own daemon.socket, or leave daemon.socket empty" },
  );
}

function checkOwner(health: Health, fingerprint: string, socket: string): void {
  if (health.fingerprint !== fingerprint) throw otherConfig(socket, health.config);
}

/** Checks who answered and decodes the body; a problem document becomes an {@linkcode McpxError}. */
function decode(
  res: WireResponse,
  socket: string,
  fingerprint: string,
  token?: string,
): unknown {
  const owner = res.headers.get(FINGERPRINT_HEADER);
  if (owner === undefined) throw foreign(socket);
  if (owner !== fingerprint) throw otherConfig(socket, "another configuration");
  if (res.status === 401) throw refusedToken(socket, token);
  let parsed: unknown = res.text;
  try {
    parsed = res.text === "" ? null : JSON.parse(res.text);
  } catch { /* a non-JSON answer is returned as text */ }
  if (res.status >= 400) throw fromProblem(parsed as Record<string, never>, res.status);
  return parsed;
}

/**
 * The state directory and its daemons folder: made 0700 (with `create`), tightened when ours and
 * loose, refused when another user's.
 */
function secureDaemonDirs(paths: DaemonPaths, create: boolean): void {
  secureStateDir(dirname(paths.dir), { create });
  secureStateDir(paths.dir, { create });
}

/** What {@linkcode probe} checks a configuration's socket with. */
export function guardOf(
  paths: DaemonPaths,
  fingerprint?: string,
  trusted = false,
): { fallback: boolean; token: string; fingerprint?: string; trusted?: boolean } {
  return { fallback: paths.socketFallback, token: paths.token, fingerprint, trusted };
}

/**
 * V8's flags for the daemon under `deno run`. A young generation of at most 1 MiB a half (V8 grows
 * it to 16 MiB as a process allocates, and keeps it): `deno run -A bench/daemon_memory.ts`, the
 * daemon with 8 pooled stdio servers, 89.3 → 77.0 MiB resident. A daemon allocates little at a time
 * between requests, so the smaller nursery costs it only more frequent, shorter scavenges.
 * `--optimize-for-size` makes V8 collect the old generation before it grows far: under the soak's
 * load (`deno run -A bench/soak.ts`: 2,000 calls, nearly each one stopping a process for room;
 * measured with its earlier `echo` form) daemons with it ended at 78–79 MiB resident, without it
 * at 88–93 MiB, for no more CPU per call.
 */
export const DAEMON_V8_FLAGS: readonly string[] = [
  "--max-semi-space-size=1",
  "--optimize-for-size",
];

export { selfCommand } from "../_self.ts";
import { selfCommand } from "../_self.ts";

/**
 * The command's settings flags as a daemon it starts gets them, with paths made absolute because
 * the daemon runs in the configuration's folder; the configuration itself goes by MCPX_CONFIG.
 */
export function daemonFlagArgs(ctx: Context): string[] {
  return ctx.flags.filter((f) => f.key !== "output.json" && f.key !== "config").map((f) => {
    const spec = (SETTINGS as Record<string, SettingSpec>)[f.key];
    const text = spec.type === "path" && f.text ? resolve(ctx.io.cwd, f.text) : f.text;
    return `${f.spelling}=${text}`;
  });
}

/** How long a daemon may spend loading its modules (fetching them into an empty cache) at most. */
const LOADING_LIMIT_MS = 10 * 60_000;

/**
 * Starts a daemon detached from this process (a group of its own, no standard streams): the
 * command line `args`, with `env` as its whole environment, in the folder of the configuration
 * `env` names (MCPX_CONFIG). This process does not wait for it to exit.
 */
export function spawnDaemon(env: Record<string, string>, args: string[]): Deno.ChildProcess {
  const [command, ...rest] = args;
  const child = new Deno.Command(command, {
    args: rest,
    cwd: dirname(env.MCPX_CONFIG),
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
  return child;
}

async function spawnAndWait(
  ctx: Context,
  paths: DaemonPaths,
  fingerprint: string,
  deliberate: boolean,
): Promise<Health> {
  await Deno.remove(paths.startError).catch(() => {});
  const self = selfCommand(["daemon", ...daemonFlagArgs(ctx)], DAEMON_V8_FLAGS);
  const fp = await ctx.fingerprint();
  // Through sh, for its standard error to be a file (Deno.Command has no such option): the wait
  // below reads what Deno does before the daemon's first line, and why it could not start.
  const child = spawnDaemon(
    { ...ctx.io.env, MCPX_DAEMON_CHILD: deliberate ? "hand" : "auto", MCPX_CONFIG: fp.path },
    [
      "/bin/sh",
      "-c",
      'f=$1; shift; exec "$@" 2>"$f"',
      "mcpx-daemon",
      paths.stderr,
      self.command,
      ...self.args,
    ],
  );
  let exited: Deno.CommandStatus | undefined;
  child.status.then((s) => (exited = s));
  const watch = new StartWatch(ctx, paths, ctx.boot.get("daemon.startTimeout"));
  while (performance.now() < watch.deadline) {
    const state = await probe(paths.socket, guardOf(paths, fingerprint, true));
    if (typeof state === "object") {
      watch.done();
      checkOwner(state, fingerprint, paths.socket);
      // The command that started it says what it found: a dead daemon's servers, now stopped.
      if (state.recovered) {
        ctx.io.err(`mcpx: ${state.recovered}\n`);
        ctx.recovered = state.recovered;
      }
      return state;
    }
    if (exited) {
      watch.done();
      throw await exitedError(paths, fp.path, exited, watch);
    }
    watch.look();
    await sleep(5);
  }
  watch.done();
  try {
    Deno.kill(child.pid, "SIGKILL");
  } catch { /* already gone */ }
  throw watch.timedOut(fp.path);
}

/** Why a daemon that exited before it answered did not start: its report, else its stderr. */
async function exitedError(
  paths: DaemonPaths,
  config: string,
  exited: Deno.CommandStatus,
  watch: StartWatch,
): Promise<McpxError> {
  let report: { code?: string; message?: string; hint?: string } = {};
  try {
    report = JSON.parse(await Deno.readTextFile(paths.startError));
  } catch { /* no report written */ }
  // A mistake in the configuration is the user's, and keeps its own code and fix.
  if (
    isErrorCode(report.code) && !["INTERNAL", "DAEMON_START_FAILED"].includes(report.code) &&
    report.message
  ) {
    return new McpxError(report.code, report.message, { hint: report.hint });
  }
  watch.read();
  const seen = watch.seen;
  const why = report.message ??
    `it exited with status ${exited.code}${seen.lastLine ? `: ${seen.lastLine}` : ""}`;
  return new McpxError(
    "DAEMON_START_FAILED",
    `The daemon for ${config} did not start: ${why}`,
    { hint: report.hint ?? `See ${paths.log} and ${paths.stderr}` },
  );
}

/**
 * A daemon's start as the command that started it follows it: what its standard error says (its
 * modules loading), the deadline that follows from it, and the progress line shown meanwhile.
 */
class StartWatch {
  readonly #ctx: Context;
  readonly #paths: DaemonPaths;
  readonly #timeout: number;
  readonly #started = performance.now();
  // While the daemon loads its modules (Deno fetching npm packages into an empty cache, then
  // reading them) the timeout does not run, up to LOADING_LIMIT_MS; it runs from their end.
  deadline: number;
  seen: StartOutput = { fetched: 0, loading: false, loaded: false };
  #size = -1;
  #nextLook: number;
  #shown = 0;
  #loadedAt: number | undefined;
  readonly #tty: boolean;

  constructor(ctx: Context, paths: DaemonPaths, timeout: number) {
    this.#ctx = ctx;
    this.#paths = paths;
    this.#timeout = timeout;
    this.deadline = this.#started + timeout;
    this.#nextLook = this.#started + 50;
    this.#tty = ctx.io.errIsTerminal === true;
  }

  /** Reads the daemon's standard error again. */
  read(): void {
    try {
      this.seen = startOutput(Deno.readTextFileSync(this.#paths.stderr));
    } catch { /* not written yet */ }
  }

  /** Clears the progress line, if one was shown on a terminal. */
  done(): void {
    if (this.#tty && this.#shown > 0) this.#ctx.io.err("\r\x1b[2K");
  }

  /** At most every 50 ms: reads what the daemon wrote, moves the deadline, shows progress. */
  look(): void {
    const now = performance.now();
    if (now < this.#nextLook) return;
    this.#nextLook = now + 50;
    try {
      const s = Deno.statSync(this.#paths.stderr).size;
      if (s !== this.#size) this.read();
      this.#size = s;
    } catch { /* not written yet */ }
    const seen = this.seen;
    const loading = seen.loading && !seen.loaded;
    if (loading) {
      this.deadline = Math.max(
        this.deadline,
        Math.min(now + this.#timeout, this.#started + LOADING_LIMIT_MS),
      );
    } else if (seen.loaded && !this.#loadedAt) {
      this.#loadedAt = now;
      this.deadline = Math.max(this.deadline, now + this.#timeout);
    }
    // Loading is said after 2 s; a start that is only slow, after 5 s (a loaded machine's daemon
    // can take 2 s, and what a command writes to stderr is its own).
    const slow = now - this.#started > (loading ? 2000 : 5000);
    if (slow && (this.#tty ? now - this.#shown > 250 : this.#shown === 0)) {
      const line = startProgress(now - this.#started, seen);
      this.#ctx.io.err(this.#tty ? `\r\x1b[2K${line}` : `${line}\n`);
      this.#shown = now;
    }
  }

  /** Why the daemon for `config` did not start in time. */
  timedOut(config: string): McpxError {
    const seen = this.seen;
    return new McpxError(
      "DAEMON_START_FAILED",
      seen.loading && !seen.loaded
        ? `The daemon for ${config} was still loading its modules after ${
          Math.round((performance.now() - this.#started) / 1000)
        } s${seen.fetched > 0 ? ` (${seen.fetched} npm downloads, last ${seen.lastPackage})` : ""}`
        : `The daemon for ${config} did not answer within ${this.#timeout} ms`,
      {
        hint:
          `Raise daemon.startTimeout, or run \`mcpx daemon\` in the foreground to see why; log: ${this.#paths.log}`,
      },
    );
  }
}

const UPGRADE_PATH = "/v1/daemon/upgrade";
/** Set once this process has tried an upgrade: it tries at most one. */
let upgradeTried = false;

/**
 * Upgrades the daemon in place (lib/daemon/upgrade.ts) when it reports a version other than this
 * command's, once per process, unless daemon.autoUpgrade is off. Says so in one line on stderr,
 * and why not when it could not; the command goes on with whichever daemon serves. Resolves to
 * whether it upgraded.
 */
async function upgradeIfOther(ctx: Context, theirs: string | undefined): Promise<boolean> {
  if (theirs === undefined || upgradeTried || ctx.daemon || ctx.inline?.started) return false;
  const mine = runningVersion(ctx.io.env);
  if (theirs === mine) return false;
  upgradeTried = true;
  if (!(await ctx.settings()).get("daemon.autoUpgrade")) return false;
  const self = selfCommand(["daemon"], DAEMON_V8_FLAGS);
  try {
    const answer = await callDaemon(ctx, {
      method: "POST",
      path: UPGRADE_PATH,
      body: { command: [self.command, ...self.args] },
      start: false,
    });
    const out = answer?.value as { to?: { pid: number }; handedOver?: unknown[] } | undefined;
    if (!out?.to) return false;
    ctx.io.err(
      `mcpx: the daemon ran version ${theirs}; upgraded it in place to ${mine} (daemon ${out.to.pid}, ${
        out.handedOver?.length ?? 0
      } server process(es) kept)\n`,
    );
    return true;
  } catch (e) {
    ctx.io.err(
      `mcpx: the daemon runs version ${theirs}, this command ${mine}; it was not upgraded: ${
        messageOf(e)
      }\n`,
    );
    return false;
  }
}

/**
 * Makes sure this configuration's daemon runs: a missing or stale one is started detached and
 * awaited; concurrent callers serialise on a lock so exactly one daemon starts.
 */
export async function ensureDaemon(
  ctx: Context,
  options: { deliberate?: boolean } = {},
): Promise<Health> {
  // A daemon elsewhere is asked, never started.
  const remote = await remoteOf(ctx);
  if (remote) {
    const health = await remoteRequest(remote, "GET", "/v1/health", { timeoutMs: 10_000 });
    ctx.rung = "url";
    return health as Health;
  }
  // A daemon starts the configuration's servers: never for one that is not trusted.
  await ctx.requireTrust();
  const fp = await ctx.fingerprint();
  let paths = await ctx.paths();
  secureDaemonDirs(paths, false);
  const answered = (health: Health) => {
    checkOwner(health, fp.hash, paths.socket);
    ctx.rung ??= ctx.inline?.started ? "inline" : "socket";
    return health;
  };
  const state = await probe(paths.socket, guardOf(paths, fp.hash, true));
  if (typeof state === "object") {
    if (await upgradeIfOther(ctx, state.version)) {
      const now = await probe(paths.socket, guardOf(paths, fp.hash, true));
      if (typeof now === "object") return answered(now);
    }
    return answered(state);
  }
  secureDaemonDirs(paths, true);
  // The last rung, when asked for: hosted in this command rather than started beside it. Never
  // for `mcpx start`, which asks for a daemon that outlives it.
  if (
    ctx.inline && !ctx.inline.started && !options.deliberate &&
    (await ctx.settings()).get("daemon.inline")
  ) {
    await ctx.inline.start(ctx);
    paths = await ctx.paths();
    const hosted = await probe(paths.socket, guardOf(paths, fp.hash, true));
    if (typeof hosted !== "object") {
      throw new McpxError("DAEMON_START_FAILED", "The daemon hosted inline does not answer");
    }
    return answered(hosted);
  }
  return await withLock(paths.spawnLock, async () => {
    const again = await probe(paths.socket, guardOf(paths, fp.hash, true));
    if (typeof again === "object") return answered(again);
    const spawned = await spawnAndWait(ctx, paths, fp.hash, options.deliberate ?? false);
    ctx.rung = "spawn";
    return spawned;
  });
}

/**
 * Sends one `/v1` request to this configuration's daemon. With `start`, a daemon that is not
 * running is started first; without it, resolves to undefined when none runs.
 */
export async function callDaemon(
  ctx: Context,
  request: { method: string; path: string; body?: unknown; start: boolean; caller?: Caller },
): Promise<{ value: unknown } | undefined> {
  // A daemon elsewhere serves its own configuration: nothing of this one is sent or checked.
  const remote = await remoteOf(ctx);
  if (remote) {
    const { method, path, body, caller } = request;
    const value = await remoteRequest(remote, method, path, { body, caller });
    ctx.rung = "url";
    return { value };
  }
  const fp = await ctx.fingerprint();
  let paths = await ctx.paths();
  secureDaemonDirs(paths, false);
  const maxBody = request.body === undefined
    ? undefined
    : (await ctx.settings()).get("daemon.maxRequestBytes");
  const send = async (vouch = false) => {
    // Checked before every connection: another user's socket is never sent a byte.
    if (checkSocket(paths.socket, { fallback: paths.socketFallback }) === "absent") {
      throw new WireConnectError("absent", "no socket");
    }
    const token = readToken(paths.token);
    const res = await wireRequest(paths.socket, request.method, request.path, {
      body: request.body,
      maxBody,
      headers: {
        ...(token === undefined ? {} : { [TOKEN_HEADER]: token }),
        // An older configuration of the same file is reloaded first (docs/daemon.md).
        [FINGERPRINT_HEADER]: fp.hash,
        ...(vouch ? { [TRUSTED_HEADER]: fp.hash } : {}),
        ...(request.caller ? { [CALLER_HEADER]: encodeCaller(request.caller) } : {}),
      },
    });
    const value = decode(res, paths.socket, fp.hash, token);
    ctx.rung ??= ctx.inline?.started ? "inline" : "socket";
    theirs = res.headers.get(VERSION_HEADER);
    return { value };
  };
  let theirs: string | undefined;
  // A daemon serving another version of the file takes this one up only once it is found trusted
  // here, as a new daemon's start would need: it refused before anything ran, so this is resent.
  const sendTrusted = async () => {
    try {
      return await send();
    } catch (e) {
      if (!(e instanceof McpxError) || e.code !== "CONFIG_UNTRUSTED") throw e;
      await ctx.requireTrust();
      return await send(true);
    }
  };
  const lost = (e: WireConnectError) =>
    new McpxError(
      "DAEMON_UNAVAILABLE",
      `The daemon on "${paths.socket}" went away during the request (${e.message}); it may have run`,
      { hint: "Check `mcpx status`, then run the command again if it should run again" },
    );
  try {
    const answer = await sendTrusted();
    if (request.path !== UPGRADE_PATH) await upgradeIfOther(ctx, theirs);
    return answer;
  } catch (e) {
    if (!(e instanceof WireConnectError)) throw e;
    // Sent and then lost: never send it again (a tool call would run twice).
    if (e.kind === "lost") throw lost(e);
    // Classify the failure: a plain file or a foreign socket is an error, absent or stale is not.
    const state = await probe(paths.socket, guardOf(paths, fp.hash));
    if (typeof state === "object") checkOwner(state, fp.hash, paths.socket);
    if (!request.start && typeof state !== "object") return undefined;
  }
  await ensureDaemon(ctx);
  // A daemon hosted inline answers on its own socket.
  paths = await ctx.paths();
  try {
    return await sendTrusted();
  } catch (e) {
    if (!(e instanceof WireConnectError)) throw e;
    if (e.kind === "lost") throw lost(e);
    throw new McpxError(
      "DAEMON_UNAVAILABLE",
      `The daemon on "${paths.socket}" went away: ${e.message}`,
    );
  }
}
