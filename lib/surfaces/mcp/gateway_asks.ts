/**
 * What a server asks its client in gateway mode (sampling, elicitation in form and URL mode,
 * roots) reaches the MCP client that made the call (gateway.ts; docs/serve.md, "What servers ask"):
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
  type Server,
} from "@modelcontextprotocol/server";
import { messageOf } from "../../errors.ts";

/** The `_meta` keys of a 2026-07-28 request's envelope. */
export const ENV = {
  version: "io.modelcontextprotocol/protocolVersion",
  caps: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
} as const;

/** How a gateway session answers what a server asked during one of its calls. */
export type Answer = (
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<unknown> | undefined;

/** A request's context, as far as the gateway reads it. */
export type Ctx = {
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
export interface Extra {
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

function invalidState(why: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid or expired requestState: ${why}`,
    { reason: "invalid_request_state" },
  );
}

/** What the relay of a client's input needs of its gateway session (gateway.ts). */
export interface AskingSession {
  readonly server: Server;
  readonly session: string;
  readonly state: GatewayState;
  /** How long a call held for a 2026-07-28 client's input waits for its retry. */
  readonly holdMs: number;
  /** Relays one request to `ns`. */
  relay(
    ns: string,
    method: string,
    params: Record<string, unknown>,
    ctx: Ctx,
    extra?: Extra,
  ): Promise<Record<string, unknown>>;
}

/** One request that may need its client's input, and the capabilities its client declared. */
interface Asking {
  ns: string;
  method: string;
  params: Record<string, unknown>;
  /** The name the client gave (its tool, prompt or resource URI): what requestState is bound to. */
  name: string;
  ctx: Ctx;
  caps: Record<string, unknown>;
}

/**
 * A request that may need its client's input (tools/call, prompts/get, resources/read):
 * the first round, or a retry carrying answers and mcpx's requestState.
 */
export async function relayInput(
  gw: AskingSession,
  ns: string,
  method: string,
  params: Record<string, unknown>,
  name: string,
  ctx: Ctx,
): Promise<Record<string, unknown>> {
  const envelope = ctx.mcpReq.envelope;
  const modern = envelope !== undefined;
  const caps = ((modern ? envelope[ENV.caps] : gw.server.getClientCapabilities()) ?? {}) as Record<
    string,
    unknown
  >;
  const asking: Asking = { ns, method, params, name, ctx, caps };
  const sealed = ctx.mcpReq.requestState<Sealed>();
  if (sealed !== undefined) return await retry(gw, asking, sealed);
  if (!modern) {
    // A 2025-era client: what the server asks goes to it on this call's stream.
    return await round(gw, asking, { answer: askOnStream(gw, asking) });
  }
  // A 2026-07-28 client: a 2025-era server's requests hold the call here between rounds.
  return await holdCall(gw, asking);
}

/** A retry: its answers resent to a 2026-07-28 server, or handed to the call held here. */
async function retry(
  gw: AskingSession,
  asking: Asking,
  sealed: Sealed,
): Promise<Record<string, unknown>> {
  const { method, name, ctx } = asking;
  if (typeof sealed !== "object" || sealed === null) throw invalidState("not mcpx's");
  if (sealed.m !== method || sealed.n !== name) {
    throw invalidState("it belongs to another request");
  }
  if (sealed.k === "up") {
    const answers = ctx.mcpReq.inputResponses;
    return await round(gw, {
      ...asking,
      params: {
        ...asking.params,
        ...(answers ? { inputResponses: answers } : {}),
        ...(sealed.s !== undefined ? { requestState: sealed.s } : {}),
      },
    });
  }
  const held = gw.state.held.get(sealed.id);
  if (!held) throw invalidState("the call it held has ended");
  if (sealed.ses !== gw.session) throw invalidState("it belongs to another session");
  const answers = ctx.mcpReq.inputResponses ?? {};
  if (held.watch) held.watch.parked = false;
  for (const [key, ask] of held.asks) {
    if (!ask.sent) continue;
    if (key in answers) {
      held.asks.delete(key);
      ask.resolve(answers[key]);
    } else ask.sent = false; // asked again
  }
  return await drive(gw, held, method, name);
}

/** A 2025-era client's answers: what the server asks, sent to it on the call's stream. */
function askOnStream(gw: AskingSession, { ns, ctx, caps }: Asking): Answer {
  return (m, p, signal) => {
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
    return ctx.mcpReq.send({ method: m, params: p } as never, { signal, timeout: gw.holdMs })
      .catch((e: unknown) => {
        const code = (e as { code?: unknown })?.code;
        throw refusal(typeof code === "number" ? code : -32603, messageOf(e));
      });
  };
}

/** A 2026-07-28 client's call of a 2025-era server, held here while the client answers. */
async function holdCall(gw: AskingSession, asking: Asking): Promise<Record<string, unknown>> {
  const { caps } = asking;
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
  round(gw, asking, {
    answer,
    signal: held.abort.signal,
    waiting: () => held.asks.size > 0,
    watched: (w) => held.watch = w,
  }).then(
    (result) => held.outcome = { result },
    (error) => held.outcome = { error },
  ).finally(() => held.notify());
  return await drive(gw, held, asking.method, asking.name);
}

/** One round to the server; a 2026-07-28 server's input_required becomes mcpx's own. */
async function round(
  gw: AskingSession,
  { ns, method, params, name, ctx, caps }: Asking,
  extra: Extra = {},
): Promise<Record<string, unknown>> {
  const result = await gw.relay(ns, method, params, ctx, { ...extra, label: name, raw: { caps } });
  if (result.resultType !== "input_required") return result;
  const s = typeof result.requestState === "string" ? result.requestState : undefined;
  return inputRequired({
    ...(result.inputRequests ? { inputRequests: result.inputRequests as never } : {}),
    requestState: await gw.state.codec.mint({ k: "up", m: method, n: name, ...(s ? { s } : {}) }),
  }) as unknown as Record<string, unknown>;
}

/** Ends a held call: no longer reachable by its requestState. */
function release(state: GatewayState, held: Held): void {
  clearTimeout(held.timer);
  state.held.delete(held.id);
}

/** A held call whose client never came back: what it asked is cancelled, the call too. */
function expire(state: GatewayState, held: Held): void {
  release(state, held);
  held.abort.abort(new Error("the client did not answer in time"));
  for (const [key, ask] of held.asks) {
    held.asks.delete(key);
    ask.resolve(abandoned(ask.method));
  }
}

/**
 * Waits on a held call: its end, or what its server asked, which goes to the client as an
 * input_required result sealing the call's id.
 */
async function drive(
  gw: AskingSession,
  held: Held,
  method: string,
  name: string,
): Promise<Record<string, unknown>> {
  for (;;) {
    if (held.missing) {
      release(gw.state, held);
      held.abort.abort(new Error("the client lacks a capability"));
      const names = Object.keys(held.missing).join(", ");
      throw new ProtocolError(
        -32021,
        `The server asked for what this client did not declare: ${names}`,
        { requiredCapabilities: held.missing },
      );
    }
    if (held.outcome) {
      release(gw.state, held);
      if ("error" in held.outcome) throw held.outcome.error;
      return held.outcome.result as Record<string, unknown>;
    }
    if ([...held.asks.values()].some((a) => !a.sent)) {
      // What a server asks at once goes out in one round.
      await new Promise((r) => setTimeout(r, 10));
      if (held.outcome || held.missing) continue;
      return await nextRound(gw, held, method, name);
    }
    await held.changed();
  }
}

/** What a held call's server asked, sent to its client as one input_required round. */
async function nextRound(
  gw: AskingSession,
  held: Held,
  method: string,
  name: string,
): Promise<Record<string, unknown>> {
  for (const ask of held.asks.values()) ask.sent = true;
  if (held.watch) held.watch.parked = true;
  gw.state.held.set(held.id, held);
  clearTimeout(held.timer);
  held.timer = setTimeout(() => expire(gw.state, held), gw.holdMs);
  Deno.unrefTimer(held.timer);
  const inputRequests = Object.fromEntries(
    [...held.asks].map(([key, a]) => [key, { method: a.method, params: a.params }]),
  );
  return inputRequired({
    inputRequests: inputRequests as never,
    requestState: await gw.state.codec.mint({
      k: "held",
      id: held.id,
      m: method,
      n: name,
      ses: gw.session,
      // Each round's state its own, even within one second.
      r: ++held.rounds,
    }),
  }) as unknown as Record<string, unknown>;
}
