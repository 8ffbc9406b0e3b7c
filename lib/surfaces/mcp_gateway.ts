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
 * MCP client that made the call (docs/serve.md, "What servers ask"):
 *
 * - a 2025-era server's request (a question in lib/questions) is answered by the gateway session
 *   whose call raised it: sent to a 2025-era client on the call's stream; for a 2026-07-28 client
 *   the call is held in the daemon and the client gets an `input_required` result, whose retry
 *   answers the held request. A 2025-era client that did not declare the capability leaves the
 *   question to mcpx's own (`mcpx elicit answer`); roots fall back to the configured ones; a
 *   2026-07-28 client that did not declare it gets -32021 with the capability it lacks.
 * - a 2026-07-28 server's `input_required` result is relayed as it came (its keys, its requests),
 *   and its retry resent with the client's answers and the server's own `requestState`; the
 *   client's capabilities reach the server in the request's `_meta`. To a 2025-era client the
 *   SDK's server turns the result into requests on the call's stream.
 *
 * The `requestState` a client holds is mcpx's own, sealed (HMAC, a key per process): a forged or
 * tampered one is refused with -32602 before anything is relayed.
 */
import {
  createRequestStateCodec,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  Server,
} from "@modelcontextprotocol/server";
import { McpxError, messageOf } from "../errors.ts";
import type { McpConnection, UpstreamNotification } from "../mcp/types.ts";
import { VERSION } from "../version.ts";
import { decodeCursor, encodeCursor, PAGE_SIZE } from "./mcp/tools.ts";
import { GATEWAY_EXTENSIONS, GATEWAY_TASKS_CAPABILITY, relayTasks } from "./mcp/gateway_tasks.ts";

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
    answer?: (
      method: string,
      params: Record<string, unknown>,
      signal: AbortSignal,
    ) => Promise<unknown> | undefined,
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

/** The `_meta` keys of a 2026-07-28 request's envelope. */
const ENV = {
  version: "io.modelcontextprotocol/protocolVersion",
  caps: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
} as const;

/** What mcpx seals into the `requestState` its client holds. */
type Sealed =
  /** A 2025-era server's call held here, waiting for the client's answers. */
  | { k: "held"; id: string; m: string; n: string; ses: string; r: number }
  /** A 2026-07-28 server's own state, resent with the answers. */
  | { k: "up"; m: string; n: string; s?: string };

/** A server request waiting for a 2026-07-28 client's answer. */
interface Asked {
  method: string;
  params: Record<string, unknown>;
  resolve: (value: unknown) => void;
  sent: boolean;
}

/** A call of a 2025-era server held while its 2026-07-28 client answers what the server asked. */
class Held {
  readonly id = crypto.randomUUID();
  readonly asks = new Map<string, Asked>();
  readonly abort = new AbortController();
  /** The capabilities the client lacks for what the server asked (-32021). */
  missing?: Record<string, unknown>;
  outcome?: { result: unknown } | { error: unknown };
  timer?: ReturnType<typeof setTimeout>;
  rounds = 0;
  /** The call's watch of the daemon's questions: parked while the client holds the round. */
  watch?: { parked?: boolean };
  #count = 0;
  #wake = new Set<() => void>();
  changed(): Promise<void> {
    return new Promise((resolve) => this.#wake.add(resolve));
  }
  notify(): void {
    const wake = [...this.#wake];
    this.#wake.clear();
    for (const w of wake) w();
  }
  key(method: string): string {
    const kind = method === "sampling/createMessage"
      ? "sampling"
      : method === "roots/list"
      ? "roots"
      : "elicitation";
    return `${kind}-${++this.#count}`;
  }
}

/** What a gateway keeps across requests: held calls, and the key that seals requestState. */
export interface GatewayState {
  held: Map<string, Held>;
  codec: RequestStateCodec<Sealed>;
}

/** A fresh state: a random sealing key of this process. */
export function gatewayState(): GatewayState {
  const key = crypto.getRandomValues(new Uint8Array(32));
  return { held: new Map(), codec: createRequestStateCodec<Sealed>({ key, ttlSeconds: 3600 }) };
}

/** The capability a server request needs of the client, or undefined when `caps` has it. */
export function lacking(
  caps: Record<string, unknown>,
  method: string,
  params: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (method === "sampling/createMessage") return caps.sampling ? undefined : { sampling: {} };
  if (method === "roots/list") return caps.roots ? undefined : { roots: {} };
  if (method === "elicitation/create") {
    const e = caps.elicitation as Record<string, unknown> | undefined;
    if (params.mode === "url") return e?.url ? undefined : { elicitation: { url: {} } };
    // A bare `elicitation: {}` is form mode (the 2025-06-18 rule).
    return e && (e.form || !e.url) ? undefined : { elicitation: { form: {} } };
  }
  return {};
}

/** A rejection a server's connection answers as a JSON-RPC error with `code`. */
function refusal(code: number, message: string): Error {
  return Object.assign(new Error(message), { rpcCode: code });
}

/** How a held request is answered when its call ends without the client's answer. */
function abandoned(method: string): unknown {
  if (method === "elicitation/create") return { action: "cancel" };
  if (method === "roots/list") return { roots: [] };
  return undefined;
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
      // The requestState a client echoes is verified before a handler runs: -32602 otherwise.
      requestState: { verify: (s, ctx) => state.codec.verify(s, ctx) },
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

  type Answer = NonNullable<Parameters<GatewayQuestions["watch"]>[3]>;
  type Ctx = {
    mcpReq: {
      signal: AbortSignal;
      _meta?: Record<string, unknown>;
      envelope?: Record<string, unknown>;
      inputResponses?: Record<string, unknown>;
      requestState: <T>() => T | undefined;
      notify: (n: never) => Promise<void>;
      send: (r: never, o?: Record<string, unknown>) => Promise<unknown>;
    };
  };
  /** Extra of a relayed request that may need its client's input. */
  interface Extra {
    answer?: Answer;
    label?: string;
    /** A 2026-07-28 server's input_required result comes back as it is, the client's caps sent. */
    raw?: { caps: Record<string, unknown> };
    /** The signal of a held call (its client's request ends before the call does). */
    signal?: AbortSignal;
    /** Whether something the call asked still waits for its client. */
    waiting?: () => boolean;
    /** Hears the call's watch of the daemon's questions (a held call parks it between rounds). */
    watched?: (watch: { parked?: boolean }) => void;
  }
  const holdMs = host.holdMs ?? 600_000;
  const modernConn = (conn: McpConnection) => (conn.protocolVersion ?? "") >= "2026";

  /** Relays one request to `ns`: progress on the client's token, cancellation upstream. */
  const relay = async (
    ns: string,
    method: string,
    params: Record<string, unknown>,
    ctx: Ctx,
    extra: Extra = {},
  ) => {
    const token = ctx.mcpReq._meta?.progressToken;
    // A 2026-07-28 request hears log messages only at the level it asked for in `_meta`.
    const quiet = ctx.mcpReq.envelope !== undefined &&
      ctx.mcpReq.envelope[ENV.logLevel] === undefined;
    const signal = extra.signal ?? ctx.mcpReq.signal;
    // Progress relayed before the result it precedes: the answer waits for its notifications.
    const sent: Promise<void>[] = [];
    try {
      const result = await withConn(ns, async (conn, ms) => {
        let streams = inflight.get(conn);
        if (!streams) inflight.set(conn, streams = new Set());
        const mine = quiet ? () => Promise.resolve() : ctx.mcpReq.notify;
        streams.add(mine);
        busy.set(conn, (busy.get(conn) ?? 0) + 1);
        const modern = modernConn(conn);
        // A 2025-era server's requests during this call are this session's to answer.
        const watching = !modern && extra.answer && host.questions
          ? host.questions.watch(conn, ns, extra.label ?? method, extra.answer)
          : undefined;
        if (watching) extra.watched?.(watching.watch as { parked?: boolean });
        // The call's time runs out only while nothing it asked waits for an answer.
        const own = new AbortController();
        let timer: ReturnType<typeof setTimeout> | undefined;
        let timedOut = false;
        const waiting = () =>
          (watching ? host.questions!.pendingOf(watching.watch as never) > 0 : false) ||
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
              signal: watching ? AbortSignal.any([signal, own.signal]) : signal,
              ...(raw ? { allowInputRequired: true } : {}),
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
          if (watching) host.questions!.finish(watching.watch as never, outcome!);
          watching?.done();
          busy.set(conn, busy.get(conn)! - 1);
          streams.delete(mine);
          if (streams.size === 0) inflight.delete(conn);
        }
      });
      await Promise.all(sent);
      return result;
    } catch (error) {
      if (signal.aborted) {
        host.log?.("info", "mcp.cancelled", "A client cancelled a relayed request", {
          session,
          namespace: ns,
          method,
        });
      }
      relayError(error);
    }
  };

  const invalidState = (why: string) =>
    new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid or expired requestState: ${why}`, {
      reason: "invalid_request_state",
    });

  /** One round to the server; a 2026-07-28 server's input_required becomes mcpx's own. */
  const round = async (
    ns: string,
    method: string,
    params: Record<string, unknown>,
    name: string,
    ctx: Ctx,
    caps: Record<string, unknown>,
    extra: Extra = {},
  ) => {
    const result = await relay(ns, method, params, ctx, { ...extra, label: name, raw: { caps } });
    if (result.resultType !== "input_required") return result;
    const s = typeof result.requestState === "string" ? result.requestState : undefined;
    return inputRequired({
      ...(result.inputRequests ? { inputRequests: result.inputRequests as never } : {}),
      requestState: await state.codec.mint({ k: "up", m: method, n: name, ...(s ? { s } : {}) }),
    }) as unknown as Record<string, unknown>;
  };

  /** Ends a held call: no longer reachable by its requestState. */
  const release = (held: Held) => {
    clearTimeout(held.timer);
    state.held.delete(held.id);
  };

  /** A held call whose client never came back: what it asked is cancelled, the call too. */
  const expire = (held: Held) => {
    release(held);
    held.abort.abort(new Error("the client did not answer in time"));
    for (const [key, ask] of held.asks) {
      held.asks.delete(key);
      ask.resolve(abandoned(ask.method));
    }
  };

  /**
   * Waits on a held call: its end, or what its server asked, which goes to the client as an
   * input_required result sealing the call's id.
   */
  const drive = async (held: Held, method: string, name: string) => {
    for (;;) {
      if (held.missing) {
        release(held);
        held.abort.abort(new Error("the client lacks a capability"));
        const names = Object.keys(held.missing).join(", ");
        throw new ProtocolError(
          -32021,
          `The server asked for what this client did not declare: ${names}`,
          { requiredCapabilities: held.missing },
        );
      }
      if (held.outcome) {
        release(held);
        if ("error" in held.outcome) throw held.outcome.error;
        return held.outcome.result as Record<string, unknown>;
      }
      if ([...held.asks.values()].some((a) => !a.sent)) {
        // What a server asks at once goes out in one round.
        await new Promise((r) => setTimeout(r, 10));
        if (held.outcome || held.missing) continue;
        for (const ask of held.asks.values()) ask.sent = true;
        if (held.watch) held.watch.parked = true;
        state.held.set(held.id, held);
        clearTimeout(held.timer);
        held.timer = setTimeout(() => expire(held), holdMs);
        Deno.unrefTimer(held.timer);
        const inputRequests = Object.fromEntries(
          [...held.asks].map(([key, a]) => [key, { method: a.method, params: a.params }]),
        );
        return inputRequired({
          inputRequests: inputRequests as never,
          requestState: await state.codec.mint({
            k: "held",
            id: held.id,
            m: method,
            n: name,
            ses: session,
            // Each round's state its own, even within one second.
            r: ++held.rounds,
          }),
        }) as unknown as Record<string, unknown>;
      }
      await held.changed();
    }
  };

  /**
   * A request that may need its client's input (tools/call, prompts/get, resources/read):
   * the first round, or a retry carrying answers and mcpx's requestState.
   */
  const relayInput = async (
    ns: string,
    method: string,
    params: Record<string, unknown>,
    name: string,
    ctx: Ctx,
  ): Promise<Record<string, unknown>> => {
    const envelope = ctx.mcpReq.envelope;
    const modern = envelope !== undefined;
    const caps = ((modern ? envelope[ENV.caps] : server.getClientCapabilities()) ?? {}) as Record<
      string,
      unknown
    >;
    const sealed = ctx.mcpReq.requestState<Sealed>();
    if (sealed !== undefined) {
      if (typeof sealed !== "object" || sealed === null) throw invalidState("not mcpx's");
      if (sealed.m !== method || sealed.n !== name) {
        throw invalidState("it belongs to another request");
      }
      if (sealed.k === "up") {
        const answers = ctx.mcpReq.inputResponses;
        return await round(
          ns,
          method,
          {
            ...params,
            ...(answers ? { inputResponses: answers } : {}),
            ...(sealed.s !== undefined ? { requestState: sealed.s } : {}),
          },
          name,
          ctx,
          caps,
        );
      }
      const held = state.held.get(sealed.id);
      if (!held) throw invalidState("the call it held has ended");
      if (sealed.ses !== session) throw invalidState("it belongs to another session");
      const answers = ctx.mcpReq.inputResponses ?? {};
      if (held.watch) held.watch.parked = false;
      for (const [key, ask] of held.asks) {
        if (!ask.sent) continue;
        if (key in answers) {
          held.asks.delete(key);
          ask.resolve(answers[key]);
        } else ask.sent = false; // asked again
      }
      return await drive(held, method, name);
    }
    if (!modern) {
      // A 2025-era client: what the server asks goes to it on this call's stream.
      const answer: Answer = (m, p, signal) => {
        const missing = lacking(caps, m, p);
        if (missing) {
          if (m !== "roots/list") {
            void ctx.mcpReq.notify({
              method: "notifications/message",
              params: {
                level: "warning",
                logger: "mcpx",
                data:
                  `"${ns}" asked for ${m}, which this client did not declare: it waits as a question of mcpx's (mcpx elicit list)`,
              },
            } as never).catch(() => {});
          }
          return undefined;
        }
        return ctx.mcpReq.send({ method: m, params: p } as never, { signal, timeout: holdMs })
          .catch((e: unknown) => {
            const code = (e as { code?: unknown })?.code;
            throw refusal(typeof code === "number" ? code : -32603, messageOf(e));
          });
      };
      return await round(ns, method, params, name, ctx, caps, { answer });
    }
    // A 2026-07-28 client: a 2025-era server's requests hold the call here between rounds.
    const held = new Held();
    const answer: Answer = (m, p) => {
      const missing = lacking(caps, m, p);
      if (missing) {
        if (m === "roots/list") return undefined; // the configured roots
        held.missing = missing;
        held.notify();
        const value = abandoned(m);
        return value === undefined
          ? Promise.reject(refusal(-32603, `The client did not declare ${Object.keys(missing)}`))
          : Promise.resolve(value);
      }
      // The 2026-07-28 URL mode has no elicitationId: the held call is the correlation.
      const { elicitationId: _id, ...rest } = p;
      return new Promise((resolve) => {
        held.asks.set(held.key(m), { method: m, params: rest, resolve, sent: false });
        held.notify();
      });
    };
    round(ns, method, params, name, ctx, caps, {
      answer,
      signal: held.abort.signal,
      waiting: () => held.asks.size > 0,
      watched: (w) => held.watch = w,
    }).then(
      (result) => held.outcome = { result },
      (error) => held.outcome = { error },
    ).finally(() => held.notify());
    return await drive(held, method, name);
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
    return await relayInput(ns, "tools/call", routed.params, r.params.name, ctx as never) as never;
  });
  server.setRequestHandler("prompts/get", async (r, ctx) => {
    const { ns, name } = inward(r.params.name);
    return await relayInput(
      ns,
      "prompts/get",
      { ...withoutMeta(r.params), name },
      r.params.name,
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
        return await relayInput(
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
  // One state for every server it makes: a 2026-07-28 retry reaches a server of its own.
  const state = gatewayState();
  return (session) => {
    const { server, end } = gatewayServer(namespaces, host, session, state);
    server.onclose = end;
    return server;
  };
}
