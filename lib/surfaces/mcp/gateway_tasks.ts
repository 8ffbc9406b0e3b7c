/**
 * Tasks in gateway mode (`mcpx serve --expose`, `/mcp/<ns>`; docs/tasks.md, docs/serve.md).
 *
 * 2025-11-25 (core tasks): a client's task-augmented `tools/call` is forwarded to the exposed
 * server as it came, and the task's id is remembered for the session, so that `tasks/get`,
 * `tasks/result` and `tasks/cancel` reach the server that owns it and `tasks/list` lists this
 * session's tasks only. The server's `notifications/tasks/status` reach the client with its other
 * notifications (gateway.ts).
 *
 * 2026-07-28 (the `io.modelcontextprotocol/tasks` extension): the gateway runs the task itself.
 * A `tools/call` of a tool its server lists as task-supporting (`execution.taskSupport`), from a
 * client whose request declares the extension, answers at once with a flat CreateTaskResult while
 * the call goes on against the server; `tasks/get` inlines its result or error, `tasks/cancel`
 * cancels the call (`notifications/cancelled`) and answers an empty ack. Without the extension a
 * task-supporting tool runs as an ordinary call, and one that requires a task is refused with
 * -32021. The era's `tasks/result` and `tasks/list` do not exist (the SDK answers -32601).
 *
 * The lease rule is the daemon's own: while a task runs, the server's process stays leased to the
 * session; the lease goes when the task ends, its TTL passes (at most 24h), the process ends, or
 * the session does.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import { McpxError, messageOf } from "../../errors.ts";
import type { McpConnection } from "../../mcp/types.ts";

/** How the gateway reaches an exposed server for this session (gateway.ts `withConn`). */
export type WithConn = <T>(
  ns: string,
  fn: (conn: McpConnection, timeoutMs: number) => Promise<T>,
) => Promise<T>;

/** The 2026-07-28 tasks extension's id. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/** SEP-2575's Missing Required Client Capability. */
const MISSING_CAPABILITY = -32021;

const TERMINAL = ["completed", "failed", "cancelled"];
/** The longest a relayed task keeps its lease: the daemon's own longest TTL. */
const MAX_HOLD_MS = 86_400_000;
/** The TTL of a task the gateway runs itself (2026-07-28), and how often to ask about it. */
const GATEWAY_TTL_MS = 3_600_000;
const GATEWAY_POLL_MS = 500;
/** The most of its own tasks the gateway keeps for one session (until their TTLs pass). */
const MAX_OWN = 1000;
/** The bounds on how often a held task is asked about (its pollInterval, else the default). */
const POLL = { defaultMs: 500, minMs: 100, maxMs: 5000 } as const;

/** What the gateway declares when it relays tasks: core tasks, and the 2026 extension. */
export const GATEWAY_TASKS_CAPABILITY = {
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
} as const;
export const GATEWAY_EXTENSIONS = { [TASKS_EXTENSION]: {} } as const;

/** Takes any params object as it came (a Standard Schema for `setRequestHandler`'s 3-arg form). */
const ANY_PARAMS = {
  params: {
    "~standard": {
      version: 1,
      vendor: "mcpx",
      validate: (value: unknown) => ({ value: (value ?? {}) as Record<string, unknown> }),
    },
  },
} as never;

/** A request's context, as far as the task handlers read it. */
interface Ctx {
  mcpReq: { signal: AbortSignal; envelope?: Record<string, unknown> };
}

/** A task the gateway runs itself for a 2026-07-28 client. */
interface OwnTask {
  taskId: string;
  status: "working" | "completed" | "failed" | "cancelled";
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  abort: AbortController;
}

/**
 * The 2026-07-28 tasks of each session. A modern request gets a server of its own, so they live
 * here rather than on one; each is forgotten when its TTL passes.
 */
const OWN = new Map<string, Map<string, OwnTask>>();

/** Each connection's tools' `execution.taskSupport`, listed once (again after a list change). */
const SUPPORT = new WeakMap<McpConnection, Promise<Map<string, string>>>();

function supportOf(conn: McpConnection, tool: string): Promise<string> {
  let listed = SUPPORT.get(conn);
  if (!listed) {
    listed = conn.listTools().then((tools) =>
      new Map(tools.map((t) => [t.name, String(t.execution?.taskSupport ?? "forbidden")]))
    );
    listed.catch(() => SUPPORT.delete(conn));
    SUPPORT.set(conn, listed);
    conn.onToolsChanged(() => SUPPORT.delete(conn));
  }
  return listed.then((m) => m.get(tool) ?? "forbidden");
}

const modern = (ctx: Ctx) => ctx.mcpReq.envelope !== undefined;

/** Whether this request's client declared the tasks extension (2026-07-28). */
function declared(ctx: Ctx): boolean {
  const caps = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return caps?.extensions?.[TASKS_EXTENSION] !== undefined;
}

function missingExtension(what: string): ProtocolError {
  return new ProtocolError(
    MISSING_CAPABILITY,
    `${what} needs the ${TASKS_EXTENSION} extension, which the request did not declare`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/** A failed call as a task's `error`: the server's JSON-RPC error, else an internal one. */
function taskError(error: unknown): { code: number; message: string; data?: unknown } {
  const data = error instanceof McpxError
    ? error.data as { rpcCode?: number; rpcData?: unknown } | undefined
    : undefined;
  if (typeof data?.rpcCode === "number") {
    const cause = (error as McpxError).cause;
    return {
      code: data.rpcCode,
      message: cause instanceof Error ? cause.message : messageOf(error),
      ...(data.rpcData === undefined ? {} : { data: data.rpcData }),
    };
  }
  return { code: ProtocolErrorCode.InternalError, message: messageOf(error).split("\n")[0] };
}

function withoutTask(params: Record<string, unknown>): Record<string, unknown> {
  const { task: _hint, ...rest } = params;
  return rest;
}

/** A request naming a task that is none of this session's. */
function unknownTask(taskId: unknown): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task "${String(taskId)}"`);
}

/** A task of the gateway's own as the 2026-07-28 extension shows it. */
function ownView(t: OwnTask) {
  return {
    taskId: t.taskId,
    status: t.status,
    ...(t.statusMessage ? { statusMessage: t.statusMessage } : {}),
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: t.ttlMs,
    pollIntervalMs: t.pollIntervalMs,
  };
}

/** What the gateway's `tools/call` asks of the tasks relay, and how the session ends it. */
export interface TaskRelay {
  /** A task's answer, or the params of an ordinary call. */
  toolsCall(
    ns: string,
    params: Record<string, unknown>,
    ctx: Ctx,
  ): Promise<{ result: unknown } | { params: Record<string, unknown> }>;
  /** The session's connection is over: frees the leases held for its 2025-era tasks. */
  end(): void;
}

/**
 * Installs the `tasks/*` handlers on `server`, and returns what the gateway's `tools/call` asks
 * first (`toolsCall`: a task's answer, or the params of an ordinary call) and `end()` for when
 * the session's connection is over (it frees the leases held for its 2025-era tasks).
 */
export function relayTasks(
  server: Server,
  session: string,
  withConn: WithConn,
  relayError: (error: unknown) => never,
): TaskRelay {
  const tasks = new SessionTasks(session, withConn, relayError);
  tasks.serve(server);
  return tasks;
}

/** One gateway session's tasks: the 2025-era ones it relays, the 2026-07-28 ones it runs. */
class SessionTasks implements TaskRelay {
  /** This connection's 2025-era tasks: the server's task id → the namespace that owns it. */
  readonly #owners = new Map<string, string>();
  readonly #holds = new Set<() => void>();
  #ended = false;

  constructor(
    readonly session: string,
    readonly withConn: WithConn,
    readonly relayError: (error: unknown) => never,
  ) {}

  /** Installs the `tasks/*` handlers on `server`. */
  serve(server: Server): void {
    server.setRequestHandler(
      "tasks/get" as never,
      ANY_PARAMS,
      ((params: { taskId?: unknown }, ctx: Ctx) => this.#get(params, ctx)) as never,
    );
    server.setRequestHandler(
      "tasks/cancel" as never,
      ANY_PARAMS,
      ((params: { taskId?: unknown }, ctx: Ctx) => this.#cancel(params, ctx)) as never,
    );
    server.setRequestHandler(
      "tasks/update" as never,
      ANY_PARAMS,
      ((params: { taskId?: unknown }, ctx: Ctx) => {
        // None of the gateway's own tasks waits for input: an update is acknowledged, and changes
        // nothing.
        this.#ownTask(params.taskId, ctx, "tasks/update");
        return { resultType: "complete" };
      }) as never,
    );
    server.setRequestHandler(
      "tasks/result" as never,
      ANY_PARAMS,
      ((params: { taskId?: unknown }, ctx: Ctx) =>
        // It waits for the task's end: bounded by the longest TTL, not by one call's timeout.
        this.#forward(
          this.#ownerOf(params.taskId),
          "tasks/result",
          { taskId: params.taskId },
          ctx.mcpReq.signal,
          MAX_HOLD_MS,
        )) as never,
    );
    server.setRequestHandler(
      "tasks/list" as never,
      ANY_PARAMS,
      ((_params: unknown, ctx: Ctx) => this.#list(ctx)) as never,
    );
  }

  async toolsCall(
    ns: string,
    params: Record<string, unknown>,
    ctx: Ctx,
  ): Promise<{ result: unknown } | { params: Record<string, unknown> }> {
    return modern(ctx)
      ? await this.#modernCall(ns, params, ctx)
      : await this.#legacyCall(ns, params, ctx);
  }

  end(): void {
    this.#ended = true;
    for (const release of this.#holds) release();
    this.#holds.clear();
  }

  /** A 2026-07-28 client's call: a task of the gateway's own, when the tool supports one. */
  async #modernCall(
    ns: string,
    params: Record<string, unknown>,
    ctx: Ctx,
  ): Promise<{ result: unknown } | { params: Record<string, unknown> }> {
    // The server alone decides (2026-07-28): a `task` hint from an older client is ignored.
    const call = withoutTask(params);
    const support = await this.withConn(ns, (conn) => supportOf(conn, String(params.name)))
      .catch(() => "forbidden");
    if (support !== "optional" && support !== "required") return { params: call };
    if (!declared(ctx)) {
      if (support === "required") throw missingExtension(`Tool "${String(params.name)}"`);
      return { params: call };
    }
    if ((OWN.get(this.session)?.size ?? 0) >= MAX_OWN) {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `This session holds ${MAX_OWN} tasks, the most the gateway keeps; none is made until some expire`,
      );
    }
    return { result: { resultType: "task", ...ownView(this.#startOwn(ns, call)) } };
  }

  /** A 2025-era client's call: a task-augmented one is forwarded, its task remembered and held. */
  async #legacyCall(
    ns: string,
    params: Record<string, unknown>,
    ctx: Ctx,
  ): Promise<{ result: unknown } | { params: Record<string, unknown> }> {
    if (params.task === undefined) return { params };
    const created = await this.#forward(ns, "tools/call", params, ctx.mcpReq.signal);
    const task = created?.task as Record<string, unknown> | undefined;
    if (!task || typeof task.taskId !== "string") return { result: created };
    if (!this.#ended) {
      this.#owners.set(task.taskId, ns);
      if (!TERMINAL.includes(String(task.status))) {
        this.#hold(ns, task.taskId, task.ttl, task.pollInterval);
      }
    }
    // The SDK's server (2.4) checks every 2025-era tools/call result as a CallToolResult, and
    // refuses a CreateTaskResult for lacking `content`; an empty one beside `task` passes, and
    // a client that asked for a task reads `task`.
    return { result: { content: [], ...created } };
  }

  /** `tasks/get`: the owning server's answer (2025), or the gateway's own task (2026). */
  #get(params: { taskId?: unknown }, ctx: Ctx) {
    if (!modern(ctx)) {
      return this.#forward(
        this.#ownerOf(params.taskId),
        "tasks/get",
        { taskId: params.taskId },
        ctx.mcpReq.signal,
      );
    }
    const t = this.#ownTask(params.taskId, ctx, "tasks/get");
    return {
      resultType: "complete",
      ...ownView(t),
      ...(t.status === "completed" && t.result ? { result: t.result } : {}),
      ...(t.status === "failed" && t.error ? { error: t.error } : {}),
    };
  }

  /** `tasks/cancel`: forwarded to the owning server (2025), or the gateway's own call cancelled. */
  #cancel(params: { taskId?: unknown }, ctx: Ctx) {
    if (!modern(ctx)) {
      return this.#forward(
        this.#ownerOf(params.taskId),
        "tasks/cancel",
        { taskId: params.taskId },
        ctx.mcpReq.signal,
      );
    }
    const t = this.#ownTask(params.taskId, ctx, "tasks/cancel");
    if (!TERMINAL.includes(t.status)) {
      Object.assign(t, { status: "cancelled", lastUpdatedAt: new Date().toISOString() });
      t.abort.abort(new Error("the task was cancelled"));
    }
    // An empty ack, the same for a task that had ended already.
    return { resultType: "complete" };
  }

  /** `tasks/list`: this session's 2025-era tasks. */
  async #list(ctx: Ctx) {
    // Each owning server's list, kept to this session's tasks (a process may serve several).
    const tasks: Record<string, unknown>[] = [];
    for (const ns of new Set(this.#owners.values())) {
      const listed = await this.#forward(ns, "tasks/list", {}, ctx.mcpReq.signal);
      for (const t of (listed?.tasks ?? []) as Record<string, unknown>[]) {
        if (this.#owners.get(String(t.taskId)) === ns) tasks.push(t);
      }
    }
    return { tasks };
  }

  /** The 2026-07-28 tasks of this session. */
  #own(): Map<string, OwnTask> {
    let book = OWN.get(this.session);
    if (!book) OWN.set(this.session, book = new Map());
    return book;
  }

  #ownerOf(taskId: unknown): string {
    const ns = typeof taskId === "string" ? this.#owners.get(taskId) : undefined;
    if (!ns) throw unknownTask(taskId);
    return ns;
  }

  #ownTask(taskId: unknown, ctx: Ctx, what: string): OwnTask {
    if (!declared(ctx)) throw missingExtension(what);
    const t = typeof taskId === "string" ? OWN.get(this.session)?.get(taskId) : undefined;
    if (!t) throw unknownTask(taskId);
    return t;
  }

  async #forward(
    ns: string,
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    longMs?: number,
  ) {
    try {
      return await this.withConn(
        ns,
        (conn, ms) => conn.request!(method, params, { timeoutMs: longMs ?? ms, signal, raw: true }),
      );
    } catch (error) {
      this.relayError(error);
    }
  }

  /** Holds the lease of `ns` for the session while its 2025-era task `taskId` runs. */
  #hold(ns: string, taskId: string, ttl: unknown, pollInterval: unknown) {
    let release!: () => void;
    const stop = new Promise<void>((resolve) => release = resolve);
    this.#holds.add(release);
    const until = Date.now() +
      (typeof ttl === "number" && ttl > 0 ? Math.min(ttl, MAX_HOLD_MS) : MAX_HOLD_MS);
    const every = Math.min(
      POLL.maxMs,
      Math.max(POLL.minMs, typeof pollInterval === "number" ? pollInterval : POLL.defaultMs),
    );
    void this.withConn(ns, async (conn) => {
      while (!this.#ended && Date.now() < until) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const stopped = await Promise.race([
          new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), every)),
          stop.then(() => true),
          conn.ended.then(() => true),
        ]);
        clearTimeout(timer);
        if (stopped) return;
        const now = await conn.request!("tasks/get", { taskId }, { timeoutMs: 30_000, raw: true });
        if (TERMINAL.includes(String(now.status))) return;
      }
    }).catch(() => {}).finally(() => this.#holds.delete(release));
  }

  /** Starts a 2026-era task of the gateway's own: the call goes on, its lease held, until it ends. */
  #startOwn(ns: string, params: Record<string, unknown>): OwnTask {
    const stamp = new Date().toISOString();
    const task: OwnTask = {
      taskId: crypto.randomUUID(),
      status: "working",
      createdAt: stamp,
      lastUpdatedAt: stamp,
      ttlMs: GATEWAY_TTL_MS,
      pollIntervalMs: GATEWAY_POLL_MS,
      abort: new AbortController(),
    };
    const book = this.#own();
    book.set(task.taskId, task);
    const settle = (patch: Partial<OwnTask>) => {
      if (TERMINAL.includes(task.status)) return;
      Object.assign(task, patch, { lastUpdatedAt: new Date().toISOString() });
    };
    void this.withConn(ns, (conn) =>
      conn.request!("tools/call", params, {
        timeoutMs: task.ttlMs,
        signal: task.abort.signal,
        raw: true,
      })).then(
        (result) => {
          const { _meta, ...rest } = result as { _meta?: Record<string, unknown> };
          const meta = { ..._meta };
          delete meta["io.modelcontextprotocol/related-task"];
          settle({
            status: "completed",
            result: Object.keys(meta).length ? { ...rest, _meta: meta } : rest,
          });
        },
        (error) => settle({ status: "failed", error: taskError(error) }),
      );
    // Past its TTL it is cancelled (the lease goes with the call) and forgotten.
    const timer = setTimeout(() => {
      settle({ status: "cancelled", statusMessage: "its TTL passed" });
      task.abort.abort(new Error("the task's TTL passed"));
      book.delete(task.taskId);
    }, task.ttlMs);
    Deno.unrefTimer(timer);
    return task;
  }
}
