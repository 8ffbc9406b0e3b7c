import { McpxError, messageOf } from "../errors.ts";
import type { ServerDef } from "../config/servers.ts";
import type { CallToolEnvelope, McpConnection } from "../mcp/types.ts";
import type { Broker, CallWatch } from "../questions/broker.ts";
import type { Lease } from "./pool.ts";
import { errorText, unwrapResult } from "./unwrap.ts";

/** Hears a call's progress (`notifications/progress`). */
type OnProgress = (p: { progress: number; total?: number; message?: string }) => void;

/** How {@linkcode invokeWatched} makes one call. */
export interface InvokeOptions {
  /** The daemon's questions; without them the call is made as it is, its callTimeout fixed. */
  questions?: Broker;
  /** The caller's: cancels the call until it is handed a ticket. */
  signal?: AbortSignal;
  /** How long a question waits for an inline answer before INPUT_REQUIRED (elicit.wait). */
  waitMs: number;
  onProgress?: OnProgress;
  /** The tool's function name, for what a person reads; `tool` is its name on the server. */
  shown?: string;
}

/**
 * One tool call with the daemon's questions watched: a call whose server asks a question waits
 * `waitMs` for the answer, then rejects INPUT_REQUIRED naming the ticket, while the call
 * itself goes on (its lease held) until it ends; its outcome lands on the question's row.
 */
export function invokeWatched(
  lease: Lease,
  def: ServerDef,
  tool: string,
  args: Record<string, unknown>,
  options: InvokeOptions,
): Promise<CallToolEnvelope> {
  const { questions: broker, signal, waitMs, onProgress, shown = tool } = options;
  const progress = onProgress ? { onProgress } : {};
  if (!broker) {
    return lease.conn.callTool(tool, args, {
      timeoutMs: def.pool.callTimeoutMs,
      signal,
      ...progress,
    });
  }
  // The caller's going away no longer cancels the call once it has been handed a ticket.
  const own = new AbortController();
  let handedOff = false;
  const forward = () => {
    if (!handedOff) own.abort(signal?.reason);
  };
  signal?.addEventListener("abort", forward, { once: true });
  const { watch, done } = broker.watch(lease.conn, def.namespace, tool);
  const calling = callWhileAsked(broker, watch, lease.conn, def, tool, args, own, progress, shown);
  const ended = calling.then(
    (envelope) => {
      broker.finish(
        watch,
        envelope.isError
          ? { error: { code: "TOOL_ERROR", message: errorText(envelope) } }
          : { result: unwrapResult(envelope) },
      );
    },
    (e) => {
      broker.finish(watch, {
        error: { code: e instanceof McpxError ? e.code : "INTERNAL", message: messageOf(e) },
      });
    },
  ).finally(() => {
    done();
    signal?.removeEventListener("abort", forward);
  });
  return (async () => {
    while (!watch.outcome && watch.tickets.length === 0) await watch.changed();
    if (watch.outcome) return await calling;
    // A question was raised: an inline answer (a script's handler) has elicitWaitMs.
    const waited = await Promise.race([
      calling.then(() => true, () => true),
      new Promise<false>((resolve) => {
        const t = setTimeout(() => resolve(false), waitMs);
        ended.finally(() => clearTimeout(t));
      }),
    ]);
    if (waited) return await calling;
    handedOff = true;
    ended.finally(() => lease.release());
    throw inputRequired(broker, watch, def, shown);
  })();
}

/**
 * The call itself, cancelled by `own`, under a callTimeout that does not run out while one of
 * the call's questions waits for an answer.
 */
function callWhileAsked(
  broker: Broker,
  watch: CallWatch,
  conn: McpConnection,
  def: ServerDef,
  tool: string,
  args: Record<string, unknown>,
  own: AbortController,
  progress: { onProgress?: OnProgress },
  shown: string,
): Promise<CallToolEnvelope> {
  // callTimeout does not run out while one of the call's questions waits for an answer: the
  // time a person takes is not the server's. Each time it would run out with a question
  // pending it starts again.
  const limit = def.pool.callTimeoutMs;
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    timer = setTimeout(() => {
      if (broker.pendingOf(watch) > 0) return arm();
      timedOut = true;
      own.abort(new Error("callTimeout"));
    }, limit);
  };
  arm();
  return conn.callTool(tool, args, {
    timeoutMs: 2 ** 31 - 1,
    signal: own.signal,
    ...progress,
  }).catch((e) => {
    if (!timedOut) throw e;
    // A 2025-era server request names no call: with several calls that could be asking on one
    // shared process, its question was stored for no call (tool empty), and this one may be
    // waiting on it. Say so, and how to answer, rather than only that time ran out.
    const stray = broker.list("pending").filter((q) =>
      q.tool === null && (q.server === def.name || q.server === def.namespace)
    );
    if (stray.length > 0) {
      const q = stray[0];
      throw new McpxError(
        "TOOL_TIMEOUT",
        `Tool ${def.namespace}.${shown} did not answer within ${limit} ms, while "${def.namespace}" ` +
          `has ${stray.length} question${stray.length === 1 ? "" : "s"} no call could be told of ` +
          `("${q.id}": ${q.message}), asked while several calls shared its process`,
        {
          hint:
            `Answer it with: ${q.command}  (mcpx elicit list shows them all), then call again; ` +
            `"sharing": "exclusive" gives each call's questions to that call (docs/questions.md)`,
          cause: e,
          data: { questions: stray.map((q) => q.id) },
        },
      );
    }
    throw new McpxError(
      "TOOL_TIMEOUT",
      `Tool ${def.namespace}.${shown} did not answer within ${limit} ms`,
      { cause: e },
    );
  }).finally(() => clearTimeout(timer));
}

/** The INPUT_REQUIRED a call handed a ticket fails with: its newest question still pending. */
function inputRequired(
  broker: Broker,
  watch: CallWatch,
  def: ServerDef,
  shown: string,
): McpxError {
  const pending = watch.tickets.map((id) => broker.show(id)).filter((q) => q.state === "pending");
  const q = pending.at(-1) ?? broker.show(watch.tickets.at(-1)!);
  return new McpxError(
    "INPUT_REQUIRED",
    `${def.namespace}.${shown} is waiting for an answer to question "${q.id}": ${q.message}`,
    {
      hint: `Answer it with: ${q.command}  (or: mcpx elicit show ${q.id})`,
      data: { ticket: q.id, command: q.command, question: q },
    },
  );
}
