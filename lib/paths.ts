import { join } from "./_path.ts";
import { hash64 } from "./_hash.ts";
import type { Settings } from "./settings/resolve.ts";

/** The state directory: `paths.state`, else `$XDG_STATE_HOME/mcpx`, else `~/.local/state/mcpx`. */
export function stateDir(settings: Settings, env: Readonly<Record<string, string>>): string {
  const set = settings.get("paths.state");
  if (set) return set;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, "mcpx");
  return join(env.HOME ?? "/tmp", ".local", "state", "mcpx");
}

/** The cache directory: `paths.cache`, else `$XDG_CACHE_HOME/mcpx`, else `~/.cache/mcpx`. */
export function cacheDir(settings: Settings, env: Readonly<Record<string, string>>): string {
  const set = settings.get("paths.cache");
  if (set) return set;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, "mcpx");
  return join(env.HOME ?? "/tmp", ".cache", "mcpx");
}

/**
 * Where a result too big to print is kept whole (`<state>/output`): a file per result, 0600,
 * removed a day after it was written.
 */
export function outputDir(settings: Settings, env: Readonly<Record<string, string>>): string {
  return join(stateDir(settings, env), "output");
}

/** The questions servers asked (`mcpx elicit`): `<state>/questions.db`, SQLite, 0600. */
export function questionsDb(settings: Settings, env: Readonly<Record<string, string>>): string {
  return join(stateDir(settings, env), "questions.db");
}

/** Where the JSONL log files are: `logging.dir`, else `<state>/logs` (docs/logging.md). */
export function logsDir(settings: Settings, env: Readonly<Record<string, string>>): string {
  return settings.get("logging.dir") || join(stateDir(settings, env), "logs");
}

/** The stem of the log files the CLI writes for script runs (`runs.jsonl`, `runs.1.jsonl`…). */
export const RUNS_LOG_STEM = "runs";

/** The stem of the log files of the daemon of one configuration (`daemon-<short>.jsonl`…). */
export function daemonLogStem(short: string): string {
  return `daemon-${short}`;
}

/** Segment `index` of a log: `<stem>.jsonl` first, then `<stem>.1.jsonl`, `<stem>.2.jsonl`… */
export function logSegment(dir: string, stem: string, index: number): string {
  return join(dir, index === 0 ? `${stem}.jsonl` : `${stem}.${index}.jsonl`);
}

/** Which segment of `stem` a file name is, or undefined when it is none of them. */
export function segmentIndex(stem: string, name: string): number | undefined {
  if (!name.startsWith(stem + ".") || !name.endsWith(".jsonl")) return undefined;
  const middle = name.slice(stem.length + 1, -".jsonl".length);
  if (middle === "") return 0;
  return /^[1-9]\d*$/.test(middle) ? Number(middle) : undefined;
}

/** Where the daemons' files are: `<state>/daemons`. */
export function daemonsDir(settings: Settings, env: Readonly<Record<string, string>>): string {
  return join(stateDir(settings, env), "daemons");
}

/** The files a daemon keeps in {@linkcode daemonsDir} `dir`, by its configuration's short fingerprint. */
export function daemonFiles(
  dir: string,
  short: string,
): Pick<
  DaemonPaths,
  | "record"
  | "spawnLock"
  | "bindLock"
  | "startError"
  | "stderr"
  | "live"
  | "token"
  | "listenToken"
  | "children"
  | "tasks"
  | "sessions"
> {
  return {
    record: join(dir, `${short}.json`),
    spawnLock: join(dir, `${short}.spawn.lock`),
    bindLock: join(dir, `${short}.bind.lock`),
    startError: join(dir, `${short}.start-error`),
    stderr: join(dir, `${short}.stderr`),
    live: join(dir, `${short}.live.json`),
    token: join(dir, `${short}.token`),
    listenToken: join(dir, `${short}.listen-token`),
    children: join(dir, `${short}.children.json`),
    tasks: join(dir, `${short}.tasks.json`),
    sessions: join(dir, `${short}.sessions.json`),
  };
}

/** The short fingerprint in a daemon record's file name (`<short>.json`); undefined for any other. */
export function recordShort(name: string): string | undefined {
  return /^([0-9a-f]{16})\.json$/.exec(name)?.[1];
}

/** Every file that belongs to the daemon of one configuration. */
export interface DaemonPaths {
  /** `<state>/daemons`. */
  dir: string;
  /** The JSON record a running daemon keeps (pid, socket, config). */
  record: string;
  /** Held by a command while it starts a daemon, so concurrent first commands start one. */
  spawnLock: string;
  /** Held by a daemon while it checks for and binds its socket. */
  bindLock: string;
  /** The unix socket. */
  socket: string;
  /** Whether the socket had to fall back to the short hashed path. */
  socketFallback: boolean;
  /** The daemon's first JSON-lines log file (later segments: {@linkcode logSegment}). */
  log: string;
  /** The folder of every log file. */
  logs: string;
  /** The stem of this daemon's log files. */
  logStem: string;
  /** Where a detached daemon writes why it could not start, for the command waiting on it. */
  startError: string;
  /**
   * A detached daemon's standard error (made anew at each start): what Deno says before the
   * daemon's own code runs, such as the npm packages it fetches into an empty cache, or why a
   * module could not load.
   */
  stderr: string;
  /** Live processes per namespace and their scope keys (`{ pid, live, keys }`), kept by the daemon. */
  live: string;
  /** The running daemon's token (mode 0600): every `/v1` request carries it (lib/daemon/guard.ts). */
  token: string;
  /**
   * The bearer token of the daemon's TCP listener (`daemon.listen`), mode 0600, kept across
   * restarts so a remote caller's copy stays good; unused when `daemon.token` is set.
   */
  listenToken: string;
  /**
   * The server processes the daemon started: pid, process group and start time of each (mode
   * 0600), so that a successor can stop what a daemon that died left (lib/daemon/children.ts).
   */
  children: string;
  /** The tasks the daemon holds (mode 0600), read back by the next one (lib/tasks/tasks.ts). */
  tasks: string;
  /**
   * The named sessions (`mcpx session new`): versioned JSON, mode 0600, kept across daemon
   * restarts (lib/sessions/named.ts).
   */
  sessions: string;
}

/** The kernel's longest socket path, in bytes (`plumbing.sunPathMax` defaults to Linux's). */
export const SUN_PATH_LIMIT = Deno.build.os === "darwin" ? 103 : 107;

/**
 * `wanted`, or a short hashed path under $TMPDIR when `wanted` is longer than a socket path may
 * be (`plumbing.sunPathMax`).
 */
function socketAt(
  settings: Settings,
  env: Readonly<Record<string, string>>,
  wanted: string,
): { socket: string; socketFallback: boolean } {
  if (new TextEncoder().encode(wanted).length <= settings.get("plumbing.sunPathMax")) {
    return { socket: wanted, socketFallback: false };
  }
  const tmp = env.TMPDIR || "/tmp";
  const name = `${hash64(new TextEncoder().encode(wanted)).slice(0, 12)}.sock`;
  return { socket: join(tmp, `mcpx-${Deno.uid() ?? "u"}`, name), socketFallback: true };
}

/** Derives the daemon's files for one configuration fingerprint. */
export function daemonPaths(
  settings: Settings,
  env: Readonly<Record<string, string>>,
  short: string,
): DaemonPaths {
  const dir = daemonsDir(settings, env);
  const { socket, socketFallback } = socketAt(
    settings,
    env,
    settings.get("daemon.socket") || join(dir, `${short}.sock`),
  );
  return {
    dir,
    ...daemonFiles(dir, short),
    socket,
    socketFallback,
    log: logSegment(logsDir(settings, env), daemonLogStem(short), 0),
    logs: logsDir(settings, env),
    logStem: daemonLogStem(short),
  };
}

/**
 * The files of a daemon command `pid` hosts inline for one configuration (docs/daemon.md, "The
 * ladder"): its own socket, record, token and children file, so that it never meets a daemon of
 * the same file; its log is `inline-<key>`, one for every inline command of that file.
 */
export function inlinePaths(
  settings: Settings,
  env: Readonly<Record<string, string>>,
  key: string,
  pid: number,
): DaemonPaths {
  const short = `${key}.inline-${pid}`;
  const own = daemonPaths(settings, env, short);
  // Never daemon.socket: that path is the shared daemon's.
  const stem = `inline-${key}`;
  return {
    ...own,
    ...socketAt(settings, env, join(own.dir, `${short}.sock`)),
    log: logSegment(own.logs, stem, 0),
    logStem: stem,
  };
}

/** The pid in the name of a file of an inline daemon of `key` (`<key>.inline-<pid>.…`). */
export function inlineFilePid(key: string, name: string): number | undefined {
  if (!name.startsWith(`${key}.inline-`)) return undefined;
  const m = /^(\d+)\./.exec(name.slice(key.length + ".inline-".length));
  return m ? Number(m[1]) : undefined;
}
