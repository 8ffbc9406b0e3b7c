import { McpxError } from "../errors.ts";
import { traceAttrs } from "../log/trace_ids.ts";
import { newId } from "../log/ids.ts";
import type { Lease, Pool, PoolDeps } from "./pool.ts";
import { type Caller, sessionKey } from "./scope.ts";
import type { RegistryCarry } from "./handoff.ts";

/** What the bookkeeping of sessions and callers needs from the daemon. */
export interface OwnersDeps extends Pick<PoolDeps, "log" | "logParent"> {
  /**
   * A running process's start time (lib/daemon/pid.ts `processToken`) and process group, or
   * undefined when none runs: what tells a session's owner from a later process of its pid.
   */
  identify?(pid: number): { start: string; pgid: number } | undefined;
  /** Every descendant of `pid`, the daemon and what it started left out. */
  descendants?(pid: number): number[];
}

/** A session that ends when a process exits: the `mcpx run` that minted it (MCPX_SESSION_OWNER). */
interface Owned {
  pid: number;
  start: string;
}

/**
 * A `mcpx run` whose script runs in a process group of its own (`script.runtime` deno, bun or
 * node): should the run die first, the script's group goes with it. A script in a Worker runs in
 * the run's own process, whose children share the caller's group: the run's descendants are read
 * on its calls and every second while it lives (`children`, with their start times), and those
 * still there when it dies are stopped.
 */
interface Run {
  start: string;
  runtime?: { pid: number; start: string };
  children?: [number, string][];
}

/** How many ended sessions are remembered, so that a late call of one is refused. */
const ENDED_KEPT = 4096;
/** Sessions whose log id is remembered (oldest forgotten first; it then starts anew). */
const SESSIONS_KEPT = 4096;

/**
 * Who owns each session and who is calling: the runs whose death stops their script, the
 * sessions whose owner's exit ends them, the sessions ended, each session's log id, and the calls
 * in flight whose caller's death cancels them. The registry asks it on each call and every
 * second; an upgrade carries it to the successor ({@linkcode SessionOwners.carry}).
 */
export class SessionOwners {
  readonly #deps: OwnersDeps;
  /** Ends a session whose owner exited (the registry's `endSession`). */
  readonly #end: (session: string) => Promise<unknown>;
  /** Runs whose script's runtime leads its own group, by the run's pid. */
  readonly #runs = new Map<number, Run>();
  /** Sessions whose owner's exit ends them, by session id. */
  readonly #owned = new Map<string, Owned>();
  /** Sessions ended (oldest first): a call that names one with an owner is refused. */
  readonly #ended = new Set<string>();
  /** Each session seen (by its key): the log id (`ses-…`) its `session.start` record created. */
  readonly #sessionIds = new Map<string, string>();
  /** Calls in flight whose caller said which process it is: cancelled should that one die. */
  readonly #callers = new Set<{ pid: number; start: string; abort: AbortController }>();
  /** Owned sessions' calls still waiting for their process. */
  readonly #acquiring = new Map<string, Set<Promise<unknown>>>();

  constructor(deps: OwnersDeps, end: (session: string) => Promise<unknown>) {
    this.#deps = deps;
    this.#end = end;
  }

  /**
   * Stops what a `mcpx run` that died (SIGKILL never lets it clean up) left: its script's runtime
   * group, when it has one (whose calls, cut off, free their leases), and every session it
   * minted, whose processes are stopped, which fails a call still in flight at once.
   */
  checkOwners(): void {
    const identify = this.#deps.identify;
    if (!identify) return;
    for (const [pid, run] of this.#runs) {
      if (identify(pid)?.start === run.start) {
        if (run.children) run.children = this.#childrenOf(pid);
        continue;
      }
      this.#runs.delete(pid);
      if (run.children) {
        this.#stopOrphans(pid, run.children);
        continue;
      }
      if (!run.runtime || identify(run.runtime.pid)?.start !== run.runtime.start) continue;
      try {
        Deno.kill(-run.runtime.pid, "SIGKILL");
      } catch { /* gone meanwhile */ }
      this.#deps.log(
        "warn",
        "run.exited",
        `The run ${pid} exited before its script; stopped the script's process group ${run.runtime.pid}`,
        { run: pid, runtimeGroup: run.runtime.pid },
      );
    }
    for (const [session, o] of this.#owned) {
      if (identify(o.pid)?.start === o.start) continue;
      this.#deps.log(
        "warn",
        "session.owner_exited",
        `Process ${o.pid}, which owned session "${session}", exited without ending it; ending it`,
        { session, owner: o.pid, ...this.#sessionAttr(session) },
      );
      void this.#end(session);
    }
  }

  /** The descendants of a Worker run, each with its start time. */
  #childrenOf(pid: number): [number, string][] {
    const out: [number, string][] = [];
    for (const child of this.#deps.descendants?.(pid) ?? []) {
      const start = this.#deps.identify?.(child)?.start;
      if (start) out.push([child, start]);
    }
    return out;
  }

  /**
   * Stops what a Worker run that died had started (as last read, and what those started since),
   * each only while it is still the process that was read.
   */
  #stopOrphans(run: number, children: [number, string][]): void {
    const stopped: number[] = [];
    for (const [pid, start] of children) {
      if (this.#deps.identify?.(pid)?.start !== start) continue;
      for (const p of [pid, ...(this.#deps.descendants?.(pid) ?? [])]) {
        try {
          Deno.kill(p, "SIGKILL");
          stopped.push(p);
        } catch { /* gone meanwhile */ }
      }
    }
    if (stopped.length === 0) return;
    this.#deps.log(
      "warn",
      "run.exited",
      `The run ${run} exited before its script; stopped ${stopped.length} process(es) the script had started (pids ${
        stopped.join(", ")
      })`,
      { run, stopped },
    );
  }

  /** Notes a run whose script's runtime leads its own process group (see {@linkcode Run}). */
  noteRun(caller: Caller): void {
    const identify = this.#deps.identify;
    const { run, process } = caller;
    if (!identify || run === undefined || process === undefined) return;
    if (process === run) {
      // A script in a Worker: its children are the run's own (see Run).
      const known = this.#runs.get(run);
      if (known?.children) known.children = this.#childrenOf(run);
      else if (!known && this.#deps.descendants) {
        const self = identify(run);
        if (self) this.#runs.set(run, { start: self.start, children: this.#childrenOf(run) });
      }
      return;
    }
    if (this.#runs.has(run)) return;
    const self = identify(run);
    const rt = identify(process);
    if (self && rt && rt.pgid === process) {
      this.#runs.set(run, { start: self.start, runtime: { pid: process, start: rt.start } });
    }
  }

  /**
   * Runs `call` with `signal`, and, when the caller said which process it is, cancels it should
   * that process die ({@linkcode SessionOwners.checkCallers}).
   */
  async whileCallerLives<T>(
    pid: number | undefined,
    signal: AbortSignal | undefined,
    call: (signal?: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const start = pid === undefined ? undefined : this.#deps.identify?.(pid)?.start;
    if (pid === undefined || start === undefined) return await call(signal);
    const watched = { pid, start, abort: new AbortController() };
    this.#callers.add(watched);
    try {
      const both = signal ? AbortSignal.any([signal, watched.abort.signal]) : watched.abort.signal;
      return await call(both);
    } finally {
      this.#callers.delete(watched);
    }
  }

  /**
   * Cancels every call whose caller has died (a script's runtime or a CLI killed with SIGKILL):
   * its lease is freed at once instead of when its callTimeout runs out.
   */
  checkCallers(): void {
    const identify = this.#deps.identify;
    if (!identify) return;
    for (const c of this.#callers) {
      if (identify(c.pid)?.start === c.start) continue;
      this.#callers.delete(c);
      c.abort.abort(
        new McpxError("DAEMON_UNAVAILABLE", `The calling process ${c.pid} exited during the call`),
      );
    }
  }

  /**
   * Notes who owns a session (on its first call that says so), or refuses the call when the
   * session has ended or its owner is already gone.
   */
  own(session: string, caller: Caller): void {
    const gone = () =>
      new McpxError("NOT_FOUND", `Session "${session}" has ended: the run that owned it finished`, {
        hint: "Start a new run, or set MCPX_SESSION_ID to a session of your own",
      });
    if (this.#ended.has(session)) throw gone();
    const identify = this.#deps.identify;
    if (!identify || caller.owner === undefined) return;
    if (!this.#owned.has(session)) {
      const id = identify(caller.owner);
      if (!id) {
        this.markEnded(session);
        throw gone();
      }
      this.#owned.set(session, { pid: caller.owner, start: id.start });
    }
  }

  /**
   * The lease `acquiring` gets for a call of an owned session: should the session end while the
   * call waits for its process, the lease is given back, the session's processes are stopped,
   * and the call refused ({@linkcode SessionOwners.settled} waits for it).
   */
  async ownedLease(
    session: string,
    caller: Caller,
    pool: Pick<Pool, "stopAll">,
    acquiring: Promise<Lease>,
  ): Promise<Lease> {
    const settled = acquiring.then(async (got) => {
      if (!this.#ended.has(session)) return got;
      got.release();
      await pool.stopAll(`session ${session} ended`, (k) => k === sessionKey(session));
      return undefined;
    });
    let pending = this.#acquiring.get(session);
    if (!pending) this.#acquiring.set(session, pending = new Set());
    pending.add(settled);
    try {
      const got = await settled;
      if (!got) this.own(session, caller); // throws: the session has ended
      return got!;
    } finally {
      pending.delete(settled);
      if (pending.size === 0) this.#acquiring.delete(session);
    }
  }

  /** Settles once every call of `session` still waiting for its process has it, or is refused. */
  async settled(session: string): Promise<void> {
    await Promise.allSettled([...this.#acquiring.get(session) ?? []]);
  }

  /**
   * The log id of the caller's session: on the first call the daemon sees of a session key, a
   * new `ses-…` id whose `session.start` record names the daemon as its parent, the key, and
   * the run whose call it was (`runId`, with `minted` when that run made the key up).
   */
  sessionLogId(caller: Caller): string | undefined {
    const session = caller.session;
    if (session === undefined) return undefined;
    const known = this.#sessionIds.get(session);
    if (known) return known;
    const id = newId("ses");
    this.#sessionIds.set(session, id);
    if (this.#sessionIds.size > SESSIONS_KEPT) {
      this.#sessionIds.delete(this.#sessionIds.keys().next().value!);
    }
    this.#deps.log("info", "session.start", `Session "${session}" began`, {
      id,
      parent: this.#deps.logParent,
      session,
      ...(caller.runId ? { runId: caller.runId } : {}),
      ...(caller.sessionMinted ? { minted: true } : {}),
      ...traceAttrs(caller.ids),
    });
    return id;
  }

  /** `{ sessionId }` of a session seen, else nothing. */
  #sessionAttr(session: string): { sessionId?: string } {
    const id = this.#sessionIds.get(session);
    return id ? { sessionId: id } : {};
  }

  markEnded(session: string): void {
    this.#owned.delete(session);
    this.#ended.delete(session);
    this.#ended.add(session);
    if (this.#ended.size > ENDED_KEPT) this.#ended.delete(this.#ended.values().next().value!);
  }

  /**
   * Forgets an ended session's log id, with the `session.end` record that closes it (`stopped`
   * processes), when it had one.
   */
  logEnd(session: string, stopped: number): void {
    const id = this.#sessionIds.get(session);
    if (id) {
      this.#sessionIds.delete(session);
      this.#deps.log("info", "session.end", `Session "${session}" ended`, {
        id,
        session,
        stopped,
      });
    }
  }

  /** What a successor takes up ({@linkcode SessionOwners.adopt}): owners, runs, ended, log ids. */
  carry(): RegistryCarry {
    return {
      owned: [...this.#owned],
      runs: [...this.#runs],
      ended: [...this.#ended],
      sessionIds: [...this.#sessionIds],
    };
  }

  /** Takes up what a predecessor's {@linkcode SessionOwners.carry} gave. */
  adopt(carry: RegistryCarry): void {
    for (const [k, v] of carry.owned ?? []) this.#owned.set(k, v);
    for (const [k, v] of carry.runs ?? []) this.#runs.set(k, v);
    for (const k of carry.ended ?? []) this.markEnded(k);
    for (const [k, v] of carry.sessionIds ?? []) this.#sessionIds.set(k, v);
  }
}
