/**
 * Gateway mode (`mcpx serve --expose <ns>[,<ns>…]`, the daemon's `/mcp/<ns>`): some servers'
 * tools, prompts and resources re-exposed verbatim, their own names for one namespace and
 * `<ns>__<name>` for several, through mcpx's leases (each MCP connection its own mcpx session).
 * Results pass through as they came (content of every type, `isError`); progress and log
 * messages of a request are relayed on it, list changes and other log messages to the session,
 * and a client's cancellation reaches the server (`notifications/cancelled`). A server's JSON-RPC
 * error is relayed with its own code.
 */
import { ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import { McpxError, messageOf } from "../errors.ts";
import type { McpConnection, UpstreamNotification } from "../mcp/types.ts";
import { VERSION } from "../version.ts";
import { decodeCursor, encodeCursor, PAGE_SIZE } from "./mcp.ts";
import { GATEWAY_EXTENSIONS, GATEWAY_TASKS_CAPABILITY, relayTasks } from "./gateway_tasks.ts";

/** Requests in flight on each connection, across every gateway session that leases it. */
const busy = new WeakMap<McpConnection, number>();

/** The separator of a namespaced name when several servers are exposed. */
export const SEPARATOR = "__";

/** Who leases a connection to an exposed server for one MCP session. */
export interface GatewayHost {
  withConnection<T>(
    namespace: string,
    session: string,
    fn: (conn: McpConnection, timeoutMs: number) => Promise<T>,
  ): Promise<T>;
  end?(session: string): Promise<void>;
  log?(
    level: "info" | "warn",
    event: string,
    message: string,
    attrs?: Record<string, unknown>,
  ): void;
}

type Kind = "tools" | "prompts" | "resources" | "resourceTemplates";
const LIST: Record<Kind, string> = {
  tools: "tools/list",
  prompts: "prompts/list",
  resources: "resources/list",
  resourceTemplates: "resources/templates/list",
};
const CAPABILITY: Record<Kind, string> = {
  tools: "tools",
  prompts: "prompts",
  resources: "resources",
  resourceTemplates: "resources",
};

/** The protocol error a failed upstream request is relayed as. */
function relayError(error: unknown): never {
  if (error instanceof ProtocolError) throw error;
  const data = error instanceof McpxError
    ? error.data as { rpcCode?: number; rpcData?: unknown } | undefined
    : undefined;
  if (typeof data?.rpcCode === "number") {
    const cause = (error as McpxError).cause;
    const message = cause instanceof Error ? cause.message : messageOf(error);
    throw new ProtocolError(data.rpcCode, message, data.rpcData);
  }
  throw new ProtocolError(ProtocolErrorCode.InternalError, messageOf(error).split("\n")[0]);
}

/**
 * A fresh SDK server answering gateway mode for `namespaces` in one mcpx session. Call `end()`
 * when the connection is over: it stops relaying the servers' notifications.
 */
export function gatewayServer(
  namespaces: readonly string[],
  host: GatewayHost,
  session: string,
): { server: Server; end: () => void } {
  const several = namespaces.length > 1;
  const server = new Server(
    { name: several ? "mcpx" : namespaces[0], version: VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        logging: {},
        completions: {},
        tasks: GATEWAY_TASKS_CAPABILITY,
        extensions: GATEWAY_EXTENSIONS,
      } as never,
    },
  );
  const outward = (ns: string, name: string) => several ? `${ns}${SEPARATOR}${name}` : name;
  const inward = (name: string): { ns: string; name: string } => {
    if (!several) return { ns: namespaces[0], name };
    const at = name.indexOf(SEPARATOR);
    const ns = at > 0 ? name.slice(0, at) : "";
    if (!namespaces.includes(ns)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown name "${name}"`);
    }
    return { ns, name: name.slice(at + SEPARATOR.length) };
  };

  // Each connection this session used relays what its server says, once, until the end.
  const relayed = new Map<McpConnection, () => void>();
  // A log message while a request of this session is in flight on the connection goes on that
  // request's stream (where a client waiting on it hears it); any other, to the session.
  const inflight = new Map<McpConnection, Set<(n: never) => Promise<void>>>();
  let ended = false;
  const watch = (conn: McpConnection) => {
    if (ended || relayed.has(conn) || !conn.onNotification) return;
    relayed.set(
      conn,
      conn.onNotification((n: UpstreamNotification) => {
        if (n.method === "notifications/progress" || n.method === "notifications/cancelled") return;
        if (n.method === "notifications/message") {
          const onStream = inflight.get(conn)?.values().next().value;
          if (onStream) return void onStream(n as never).catch(() => {});
          // Another session's request is in flight on a shared process: the message is its.
          if ((busy.get(conn) ?? 0) > 0) return;
        }
        void server.notification(n as never).catch(() => {});
      }),
    );
  };
  const withConn = <T>(ns: string, fn: (conn: McpConnection, ms: number) => Promise<T>) =>
    host.withConnection(ns, session, (conn, ms) => {
      watch(conn);
      return fn(conn, ms);
    });

  /** Every item of one list of one namespace, across its pages. */
  const listOne = (ns: string, kind: Kind) =>
    withConn(ns, async (conn, ms) => {
      const caps = conn.capabilities?.();
      if (caps && !caps[CAPABILITY[kind]]) return [];
      const out: Record<string, unknown>[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 64; page++) {
        let r: Record<string, unknown>;
        try {
          r = await conn.request!(LIST[kind], cursor ? { cursor } : undefined, { timeoutMs: ms });
        } catch (error) {
          const data = (error as McpxError).data as { rpcCode?: number } | undefined;
          if (data?.rpcCode === -32601) return [];
          throw error;
        }
        if (Array.isArray(r[kind])) out.push(...r[kind] as Record<string, unknown>[]);
        cursor = typeof r.nextCursor === "string" && r.nextCursor ? r.nextCursor : undefined;
        if (!cursor) break;
      }
      return out;
    });

  const listAll = async (kind: Kind, cursor: string | undefined) => {
    let all: Record<string, unknown>[];
    try {
      const per = await Promise.all(namespaces.map(async (ns) => {
        const items = await listOne(ns, kind);
        return kind === "tools" || kind === "prompts"
          ? items.map((i) => ({ ...i, name: outward(ns, String(i.name)) }))
          : items;
      }));
      all = per.flat();
    } catch (error) {
      relayError(error);
    }
    const offset = decodeCursor(cursor, all.length);
    const next = offset + PAGE_SIZE < all.length ? encodeCursor(offset + PAGE_SIZE) : undefined;
    return { [kind]: all.slice(offset, offset + PAGE_SIZE), ...(next ? { nextCursor: next } : {}) };
  };

  /** Relays one request to `ns`: progress on the client's token, cancellation upstream. */
  const relay = async (
    ns: string,
    method: string,
    params: Record<string, unknown>,
    ctx: {
      mcpReq: {
        signal: AbortSignal;
        _meta?: Record<string, unknown>;
        notify: (n: never) => Promise<void>;
      };
    },
  ) => {
    const token = ctx.mcpReq._meta?.progressToken;
    // Progress relayed before the result it precedes: the answer waits for its notifications.
    const sent: Promise<void>[] = [];
    try {
      const result = await withConn(ns, async (conn, ms) => {
        let streams = inflight.get(conn);
        if (!streams) inflight.set(conn, streams = new Set());
        const mine = ctx.mcpReq.notify;
        streams.add(mine);
        busy.set(conn, (busy.get(conn) ?? 0) + 1);
        try {
          return await conn.request!(method, params, {
            timeoutMs: ms,
            signal: ctx.mcpReq.signal,
            ...(token !== undefined
              ? {
                onprogress: (p) =>
                  sent.push(
                    ctx.mcpReq.notify(
                      {
                        method: "notifications/progress",
                        params: { ...p, progressToken: token },
                      } as never,
                    ).catch(() => {}),
                  ),
              }
              : {}),
          });
        } finally {
          busy.set(conn, busy.get(conn)! - 1);
          streams.delete(mine);
          if (streams.size === 0) inflight.delete(conn);
        }
      });
      await Promise.all(sent);
      return result;
    } catch (error) {
      if (ctx.mcpReq.signal.aborted) {
        host.log?.("info", "mcp.cancelled", "A client cancelled a relayed request", {
          session,
          namespace: ns,
          method,
        });
      }
      relayError(error);
    }
  };

  const withoutMeta = (params: Record<string, unknown> | undefined) => {
    const { _meta: _drop, ...rest } = params ?? {};
    return rest;
  };

  server.setRequestHandler("tools/list", (r) => listAll("tools", r.params?.cursor) as never);
  server.setRequestHandler("prompts/list", (r) => listAll("prompts", r.params?.cursor) as never);
  server.setRequestHandler(
    "resources/list",
    (r) => listAll("resources", r.params?.cursor) as never,
  );
  server.setRequestHandler(
    "resources/templates/list",
    (r) => listAll("resourceTemplates", r.params?.cursor) as never,
  );
  // Tasks, core (2025-11-25) and the extension (2026-07-28): gateway_tasks.ts.
  const tasks = relayTasks(server, session, withConn, relayError);
  server.setRequestHandler("tools/call", async (r, ctx) => {
    const { ns, name } = inward(r.params.name);
    const routed = await tasks.toolsCall(ns, { ...withoutMeta(r.params), name }, ctx as never);
    if ("result" in routed) return routed.result as never;
    return await relay(ns, "tools/call", routed.params, ctx as never) as never;
  });
  server.setRequestHandler("prompts/get", async (r, ctx) => {
    const { ns, name } = inward(r.params.name);
    return await relay(
      ns,
      "prompts/get",
      { ...withoutMeta(r.params), name },
      ctx as never,
    ) as never;
  });

  /** The namespace serving a resource URI: the one listing it, else the first whose read works. */
  const owner = async (uri: string): Promise<string[]> => {
    if (!several) return [namespaces[0]];
    const hits: string[] = [];
    for (const ns of namespaces) {
      const listed = await listOne(ns, "resources").catch(() => []);
      if (listed.some((r) => r.uri === uri)) hits.push(ns);
    }
    return hits.length ? hits : [...namespaces];
  };
  server.setRequestHandler("resources/read", async (r, ctx) => {
    const candidates = await owner(r.params.uri);
    let last: unknown;
    for (const ns of candidates) {
      try {
        return await relay(ns, "resources/read", withoutMeta(r.params), ctx as never) as never;
      } catch (error) {
        last = error;
      }
    }
    throw last;
  });
  for (const method of ["resources/subscribe", "resources/unsubscribe"] as const) {
    server.setRequestHandler(method, async (r, ctx) => {
      const candidates = await owner(r.params.uri);
      return await relay(candidates[0], method, withoutMeta(r.params), ctx as never) as never;
    });
  }
  server.setRequestHandler("completion/complete", async (r, ctx) => {
    const ref = r.params.ref as { type: string; name?: string; uri?: string };
    let ns = namespaces[0];
    let params = withoutMeta(r.params);
    if (ref.type === "ref/prompt" && ref.name !== undefined) {
      const inside = inward(ref.name);
      ns = inside.ns;
      params = { ...params, ref: { ...ref, name: inside.name } };
    } else if (several && ref.uri !== undefined) {
      ns = (await owner(ref.uri))[0];
    }
    return await relay(ns, "completion/complete", params, ctx as never) as never;
  });
  server.setRequestHandler("logging/setLevel", async (r, ctx) => {
    await Promise.all(
      namespaces.map((ns) =>
        relay(ns, "logging/setLevel", withoutMeta(r.params), ctx as never).catch(() => {})
      ),
    );
    return {} as never;
  });

  return {
    server,
    end() {
      ended = true;
      tasks.end();
      for (const off of relayed.values()) off();
      relayed.clear();
    },
  };
}

/** The factory of gateway servers for `namespaces`: each ends its relays when it closes. */
export function gatewayFactory(
  namespaces: readonly string[],
  host: GatewayHost,
): (session: string) => Server {
  return (session) => {
    const { server, end } = gatewayServer(namespaces, host, session);
    server.onclose = end;
    return server;
  };
}
