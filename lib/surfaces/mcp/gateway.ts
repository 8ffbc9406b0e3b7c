/**
 * Gateway mode (`mcpx serve --expose <ns>[,<ns>…]`, the daemon's `/mcp/<ns>`): some servers'
 * tools, prompts and resources re-exposed verbatim, their own names for one namespace and
 * `<ns>__<name>` for several, through mcpx's leases (each MCP connection its own mcpx session).
 * Results pass through as they came (content of every type, `isError`); progress and log
 * messages of a request are relayed on it, list changes and other log messages to the session,
 * and a client's cancellation reaches the server (`notifications/cancelled`). A server's JSON-RPC
 * error is relayed with its own code.
 *
 * What a server asks its client (sampling, elicitation in form and URL mode, roots) reaches the
 * MCP client that made the call: gateway_asks.ts (docs/serve.md, "What servers ask"). Tasks:
 * gateway_tasks.ts.
 *
 * A {@linkcode GatewaySession} is what one session's relays share (its names, its connections,
 * one request relayed); each feature's relay registers its own handlers on the session's server.
 */
import { ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import { McpxError, messageOf } from "../../errors.ts";
import type { McpConnection, UpstreamNotification } from "../../mcp/types.ts";
import { VERSION } from "../../version.ts";
import {
  type Answer,
  type AskingSession,
  type Ctx,
  ENV,
  type Extra,
  type GatewayState,
  gatewayState,
  relayInput,
} from "./gateway_asks.ts";
import {
  GATEWAY_EXTENSIONS,
  GATEWAY_TASKS_CAPABILITY,
  relayTasks,
  type TaskRelay,
  type WithConn,
} from "./gateway_tasks.ts";
import { pageOf } from "./tools.ts";
import type { LogSink } from "../../log/daemon.ts";

export { type GatewayState, gatewayState, lacking } from "./gateway_asks.ts";

/** Requests in flight on each connection, across every gateway session that leases it. */
const busy = new WeakMap<McpConnection, number>();

/** The separator of a namespaced name when several servers are exposed. */
export const SEPARATOR = "__";

/** The daemon's questions, as far as a gateway session answers them (lib/questions/broker.ts). */
export interface GatewayQuestions {
  watch(
    conn: object,
    server: string,
    tool: string,
    answer?: Answer,
  ): { watch: unknown; done: () => void };
  pendingOf(watch: never): number;
  /** How the call ended, for whoever answered one of its questions (`mcpx elicit answer`). */
  finish(
    watch: never,
    outcome: { result?: unknown; error?: { code: string; message: string } },
  ): void;
}

/** Who leases a connection to an exposed server for one MCP session. */
export interface GatewayHost {
  /** The daemon's questions: a gateway session answers its calls' server requests. */
  questions?: GatewayQuestions;
  /** How long a call held for a 2026-07-28 client's input waits for its retry (`elicit.deadline`). */
  holdMs?: number;
  withConnection<T>(
    namespace: string,
    session: string,
    fn: (conn: McpConnection, timeoutMs: number) => Promise<T>,
  ): Promise<T>;
  end?(session: string): Promise<void>;
  log?: LogSink;
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

const modernConn = (conn: McpConnection) => (conn.protocolVersion ?? "") >= "2026";

const withoutMeta = (params: Record<string, unknown> | undefined) => {
  const { _meta: _drop, ...rest } = params ?? {};
  return rest;
};

/** One request being relayed, as {@linkcode GatewaySession.relay} hands it to a connection. */
interface Relayed {
  ns: string;
  method: string;
  params: Record<string, unknown>;
  ctx: Ctx;
  extra: Extra;
  /** The client's progress token, if it asked for progress. */
  token: unknown;
  /** No log message of the server's goes on this request's stream. */
  quiet: boolean;
  signal: AbortSignal;
  /** The progress notifications sent: the answer waits for them. */
  sent: Promise<void>[];
}

/**
 * What one gateway session's relays share: its server, the namespaces' names inward and outward,
 * the connections it used (their notifications relayed until it ends), and one request relayed.
 */
class GatewaySession implements AskingSession {
  readonly namespaces: readonly string[];
  readonly host: GatewayHost;
  readonly session: string;
  readonly state: GatewayState;
  readonly several: boolean;
  readonly server: Server;
  readonly holdMs: number;
  readonly tasks: TaskRelay;
  // Each connection this session used relays what its server says, once, until the end.
  readonly #relayed = new Map<McpConnection, () => void>();
  // A log message while a request of this session is in flight on the connection goes on that
  // request's stream (where a client waiting on it hears it); any other, to the session.
  readonly #inflight = new Map<McpConnection, Set<(n: never) => Promise<void>>>();
  #ended = false;

  constructor(
    namespaces: readonly string[],
    host: GatewayHost,
    session: string,
    state: GatewayState,
  ) {
    this.namespaces = namespaces;
    this.host = host;
    this.session = session;
    this.state = state;
    this.several = namespaces.length > 1;
    this.server = new Server(
      { name: this.several ? "mcpx" : namespaces[0], version: VERSION },
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
        // The requestState a client echoes is verified before a handler runs: -32602 otherwise.
        requestState: { verify: (s, ctx) => state.codec.verify(s, ctx) },
      },
    );
    this.holdMs = host.holdMs ?? 600_000;
    // Tasks, core (2025-11-25) and the extension (2026-07-28): gateway_tasks.ts.
    this.tasks = relayTasks(this.server, session, this.withConn, relayError);
  }

  /** The name a client sees of `ns`'s `name`. */
  outward(ns: string, name: string): string {
    return this.several ? `${ns}${SEPARATOR}${name}` : name;
  }

  /**
   * The namespace and the server's own name of a name a client sent.
   * @throws {ProtocolError} -32602 when no exposed namespace has it.
   */
  inward(name: string): { ns: string; name: string } {
    if (!this.several) return { ns: this.namespaces[0], name };
    const at = name.indexOf(SEPARATOR);
    const ns = at > 0 ? name.slice(0, at) : "";
    if (!this.namespaces.includes(ns)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown name "${name}"`);
    }
    return { ns, name: name.slice(at + SEPARATOR.length) };
  }

  /** Reaches `ns` for this session; what its connection's server says is relayed from then on. */
  readonly withConn: WithConn = (ns, fn) =>
    this.host.withConnection(ns, this.session, (conn, ms) => {
      this.#watch(conn);
      return fn(conn, ms);
    });

  #watch(conn: McpConnection): void {
    if (this.#ended || this.#relayed.has(conn) || !conn.onNotification) return;
    this.#relayed.set(conn, conn.onNotification((n) => this.#heard(conn, n)));
  }

  /** A server's notification: on a request's stream, to the session, or (another's) dropped. */
  #heard(conn: McpConnection, n: UpstreamNotification): void {
    if (n.method === "notifications/progress" || n.method === "notifications/cancelled") return;
    if (n.method === "notifications/message") {
      const onStream = this.#inflight.get(conn)?.values().next().value;
      if (onStream) return void onStream(n as never).catch(() => {});
      // Another session's request is in flight on a shared process: the message is its.
      if ((busy.get(conn) ?? 0) > 0) return;
    }
    void this.server.notification(n as never).catch(() => {});
  }

  /** Every item of one list of one namespace, across its pages. */
  listOne(ns: string, kind: Kind): Promise<Record<string, unknown>[]> {
    return this.withConn(ns, async (conn, ms) => {
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
  }

  /** One page of a list across every namespace, names made outward. */
  async listAll(kind: Kind, cursor: string | undefined) {
    let all: Record<string, unknown>[];
    try {
      const per = await Promise.all(this.namespaces.map(async (ns) => {
        const items = await this.listOne(ns, kind);
        return kind === "tools" || kind === "prompts"
          ? items.map((i) => ({ ...i, name: this.outward(ns, String(i.name)) }))
          : items;
      }));
      all = per.flat();
    } catch (error) {
      relayError(error);
    }
    return pageOf(kind, all, cursor);
  }

  /** The namespace serving a resource URI: the one listing it, else the first whose read works. */
  async ownersOf(uri: string): Promise<string[]> {
    if (!this.several) return [this.namespaces[0]];
    const hits: string[] = [];
    for (const ns of this.namespaces) {
      const listed = await this.listOne(ns, "resources").catch(() => []);
      if (listed.some((r) => r.uri === uri)) hits.push(ns);
    }
    return hits.length ? hits : [...this.namespaces];
  }

  /** Relays one request to `ns`: progress on the client's token, cancellation upstream. */
  async relay(
    ns: string,
    method: string,
    params: Record<string, unknown>,
    ctx: Ctx,
    extra: Extra = {},
  ): Promise<Record<string, unknown>> {
    const token = ctx.mcpReq._meta?.progressToken;
    // A 2026-07-28 request hears log messages only at the level it asked for in `_meta`.
    const quiet = ctx.mcpReq.envelope !== undefined &&
      ctx.mcpReq.envelope[ENV.logLevel] === undefined;
    const signal = extra.signal ?? ctx.mcpReq.signal;
    // Progress relayed before the result it precedes: the answer waits for its notifications.
    const sent: Promise<void>[] = [];
    const call: Relayed = { ns, method, params, ctx, extra, token, quiet, signal, sent };
    try {
      const result = await this.withConn(ns, (conn, ms) => this.#request(conn, ms, call));
      await Promise.all(sent);
      return result;
    } catch (error) {
      if (signal.aborted) {
        this.host.log?.("info", "mcp.cancelled", "A client cancelled a relayed request", {
          session: this.session,
          namespace: ns,
          method,
        });
      }
      relayError(error);
    }
  }

  /** The relayed request on `conn`, its server's log messages on its stream while it runs. */
  async #request(conn: McpConnection, ms: number, call: Relayed) {
    const { ns, method, params, ctx, extra } = call;
    let streams = this.#inflight.get(conn);
    if (!streams) this.#inflight.set(conn, streams = new Set());
    const mine = call.quiet ? () => Promise.resolve() : ctx.mcpReq.notify;
    streams.add(mine);
    busy.set(conn, (busy.get(conn) ?? 0) + 1);
    const modern = modernConn(conn);
    // A 2025-era server's requests during this call are this session's to answer.
    const watching = !modern && extra.answer && this.host.questions
      ? this.host.questions.watch(conn, ns, extra.label ?? method, extra.answer)
      : undefined;
    if (watching) extra.watched?.(watching.watch as { parked?: boolean });
    // The call's time runs out only while nothing it asked waits for an answer.
    const own = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const waiting = () =>
      (watching ? this.host.questions!.pendingOf(watching.watch as never) > 0 : false) ||
      (extra.waiting?.() ?? false);
    const arm = () => {
      timer = setTimeout(() => {
        if (waiting()) return arm();
        timedOut = true;
        own.abort(new Error("callTimeout"));
      }, ms);
    };
    if (watching) arm();
    const raw = modern && extra.raw !== undefined;
    let outcome: Parameters<GatewayQuestions["finish"]>[1] | undefined;
    try {
      const got = await conn.request!(
        method,
        raw ? { ...params, _meta: { [ENV.caps]: extra.raw!.caps } } : params,
        {
          timeoutMs: watching ? 2 ** 31 - 1 : ms,
          signal: watching ? AbortSignal.any([call.signal, own.signal]) : call.signal,
          ...(raw ? { allowInputRequired: true } : {}),
          ...(call.token !== undefined ? { onprogress: progressOf(call) } : {}),
        },
      );
      outcome = { result: got };
      return got;
    } catch (error) {
      outcome = {
        error: {
          code: error instanceof McpxError ? error.code : "INTERNAL",
          message: messageOf(error),
        },
      };
      if (timedOut) {
        throw new McpxError(
          "TOOL_TIMEOUT",
          `Server "${ns}" did not answer "${method}" within ${ms} ms`,
          { cause: error },
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
      if (watching) this.host.questions!.finish(watching.watch as never, outcome!);
      watching?.done();
      busy.set(conn, busy.get(conn)! - 1);
      streams.delete(mine);
      if (streams.size === 0) this.#inflight.delete(conn);
    }
  }

  /** The connection is over: its relays stop (tasks' leases freed, notifications unheard). */
  end(): void {
    this.#ended = true;
    this.tasks.end();
    for (const off of this.#relayed.values()) off();
    this.#relayed.clear();
  }
}

/** The server's progress for a relayed request, handed on with the client's own token. */
function progressOf(call: Relayed) {
  return (p: Record<string, unknown>) =>
    call.sent.push(
      call.ctx.mcpReq.notify(
        {
          method: "notifications/progress",
          params: { ...p, progressToken: call.token },
        } as never,
      ).catch(() => {}),
    );
}

/** Tools: every namespace's listed; a call a task first (gateway_tasks.ts), else relayed. */
function relayTools(gw: GatewaySession): void {
  gw.server.setRequestHandler("tools/list", (r) => gw.listAll("tools", r.params?.cursor) as never);
  gw.server.setRequestHandler("tools/call", async (r, ctx) => {
    const { ns, name } = gw.inward(r.params.name);
    const routed = await gw.tasks.toolsCall(ns, { ...withoutMeta(r.params), name }, ctx as never);
    if ("result" in routed) return routed.result as never;
    return await relayInput(
      gw,
      ns,
      "tools/call",
      routed.params,
      r.params.name,
      ctx as never,
    ) as never;
  });
}

/** Prompts: every namespace's listed; one got from its server. */
function relayPrompts(gw: GatewaySession): void {
  gw.server.setRequestHandler(
    "prompts/list",
    (r) => gw.listAll("prompts", r.params?.cursor) as never,
  );
  gw.server.setRequestHandler("prompts/get", async (r, ctx) => {
    const { ns, name } = gw.inward(r.params.name);
    return await relayInput(
      gw,
      ns,
      "prompts/get",
      { ...withoutMeta(r.params), name },
      r.params.name,
      ctx as never,
    ) as never;
  });
}

/** Resources and templates: listed, read, and subscriptions, from the namespace serving each. */
function relayResources(gw: GatewaySession): void {
  gw.server.setRequestHandler(
    "resources/list",
    (r) => gw.listAll("resources", r.params?.cursor) as never,
  );
  gw.server.setRequestHandler(
    "resources/templates/list",
    (r) => gw.listAll("resourceTemplates", r.params?.cursor) as never,
  );
  gw.server.setRequestHandler("resources/read", async (r, ctx) => {
    const candidates = await gw.ownersOf(r.params.uri);
    let last: unknown;
    for (const ns of candidates) {
      try {
        return await relayInput(
          gw,
          ns,
          "resources/read",
          withoutMeta(r.params),
          r.params.uri,
          ctx as never,
        ) as never;
      } catch (error) {
        last = error;
      }
    }
    throw last;
  });
  for (const method of ["resources/subscribe", "resources/unsubscribe"] as const) {
    gw.server.setRequestHandler(method, async (r, ctx) => {
      const candidates = await gw.ownersOf(r.params.uri);
      return await gw.relay(candidates[0], method, withoutMeta(r.params), ctx as never) as never;
    });
  }
}

/** Completion: asked of the server of the prompt or the resource. */
function relayCompletion(gw: GatewaySession): void {
  gw.server.setRequestHandler("completion/complete", async (r, ctx) => {
    const ref = r.params.ref as { type: string; name?: string; uri?: string };
    let ns = gw.namespaces[0];
    let params = withoutMeta(r.params);
    if (ref.type === "ref/prompt" && ref.name !== undefined) {
      const inside = gw.inward(ref.name);
      ns = inside.ns;
      params = { ...params, ref: { ...ref, name: inside.name } };
    } else if (gw.several && ref.uri !== undefined) {
      ns = (await gw.ownersOf(ref.uri))[0];
    }
    return await gw.relay(ns, "completion/complete", params, ctx as never) as never;
  });
}

/** Logging: the level set on every exposed server. */
function relayLogging(gw: GatewaySession): void {
  gw.server.setRequestHandler("logging/setLevel", async (r, ctx) => {
    await Promise.all(
      gw.namespaces.map((ns) =>
        gw.relay(ns, "logging/setLevel", withoutMeta(r.params), ctx as never).catch(() => {})
      ),
    );
    return {} as never;
  });
}

/**
 * A fresh SDK server answering gateway mode for `namespaces` in one mcpx session. Call `end()`
 * when the connection is over: it stops relaying the servers' notifications.
 */
export function gatewayServer(
  namespaces: readonly string[],
  host: GatewayHost,
  session: string,
  state: GatewayState = gatewayState(),
): { server: Server; end: () => void } {
  const gw = new GatewaySession(namespaces, host, session, state);
  relayTools(gw);
  relayPrompts(gw);
  relayResources(gw);
  relayCompletion(gw);
  relayLogging(gw);
  return { server: gw.server, end: () => gw.end() };
}

/** The factory of gateway servers for `namespaces`: each ends its relays when it closes. */
export function gatewayFactory(
  namespaces: readonly string[],
  host: GatewayHost,
): (session: string) => Server {
  // One state for every server it makes: a 2026-07-28 retry reaches a server of its own.
  const state = gatewayState();
  return (session) => {
    const { server, end } = gatewayServer(namespaces, host, session, state);
    server.onclose = end;
    return server;
  };
}
