// Named sessions (`mcpx session new --name login-flow`): a session key that a person or an agent
// chose, with a TTL, a record of who made it and which server processes serve it, and a holder
// that another caller may take over. The daemon owns the records; they live in one versioned JSON
// file beside its other files (mode 0600, written whole by lib/_atomic.ts), so that they outlive
// the daemon. The processes do not: a daemon that finds records a predecessor left marks their
// servers lost, and the session says so instead of pretending (docs/sessions.md).

import { McpxError, messageOf } from "../errors.ts";
import { writeFileAtomic } from "../_atomic.ts";
import { formatDuration, parseDuration } from "../duration.ts";
import type { Caller } from "../pool/scope.ts";
import type { LogSink } from "../log/daemon.ts";

/** The version of the sessions file this code writes and reads. */
export const SESSIONS_VERSION = 1;
/** The shortest TTL a session may have. */
export const TTL_MIN_MS = 1000;
/** The longest TTL a session may have: a session is never unbounded. */
export const TTL_MAX_MS = 30 * 86_400_000;
/** How many attaches a record keeps (newest last). */
const ATTACHES_KEPT = 32;
/** How many expired records are kept for `session show` (oldest dropped first). */
const EXPIRED_KEPT = 256;
/** Prefixes of the session keys mcpx mints itself (a run's, an MCP connection's). */
const MINTED_PREFIXES = ["run-", "mcp-"];

/** One server process serving a session. */
export interface SessionServer {
  server: string;
  instance: string;
  pid: number | null;
  /** When this record first saw it. */
  since: string;
}

/** One attach to a session (`mcpx session attach`). */
export interface SessionAttach {
  mode: "watch" | "take";
  /** The attaching caller's holder identity ({@linkcode holderOf}). */
  by: string;
  pid?: number;
  user?: string;
  at: string;
}

/** Who a session belongs to now. */
export interface SessionHolder {
  /** A holder identity ({@linkcode holderOf}). */
  id: string;
  since: string;
  /** `create`: its creator, whom anyone may join; `take`: it took the session over. */
  via: "create" | "take";
  pid?: number;
  user?: string;
}

/** One named session as it is stored. */
export interface SessionRecord {
  name: string;
  /** The scope key its processes are leased under (lib/pool/scope.ts `sessionKey`). */
  key: string;
  state: "open" | "expired";
  ttlMs: number;
  createdAt: string;
  lastUsedAt: string;
  /** `lastUsedAt` + `ttlMs`: when its servers are stopped unless it is used before. */
  expiresAt: string;
  expiredAt?: string;
  /** Who created it: the process that asked, its user, cwd and the ids its environment had. */
  createdBy: {
    pid?: number;
    process?: number;
    user?: string;
    uid?: number;
    cwd?: string;
    holder: string;
    ids?: Record<string, string>;
  };
  /** The daemon whose processes serve it (pid, start): another one's are gone. */
  daemon: { pid: number; startedAt: string };
  servers: SessionServer[];
  holder: SessionHolder;
  /** The last take-over: who had it, who took it, when. */
  takenOver?: { from: string; by: string; at: string };
  attaches: SessionAttach[];
  /** Its servers did not survive a daemon restart (`at`, the new daemon's start). */
  lost?: { at: string; servers: string[]; told?: boolean };
}

/** The sessions file. */
interface SessionsFile {
  version: number;
  sessions: SessionRecord[];
}

/**
 * A session name, checked: 1–64 letters, digits, `.`, `_` or `-`, starting with a letter or
 * digit, and not a prefix mcpx mints keys with.
 * @throws {McpxError} USAGE
 */
export function checkName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name)) {
    throw new McpxError(
      "USAGE",
      `Session name "${name}" is not valid: use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
      { hint: "For example: mcpx session new --name login-flow" },
    );
  }
  const minted = MINTED_PREFIXES.find((p) => name.startsWith(p));
  if (minted) {
    throw new McpxError(
      "USAGE",
      `Session name "${name}" starts with "${minted}", which mcpx keeps for the keys it makes up`,
      { hint: "Choose another name" },
    );
  }
  return name;
}

/** The allowed range of a TTL, as a person reads it. */
export function ttlRange(): string {
  return `${formatDuration(TTL_MIN_MS)} to ${TTL_MAX_MS / 86_400_000}d`;
}

/**
 * A TTL as typed (`90s`, `2h`, `7d`, or milliseconds), checked against the allowed range.
 * @throws {McpxError} USAGE naming the range
 */
export function parseTtl(text: string, what = "--ttl"): number {
  const ms = /^\d+$/.test(text.trim()) ? Number(text.trim()) : parseDuration(text);
  if (ms === undefined) {
    throw new McpxError(
      "USAGE",
      `${what} "${text}" is not a duration: write it like 90s, 30m, 2h or 7d`,
      { hint: `The allowed range is ${ttlRange()}` },
    );
  }
  if (ms < TTL_MIN_MS || ms > TTL_MAX_MS) {
    throw new McpxError(
      "USAGE",
      `${what} "${text}" is out of range: a session's TTL is ${ttlRange()}`,
      { hint: "A session is never unbounded: end it with `mcpx session end <name>` when done" },
    );
  }
  return ms;
}

/**
 * Who a caller is, for holding a session: MCPX_SESSION_HOLDER when it set one; else the agent
 * session its harness names in MCPX_TRACE_IDS (`harness:<id>`, the same across the new shell a
 * harness may start for each command); else the process the command belongs to (its parent: the
 * agent's shell), `pid:<n>`.
 */
export function holderOf(caller: Caller): string {
  if (caller.holder) return caller.holder;
  const traced = caller.ids?.session;
  const first = Array.isArray(traced) ? traced[0] : traced;
  if (first) return `harness:${first}`;
  return caller.pid !== undefined ? `pid:${caller.pid}` : "unknown";
}

/** What {@linkcode NamedSessions} needs from the daemon. */
export interface NamedSessionsDeps {
  /** The sessions file (lib/paths.ts `sessions`). */
  path: string;
  /** This daemon. */
  daemon: { pid: number; startedAt: string };
  /**
   * The daemon this one took over from by an upgrade (lib/daemon/upgrade.ts): its sessions'
   * processes that `kept` says were handed over are still theirs; the others are lost.
   */
  carried?: {
    pid: number;
    startedAt: string;
    kept(session: string, server: string): boolean;
  };
  /** The daemon's user, recorded as the creator's (the socket admits no one else). */
  user?: string;
  uid?: number;
  now?: () => number;
  log: LogSink;
  publish?(type: string, data: Record<string, unknown>): void;
  /** Stops every process serving the session `name`; resolves to how many. */
  stop(name: string, reason: string): Promise<number>;
  /** The processes serving each session now, by session name (the key without `session:`). */
  instances(): Map<string, { server: string; instance: string; pid: number | null }[]>;
}

/** A record as operations answer it: the stored fields and what it means now. */
export interface SessionView extends SessionRecord {
  /** One line per fact a reader must not miss (lost servers, a take-over, expiry). */
  notes: string[];
}

/** The daemon's named sessions. */
export class NamedSessions {
  readonly #deps: NamedSessionsDeps;
  readonly #records = new Map<string, SessionRecord>();
  /** Calls in flight per session: a session with one is not expired under it. */
  readonly #inflight = new Map<string, number>();
  #timer?: ReturnType<typeof setInterval>;
  #dirty = false;
  #closed = false;

  constructor(deps: NamedSessionsDeps) {
    this.#deps = deps;
    this.#load();
  }

  #now(): number {
    return (this.#deps.now ?? Date.now)();
  }

  #iso(ms = this.#now()): string {
    return new Date(ms).toISOString();
  }

  /** Reads the file; records a predecessor's processes served are marked lost. */
  #load(): void {
    let text: string;
    try {
      text = Deno.readTextFileSync(this.#deps.path);
    } catch {
      return; // no sessions yet
    }
    let file: SessionsFile;
    try {
      file = JSON.parse(text);
      if (file.version !== SESSIONS_VERSION || !Array.isArray(file.sessions)) {
        throw new Error(
          `version ${JSON.stringify(file.version)}, this daemon reads ${SESSIONS_VERSION}`,
        );
      }
    } catch (e) {
      // Kept aside, never overwritten: a newer mcpx may read it again.
      const aside = `${this.#deps.path}.unreadable-${Date.now()}`;
      try {
        Deno.renameSync(this.#deps.path, aside);
      } catch { /* gone meanwhile */ }
      this.#deps.log(
        "warn",
        "session.file_unreadable",
        `Cannot read the named sessions in ${this.#deps.path} (${
          messageOf(e)
        }); moved it to ${aside} and starting with none`,
      );
      return;
    }
    const me = this.#deps.daemon;
    for (const r of file.sessions) {
      if (
        typeof r?.name !== "string" || typeof r.ttlMs !== "number" ||
        typeof r.expiresAt !== "string" || typeof r.holder?.id !== "string"
      ) continue;
      r.servers = Array.isArray(r.servers) ? r.servers : [];
      r.attaches = Array.isArray(r.attaches) ? r.attaches : [];
      const ours = r.daemon?.pid === me.pid && r.daemon?.startedAt === me.startedAt;
      const from = this.#deps.carried;
      if (from && r.daemon?.pid === from.pid && r.daemon?.startedAt === from.startedAt) {
        const kept = r.servers.filter((s) => from.kept(r.name, s.server));
        const gone = [...new Set(r.servers.filter((s) => !kept.includes(s)).map((s) => s.server))];
        if (r.state === "open" && gone.length > 0) {
          r.lost = { at: me.startedAt, servers: gone };
          this.#deps.log(
            "warn",
            "session.lost",
            `Session "${r.name}": its servers (${
              gone.join(", ")
            }) could not be handed over when the daemon was upgraded at ${me.startedAt}; they start fresh`,
            { session: r.name, servers: gone, predecessor: from.pid },
          );
        }
        r.servers = kept;
        r.daemon = { ...me };
        this.#dirty = true;
      } else if (!ours) {
        if (r.state === "open" && r.servers.length > 0) {
          r.lost = { at: me.startedAt, servers: [...new Set(r.servers.map((s) => s.server))] };
          this.#deps.log(
            "warn",
            "session.lost",
            `Session "${r.name}": its servers (${
              r.lost.servers.join(", ")
            }) did not survive the daemon restart at ${me.startedAt}; they start fresh`,
            { session: r.name, servers: r.lost.servers, predecessor: r.daemon?.pid },
          );
        }
        r.servers = [];
        r.daemon = { ...me };
        this.#dirty = true;
      }
      this.#records.set(r.name, r);
    }
    this.#expire();
    this.#flush();
  }

  /**
   * Whether an open session has processes its TTL has not run out for: an auto-started daemon
   * does not exit idle under them (the TTL bounds how long that is).
   */
  holding(): boolean {
    // A TTL that ran out since the last tick ends its session first, and is said so.
    this.#expire();
    this.#flush();
    const now = this.#now();
    for (const r of this.#records.values()) {
      if (r.state === "open" && r.servers.length > 0 && Date.parse(r.expiresAt) > now) return true;
    }
    return false;
  }

  /**
   * Whether `scope` (a key's scope part, `session:<name>`) is an open named session's: its
   * processes are kept while it is (the idle reaper leaves them; its TTL stops them).
   */
  keeps(scope: string): boolean {
    if (!scope.startsWith("session:")) return false;
    return this.#records.get(scope.slice("session:".length))?.state === "open";
  }

  /** Starts the expiry clock (once a second). */
  start(): void {
    this.#timer ??= setInterval(() => {
      this.#expire();
      this.#flush();
    }, 1000);
  }

  /** Stops the clock and writes what changed; the record then keeps the servers it lists. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#flush();
  }

  #flush(force = false): void {
    if (!this.#dirty && !force) return;
    this.#dirty = false;
    const file: SessionsFile = { version: SESSIONS_VERSION, sessions: [...this.#records.values()] };
    try {
      writeFileAtomic(this.#deps.path, JSON.stringify(file, null, 2) + "\n");
    } catch (e) {
      this.#deps.log(
        "warn",
        "session.write_failed",
        `Cannot write the named sessions to ${this.#deps.path}: ${messageOf(e)}`,
      );
    }
  }

  #changed(): void {
    this.#dirty = true;
    this.#flush();
  }

  /** Stops the servers of every open session whose TTL has run out since its last call. */
  #expire(): void {
    const now = this.#now();
    for (const r of this.#records.values()) {
      if (r.state !== "open" || Date.parse(r.expiresAt) > now) continue;
      if ((this.#inflight.get(r.name) ?? 0) > 0) continue;
      r.state = "expired";
      r.expiredAt = this.#iso(now);
      const servers = r.servers.map((s) => s.server);
      r.servers = [];
      this.#dirty = true;
      this.#deps.log(
        "info",
        "session.expired",
        `Session "${r.name}" expired: its TTL of ${
          formatDuration(r.ttlMs)
        } ran out after its last call; stopping its servers`,
        { session: r.name, ttlMs: r.ttlMs, servers },
      );
      this.#deps.publish?.("session.expired", { session: r.name, servers });
      void this.#deps.stop(r.name, `session ${r.name} expired`).catch(() => {});
    }
    const expired = [...this.#records.values()].filter((r) => r.state === "expired");
    for (const r of expired.slice(0, Math.max(0, expired.length - EXPIRED_KEPT))) {
      this.#records.delete(r.name);
      this.#dirty = true;
    }
  }

  /**
   * Creates a session. An open session of that name refuses it; an expired one is replaced.
   * @throws {McpxError} USAGE, SESSION_EXISTS
   */
  create(name: string, ttlMs: number, caller: Caller): SessionView {
    checkName(name);
    if (ttlMs < TTL_MIN_MS || ttlMs > TTL_MAX_MS) {
      throw new McpxError("USAGE", `A session's TTL is ${ttlRange()}, not ${ttlMs} ms`);
    }
    const known = this.#records.get(name);
    if (known?.state === "open") {
      throw new McpxError(
        "SESSION_EXISTS",
        `Session "${name}" already exists (created ${known.createdAt} by ${known.createdBy.holder})`,
        {
          hint: `Rejoin it with --session ${name}, or end it first: mcpx session end ${name}`,
        },
      );
    }
    const now = this.#now();
    const holder = holderOf(caller);
    const ids: Record<string, string> = {};
    if (caller.session) ids.session = caller.session;
    if (caller.parentSession) ids.parentSession = caller.parentSession;
    if (caller.runId) ids.run = caller.runId;
    // What the harness said of the caller (MCPX_TRACE_IDS), as `id.<key>` like the log records.
    for (const [k, v] of Object.entries(caller.ids ?? {})) {
      ids[`id.${k}`] = Array.isArray(v) ? v.join(",") : v;
    }
    const record: SessionRecord = {
      name,
      key: `session:${name}`,
      state: "open",
      ttlMs,
      createdAt: this.#iso(now),
      lastUsedAt: this.#iso(now),
      expiresAt: this.#iso(now + ttlMs),
      createdBy: {
        ...(caller.pid !== undefined ? { pid: caller.pid } : {}),
        ...(caller.process !== undefined ? { process: caller.process } : {}),
        ...(caller.user ?? this.#deps.user ? { user: caller.user ?? this.#deps.user } : {}),
        ...(this.#deps.uid !== undefined ? { uid: this.#deps.uid } : {}),
        ...(caller.cwd ? { cwd: caller.cwd } : {}),
        holder,
        ...(Object.keys(ids).length ? { ids } : {}),
      },
      daemon: { ...this.#deps.daemon },
      servers: [],
      holder: {
        id: holder,
        since: this.#iso(now),
        via: "create",
        ...(caller.pid !== undefined ? { pid: caller.pid } : {}),
      },
      attaches: [],
    };
    this.#records.delete(name);
    this.#records.set(name, record);
    this.#changed();
    this.#deps.log("info", "session.created", `Session "${name}" created`, {
      session: name,
      ttlMs,
      holder,
      cwd: caller.cwd,
    });
    this.#deps.publish?.("session.created", { session: name, ttlMs, holder });
    return this.#view(record);
  }

  /** Every session, newest last. */
  list(): SessionView[] {
    return [...this.#records.values()].map((r) => this.#view(r));
  }

  /** The sessions every word of `query` occurs in (name, creator, cwd, servers, holder). */
  search(query: string): SessionView[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return this.list().filter((v) => {
      const hay = [
        v.name,
        v.state,
        v.createdBy.cwd,
        v.createdBy.user,
        v.createdBy.holder,
        v.holder.id,
        ...Object.values(v.createdBy.ids ?? {}),
        ...v.servers.map((s) => s.server),
        ...(v.lost?.servers ?? []),
      ].filter(Boolean).join(" ").toLowerCase();
      return words.every((w) => hay.includes(w));
    });
  }

  /** Whether `name` is a created session (open or expired). */
  has(name: string): boolean {
    return this.#records.has(name);
  }

  /** @throws {McpxError} NOT_FOUND */
  show(name: string): SessionView {
    return this.#view(this.#get(name));
  }

  #get(name: string): SessionRecord {
    const r = this.#records.get(name);
    if (!r) {
      const names = [...this.#records.keys()];
      throw new McpxError("NOT_FOUND", `No session "${name}"`, {
        hint: names.length
          ? `Sessions: ${names.slice(0, 8).join(", ")}${names.length > 8 ? ", …" : ""}`
          : "Create one with: mcpx session new --name <name>",
      });
    }
    return r;
  }

  /** Ends a session: its processes are stopped and its record removed. @throws NOT_FOUND */
  async end(name: string): Promise<{ session: SessionView; stopped: number }> {
    const r = this.#get(name);
    const view = this.#view(r);
    this.#records.delete(name);
    this.#changed();
    const stopped = await this.#deps.stop(name, `session ${name} ended`);
    this.#deps.log("info", "session.ended", `Session "${name}" ended`, {
      session: name,
      stopped,
    });
    this.#deps.publish?.("session.ended", { session: name, stopped });
    return { session: view, stopped };
  }

  /**
   * Records an attach (`watch` or `take`); `take` makes the caller the holder, so that every
   * other caller's next call in it is refused. @throws NOT_FOUND (also for an expired one)
   */
  attach(name: string, mode: "watch" | "take", caller: Caller): SessionView {
    const r = this.#get(name);
    if (r.state !== "open") throw this.#expiredError(r);
    const now = this.#iso();
    const by = holderOf(caller);
    r.attaches.push({
      mode,
      by,
      ...(caller.pid !== undefined ? { pid: caller.pid } : {}),
      ...(caller.user ? { user: caller.user } : {}),
      at: now,
    });
    if (r.attaches.length > ATTACHES_KEPT) r.attaches.splice(0, r.attaches.length - ATTACHES_KEPT);
    const from = r.holder.id;
    if (mode === "take") {
      r.holder = {
        id: by,
        since: now,
        via: "take",
        ...(caller.pid !== undefined ? { pid: caller.pid } : {}),
        ...(caller.user ? { user: caller.user } : {}),
      };
      r.takenOver = { from, by, at: now };
    }
    this.#changed();
    const event = mode === "take" ? "session.taken" : "session.attached";
    this.#deps.log(
      mode === "take" ? "warn" : "info",
      event,
      mode === "take"
        ? `Session "${name}" was taken over by ${by} (from ${from})`
        : `${by} attached to session "${name}" to watch it`,
      { session: name, mode, by, ...(mode === "take" ? { from } : {}), pid: caller.pid },
    );
    this.#deps.publish?.(event, {
      session: name,
      mode,
      by,
      ...(mode === "take" ? { from } : {}),
    });
    return this.#view(r);
  }

  #expiredError(r: SessionRecord): McpxError {
    return new McpxError(
      "NOT_FOUND",
      `Session "${r.name}" expired at ${r.expiredAt}: its TTL of ${
        formatDuration(r.ttlMs)
      } ran out after its last call, and its servers were stopped`,
      { hint: `Create it again: mcpx session new --name ${r.name}` },
    );
  }

  /**
   * A call in the caller's session begins: refused when the session expired or was taken over
   * by another caller. Returns, once, why its servers start fresh when they did not survive a
   * daemon restart. A session key that is no named session passes untouched.
   * @throws {McpxError} SESSION_TAKEN, NOT_FOUND
   */
  enter(caller: Caller): string | undefined {
    const name = caller.session;
    if (name === undefined || this.#closed) return undefined;
    const r = this.#records.get(name);
    if (!r) return undefined;
    if (r.state === "open" && Date.parse(r.expiresAt) <= this.#now() && !this.#inflight.get(name)) {
      this.#expire();
    }
    if (r.state !== "open") throw this.#expiredError(r);
    if (r.holder.via === "take" && holderOf(caller) !== r.holder.id) {
      // The holder, watching, sees who still tries.
      this.#deps.publish?.("session.refused", {
        session: name,
        by: holderOf(caller),
        holder: r.holder.id,
      });
      throw new McpxError(
        "SESSION_TAKEN",
        `Session "${name}" was taken over by ${r.holder.id} at ${r.holder.since}`,
        {
          hint:
            `Its holder is ${r.holder.id} now; \`mcpx session attach ${name} --take\` takes it back`,
        },
      );
    }
    this.#inflight.set(name, (this.#inflight.get(name) ?? 0) + 1);
    this.#touch(r);
    if (r.lost && !r.lost.told) {
      r.lost.told = true;
      this.#dirty = true;
      return `lost: session "${name}"'s servers did not survive the daemon restart at ${r.lost.at}; they start fresh`;
    }
    return undefined;
  }

  /** A call that {@linkcode enter} let in has ended. */
  leave(caller: Caller): void {
    const name = caller.session;
    if (name === undefined) return;
    const n = this.#inflight.get(name);
    if (n === undefined) return;
    if (n <= 1) this.#inflight.delete(name);
    else this.#inflight.set(name, n - 1);
    const r = this.#records.get(name);
    if (r?.state === "open") this.#touch(r);
    // A process's pid is known once it has started, after the change that listed it.
    this.refresh();
  }

  #touch(r: SessionRecord): void {
    const now = this.#now();
    r.lastUsedAt = this.#iso(now);
    r.expiresAt = this.#iso(now + r.ttlMs);
    // Written by the next tick of the clock, not on every call.
    this.#dirty = true;
  }

  /** Takes up which processes serve each session now (called when processes start or stop). */
  refresh(): void {
    if (this.#closed || this.#records.size === 0) return;
    const live = this.#deps.instances();
    let changed = false;
    for (const r of this.#records.values()) {
      const now = live.get(r.name) ?? [];
      const before = new Map(r.servers.map((s) => [s.instance, s]));
      const next = now.map((i) => ({ ...i, since: before.get(i.instance)?.since ?? this.#iso() }));
      if (
        next.length !== r.servers.length ||
        next.some((s, i) => s.instance !== r.servers[i]?.instance || s.pid !== r.servers[i]?.pid)
      ) {
        r.servers = next;
        changed = true;
      }
    }
    if (changed) this.#changed();
  }

  #view(r: SessionRecord): SessionView {
    const notes: string[] = [];
    if (r.state === "expired") {
      notes.push(
        `expired at ${r.expiredAt}: its TTL of ${
          formatDuration(r.ttlMs)
        } ran out and its servers were stopped`,
      );
    }
    if (r.lost) {
      notes.push(
        `its servers (${
          r.lost.servers.join(", ")
        }) did not survive the daemon restart at ${r.lost.at}; they start fresh`,
      );
    }
    if (r.takenOver) {
      notes.push(`taken over by ${r.takenOver.by} from ${r.takenOver.from} at ${r.takenOver.at}`);
    }
    return { ...structuredClone(r), notes };
  }
}
