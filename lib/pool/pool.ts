import { McpxError, messageOf } from "../errors.ts";
import { formatDuration } from "../duration.ts";
import type { McpConnection, ServerSpec, StdioHandoff, ToolInfo } from "../mcp/types.ts";
import type { AdoptedPipes } from "../mcp/stdio_transport.ts";
import type { ServerDef } from "../config/servers.ts";
import type { ScopeKey } from "./scope.ts";
import { newId } from "../log/ids.ts";

/** What a pool needs from outside: how to connect, and where to say what happened. */
export interface PoolDeps {
  /**
   * Starts one server; `signal` aborts a start still under way (the daemon is stopping). With
   * `adopt`, goes on with one a predecessor daemon handed over instead (lib/daemon/upgrade.ts).
   */
  connect(
    spec: ServerSpec,
    startTimeoutMs: number,
    signal?: AbortSignal,
    adopt?: Adoption,
  ): Promise<McpConnection>;
  /** How to start the server for one key (a key carries a caller's variables for `envFrom`). */
  spec(def: ServerDef, key?: ScopeKey): ServerSpec;
  log(
    level: "debug" | "info" | "warn" | "error",
    event: string,
    msg: string,
    attrs?: Record<string, unknown>,
  ): void;
  /** The id of what creates instances (the daemon's `dmn-…`): the parent of each `server.start`. */
  logParent?: string;
  /** A server listed its tools (at start, or after `tools/list_changed`). */
  listed?(pool: Pool, tools: ToolInfo[]): void;
  /** A server failed to start; `error` carries its stderr. */
  failed?(pool: Pool, error: McpxError): void;
  /** An instance was added or removed. */
  changed?(pool: Pool): void;
}

/** A server a predecessor daemon handed over: its state, and its pipes opened here. */
export interface Adoption {
  handed: StdioHandoff;
  pipes: AdoptedPipes;
}

/** What an instance carries across a daemon upgrade beside its connection. */
export interface Carried {
  id: string;
  logId: string;
  startedAt: number;
  calls: number;
}

/** One server process (or remote session) serving one scope key. */
export class Instance {
  readonly id: string;
  /** The id its log records carry (`ins-…`), unique across daemons. */
  readonly logId: string;
  readonly key: string;
  /** The whole scope key it serves (a successor daemon rebuilds its start from it). */
  readonly scope: ScopeKey;
  readonly ephemeral: boolean;
  /**
   * Serves a named session (see {@linkcode ScopeKey.pinned}): never stopped to make room, unless
   * the server's `evictNamed` says it may be (see {@linkcode Pool.pinned}).
   */
  readonly pinned: boolean;
  readonly watchPid?: number;
  state: "starting" | "ready" | "stopping" | "exited" = "starting";
  conn?: McpConnection;
  tools: ToolInfo[] = [];
  readonly startedAt: number;
  lastUsed: number = Date.now();
  calls = 0;
  /** Leases held (or reserved for a caller about to hold one): at most one under exclusive sharing. */
  leases = 0;
  /**
   * Why the process this one replaces went away (stopped to make room, or exited), until the
   * first lease on it has told its caller.
   */
  restarted?: string;
  ready!: Promise<McpConnection>;
  lastStderr: string[] = [];
  /** Why {@linkcode Pool.stop} stopped it. */
  stopReason?: string;

  constructor(id: string, key: ScopeKey, carried?: Carried) {
    this.id = carried?.id ?? id;
    this.logId = carried?.logId ?? newId("ins");
    this.startedAt = carried?.startedAt ?? Date.now();
    this.calls = carried?.calls ?? 0;
    this.scope = key;
    this.key = key.key;
    this.ephemeral = key.ephemeral;
    this.pinned = key.pinned === true;
    this.watchPid = key.watchPid;
  }

  get pid(): number | undefined {
    return this.conn?.pid;
  }

  stderrTail(): string[] {
    return this.conn?.stderrTail() ?? this.lastStderr;
  }
}

/** A lease on one instance; release it exactly once. */
export interface Lease {
  instance: Instance;
  conn: McpConnection;
  /**
   * Set on the first lease of a process that replaced one this key lost: why the old one went
   * (whatever state it held, a page or a login, is gone).
   */
  restarted?: string;
  release(): void;
}

/** What `status` shows of a pool. */
export interface PoolStatus {
  namespace: string;
  state: "ready" | "error" | "disabled" | "stopping";
  error?: string;
  retryInMs?: number;
  /** Callers waiting for a lease, and how long the first of them has waited. */
  queue: { waiting: number; oldestWaitMs: number };
  instances: {
    id: string;
    key: string;
    pid: number | null;
    state: string;
    uptimeMs: number;
    calls: number;
    leases: number;
    waiting: number;
    pinned: boolean;
    stderrTail: string[];
  }[];
}

/** A caller queued for a lease: on the instance of its key, or on room under `max` for one. */
interface Waiter {
  key: ScopeKey;
  since: number;
  grant(inst: Instance): void;
  fail(error: McpxError): void;
}

const COOLDOWN_START_MS = 1000;
const COOLDOWN_MAX_MS = 30_000;
/** Keys whose lost process is remembered until their next call; past it the oldest is dropped. */
const LOST_MAX = 4096;

/** `session:a` → `session "a"`: how an error names the holder of a process. */
function holderName(key: string): string {
  const colon = key.indexOf(":");
  return colon < 0 ? key : `${key.slice(0, colon)} "${key.slice(colon + 1)}"`;
}

/**
 * The processes of one server identity: at most one per scope key, at most `max` in all.
 * Shared instances serve callers concurrently; exclusive ones serve one lease at a time. Callers
 * that must wait (for an exclusive lease, or for room under `max`) queue first come first served
 * and are woken by every release, exit and stop, each for at most the wait it was given.
 */
export class Pool {
  /** Replaced by a reload when an entry of the same identity is renamed or redescribed. */
  def: ServerDef;
  readonly #deps: PoolDeps;
  readonly #instances = new Map<string, Instance>();
  #serial = 0;
  #cooldown?: { until: number; delayMs: number; error: McpxError };
  /** Every waiting caller, in arrival order. */
  readonly #queue: Waiter[] = [];
  /** Set once the daemon stops: no new lease, no new process. */
  #closing?: string;
  /** Aborts the starts under way when the pool closes. */
  #abort = new AbortController();
  /** Keys whose process was stopped to make room or exited, with why: told at their next call. */
  readonly #lost = new Map<string, string>();
  #pumping = false;
  #pumpAgain = false;

  constructor(def: ServerDef, deps: PoolDeps) {
    this.def = def;
    this.#deps = deps;
  }

  /** Every live instance. */
  instances(): Instance[] {
    return [...this.#instances.values()];
  }

  /** The last start failure, while its cooldown runs. */
  get failure(): McpxError | undefined {
    return this.#cooldown?.error;
  }

  /**
   * Whether `inst` is never stopped to make room: it serves a named session, and the server's
   * `evictNamed` (the `pool.evictNamed` setting) does not let such a process go.
   */
  pinned(inst: Instance): boolean {
    return inst.pinned && !this.def.pool.evictNamed;
  }

  /** Callers waiting now. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Leases the instance for `key`, starting it if needed. A caller that must wait (exclusive
   * sharing, or no room under `max` that stopping an idle unpinned process would make) queues
   * behind those before it for up to `waitMs`.
   * @throws {McpxError} SERVER_START_FAILED (also during the cooldown after a failed start),
   * POOL_BUSY when the wait runs out, DAEMON_STOPPING once {@linkcode Pool.close} was called.
   */
  async acquire(key: ScopeKey, waitMs: number): Promise<Lease> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const inst = await this.#reserve(key, deadline, waitMs);
      let conn: McpConnection;
      try {
        conn = await inst.ready;
      } catch (e) {
        this.#unreserve(inst);
        throw e;
      }
      if (inst.state !== "ready") {
        // Stopped between its start and this caller: try again on a fresh one.
        this.#unreserve(inst);
        continue;
      }
      inst.lastUsed = Date.now();
      const restarted = inst.restarted;
      inst.restarted = undefined;
      let released = false;
      return {
        instance: inst,
        conn,
        ...(restarted ? { restarted } : {}),
        release: () => {
          if (released) return;
          released = true;
          inst.lastUsed = Date.now();
          this.#unreserve(inst);
        },
      };
    }
  }

  /**
   * Stops taking work: every queued caller fails at once with DAEMON_STOPPING, and so does
   * every later {@linkcode Pool.acquire}; no process starts from now on.
   */
  close(reason: string): void {
    if (this.#closing !== undefined) return;
    this.#closing = reason;
    const error = this.#stoppingError();
    for (const w of this.#queue.splice(0)) w.fail(error);
    // A server still starting is not waited for: it is stopped now, with the rest.
    this.#abort.abort(error);
  }

  /** Takes work again after {@linkcode Pool.close}: an upgrade that failed (lib/daemon/upgrade.ts). */
  reopen(): void {
    this.#closing = undefined;
    this.#abort = new AbortController();
  }

  /**
   * Lets go of an idle instance without ending its process, for a successor daemon that has
   * opened its pipes: resolves to what that one needs, or undefined when it cannot be handed
   * (leased, not ready, or not a connection that can be handed). It leaves the pool either way
   * only when handed.
   */
  async handOver(inst: Instance): Promise<StdioHandoff | undefined> {
    if (inst.state !== "ready" || inst.leases > 0 || !inst.conn?.handoff) return undefined;
    const handed = await inst.conn.handoff();
    if (!handed) return undefined;
    inst.state = "exited";
    inst.stopReason = "handed to the daemon that succeeds this one";
    this.#remove(inst);
    return handed;
  }

  /**
   * Takes up a process a predecessor daemon handed over, for `key`: as a start would, without
   * spawning or a handshake, and listing its tools once to be sure it answers. Rejects (and ends
   * the process) when it does not.
   */
  adopt(key: ScopeKey, adoption: Adoption, carried: Carried): Promise<McpConnection> {
    if (this.#instances.has(key.key)) {
      return Promise.reject(
        new Error(`"${this.def.namespace}" already has a process for ${key.key}`),
      );
    }
    return this.#start(key, { adoption, carried }).ready;
  }

  /** Tells the next caller of `key` that its process is gone, and why. */
  noteLost(key: string, reason: string): void {
    this.#remember(key, reason);
  }

  #stoppingError(): McpxError {
    return new McpxError(
      "DAEMON_STOPPING",
      `Cannot lease a process of "${this.def.namespace}": the daemon is stopping (${this.#closing})`,
    );
  }

  /** Gives back a lease or a reservation; the queue moves on. */
  #unreserve(inst: Instance): void {
    inst.leases--;
    if (inst.ephemeral && inst.leases === 0 && !this.#wanted(inst.key)) {
      void this.stop(inst, "its caller finished");
    }
    this.#pump();
  }

  /** Whether a queued caller waits for the process of `key`. */
  #wanted(key: string): boolean {
    return this.#queue.some((w) => w.key.key === key);
  }

  /** An instance for `key` with a lease reserved on it: at once, or after waiting in the queue. */
  #reserve(key: ScopeKey, deadline: number, waitMs: number): Promise<Instance> {
    if (this.#closing !== undefined) return Promise.reject(this.#stoppingError());
    return new Promise<Instance>((resolve, reject) => {
      const timer: { id?: ReturnType<typeof setTimeout> } = {};
      const waiter: Waiter = {
        key,
        since: Date.now(),
        grant: (inst) => {
          clearTimeout(timer.id);
          resolve(inst);
        },
        fail: (error) => {
          clearTimeout(timer.id);
          reject(error);
        },
      };
      this.#queue.push(waiter);
      this.#pump();
      if (!this.#queue.includes(waiter)) return; // granted or failed at once
      timer.id = setTimeout(() => {
        const i = this.#queue.indexOf(waiter);
        if (i < 0) return;
        this.#queue.splice(i, 1);
        reject(this.#busyError(key, waitMs));
        this.#pump(); // a room waiter that blocked those behind it is gone
      }, Math.max(0, deadline - Date.now()));
    });
  }

  /**
   * Hands out what can be handed out, in queue order: a lease on a live instance of the waiter's
   * key (at once when shared, when free under exclusive sharing), else a new instance when there
   * is room under `max`, or when stopping the least recently used idle unpinned process makes
   * some. The first waiter that needs room and finds none keeps the room for itself: nobody
   * behind it starts a process before it does.
   */
  #pump(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    try {
      do {
        this.#pumpAgain = false;
        let roomBlocked = false;
        for (let i = 0; i < this.#queue.length;) {
          const w = this.#queue[i];
          const inst = this.#instances.get(w.key.key);
          let granted: Instance | undefined;
          if (inst) {
            if (this.def.pool.sharing === "shared" || inst.leases === 0) granted = inst;
          } else if (!roomBlocked) {
            const c = this.#cooldown;
            if (c && Date.now() < c.until) {
              this.#queue.splice(i, 1);
              w.fail(this.#cooldownError(c));
              continue;
            }
            if (this.#instances.size >= this.def.pool.max) this.#evictFor(w.key);
            if (this.#instances.size < this.def.pool.max) granted = this.#start(w.key);
            else roomBlocked = true;
          }
          if (!granted) {
            i++;
            continue;
          }
          granted.leases++;
          this.#queue.splice(i, 1);
          w.grant(granted);
        }
      } while (this.#pumpAgain);
    } finally {
      this.#pumping = false;
    }
  }

  /**
   * Stops the least recently used idle process that is not pinned. A caller queued behind this
   * one for that very process does not save it: first come, first served.
   */
  #evictFor(key: ScopeKey): void {
    const idle =
      this.instances().filter((i) => i.leases === 0 && !this.pinned(i) && i.state === "ready")
        .sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (!idle) return;
    const reason = `stopped to make room for ${holderName(key.key)} (max ${this.def.pool.max})`;
    this.#deps.log(
      "info",
      "server.evicted",
      "Stopping the least recently used idle instance to stay under max",
      {
        id: idle.logId,
        server: this.def.name,
        instance: idle.id,
        key: idle.key,
        for: key.key,
        max: this.def.pool.max,
      },
    );
    if (!idle.ephemeral) this.#remember(idle.key, reason);
    void this.stop(idle, reason);
  }

  #remember(key: string, reason: string): void {
    this.#lost.delete(key);
    this.#lost.set(key, reason);
    if (this.#lost.size > LOST_MAX) this.#lost.delete(this.#lost.keys().next().value!);
  }

  #busyError(key: ScopeKey, waitMs: number): McpxError {
    const ns = this.def.namespace;
    const secs = formatDuration(waitMs);
    const own = this.#instances.get(key.key);
    const max = this.def.pool.max;
    const held = this.instances();
    const shown =
      held.slice(0, 6).map((i) =>
        `${holderName(i.key)} (${i.leases > 0 ? "busy" : this.pinned(i) ? "idle, named" : "idle"})`
      ).join(", ") + (held.length > 6 ? `, and ${held.length - 6} more` : "");
    const message = own
      ? `Waited ${secs} for the process of "${ns}" that serves ${
        holderName(key.key)
      }: it takes one call at a time and is still busy`
      : `Waited ${secs} for a process of "${ns}": all ${held.length} (max ${max}) are held, by ${shown}`;
    // Held idle by named sessions: that is the policy, and the setting that changes it is named.
    const named = !own && held.some((i) => i.leases === 0 && this.pinned(i));
    return new McpxError("POOL_BUSY", message, {
      hint: own
        ? "Make the calls of one session one after another, or raise pool.queueTimeout"
        : named
        ? `A named session's idle process is never stopped to make room: raise max (now ${max}) for "${ns}", free one (\`mcpx session end <name>\`, \`mcpx restart ${ns} --session <id>\`), or set pool.evictNamed=true ("evictNamed": true in its mcpx block) to stop the least recently used one instead`
        : `Raise max (now ${max}) for "${ns}", or free one: \`mcpx restart ${ns} --session <id>\``,
    });
  }

  #cooldownError(c: { until: number; error: McpxError }): McpxError {
    const secs = Math.ceil((c.until - Date.now()) / 1000);
    return new McpxError("SERVER_START_FAILED", `${c.error.message} (retrying in ${secs}s)`, {
      hint: c.error.hint,
    });
  }

  #start(key: ScopeKey, adopt?: { adoption: Adoption; carried: Carried }): Instance {
    const inst = new Instance(`${this.def.namespace}#${++this.#serial}`, key, adopt?.carried);
    inst.restarted = this.#lost.get(key.key);
    this.#lost.delete(key.key);
    this.#instances.set(key.key, inst);
    this.#deps.changed?.(this);
    this.#deps.log(
      "info",
      adopt ? "server.adopt" : "server.start",
      adopt ? "Taking over a server instance from the previous daemon" : "Starting server instance",
      {
        id: inst.logId,
        ...(this.#deps.logParent ? { parent: this.#deps.logParent } : {}),
        server: this.def.name,
        instance: inst.id,
        key: key.key,
        ...(key.sessionId ? { sessionId: key.sessionId } : {}),
        ...(adopt ? { serverPid: adopt.adoption.handed.pid } : {}),
      },
    );
    inst.ready = (async () => {
      try {
        const conn = await this.#deps.connect(
          this.#deps.spec(this.def, key),
          this.def.pool.startTimeoutMs,
          this.#abort.signal,
          adopt?.adoption,
        );
        inst.conn = conn;
        inst.tools = await conn.listTools();
        this.#deps.listed?.(this, inst.tools);
        conn.onToolsChanged(() => {
          conn.listTools().then((tools) => {
            inst.tools = tools;
            this.#deps.listed?.(this, tools);
          }).catch(() => {});
        });
        void conn.ended.then((end) => this.#onEnded(inst, end.reason));
        inst.state = inst.state === "starting" ? "ready" : inst.state;
        this.#cooldown = undefined;
        // Its pid is known now: the daemon records it (lib/daemon/children.ts).
        this.#deps.changed?.(this);
        this.#deps.log("info", "server.ready", "Server instance ready", {
          id: inst.logId,
          server: this.def.name,
          instance: inst.id,
          key: key.key,
          serverPid: conn.pid,
          tools: inst.tools.length,
        });
        return conn;
      } catch (e) {
        const error = e instanceof McpxError ? e : new McpxError(
          "SERVER_START_FAILED",
          `Cannot start server "${this.def.name}": ${messageOf(e)}`,
        );
        // Stopped while it started (its session ended, a restart): mcpx's doing, not a failure.
        const stopped = inst.stopReason !== undefined;
        inst.state = "exited";
        inst.conn?.close().catch(() => {});
        this.#remove(inst);
        // Abandoned because the daemon is stopping: not the server's failure, nothing to record.
        if (this.#closing !== undefined) throw this.#stoppingError();
        // A handed-over process that does not answer: the next call starts a fresh one at once.
        if (adopt) {
          this.#remember(
            inst.key,
            `its process did not answer after the daemon's upgrade (${error.message})`,
          );
          throw error;
        }
        // Nor is one mcpx stopped: no cooldown refuses the next caller, no listing failure is
        // recorded, and the caller that waited for it is told why.
        if (stopped) {
          throw new McpxError(
            "SERVER_EXITED",
            `The process of "${this.def.namespace}" for ${
              holderName(inst.key)
            } was stopped before it was ready (${inst.stopReason})`,
          );
        }
        // A missing credential (no OAuth sign-in yet, an unset variable) or a refused token file
        // started nothing: the next call, after `mcpx auth login` or the fix, tries again at once.
        if (error.code === "CREDENTIALS_MISSING" || error.code === "UNSAFE_PATH") throw error;
        const delayMs = Math.min(
          COOLDOWN_MAX_MS,
          this.#cooldown ? this.#cooldown.delayMs * 2 : COOLDOWN_START_MS,
        );
        this.#cooldown = { until: Date.now() + delayMs, delayMs, error };
        this.#deps.failed?.(this, error);
        this.#deps.log("error", "server.start_failed", error.message, {
          id: inst.logId,
          server: this.def.name,
          instance: inst.id,
          cooldownMs: delayMs,
        });
        throw error;
      }
    })();
    inst.ready.catch(() => {}); // observed by acquire; keep an unobserved start quiet
    return inst;
  }

  #remove(inst: Instance): void {
    if (this.#instances.get(inst.key) === inst) {
      this.#instances.delete(inst.key);
      this.#deps.changed?.(this);
    }
    this.#pump();
  }

  #onEnded(inst: Instance, reason: string): void {
    if (inst.state === "stopping" || inst.state === "exited") return;
    inst.lastStderr = inst.conn?.stderrTail() ?? [];
    inst.state = "exited";
    // Whatever it held is gone: its key's next caller is told so.
    if (!inst.ephemeral && this.#closing === undefined) {
      this.#remember(inst.key, `its process exited (${reason})`);
    }
    this.#remove(inst);
    this.#deps.log("warn", "server.exited", `Server instance ended: ${reason}`, {
      id: inst.logId,
      server: this.def.name,
      instance: inst.id,
      key: inst.key,
      serverPid: inst.pid,
      reason,
      stderr: inst.lastStderr.slice(-5),
    });
  }

  /** Stops one instance: its process group is killed; callers waiting for it get a fresh one. */
  async stop(inst: Instance, reason: string): Promise<void> {
    if (inst.state === "stopping" || inst.state === "exited") return;
    inst.state = "stopping";
    inst.stopReason = reason;
    this.#remove(inst);
    this.#deps.log("info", "server.stop", `Stopping server instance: ${reason}`, {
      id: inst.logId,
      server: this.def.name,
      instance: inst.id,
      key: inst.key,
      serverPid: inst.pid,
      reason,
    });
    try {
      const conn = inst.conn ?? (await inst.ready.catch(() => undefined));
      await conn?.close();
    } finally {
      inst.state = "exited";
    }
  }

  /** Stops every instance, or those whose key matches. */
  async stopAll(reason: string, match?: (key: string) => boolean): Promise<number> {
    const chosen = this.instances().filter((i) => !match || match(i.key));
    await Promise.all(chosen.map((i) => this.stop(i, reason)));
    return chosen.length;
  }

  /**
   * Stops idle instances past `idleTimeout` (keeping `min` of them) and those whose pid exited;
   * an instance whose key `keep` holds (an open named session's, whose TTL governs it) is not
   * stopped for being idle.
   */
  async reap(
    now: number,
    alive: (pid: number) => boolean,
    keep?: (key: string) => boolean,
  ): Promise<void> {
    const idle = this.instances().filter((i) => i.leases === 0 && !this.#wanted(i.key))
      .sort((a, b) => b.lastUsed - a.lastUsed);
    const jobs: Promise<void>[] = [];
    idle.forEach((inst, rank) => {
      if (inst.watchPid !== undefined && !alive(inst.watchPid)) {
        jobs.push(this.stop(inst, `process ${inst.watchPid} exited`));
      } else if (
        rank >= this.def.pool.min && now - inst.lastUsed >= this.def.pool.idleTimeoutMs &&
        !keep?.(inst.key)
      ) {
        jobs.push(this.stop(inst, "idle"));
      }
    });
    await Promise.all(jobs);
  }

  /** Forgets a start failure so the next call tries again at once (restart). */
  clearCooldown(): void {
    this.#cooldown = undefined;
  }

  /** Forgets what a key lost (its session ended: there is no one left to tell). */
  forget(match: (key: string) => boolean): void {
    for (const key of [...this.#lost.keys()]) if (match(key)) this.#lost.delete(key);
  }

  /**
   * How many entries each of the pool's tables holds: what must come back down after sessions
   * come and go (`plumbing.memoryLog`, and the tests that check nothing is left behind).
   */
  tables(): { instances: number; queue: number; lost: number } {
    return { instances: this.#instances.size, queue: this.#queue.length, lost: this.#lost.size };
  }

  status(): PoolStatus {
    const c = this.#cooldown;
    const now = Date.now();
    return {
      namespace: this.def.namespace,
      state: this.def.disabled
        ? "disabled"
        : this.#closing !== undefined
        ? "stopping"
        : c
        ? "error"
        : "ready",
      ...(c ? { error: c.error.message, retryInMs: Math.max(0, c.until - now) } : {}),
      queue: {
        waiting: this.#queue.length,
        oldestWaitMs: this.#queue.length ? now - this.#queue[0].since : 0,
      },
      instances: this.instances().map((i) => ({
        id: i.id,
        key: i.key,
        pid: i.pid ?? null,
        state: i.state,
        uptimeMs: Date.now() - i.startedAt,
        calls: i.calls,
        leases: i.leases,
        waiting: this.#queue.filter((w) => w.key.key === i.key).length,
        pinned: this.pinned(i),
        stderrTail: i.stderrTail().slice(-10),
      })),
    };
  }
}
