import type { Selection, ServerDef } from "../config/servers.ts";
import { pick } from "../config/server_env.ts";
import { hash64 } from "../_hash.ts";

/** Who is calling: what the CLI (or a script) tells the daemon about itself. */
export interface Caller {
  /**
   * Set by the daemon, never by a header: the request came over the TCP listener
   * (`daemon.listen`), from a holder of the listener token rather than a command of this user's.
   */
  overTcp?: boolean;
  /** The caller's working directory. */
  cwd?: string;
  /** The process a `pid` scope belongs to (the CLI sends its parent: the shell or agent). */
  pid?: number;
  /** MCPX_SESSION_ID, or `--session`. */
  session?: string;
  /** The script run making the call (MCPX_RUN_ID, `run-…`): the parent of its `call.end` record. */
  runId?: string;
  /**
   * The session key was made up by mcpx for one run (MCPX_SESSION_MINTED), not named by the
   * caller: its process may be stopped to make room between its calls (and the run is told).
   */
  sessionMinted?: boolean;
  /**
   * MCPX_SESSION_OWNER: the process whose exit ends `session` (the `mcpx run` that minted it),
   * sent along with MCPX_SESSION_ID only.
   */
  owner?: number;
  /** MCPX_RUN_PID: the `mcpx run` the request comes from, whose death ends its script too. */
  run?: number;
  /**
   * The process sending the request (a script's runtime, or the CLI): should it die while its
   * call is in flight, the call is cancelled and its lease freed.
   */
  process?: number;
  /**
   * A token the caller made up to hear this request's progress: each report is published on the
   * event bus as `call.progress` with it (lib/events/bus.ts).
   */
  progress?: string;
  /**
   * The caller's own `logging.trace` (MCPX_TRACE): its calls get their `call.trace` record
   * whatever the daemon's setting is.
   */
  trace?: boolean;
  /**
   * MCPX_SESSION_HOLDER: who the caller is when it holds a named session (lib/sessions/named.ts
   * `holderOf`); without it, its `pid`.
   */
  holder?: string;
  /** The caller's user name (USER), recorded with the named sessions it creates or attaches to. */
  user?: string;
  /** MCPX_PARENT_SESSION_ID (or the harness's `parent` trace id). */
  parentSession?: string;
  /**
   * MCPX_TRACE_IDS: what the harness says of the caller (lib/log/trace_ids.ts), recorded on the
   * call's records as `id.<key>`; never what a call is leased under beyond filling an unset
   * session or parent.
   */
  ids?: Record<string, string | string[]>;
  /** The profiles the caller selected: a call outside them is refused. */
  selection?: Selection;
  /**
   * The caller's values of the variables that servers with `"envFrom": "caller"` reference, and
   * no others (lib/config/server_env.ts `callerVariables`).
   */
  env?: Record<string, string>;
}

/** The key a call is served under, and how long a process under it may live. */
export interface ScopeKey {
  key: string;
  /** Stopped as soon as its lease is released: `call` scope, and scopes that could not resolve. */
  ephemeral: boolean;
  /** For `pid` scope: the process whose exit stops the instance. */
  watchPid?: number;
  /**
   * Never stopped to make room for another key: a session the caller named (MCPX_SESSION_ID,
   * `--session`, MCPX_PARENT_SESSION_ID). Newcomers wait for it instead.
   */
  pinned?: boolean;
  /** Set when the scope could not resolve: which variable or condition would fix it. */
  degraded?: string;
  /** For a server with `"envFrom": "caller"`: the caller's values its `${VAR}` references read. */
  env?: Record<string, string>;
  /**
   * The working directory of the caller whose call starts the process: its default MCP root.
   * Not part of `key`.
   */
  cwd?: string;
  /**
   * The log id (`ses-…`) of the session a `session`-scoped key belongs to: named by the
   * instance's `server.start` record. Not part of `key`.
   */
  sessionId?: string;
}

/** The repository facts the `repo` and `worktree` scopes need. */
export type Discover = (cwd: string) => { commonDir: string; worktree: string } | undefined;

/** The scope key of the processes of one session (`session` scope). */
export function sessionKey(session: string): string {
  return `session:${session}`;
}

/** The scope key of the processes of one parent session's subagents (`parent-session` scope). */
export function parentSessionKey(session: string): string {
  return `psession:${session}`;
}

/** The scope part of a key: `session:abc` of `session:abc|env:<hash>` (an envFrom caller's). */
export function scopeOf(key: string): string {
  const at = key.indexOf("|env:");
  return at < 0 ? key : key.slice(0, at);
}

/**
 * Computes the key for one call. A scope that cannot resolve degrades to per-call isolation:
 * sharing a stateful process by accident corrupts results, over-isolating only costs a process.
 */
export function scopeKey(def: ServerDef, caller: Caller, discover: Discover): ScopeKey {
  const only = scopeOnly(def, caller, discover);
  const key: ScopeKey = caller.cwd === undefined ? only : { ...only, cwd: caller.cwd };
  if (def.envFrom !== "caller") return key;
  // A process started with one caller's values never serves a caller with other values.
  const env = pick(caller.env ?? {}, def.envNames);
  const digest = hash64(new TextEncoder().encode(JSON.stringify(Object.entries(env))));
  return { ...key, key: `${key.key}|env:${digest}`, env };
}

function scopeOnly(def: ServerDef, caller: Caller, discover: Discover): ScopeKey {
  const once = (why: string): ScopeKey => ({
    key: `call:${crypto.randomUUID()}`,
    ephemeral: true,
    degraded: why,
  });
  switch (def.pool.scope) {
    case "global":
      return { key: "global", ephemeral: false };
    case "call":
      return { key: `call:${crypto.randomUUID()}`, ephemeral: true };
    case "session":
      return caller.session
        ? { key: sessionKey(caller.session), ephemeral: false, pinned: !caller.sessionMinted }
        : once("set MCPX_SESSION_ID (or pass --session) so calls of one session share a process");
    case "parent-session":
      return caller.parentSession
        ? { key: parentSessionKey(caller.parentSession), ephemeral: false, pinned: true }
        : once("set MCPX_PARENT_SESSION_ID so the subagents of one parent share a process");
    case "pid":
      return caller.pid
        ? { key: `pid:${caller.pid}`, ephemeral: false, watchPid: caller.pid }
        : once("the caller did not say which process it belongs to");
    case "cwd":
      return caller.cwd
        ? { key: `cwd:${caller.cwd}`, ephemeral: false }
        : once("the caller did not say its working directory");
    case "repo":
    case "worktree": {
      if (!caller.cwd) return once("the caller did not say its working directory");
      const repo = discover(caller.cwd);
      if (!repo) return once(`run from inside a git repository (${caller.cwd} is not in one)`);
      return def.pool.scope === "repo"
        ? { key: `repo:${repo.commonDir}`, ephemeral: false }
        : { key: `worktree:${repo.worktree}`, ephemeral: false };
    }
  }
}
