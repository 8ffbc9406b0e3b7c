import { McpxError, messageOf } from "../errors.ts";
import type { McpConnection, ServerSpec, ToolInfo } from "../mcp/types.ts";
import type { ServerDef } from "../config/servers.ts";
import type { ScopeKey } from "./scope.ts";

/** What a pool needs from outside: how to connect, and where to say what happened. */
export interface PoolDeps {
  connect(spec: ServerSpec, startTimeoutMs: number): Promise<McpConnection>;
  spec(def: ServerDef): ServerSpec;
  log(
    level: "debug" | "info" | "warn" | "error",
    event: string,
    msg: string,
    attrs?: Record<string, unknown>,
  ): void;
  /** A server listed its tools (at start, or after `tools/list_changed`). */
  listed?(pool: Pool, tools: ToolInfo[]): void;
  /** A server failed to start; `error` carries its stderr. */
  failed?(pool: Pool, error: McpxError): void;
  /** An instance was added or removed. */
  changed?(pool: Pool): void;
}

/** One server process (or remote session) serving one scope key. */
export class Instance {
  readonly id: string;
  readonly key: string;
  readonly ephemeral: boolean;
  readonly watchPid?: number;
  state: "starting" | "ready" | "stopping" | "exited" = "starting";
  conn?: McpConnection;
  tools: ToolInfo[] = [];
  readonly startedAt: number = Date.now();
  lastUsed: number = Date.now();
  calls = 0;
  /** Leases held now: at most one under exclusive sharing. */
  leases = 0;
  /** Callers waiting for an exclusive lease, first come first served. */
  readonly waiters: (() => void)[] = [];
  ready!: Promise<McpConnection>;
  lastStderr: string[] = [];

  constructor(id: string, key: ScopeKey) {
    this.id = id;
    this.key = key.key;
    this.ephemeral = key.ephemeral;
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
  release(): void;
}

/** What `status` shows of a pool. */
export interface PoolStatus {
  namespace: string;
  state: "ready" | "error" | "disabled";
  error?: string;
  retryInMs?: number;
  instances: {
    id: string;
    key: string;
    pid: number | null;
    state: string;
    uptimeMs: number;
    calls: number;
    leases: number;
    waiting: number;
    stderrTail: string[];
  }[];
}

const COOLDOWN_START_MS = 1000;
const COOLDOWN_MAX_MS = 30_000;

/**
 * The processes of one server identity: at most one per scope key, at most `max` in all.
 * Shared instances serve callers concurrently; exclusive ones queue them.
 */
export class Pool {
  readonly def: ServerDef;
  readonly #deps: PoolDeps;
  readonly #instances = new Map<string, Instance>();
  #serial = 0;
  #cooldown?: { until: number; delayMs: number; error: McpxError };
  /** Callers waiting for room under `max`. */
  readonly #roomWaiters: (() => void)[] = [];

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
   * Leases the instance for `key`, starting it if needed and waiting (exclusive sharing, or no
   * room under `max`) up to `waitMs`.
   * @throws {McpxError} SERVER_START_FAILED (also during the cooldown after a failed start).
   */
  async acquire(key: ScopeKey, waitMs: number): Promise<Lease> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      let inst = this.#instances.get(key.key);
      if (!inst) {
        this.#checkCooldown();
        // Room is checked and the instance registered without yielding, so two first callers
        // of one key can never start two processes.
        if (this.#instances.size >= this.def.pool.max) {
          await this.#makeRoom(deadline);
          continue;
        }
        inst = this.#start(key);
      }
      if (this.def.pool.sharing === "exclusive" && inst.leases > 0) {
        await this.#wait(
          inst.waiters,
          deadline,
          () =>
            `Every lease on ${this.def.namespace} (key ${key.key}) stayed busy for ${waitMs} ms`,
        );
        continue; // re-check: the instance may have exited meanwhile
      }
      inst.leases++;
      let conn: McpConnection;
      try {
        conn = await inst.ready;
      } catch (e) {
        inst.leases--;
        throw e;
      }
      if (inst.state !== "ready") {
        inst.leases--;
        continue;
      }
      inst.lastUsed = Date.now();
      let released = false;
      return {
        instance: inst,
        conn,
        release: () => {
          if (released) return;
          released = true;
          inst.leases--;
          inst.lastUsed = Date.now();
          inst.waiters.shift()?.();
          if (inst.ephemeral && inst.leases === 0 && inst.waiters.length === 0) {
            void this.stop(inst, "its caller finished");
          }
        },
      };
    }
  }

  #checkCooldown(): void {
    const c = this.#cooldown;
    if (c && Date.now() < c.until) {
      const secs = Math.ceil((c.until - Date.now()) / 1000);
      throw new McpxError("SERVER_START_FAILED", `${c.error.message} (retrying in ${secs}s)`, {
        hint: c.error.hint,
      });
    }
  }

  async #wait(queue: (() => void)[], deadline: number, why: () => string): Promise<void> {
    const left = deadline - Date.now();
    if (left <= 0) throw new McpxError("TOOL_TIMEOUT", why());
    let wake!: () => void;
    const woken = new Promise<void>((r) => (wake = r));
    queue.push(wake);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<boolean>((r) => (timer = setTimeout(() => r(true), left)));
    const late = await Promise.race([woken.then(() => false), timedOut]);
    clearTimeout(timer);
    if (late) {
      const i = queue.indexOf(wake);
      if (i >= 0) queue.splice(i, 1);
      throw new McpxError("TOOL_TIMEOUT", why(), {
        hint: "Raise max for this server, or stop the sessions holding it",
      });
    }
  }

  /** Stops the least recently used idle instance to get under `max`, or waits for room. */
  async #makeRoom(deadline: number): Promise<void> {
    const idle = this.instances().filter((i) => i.leases === 0 && i.waiters.length === 0)
      .sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (idle) {
      this.#deps.log(
        "info",
        "instance.evicted",
        "Stopping the least recently used idle instance to stay under max",
        { server: this.def.name, instance: idle.id, key: idle.key, max: this.def.pool.max },
      );
      await this.stop(idle, "evicted to stay under max");
      return;
    }
    await this.#wait(
      this.#roomWaiters,
      deadline,
      () =>
        `All ${this.def.pool.max} processes of ${this.def.namespace} are busy (max ${this.def.pool.max})`,
    );
  }

  #start(key: ScopeKey): Instance {
    const inst = new Instance(`${this.def.namespace}#${++this.#serial}`, key);
    this.#instances.set(key.key, inst);
    this.#deps.changed?.(this);
    this.#deps.log("info", "instance.starting", "Starting server instance", {
      server: this.def.name,
      instance: inst.id,
      key: key.key,
    });
    inst.ready = (async () => {
      try {
        const conn = await this.#deps.connect(
          this.#deps.spec(this.def),
          this.def.pool.startTimeoutMs,
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
        this.#deps.log("info", "instance.ready", "Server instance ready", {
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
        inst.state = "exited";
        inst.conn?.close().catch(() => {});
        this.#remove(inst);
        const delayMs = Math.min(
          COOLDOWN_MAX_MS,
          this.#cooldown ? this.#cooldown.delayMs * 2 : COOLDOWN_START_MS,
        );
        this.#cooldown = { until: Date.now() + delayMs, delayMs, error };
        this.#deps.failed?.(this, error);
        this.#deps.log("error", "instance.start_failed", error.message, {
          server: this.def.name,
          instance: inst.id,
          cooldownMs: delayMs,
        });
        inst.waiters.splice(0).forEach((w) => w());
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
    this.#roomWaiters.shift()?.();
  }

  #onEnded(inst: Instance, reason: string): void {
    if (inst.state === "stopping" || inst.state === "exited") return;
    inst.lastStderr = inst.conn?.stderrTail() ?? [];
    inst.state = "exited";
    this.#remove(inst);
    this.#deps.log("warn", "instance.exited", `Server instance ended: ${reason}`, {
      server: this.def.name,
      instance: inst.id,
      key: inst.key,
      serverPid: inst.pid,
      stderr: inst.lastStderr.slice(-5),
    });
    inst.waiters.splice(0).forEach((w) => w());
  }

  /** Stops one instance: its process group is killed, its waiters retry on a fresh one. */
  async stop(inst: Instance, reason: string): Promise<void> {
    if (inst.state === "stopping" || inst.state === "exited") return;
    inst.state = "stopping";
    this.#remove(inst);
    this.#deps.log("info", "instance.stopping", `Stopping server instance: ${reason}`, {
      server: this.def.name,
      instance: inst.id,
      key: inst.key,
      serverPid: inst.pid,
    });
    try {
      const conn = inst.conn ?? (await inst.ready.catch(() => undefined));
      await conn?.close();
    } finally {
      inst.state = "exited";
      inst.waiters.splice(0).forEach((w) => w());
    }
  }

  /** Stops every instance, or those whose key matches. */
  async stopAll(reason: string, match?: (key: string) => boolean): Promise<number> {
    const chosen = this.instances().filter((i) => !match || match(i.key));
    await Promise.all(chosen.map((i) => this.stop(i, reason)));
    return chosen.length;
  }

  /** Stops idle instances past `idleTimeout` (keeping `min` of them) and those whose pid exited. */
  async reap(now: number, alive: (pid: number) => boolean): Promise<void> {
    const idle = this.instances().filter((i) => i.leases === 0 && i.waiters.length === 0)
      .sort((a, b) => b.lastUsed - a.lastUsed);
    const jobs: Promise<void>[] = [];
    idle.forEach((inst, rank) => {
      if (inst.watchPid !== undefined && !alive(inst.watchPid)) {
        jobs.push(this.stop(inst, `process ${inst.watchPid} exited`));
      } else if (rank >= this.def.pool.min && now - inst.lastUsed >= this.def.pool.idleTimeoutMs) {
        jobs.push(this.stop(inst, "idle"));
      }
    });
    await Promise.all(jobs);
  }

  /** Forgets a start failure so the next call tries again at once (restart). */
  clearCooldown(): void {
    this.#cooldown = undefined;
  }

  status(): PoolStatus {
    const c = this.#cooldown;
    return {
      namespace: this.def.namespace,
      state: this.def.disabled ? "disabled" : c ? "error" : "ready",
      ...(c ? { error: c.error.message, retryInMs: Math.max(0, c.until - Date.now()) } : {}),
      instances: this.instances().map((i) => ({
        id: i.id,
        key: i.key,
        pid: i.pid ?? null,
        state: i.state,
        uptimeMs: Date.now() - i.startedAt,
        calls: i.calls,
        leases: i.leases,
        waiting: i.waiters.length,
        stderrTail: i.stderrTail().slice(-10),
      })),
    };
  }
}
