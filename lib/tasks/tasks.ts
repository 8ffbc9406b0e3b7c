// The daemon's tasks (docs/tasks.md): a tool call made as an MCP task (2025-11-25 core tasks)
// answers with a handle at once, and the daemon follows the task on the server until it ends or
// its TTL passes. The rule for the lease: the server's process stays leased to the task while
// it runs, so it is neither reaped nor handed to anyone who would stop it; the lease is freed
// the moment the task ends (completed, failed, cancelled), its TTL passes, or the process ends.
// The record (status, result) is kept until the TTL passes, then forgotten; a few forgotten ids
// are remembered, so that asking for one says it expired rather than that it never existed.

import { writeFileAtomic } from "../_atomic.ts";
import { McpxError, messageOf } from "../errors.ts";
import type { CallToolEnvelope, McpConnection } from "../mcp/types.ts";
import type { TaskHold } from "../pool/registry.ts";
import type { LogSink } from "../log/daemon.ts";

/** The 2026-07-28 tasks extension's id (lib/mcp/sdk_connection.ts declares it on a request). */
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The shortest and longest TTL mcpx asks for (`tasks.ttl`, `--ttl`). */
export const TTL_RANGE = { minMs: 1000, maxMs: 86_400_000 } as const;

/** The states of a task, as MCP names them. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

const TERMINAL: readonly string[] = ["completed", "failed", "cancelled"];

/** How often a task is asked about when the server suggests nothing, and the bounds. */
const POLL = { defaultMs: 500, minMs: 100, maxMs: 5000 } as const;

/** How many forgotten ids are remembered as expired. */
const EXPIRED_KEPT = 256;

/** The most tasks one daemon holds at once, ended ones included (until their TTLs pass). */
export const MAX_TASKS = 1000;

/** One task as `mcpx tasks` shows it. */
export interface TaskView {
  /** mcpx's handle: what `mcpx tasks get|result|cancel` take. */
  id: string;
  server: string;
  tool: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** The TTL in force: what mcpx asked for, or the shorter one the server granted. */
  ttlMs: number;
  /** When the record is forgotten (createdAt + ttlMs). */
  expiresAt: string;
  pollIntervalMs?: number;
  /** The task's id on the server. */
  serverTaskId: string;
  /** The protocol revision the task was made in. */
  revision: string;
  /** Whether the server's process is still leased to it (until it ends or its TTL passes). */
  leased: boolean;
  /** The instance that runs it. */
  instance: { id: string; pid: number | null; key: string };
}

/** What `mcpx tasks result` answers. */
export interface TaskOutcome {
  task: TaskView;
  /** The tool's result, as the server sent it (the envelope `mcpx call --json` shows). */
  raw: CallToolEnvelope;
}

interface Entry {
  view: TaskView;
  /** Absent for a task read back after a restart (it has ended). */
  conn?: McpConnection;
  release: () => void;
  envelope?: CallToolEnvelope;
  /** 2026-07-28: its protocol error, when it failed with one (tasks/get inlines it). */
  failure?: { code?: number; message?: string };
  /** Made through the 2026-07-28 extension (tasks/get inlines the result; no tasks/result). */
  modern: boolean;
  /** No more is learnt of it: it ended and its result (if any) was fetched, or it was lost. */
  settled: boolean;
  /** Woken on every change (a status, the result, the end). */
  waiters: Set<() => void>;
  timer?: ReturnType<typeof setTimeout>;
  stopWatch?: () => void;
}

/** Where the tasks tell what happens (the event bus, the log). */
export interface TasksDeps {
  /**
   * Where the tasks are kept across a restart of the daemon (0600, rewritten on each change):
   * what a new daemon reads back is each record whose TTL has not passed, a running one marked
   * failed (the process that ran it ended with the old daemon), a finished one with its result.
   */
  file?: string;
  publish?(type: string, data: Record<string, unknown>): void;
  log?: LogSink;
  now?: () => number;
}

/** Checks a TTL against {@linkcode TTL_RANGE}. @throws {McpxError} USAGE, naming the range */
export function checkTtl(ms: number, typed = `${ms}ms`): number {
  if (!Number.isFinite(ms) || ms < TTL_RANGE.minMs || ms > TTL_RANGE.maxMs) {
    throw new McpxError(
      "USAGE",
      `The task TTL "${typed}" is out of range: a task lives from 1s to 24h`,
      { hint: "Set tasks.ttl (MCPX_TASKS_TTL) or --ttl to a duration such as 10m or 2h" },
    );
  }
  return Math.round(ms);
}

/** The tasks one daemon holds. */
export class Tasks {
  readonly #entries = new Map<string, Entry>();
  readonly #expired = new Map<string, { server: string; ttlMs: number }>();
  readonly #deps: TasksDeps;

  #saving = false;

  constructor(deps: TasksDeps = {}) {
    this.#deps = deps;
    if (deps.file) this.#restore(deps.file);
  }

  /** Reads back what an earlier daemon kept (see {@linkcode TasksDeps.file}). */
  #restore(file: string): void {
    for (const t of keptTasks(file, this.#now())) {
      this.#keep({
        view: t.view,
        ...(t.envelope ? { envelope: t.envelope } : {}),
        ...(t.failure ? { failure: t.failure } : {}),
        release: () => {},
        modern: t.view.revision >= "2026-07-28",
        settled: true,
        waiters: new Set(),
      });
    }
  }

  /** Writes the tasks to {@linkcode TasksDeps.file}, once per turn of the event loop. */
  #save(): void {
    const file = this.#deps.file;
    if (!file || this.#saving) return;
    this.#saving = true;
    queueMicrotask(() => {
      this.#saving = false;
      const tasks = [...this.#entries.values()].map((e) => ({
        view: e.view,
        ...(e.envelope ? { envelope: e.envelope } : {}),
        ...(e.failure ? { failure: e.failure } : {}),
      }));
      try {
        writeFileAtomic(file, JSON.stringify({ tasks }), { mode: 0o600 });
      } catch (error) {
        this.#deps.log?.("warn", "task.save_failed", `Cannot keep the tasks in ${file}`, {
          error: messageOf(error),
        });
      }
    });
  }

  #now(): number {
    return this.#deps.now?.() ?? Date.now();
  }

  /**
   * Makes the call of `hold` a task on its server, and follows it. Resolves with the handle once
   * the server has answered `tools/call` with one; from then on the lease is the task's.
   *
   * @throws {McpxError} TASKS_UNSUPPORTED when the server or the tool does not take tasks
   */
  async start(hold: TaskHold, ttlMs: number): Promise<TaskView> {
    const ttl = checkTtl(ttlMs);
    if (this.#entries.size >= MAX_TASKS) {
      throw new McpxError(
        "POOL_BUSY",
        `The daemon holds ${MAX_TASKS} tasks, the most it keeps; no more is made until some expire`,
        { hint: "Collect and cancel tasks (`mcpx tasks list`), or ask for shorter TTLs" },
      );
    }
    const conn = hold.conn;
    const label = `${hold.namespace}.${hold.tool.name}`;
    const revision = conn.protocolVersion ?? "2025-11-25";
    const modern = revision >= "2026-07-28";
    if (!conn.request) {
      throw new McpxError("TASKS_UNSUPPORTED", `Server "${hold.namespace}" takes no tasks here`);
    }
    let created: Record<string, unknown>;
    let wire: Record<string, unknown> | undefined;
    if (modern) {
      // 2026-07-28: the extension, declared by the server and asked for by this request alone;
      // the server decides whether the call becomes a task (no per-tool flag, no TTL to ask).
      const extensions = conn.capabilities?.()?.extensions as Record<string, unknown> | undefined;
      if (extensions?.[TASKS_EXTENSION] === undefined) {
        throw new McpxError(
          "TASKS_UNSUPPORTED",
          `Server "${hold.namespace}" does not run tool calls as tasks (it speaks ${revision} and declared no ${TASKS_EXTENSION} extension)`,
        );
      }
      created = await conn.request("tools/call", {
        name: hold.serverTool,
        arguments: hold.arguments,
      }, { timeoutMs: hold.callTimeoutMs, raw: true, taskExtension: true });
      wire = created.resultType === "task" ? created : undefined;
    } else {
      const declared = conn.capabilities?.()?.tasks as Record<string, unknown> | undefined;
      const forCalls = ((declared?.requests as Record<string, unknown> | undefined)?.tools as
        | Record<string, unknown>
        | undefined)?.call;
      if (!declared || forCalls === undefined) {
        throw new McpxError(
          "TASKS_UNSUPPORTED",
          `Server "${hold.namespace}" does not run tool calls as tasks (it declared no tasks.requests.tools.call capability)`,
        );
      }
      const support = hold.tool.execution?.taskSupport ?? "forbidden";
      if (support !== "optional" && support !== "required") {
        throw new McpxError(
          "TASKS_UNSUPPORTED",
          `Tool ${label} does not run as a task (its execution.taskSupport is "${support}")`,
        );
      }
      created = await conn.request("tools/call", {
        name: hold.serverTool,
        arguments: hold.arguments,
        task: { ttl },
      }, { timeoutMs: hold.callTimeoutMs, raw: true });
      wire = created.task as Record<string, unknown> | undefined;
    }
    const now = this.#now();
    const id = `task_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const base = {
      id,
      server: hold.namespace,
      tool: hold.tool.name,
      revision,
      instance: hold.instance,
    };
    if (!wire || typeof wire.taskId !== "string") {
      // The server answered the call itself: a finished task, and the lease goes back now.
      hold.release();
      const stamp = new Date(now).toISOString();
      const view: TaskView = {
        ...base,
        status: created.isError === true ? "failed" : "completed",
        statusMessage: "the server answered at once, without making a task",
        createdAt: stamp,
        lastUpdatedAt: stamp,
        ttlMs: ttl,
        expiresAt: new Date(now + ttl).toISOString(),
        serverTaskId: "",
        leased: false,
      };
      const entry: Entry = {
        view,
        conn,
        release: () => {},
        envelope: created as CallToolEnvelope,
        modern,
        settled: true,
        waiters: new Set(),
      };
      this.#keep(entry);
      return { ...view };
    }
    const wireTtl = wire.ttlMs ?? wire.ttl;
    const granted = typeof wireTtl === "number" && wireTtl > 0 ? Math.min(wireTtl, ttl) : ttl;
    const poll = wire.pollIntervalMs ?? wire.pollInterval;
    const createdAt = typeof wire.createdAt === "string"
      ? wire.createdAt
      : new Date(now).toISOString();
    const view: TaskView = {
      ...base,
      status: statusOf(wire.status),
      ...(typeof wire.statusMessage === "string" ? { statusMessage: wire.statusMessage } : {}),
      createdAt,
      lastUpdatedAt: typeof wire.lastUpdatedAt === "string" ? wire.lastUpdatedAt : createdAt,
      ttlMs: granted,
      expiresAt: new Date(now + granted).toISOString(),
      ...(typeof poll === "number" ? { pollIntervalMs: poll } : {}),
      serverTaskId: wire.taskId,
      leased: true,
    };
    let released = false;
    const entry: Entry = {
      view,
      conn,
      release: () => {
        if (released) return;
        released = true;
        entry.view.leased = false;
        hold.release();
      },
      modern,
      settled: false,
      waiters: new Set(),
    };
    this.#keep(entry);
    this.#deps.log?.("info", "task.created", `${label} is task ${id}`, {
      task: id,
      server: hold.namespace,
      tool: hold.tool.name,
      serverTaskId: wire.taskId,
      ttlMs: granted,
    });
    this.#changed(entry);
    void this.#follow(entry);
    return { ...view };
  }

  /** Every task held, newest first. */
  list(): TaskView[] {
    return [...this.#entries.values()].map((e) => ({ ...e.view })).reverse();
  }

  /** One task. @throws {McpxError} TASK_NOT_FOUND */
  get(id: string): TaskView {
    return { ...this.#entry(id).view };
  }

  /**
   * The task's result, once it has one: waits while it runs (until it ends, its TTL passes, or
   * `signal` aborts). A failed task's result is its tool error (TOOL_ERROR, the envelope in data).
   *
   * @throws {McpxError} TASK_NOT_FOUND; TASK_ENDED when it was cancelled or ended without one
   */
  async result(id: string, signal?: AbortSignal): Promise<TaskOutcome> {
    let entry = this.#entry(id);
    while (!entry.settled) {
      await this.#changedOf(entry, signal);
      if (signal?.aborted) {
        throw new McpxError("TOOL_TIMEOUT", `Waiting for task "${id}" was cancelled`, { hint: "" });
      }
      entry = this.#entry(id);
    }
    if (!entry.envelope && entry.failure) {
      throw new McpxError(
        "TOOL_ERROR",
        `${entry.view.server}.${entry.view.tool} (task ${id}) failed: ${
          entry.failure.message ?? "no message"
        } (JSON-RPC error ${entry.failure.code ?? "?"})`,
        { data: { rpcCode: entry.failure.code, error: entry.failure } },
      );
    }
    if (!entry.envelope) {
      throw new McpxError(
        "TASK_ENDED",
        `Task "${id}" ended ${entry.view.status} without a result${
          entry.view.statusMessage ? `: ${entry.view.statusMessage}` : ""
        }`,
      );
    }
    return { task: { ...entry.view }, raw: entry.envelope };
  }

  /**
   * Asks the server to cancel the task (`tasks/cancel`).
   *
   * @throws {McpxError} TASK_NOT_FOUND; TASK_ENDED when it has ended already
   */
  async cancel(id: string): Promise<TaskView> {
    const entry = this.#entry(id);
    if (TERMINAL.includes(entry.view.status)) {
      throw new McpxError("TASK_ENDED", `Task "${id}" has already ended (${entry.view.status})`, {
        hint: `\`mcpx tasks result ${id}\` shows what it ended with`,
      });
    }
    const answer = await entry.conn!.request!("tasks/cancel", {
      taskId: entry.view.serverTaskId,
    }, { timeoutMs: 30_000, raw: true, taskExtension: entry.modern });
    this.#update(entry, answer);
    if (!TERMINAL.includes(entry.view.status)) {
      // A server that answers with the task still working has not cancelled it; mcpx has.
      this.#update(entry, { status: "cancelled", statusMessage: "cancelled by mcpx" });
    }
    entry.release();
    return { ...entry.view };
  }

  /** Frees every lease (the daemon is stopping): the tasks end with their processes. */
  close(): void {
    for (const entry of this.#entries.values()) {
      entry.stopWatch?.();
      clearTimeout(entry.timer);
      entry.release();
    }
  }

  #entry(id: string): Entry {
    const entry = this.#entries.get(id);
    if (entry) return entry;
    const gone = this.#expired.get(id);
    if (gone) {
      throw new McpxError(
        "TASK_NOT_FOUND",
        `Task "${id}" of server "${gone.server}" has expired: its TTL of ${
          Math.round(gone.ttlMs / 1000)
        }s passed, and it was forgotten`,
        { hint: "Ask for a longer TTL with --ttl or tasks.ttl (at most 24h)" },
      );
    }
    throw new McpxError("TASK_NOT_FOUND", `No task "${id}"`);
  }

  #keep(entry: Entry): void {
    this.#entries.set(entry.view.id, entry);
    const left = Date.parse(entry.view.expiresAt) - this.#now();
    entry.timer = setTimeout(() => this.#expire(entry), Math.max(0, left));
    Deno.unrefTimer(entry.timer);
  }

  #expire(entry: Entry): void {
    const { id, server, ttlMs, serverTaskId } = entry.view;
    entry.stopWatch?.();
    if (!TERMINAL.includes(entry.view.status) && entry.view.leased) {
      // Still running when its time is up: the server is told, best effort, before the lease goes.
      entry.conn?.request?.("tasks/cancel", { taskId: serverTaskId }, {
        timeoutMs: 5000,
        raw: true,
        taskExtension: entry.modern,
      }).catch(() => {});
    }
    entry.release();
    entry.settled = true;
    this.#entries.delete(id);
    this.#save();
    this.#expired.set(id, { server, ttlMs });
    if (this.#expired.size > EXPIRED_KEPT) {
      this.#expired.delete(this.#expired.keys().next().value!);
    }
    this.#deps.log?.("info", "task.expired", `Task ${id} expired`, { task: id, server, ttlMs });
    this.#deps.publish?.("task.expired", { task: id, server });
    for (const wake of entry.waiters) wake();
  }

  /** Follows a task on its server until it ends: status notifications, polling, the result. */
  async #follow(entry: Entry): Promise<void> {
    const conn = entry.conn!;
    const taskId = entry.view.serverTaskId;
    let stopped = false;
    let nudge: (() => void) | undefined;
    const unsubscribe = conn.onNotification?.((n) => {
      if (n.method !== "notifications/tasks/status" || n.params?.taskId !== taskId) return;
      this.#update(entry, n.params);
      nudge?.();
    });
    let onEnd: (() => void) | undefined;
    const ended = new Promise<void>((resolve) => onEnd = resolve);
    entry.stopWatch = () => {
      stopped = true;
      unsubscribe?.();
      onEnd?.();
    };
    conn.ended.then(() => onEnd?.());
    try {
      while (!stopped && !TERMINAL.includes(entry.view.status)) {
        const wait = Math.min(
          POLL.maxMs,
          Math.max(POLL.minMs, entry.view.pollIntervalMs ?? POLL.defaultMs),
        );
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          new Promise<void>((resolve) => {
            nudge = resolve;
            timer = setTimeout(resolve, wait);
          }),
          ended,
          conn.ended,
        ]);
        clearTimeout(timer);
        if (stopped || TERMINAL.includes(entry.view.status)) break;
        const end = await Promise.race([conn.ended, Promise.resolve(undefined)]);
        if (end) throw new Error(end.reason);
        const now = await conn.request!("tasks/get", { taskId }, {
          timeoutMs: 30_000,
          raw: true,
          taskExtension: entry.modern,
        });
        if (entry.modern && now.result && typeof now.result === "object") {
          entry.envelope = withoutRelatedTask(now.result as CallToolEnvelope);
        }
        if (entry.modern && now.error && typeof now.error === "object") {
          entry.failure = now.error as Entry["failure"];
          if (now.statusMessage === undefined && typeof entry.failure?.message === "string") {
            now.statusMessage = entry.failure.message;
          }
        }
        this.#update(entry, now);
      }
      if (!stopped && !entry.modern && entry.view.status !== "cancelled" && !entry.envelope) {
        const result = await conn.request!("tasks/result", { taskId }, {
          timeoutMs: 30_000,
          raw: true,
        });
        entry.envelope = withoutRelatedTask(result as CallToolEnvelope);
        this.#changed(entry);
      }
    } catch (e) {
      if (!stopped && !TERMINAL.includes(entry.view.status)) {
        const end = await settledEnd(conn);
        this.#update(entry, {
          status: "failed",
          statusMessage: end
            ? `the server process ended before the task did (${end.reason})`
            : `mcpx lost the task: ${messageOf(e)}`,
        });
        this.#deps.log?.("warn", "task.lost", `Task ${entry.view.id} was lost`, {
          task: entry.view.id,
          server: entry.view.server,
          error: messageOf(e),
        });
      }
    } finally {
      unsubscribe?.();
      entry.settled = true;
      entry.release();
      this.#changed(entry);
    }
  }

  #update(entry: Entry, wire: Record<string, unknown> | undefined): void {
    if (!wire) return;
    const before = entry.view.status;
    if (typeof wire.status === "string") entry.view.status = statusOf(wire.status);
    if (typeof wire.statusMessage === "string") entry.view.statusMessage = wire.statusMessage;
    entry.view.lastUpdatedAt = typeof wire.lastUpdatedAt === "string"
      ? wire.lastUpdatedAt
      : new Date(this.#now()).toISOString();
    const poll = wire.pollIntervalMs ?? wire.pollInterval;
    if (typeof poll === "number") entry.view.pollIntervalMs = poll;
    if (entry.view.status !== before) this.#changed(entry);
  }

  #changed(entry: Entry): void {
    this.#save();
    const { id, server, tool, status } = entry.view;
    this.#deps.publish?.("task.status", {
      task: id,
      server,
      tool,
      status,
      ...(entry.view.statusMessage ? { statusMessage: entry.view.statusMessage } : {}),
    });
    for (const wake of entry.waiters) wake();
  }

  #changedOf(entry: Entry, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        entry.waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      entry.waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}

/** One task as the tasks file keeps it. */
export interface KeptTask {
  view: TaskView;
  envelope?: CallToolEnvelope;
  failure?: { code?: number; message?: string };
}

/**
 * The tasks a daemon kept in `file` whose TTL has not passed at `now`: a running one is marked
 * failed (the process that ran it ended with that daemon), none is leased. What a new daemon
 * reads back, and what `mcpx tasks` answers when no daemon runs.
 */
export function keptTasks(file: string, now = Date.now()): KeptTask[] {
  let kept: { tasks?: KeptTask[] };
  try {
    kept = JSON.parse(Deno.readTextFileSync(file));
  } catch {
    return [];
  }
  const out: KeptTask[] = [];
  for (const t of Array.isArray(kept?.tasks) ? kept.tasks : []) {
    if (typeof t?.view?.id !== "string" || !(Date.parse(t.view.expiresAt) > now)) continue;
    const view: TaskView = { ...t.view, leased: false };
    if (!TERMINAL.includes(view.status)) {
      view.status = "failed";
      view.statusMessage =
        "the daemon that followed it stopped, and the server process that ran it with it";
    }
    out.push({
      view,
      ...(t.envelope ? { envelope: t.envelope } : {}),
      ...(t.failure ? { failure: t.failure } : {}),
    });
  }
  return out;
}

/** How the connection ended, when it has. */
async function settledEnd(conn: McpConnection) {
  return await Promise.race([conn.ended, Promise.resolve(undefined)]);
}

function statusOf(value: unknown): TaskStatus {
  switch (value) {
    case "working":
    case "input_required":
    case "completed":
    case "failed":
    case "cancelled":
      return value;
    default:
      return "working";
  }
}

/** The result without the `related-task` _meta key the server adds (the handle names it). */
function withoutRelatedTask(envelope: CallToolEnvelope): CallToolEnvelope {
  const meta = envelope._meta as Record<string, unknown> | undefined;
  if (!meta || !("io.modelcontextprotocol/related-task" in meta)) return envelope;
  const { "io.modelcontextprotocol/related-task": _, ...rest } = meta;
  const out = { ...envelope };
  if (Object.keys(rest).length) out._meta = rest;
  else delete out._meta;
  return out;
}

const HELD = new WeakMap<object, Tasks>();

/** The tasks of one daemon (keyed by its registry), made on first use. */
export function tasksOf(owner: object, deps: TasksDeps = {}): Tasks {
  let tasks = HELD.get(owner);
  if (!tasks) HELD.set(owner, tasks = new Tasks(deps));
  return tasks;
}
