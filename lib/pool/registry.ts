import { McpxError, messageOf } from "../errors.ts";
import { didYouMean } from "../near.ts";
import type { CallToolEnvelope, McpConnection, ToolInfo } from "../mcp/types.ts";
import type { Broker } from "../questions/broker.ts";
import { signInQuestion } from "./sign_in.ts";
import { selectServers, type ServerDef } from "../config/servers.ts";
import type { CacheWriter } from "../cache/schema_cache.ts";
import { type Adoption, type Instance, type Lease, Pool } from "./pool.ts";
import { type Caller, parentSessionKey, scopeKey, scopeOf, sessionKey } from "./scope.ts";
import type { Selection } from "../config/servers.ts";
import { errorText } from "./unwrap.ts";
import { SessionOwners } from "./owners.ts";
import { invokeWatched } from "./invoke.ts";
import {
  adoptInstances,
  type HandedInstance,
  handOffInstances,
  type NotHanded,
  type RegistryCarry,
} from "./handoff.ts";
import type { CallOutput, CallRequest, Served } from "./call_types.ts";
import type { RegistryDeps } from "./registry_deps.ts";
import { type Refreshed, refreshPools } from "./refresh.ts";
import {
  childrenOf,
  type LiveState,
  liveStateOf,
  type NamespaceStatus,
  namespaceStatus,
  sessionInstancesOf,
  type SessionProcess,
} from "./status.ts";
import { callEnd, checkedArguments, findNamedTool, finishedCall, outputOf } from "./call_steps.ts";

export { summarize, summarizeResult } from "./unwrap.ts";
export type { HandedInstance, NotHanded, RegistryCarry } from "./handoff.ts";
export type { CallFinished, CallOutput, CallRequest, TaskHold } from "./call_types.ts";
export type { LiveState, NamespaceStatus, SessionProcess } from "./status.ts";
export { REFRESH_PARALLEL, type Refreshed } from "./refresh.ts";
export type { RegistryDeps } from "./registry_deps.ts";

/** Calls made again after a sign-in: they fail as they are, with no second sign-in. */
const RETRIED = new WeakSet<CallRequest>();

/** Every configured server's pool, with calls, status, restart and refresh over them. */
export class Registry {
  /** By namespace: the server's own definition (filters, description) and the pool it leases from. */
  readonly #entries = new Map<string, { def: ServerDef; pool: Pool }>();
  /** By identity: an alias whose leasing matches its target's shares the target's pool. */
  readonly #pools = new Map<string, Pool>();
  /** By configured name: the first entry of that name (a call may name the server, not the namespace). */
  readonly #byName = new Map<string, { def: ServerDef; pool: Pool }>();
  /** Per pool: the configured names and the namespaces leasing from it, in configuration order. */
  readonly #names = new Map<Pool, string[]>();
  readonly #namespaces = new Map<Pool, string[]>();
  /** Ad-hoc servers (`--stdio`, `--url`) by their key, `adhoc:<identity>`; kept over reloads. */
  readonly #adHoc = new Map<string, { def: ServerDef; pool: Pool }>();
  /** Pools with at least one instance: what the timers and the live state walk. */
  readonly #active = new Set<Pool>();
  readonly #deps: RegistryDeps;
  readonly #degradedSaid = new Set<string>();
  /** Sessions' owners, runs and callers (lib/pool/owners.ts). */
  readonly #owners: SessionOwners;
  #timer?: ReturnType<typeof setInterval>;
  #pidTimer?: ReturnType<typeof setInterval>;
  /** The schema cache of the configuration served now (replaced by a reload). */
  #cache?: CacheWriter;
  readonly #poolDeps: ConstructorParameters<typeof Pool>[1];

  constructor(defs: ServerDef[], deps: RegistryDeps) {
    this.#deps = deps;
    this.#owners = new SessionOwners(deps, (session) => this.endSession(session));
    this.#cache = deps.cache;
    this.#poolDeps = {
      ...deps,
      listed: (pool: Pool, tools: ToolInfo[]) =>
        this.#cache?.listed(this.#names.get(pool) ?? [], pool.def.identity, tools),
      failed: (pool: Pool, error: McpxError) =>
        this.#cache?.failed(this.#names.get(pool) ?? [], pool.def.identity, error.message),
      changed: (pool: Pool) => {
        if (pool.instances().length > 0) this.#active.add(pool);
        else this.#active.delete(pool);
        this.#liveChanged();
      },
    };
    this.#build(defs, new Map());
  }

  /** Maps each definition to a pool by identity: one of `reuse` if it has it, else a new one. */
  #build(defs: ServerDef[], reuse: Map<string, Pool>): void {
    this.#entries.clear();
    this.#pools.clear();
    this.#names.clear();
    this.#namespaces.clear();
    this.#byName.clear();
    for (const def of defs) {
      let pool = this.#pools.get(def.identity);
      if (!pool) {
        pool = reuse.get(def.identity);
        // The same process under its new entry (a renamed server, another description).
        if (pool) pool.def = def;
        else pool = new Pool(def, this.#poolDeps);
        this.#pools.set(def.identity, pool);
      }
      // Pushed, not copied: a pool's lists grow in place, so that 20,000 servers cost 20,000 steps.
      let own = this.#names.get(pool);
      if (!own) this.#names.set(pool, own = []);
      own.push(def.name);
      let spaces = this.#namespaces.get(pool);
      if (!spaces) this.#namespaces.set(pool, spaces = []);
      spaces.push(def.namespace);
      const entry = { def, pool };
      this.#entries.set(def.namespace, entry);
      if (!this.#byName.has(def.name)) this.#byName.set(def.name, entry);
    }
    // Ad-hoc pools outlive a reload: nothing in the configuration names them.
    for (const [key, { pool }] of this.#adHoc) this.#pools.set(key, pool);
  }

  /**
   * Takes up an ad-hoc server (`mcpx call --stdio …`, `--url …`) and returns the key a call
   * names it by. The same definition gets the same key, so repeated calls reuse its pool and its
   * processes; the key (`adhoc:` and the identity) is never a configured namespace.
   */
  adHoc(def: ServerDef): string {
    const key = `adhoc:${def.identity}`;
    const known = this.#adHoc.get(key);
    if (known) {
      known.def = def;
      known.pool.def = def;
      return key;
    }
    const pool = new Pool(def, this.#poolDeps);
    this.#adHoc.set(key, { def, pool });
    this.#pools.set(key, pool);
    return key;
  }

  /**
   * Takes up an edited configuration: a server whose identity (everything that changes its
   * process or how it is handed out, lib/config/servers.ts) is unchanged keeps its pool and its
   * processes; the processes of a changed, removed or now disabled one are stopped, and the next
   * call starts the new definition. `cache` is the new configuration's schema cache.
   */
  async reconfigure(
    defs: ServerDef[],
    cache: CacheWriter | undefined,
  ): Promise<{ kept: string[]; stopped: string[] }> {
    const before = new Map(this.#pools);
    this.#cache = cache;
    this.#build(defs, before);
    const kept = new Set(this.#pools.values());
    const jobs: Promise<number>[] = [];
    const stopped: string[] = [];
    for (const pool of before.values()) {
      if (kept.has(pool)) continue;
      if (pool.instances().length > 0) stopped.push(pool.def.name);
      pool.close("its definition changed or was removed from the configuration");
      jobs.push(pool.stopAll("its definition changed or was removed from the configuration"));
    }
    for (const pool of kept) {
      const serving = (this.#namespaces.get(pool) ?? []).map((n) => this.#entries.get(n)!);
      if (serving.every((e) => e.def.disabled) && pool.instances().length > 0) {
        stopped.push(pool.def.name);
        jobs.push(pool.stopAll("disabled in the configuration"));
      }
    }
    this.#liveChanged();
    await Promise.all(jobs);
    return {
      kept: [...kept].filter((p) => before.has(p.def.identity) && before.get(p.def.identity) === p)
        .map((p) => p.def.name),
      stopped,
    };
  }

  #liveScheduled = false;

  #liveChanged(): void {
    if ((!this.#deps.live && !this.#deps.children) || this.#liveScheduled) return;
    this.#liveScheduled = true;
    queueMicrotask(() => {
      this.#liveScheduled = false;
      this.#deps.live?.(this.liveState());
      this.#deps.children?.(this.children());
    });
  }

  /** Every server process running now: its pid, its server's name and its instance. */
  children(): { pid: number; server: string; instance: string }[] {
    return childrenOf(this.#active);
  }

  /** Live processes per namespace, as `status()` counts them, and the keys they serve. */
  liveState(): LiveState {
    return liveStateOf(this.#active, this.#namespaces);
  }

  /** Starts the idle reaper and the pid watcher. */
  start(): void {
    const keep = this.#deps.sessions?.keeps
      ? (key: string) => this.#deps.sessions!.keeps!(scopeOf(key))
      : undefined;
    const reap = () => {
      for (const p of [...this.#active]) void p.reap(Date.now(), this.#deps.alive, keep);
    };
    this.#timer = setInterval(reap, this.#deps.reapIntervalMs);
    // pid-scoped instances go as soon as their process does: there is no possible future caller.
    this.#pidTimer = setInterval(() => {
      this.#owners.checkOwners();
      this.#owners.checkCallers();
      for (const p of [...this.#active]) {
        for (const i of p.instances()) {
          if (i.watchPid !== undefined && i.leases === 0 && !this.#deps.alive(i.watchPid)) {
            void p.stop(i, `process ${i.watchPid} exited`);
          }
        }
      }
    }, 1000);
  }

  /** The definition and pool of a namespace (or a configured server name). */
  entry(name: string, selection?: Selection): { def: ServerDef; pool: Pool } {
    const all = () => [...this.#entries.values()];
    const visible = selection ? selectServers(all().map((e) => e.def), selection) : undefined;
    const adHoc = this.#adHoc.get(name);
    if (adHoc) return adHoc;
    const found = this.#entries.get(name) ?? this.#byName.get(name);
    if (found && visible && !visible.includes(found.def)) {
      throw new McpxError(
        "SERVER_NOT_FOUND",
        `Server "${name}" is not in the selected profiles`,
        { hint: "Add --profile <its profile>, or --all-profiles" },
      );
    }
    if (!found) {
      const known = (visible ?? all().map((e) => e.def)).map((d) => d.namespace);
      throw new McpxError(
        "SERVER_NOT_FOUND",
        `No server "${name}"${didYouMean(name, known)}`,
        { hint: `Configured: ${known.join(", ") || "none"}` },
      );
    }
    if (found.def.disabled) {
      // Disabled by the top-level pool block, the entry's own block is what turns it on again.
      const byPool = found.def.filters.disabled?.from === "pool";
      throw new McpxError("SERVER_NOT_FOUND", `Server "${name}" is disabled in the configuration`, {
        hint: byPool
          ? 'Write "mcpx": { "disabled": false } in its entry, or remove "disabled" from the top-level "pool" block'
          : 'Remove "disabled" from its entry to use it',
      });
    }
    return found;
  }

  /** Calls one tool under the caller's scope key; `signal` (the request's) cancels it. */
  async call(req: CallRequest, signal?: AbortSignal): Promise<CallOutput> {
    // One `call.end` record per call, the creating record of its `cal-…` id: made by the run
    // that asked (or the daemon), served by an instance (`instanceId`).
    const started = performance.now();
    const served: Served = {};
    let failure: unknown;
    let entered = false;
    try {
      served.note = this.#deps.sessions?.enter(req.caller);
      entered = this.#deps.sessions !== undefined;
      return await this.#owners.whileCallerLives(
        req.caller.process,
        signal,
        (both) => this.#call(req, served, both),
      );
    } catch (e) {
      failure = e;
      const { signIn, questions } = this.#deps;
      if (
        e instanceof McpxError && e.code === "CREDENTIALS_MISSING" && signIn && questions &&
        !RETRIED.has(req)
      ) {
        const { def } = this.entry(req.server, req.caller.selection);
        await signInQuestion(questions, signIn, def, req.tool, e, () => {
          const again = { ...req };
          RETRIED.add(again);
          return this.call(again);
        }).catch((q) => {
          failure = q;
          throw q;
        });
      }
      throw e;
    } finally {
      if (entered) this.#deps.sessions!.leave(req.caller);
      const tool = served.tool ?? req.tool;
      this.#deps.log(
        failure ? "warn" : "info",
        "call.end",
        `${req.server}.${tool}`,
        callEnd(req, served, started, failure, this.#deps.logParent),
      );
    }
  }

  /**
   * Runs `fn` on a leased connection of `server` under the caller's scope key (the same lease a
   * tool call takes): prompts, resources, completion, and a gateway's relayed requests.
   */
  async withConnection<T>(
    server: string,
    caller: Caller,
    fn: (conn: McpConnection, def: ServerDef, tools: ToolInfo[]) => Promise<T>,
  ): Promise<T> {
    const { def, pool } = this.entry(server, caller.selection);
    this.#deps.sessions?.enter(caller);
    try {
      const lease = await this.#lease(def, pool, caller, {});
      try {
        return await fn(lease.conn, def, lease.instance.tools);
      } finally {
        lease.release();
      }
    } finally {
      this.#deps.sessions?.leave(caller);
    }
  }

  async #lease(
    def: ServerDef,
    pool: Pool,
    caller: Caller,
    served: Served,
  ): Promise<Lease> {
    served.server = def.name;
    // An ad-hoc server is a command line's consent, and its key is that line: a holder of the
    // listener token names it neither way (docs/security.md).
    if (caller.overTcp && this.#adHoc.get(`adhoc:${def.identity}`)?.def === def) {
      throw new McpxError(
        "FORBIDDEN",
        "An ad-hoc server (--stdio, --url) is refused over the daemon's TCP listener",
        { hint: "Name it from a command on the daemon's machine, or configure it there" },
      );
    }
    const key = scopeKey(def, caller, this.#deps.discover);
    if (key.degraded && def.leasing === "stateful") served.alone = key.degraded;
    if (key.degraded && !this.#degradedSaid.has(def.name)) {
      this.#degradedSaid.add(def.name);
      this.#deps.log(
        "warn",
        "scope.degraded",
        `Scope "${def.pool.scope}" of server "${def.name}" could not resolve, so each call gets its own process: ${key.degraded}`,
        { server: def.name, scope: def.pool.scope },
      );
    }
    this.#owners.noteRun(caller);
    const session = caller.session;
    const owned = session !== undefined && caller.owner !== undefined;
    if (owned) this.#owners.own(session, caller);
    served.sessionId = this.#owners.sessionLogId(caller);
    if (served.sessionId && session !== undefined && scopeOf(key.key) === sessionKey(session)) {
      key.sessionId = served.sessionId;
    }
    const acquiring = pool.acquire(key, def.pool.queueTimeoutMs);
    const lease = owned
      ? await this.#owners.ownedLease(session, caller, pool, acquiring)
      : await acquiring;
    served.instance = lease.instance;
    if (lease.restarted) {
      this.#deps.log(
        "warn",
        "session.restarted",
        `A fresh process serves ${key.key}: the one before was ${lease.restarted}`,
        {
          id: lease.instance.logId,
          server: def.name,
          key: key.key,
          instance: lease.instance.id,
          ...(served.sessionId ? { sessionId: served.sessionId } : {}),
          reason: lease.restarted,
        },
      );
    }
    return lease;
  }

  async #call(
    req: CallRequest,
    served: Served,
    signal?: AbortSignal,
  ): Promise<CallOutput> {
    const { def, pool } = this.entry(req.server, req.caller.selection);
    const started = performance.now();
    const lease = await this.#lease(def, pool, req.caller, served);
    let detached = false;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      lease.release();
    };
    try {
      const { tool, fn } = findNamedTool(def, lease.instance.tools, req.tool);
      // The server's own name and the arguments the configuration fixed (its `curate` block).
      const real = def.curatedCall(tool.name);
      served.tool = fn;
      served.serverTool = real.tool;
      const args = checkedArguments(def, tool, fn, req, real.hidden);
      const sent = Object.keys(real.fixed).length ? { ...args, ...real.fixed } : args;
      lease.instance.calls++;
      const instance = {
        id: lease.instance.id,
        pid: lease.instance.pid ?? null,
        key: lease.instance.key,
      };
      if (req.asTask) {
        const result = await req.asTask({
          conn: lease.conn,
          namespace: def.namespace,
          tool,
          serverTool: real.tool,
          arguments: sent,
          instance,
          callTimeoutMs: def.pool.callTimeoutMs,
          release,
        });
        detached = true;
        return {
          server: def.namespace,
          tool: fn,
          result,
          instance,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
        };
      }
      const call = { fn, serverTool: real.tool, args, sent };
      const envelope = await this.#invoke(def, lease, req, call, started, signal);
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      this.#trace(def, fn, lease.instance, durationMs, envelope.isError === true, req.caller.trace);
      if (envelope.isError) {
        throw new McpxError(
          "TOOL_ERROR",
          `${def.namespace}.${fn} failed: ${errorText(envelope)}`,
          { data: envelope },
        );
      }
      return outputOf(def, fn, lease, envelope, req, served, durationMs);
    } catch (e) {
      // A failed call's answer carries no report: the session's next call still says so.
      if (lease.restarted) lease.instance.restarted ??= lease.restarted;
      else if (served.note) lease.instance.restarted ??= served.note;
      if (e instanceof McpxError && e.code === "INPUT_REQUIRED") detached = true;
      throw e;
    } finally {
      if (!detached) release();
    }
  }

  /**
   * The tool called on the leased process (its questions watched: lib/pool/invoke.ts), the
   * finished call told to `called` whether it answered or not.
   */
  async #invoke(
    def: ServerDef,
    lease: Lease,
    req: CallRequest,
    { fn, serverTool, args, sent }: {
      /** The tool's function name, its name on the server, and the arguments checked and sent. */
      fn: string;
      serverTool: string;
      args: Record<string, unknown>;
      sent: Record<string, unknown>;
    },
    started: number,
    signal?: AbortSignal,
  ): Promise<CallToolEnvelope> {
    let envelope: CallToolEnvelope;
    try {
      envelope = await invokeWatched(lease, def, serverTool, sent, {
        questions: this.#deps.questions,
        signal,
        waitMs: req.elicitWaitMs ?? this.#deps.elicitWaitMs ?? 2000,
        onProgress: req.onProgress,
        shown: fn,
      });
    } catch (e) {
      this.#finished(def, fn, lease.instance, started, messageOf(e), req, args);
      throw e;
    }
    this.#finished(
      def,
      fn,
      lease.instance,
      started,
      envelope.isError ? errorText(envelope) : undefined,
      req,
      args,
      envelope,
    );
    return envelope;
  }

  #finished(
    def: ServerDef,
    tool: string,
    inst: Instance,
    started: number,
    error: string | undefined,
    req: CallRequest,
    args: Record<string, unknown>,
    envelope?: CallToolEnvelope,
  ): void {
    if (!this.#deps.called) return;
    try {
      this.#deps.called(finishedCall(def, tool, inst, started, error, req, args, envelope));
    } catch {
      // A listener's failure is not the call's.
    }
  }

  #trace(
    def: ServerDef,
    tool: string,
    inst: Instance,
    ms: number,
    failed: boolean,
    asked?: boolean,
  ): void {
    // The daemon's own setting traces every call; a caller's, its own calls.
    if (!this.#deps.trace && asked !== true) return;
    this.#deps.log("info", "call.trace", `${def.namespace}.${tool} served by ${inst.id}`, {
      server: def.name,
      tool,
      instance: inst.id,
      serverPid: inst.pid,
      key: inst.key,
      durationMs: ms,
      isError: failed,
    });
  }

  /**
   * Every namespace's state; a pool shared by several names lists its processes under the first,
   * and `sharedWith` there names the others, while each other names that first one only (so
   * that 20,000 entries of one pool are 20,000 names, not 400 million).
   */
  status(): NamespaceStatus[] {
    const seen = new Set<Pool>();
    return [...this.#entries.values()].map((e) => namespaceStatus(e, this.#namespaces, seen));
  }

  /**
   * {@linkcode status}, with a turn of the event loop after every `slice` namespaces, so that
   * the status of 20,000 servers never holds up the calls being answered meanwhile.
   */
  async statusInSlices(slice = 500): Promise<NamespaceStatus[]> {
    const seen = new Set<Pool>();
    const out: NamespaceStatus[] = [];
    for (const e of this.#entries.values()) {
      out.push(namespaceStatus(e, this.#namespaces, seen));
      if (out.length % slice === 0) await new Promise((r) => setTimeout(r, 0));
    }
    return out;
  }

  /** The sizes of every pool's tables ({@linkcode Pool.tables}), summed, and the registry's own. */
  tables(): Record<string, number> {
    const out: Record<string, number> = {
      pools: this.#pools.size,
      degradedSaid: this.#degradedSaid.size,
    };
    for (const p of this.#pools.values()) {
      for (const [name, n] of Object.entries(p.tables())) out[name] = (out[name] ?? 0) + n;
    }
    return out;
  }

  /** Stops a namespace's instances (or the one serving `session`), so the next call starts fresh. */
  async restart(name: string, session?: string): Promise<number> {
    const { pool } = this.entry(name);
    pool.clearCooldown();
    const match = session === undefined
      ? undefined
      : (key: string) =>
        scopeOf(key) === sessionKey(session) || scopeOf(key) === parentSessionKey(session);
    return await pool.stopAll(session ? `restart of session ${session}` : "restart", match);
  }

  /** The processes serving each session (`session:<name>` keys), by the session's name. */
  sessionInstances(): Map<string, SessionProcess[]> {
    return sessionInstancesOf(this.#active, this.#namespaces);
  }

  /** Stops every instance keyed to a session a caller minted, now that it has finished. */
  async endSession(session: string): Promise<number> {
    this.#owners.markEnded(session);
    let n = 0;
    const ended = (k: string) => scopeOf(k) === sessionKey(session);
    // What a pool remembers of the session goes from every pool; processes only from those with any.
    for (const p of this.#pools.values()) p.forget(ended);
    for (const p of [...this.#active]) {
      n += await p.stopAll(`session ${session} ended`, ended);
    }
    // A call still waiting for its process stops it once it has it (see call()).
    await this.#owners.settled(session);
    this.#owners.logEnd(session, n);
    return n;
  }

  /**
   * Lists every enabled server's tools again (recording them in the schema cache), starting a
   * short-lived instance where none runs. Each namespace sees only the tools its filters show.
   * An `"envFrom": "caller"` server is started with the values `caller` sent.
   */
  async refresh(
    caller: Caller = {},
  ): Promise<Refreshed[]> {
    const out = await refreshPools(
      this.#entries.values(),
      (p, tools) => this.#cache?.listed(this.#namesOf(p), p.def.identity, tools),
      caller,
    );
    // The answer means the schema cache file says so too, rewritten whole (a refresh is also how a
    // removed or corrupt file is made right): a caller reads it next.
    this.#cache?.persist();
    await this.flushCache();
    return out;
  }

  #namesOf(pool: Pool): string[] {
    return this.#names.get(pool) ?? [];
  }

  /** Waits until every schema cache write has landed. */
  async flushCache(): Promise<void> {
    await this.#cache?.flush();
  }

  /**
   * Lets go of every idle process that can be handed to a successor daemon (after
   * {@linkcode Registry.beginStop}): each leaves its pool running. The rest (leased, ad hoc, or
   * spoken to through the SDK) are listed as not handed; {@linkcode Registry.close} stops them.
   * `may` says whether the successor could open a process's pipes.
   */
  async handOff(
    may: (pid: number) => boolean,
  ): Promise<{ handed: HandedInstance[]; notHanded: NotHanded[]; carry: RegistryCarry }> {
    const adHoc = new Set([...this.#adHoc.values()].map((e) => e.pool));
    const { handed, notHanded } = await handOffInstances(this.#active, adHoc, may);
    return { handed, notHanded, carry: this.#owners.carry() };
  }

  /**
   * Takes up what a predecessor handed over: each process into the pool of its identity (one
   * this configuration no longer has is ended), and the sessions' owners and runs. Resolves to
   * the processes taken up and those that were not, with why.
   */
  async adoptAll(
    list: { instance: HandedInstance; adoption: Adoption }[],
    notHanded: NotHanded[],
    carry: RegistryCarry | undefined,
  ): Promise<{ adopted: HandedInstance[]; failed: { instance: HandedInstance; why: string }[] }> {
    if (carry) this.#owners.adopt(carry);
    return await adoptInstances(this.#pools, list, notHanded);
  }

  /** Takes work again after a {@linkcode Registry.beginStop} for an upgrade that failed. */
  resume(): void {
    for (const p of this.#pools.values()) p.reopen();
    this.start();
  }

  /**
   * Takes no more work, at once: every queued caller fails with DAEMON_STOPPING, as does every
   * later call, and no process starts. {@linkcode Registry.close} then stops what runs.
   */
  beginStop(reason: string): void {
    clearInterval(this.#timer);
    clearInterval(this.#pidTimer);
    for (const p of this.#pools.values()) p.close(reason);
  }

  /** Stops every instance of every pool and the timers (after {@linkcode Registry.beginStop}). */
  async close(reason = "daemon stopping"): Promise<void> {
    this.beginStop(reason);
    await Promise.all([...this.#pools.values()].map((p) => p.stopAll("daemon stopping")));
    this.#deps.questions?.close();
  }

  /** The daemon's questions (`mcpx elicit`). */
  get questions(): Broker | undefined {
    return this.#deps.questions;
  }
}
