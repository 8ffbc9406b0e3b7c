/**
 * Tasks in gateway mode (`mcpx serve --expose`, `/mcp/<ns>`; docs/tasks.md): a client's
 * task-augmented `tools/call` (2025-11-25) is forwarded to the exposed server as it came, and the
 * task's id is remembered for the session, so that `tasks/get`, `tasks/result` and `tasks/cancel`
 * reach the server that owns it and `tasks/list` lists this session's tasks only. The server's
 * `notifications/tasks/status` reach the client with its other notifications (mcp_gateway.ts).
 *
 * The lease rule is the daemon's own: while a task runs, the server's process stays leased to the
 * session (so the pool does not reap it as idle); the lease goes when the task ends, its TTL
 * passes (at most 24h, whatever the server granted), the process ends, or the session does.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import type { McpConnection } from "../mcp/types.ts";

/** How the gateway reaches an exposed server for this session (mcp_gateway.ts `withConn`). */
export type WithConn = <T>(
  ns: string,
  fn: (conn: McpConnection, timeoutMs: number) => Promise<T>,
) => Promise<T>;

const TERMINAL = ["completed", "failed", "cancelled"];
/** The longest a relayed task keeps its lease: the daemon's own longest TTL. */
const MAX_HOLD_MS = 86_400_000;
/** The bounds on how often a held task is asked about (its pollInterval, else the default). */
const POLL = { defaultMs: 500, minMs: 100, maxMs: 5000 } as const;

/** What the gateway declares when it relays tasks. */
export const GATEWAY_TASKS_CAPABILITY = {
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
} as const;

/**
 * Installs the `tasks/*` handlers on `server` and returns what `tools/call` hands a
 * task-augmented call to, and `end()` for when the session is over (it frees the held leases).
 */
export function relayTasks(
  server: Server,
  withConn: WithConn,
  relayError: (error: unknown) => never,
): {
  call(ns: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  end(): void;
} {
  /** This session's tasks: the server's task id → the namespace that owns it. */
  const owners = new Map<string, string>();
  const holds = new Set<() => void>();
  let ended = false;

  const ownerOf = (taskId: unknown): string => {
    const ns = typeof taskId === "string" ? owners.get(taskId) : undefined;
    if (!ns) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task "${String(taskId)}"`);
    }
    return ns;
  };
  const forward = async (
    ns: string,
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    longMs?: number,
  ) => {
    try {
      return await withConn(
        ns,
        (conn, ms) => conn.request!(method, params, { timeoutMs: longMs ?? ms, signal, raw: true }),
      );
    } catch (error) {
      relayError(error);
    }
  };

  /** Holds the lease of `ns` for the session while its task `taskId` runs. */
  const hold = (ns: string, taskId: string, ttl: unknown, pollInterval: unknown) => {
    let release!: () => void;
    const stop = new Promise<void>((resolve) => release = resolve);
    holds.add(release);
    const until = Date.now() +
      (typeof ttl === "number" && ttl > 0 ? Math.min(ttl, MAX_HOLD_MS) : MAX_HOLD_MS);
    const every = Math.min(
      POLL.maxMs,
      Math.max(POLL.minMs, typeof pollInterval === "number" ? pollInterval : POLL.defaultMs),
    );
    void withConn(ns, async (conn) => {
      while (!ended && Date.now() < until) {
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
    }).catch(() => {}).finally(() => holds.delete(release));
  };

  server.setRequestHandler(
    "tasks/get" as never,
    ((r: { params: { taskId: string } }, ctx: {
      mcpReq: { signal: AbortSignal };
    }) =>
      forward(
        ownerOf(r.params.taskId),
        "tasks/get",
        { taskId: r.params.taskId },
        ctx.mcpReq.signal,
      )) as never,
  );
  server.setRequestHandler(
    "tasks/result" as never,
    ((r: { params: { taskId: string } }, ctx: {
      mcpReq: { signal: AbortSignal };
    }) =>
      // It waits for the task's end: bounded by the longest TTL, not by one call's timeout.
      forward(
        ownerOf(r.params.taskId),
        "tasks/result",
        { taskId: r.params.taskId },
        ctx.mcpReq.signal,
        MAX_HOLD_MS,
      )) as never,
  );
  server.setRequestHandler(
    "tasks/cancel" as never,
    ((r: { params: { taskId: string } }, ctx: {
      mcpReq: { signal: AbortSignal };
    }) =>
      forward(
        ownerOf(r.params.taskId),
        "tasks/cancel",
        { taskId: r.params.taskId },
        ctx.mcpReq.signal,
      )) as never,
  );
  server.setRequestHandler(
    "tasks/list" as never,
    (async (_r: unknown, ctx: {
      mcpReq: { signal: AbortSignal };
    }) => {
      // Each owning server's list, kept to this session's tasks (a process may serve several).
      const tasks: Record<string, unknown>[] = [];
      for (const ns of new Set(owners.values())) {
        const listed = await forward(ns, "tasks/list", {}, ctx.mcpReq.signal);
        for (const t of (listed?.tasks ?? []) as Record<string, unknown>[]) {
          if (owners.get(String(t.taskId)) === ns) tasks.push(t);
        }
      }
      return { tasks };
    }) as never,
  );

  return {
    async call(ns, params, signal) {
      const created = await forward(ns, "tools/call", params, signal);
      const task = created?.task as Record<string, unknown> | undefined;
      if (!task || typeof task.taskId !== "string") return created;
      if (!ended) {
        owners.set(task.taskId, ns);
        if (!TERMINAL.includes(String(task.status))) {
          hold(ns, task.taskId, task.ttl, task.pollInterval);
        }
      }
      // The SDK's server (2.4) checks every tools/call result as a CallToolResult, and refuses a
      // CreateTaskResult for lacking `content`; an empty one beside `task` passes, and a client
      // that asked for a task reads `task`.
      return { content: [], ...created };
    },
    end() {
      ended = true;
      for (const release of holds) release();
      holds.clear();
    },
  };
}
