// mcpx's own client for a stdio server in the 2025 era: the `initialize` handshake, `tools/list`
// across pages, `tools/call` with a timeout and `notifications/cancelled`, `ping` answered and
// `notifications/tools/list_changed` passed on. It does what the SDK's `Client` does for these,
// on the same `StdioTransport`, without loading the SDK: a daemon holding only stdio servers then
// never pays the SDK's ~20 MiB (docs/transports.md).

import { RequestWithdrawn } from "./withdrawn.ts";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { Validator } from "@cfworker/json-schema";
import { McpxError, messageOf } from "../errors.ts";
import { VERSION } from "../version.ts";
import {
  abandoned,
  type Attempt,
  calling,
  callTimeout,
  ConnectionLife,
  type ConnectOptions,
  declaredCapabilities,
  LISTING,
  listTimeout,
  logOversized,
  progressOf,
  requesting,
  rpcError,
  START_REASONS,
  startFailed,
  toToolInfo,
} from "./_connection.ts";
import { waitAtMost } from "./_wait.ts";
import { type AdoptedPipes, startOf } from "../_proc.ts";
import { describeEnd, oversizedData, StdioTransport } from "./stdio_transport.ts";
import type {
  CallOptions,
  CallToolEnvelope,
  ConnectionEnd,
  McpConnection,
  RequestOptions,
  ServerSpec,
  StdioHandoff,
  ToolInfo,
  UpstreamNotification,
} from "./types.ts";

/** The revision mcpx asks for, and those it accepts in answer: the SDK 2.4 client's lists. */
export const LATEST_REVISION = "2025-11-25";
const SUPPORTED_REVISIONS = [
  LATEST_REVISION,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** How many `tools/list` pages are followed at most, as the SDK does. */
const MAX_PAGES = 64;

/** JSON-RPC error codes used here. */
const METHOD_NOT_FOUND = -32601;
const INVALID_REQUEST = -32600;
const INTERNAL_ERROR = -32603;
const INVALID_PARAMS = -32602;

/**
 * Starts one stdio server and completes the 2025 `initialize` handshake.
 *
 * @throws {McpxError} SERVER_START_FAILED with the reason and the child's last stderr lines
 *   (also in `data.stderr`); the child is killed before this rejects.
 * @throws {McpxError} CONFIG_INVALID when the spec has no command.
 */
export async function connectStdio(
  spec: ServerSpec,
  options: ConnectOptions,
): Promise<McpConnection> {
  if (!spec.command) {
    throw new McpxError("CONFIG_INVALID", `Server "${spec.name}" has no "command" to start`);
  }
  const connection = new StdioConnection(spec, options);
  await connection.open();
  return connection;
}

/**
 * Goes on speaking to a stdio server a predecessor daemon started and handed over
 * (lib/daemon/upgrade.ts): no spawn and no handshake, the negotiated state as it was handed.
 * `pipes` were opened by {@linkcode openPipes} before the predecessor let go.
 */
export function adoptStdio(
  spec: ServerSpec,
  options: ConnectOptions,
  handed: StdioHandoff,
  pipes: AdoptedPipes,
): McpConnection {
  const connection = new StdioConnection(spec, options);
  connection.adopt(handed, pipes);
  return connection;
}

/** A request's end other than its answer: its time ran out, its caller gave up, or the end. */
type Stop = { kind: "timeout" } | { kind: "cancelled" } | { kind: "ended" };

/** A JSON-RPC error answer. */
interface RpcFailure {
  code: number;
  message: string;
  data?: unknown;
}

class RpcError extends Error {
  constructor(readonly rpc: RpcFailure) {
    super(rpc.message);
  }
}

class Stopped extends Error {
  constructor(readonly stop: Stop) {
    super(stop.kind);
  }
}

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

class StdioConnection implements McpConnection {
  protocolVersion?: string;

  readonly #spec: ServerSpec;
  readonly #options: ConnectOptions;
  readonly #transport: StdioTransport;
  readonly #life: ConnectionLife;
  readonly #pending = new Map<number, Pending>();
  /** Each listed tool's output schema, compiled on its first call. */
  readonly #outputs = new Map<string, { schema: unknown; validator?: Validator }>();
  #nextId = 0;
  #closing?: Promise<void>;
  /** What the server declared in its initialize answer. */
  #capabilities?: Record<string, unknown>;
  /** The server's requests being answered, by id: aborted when it cancels one. */
  readonly #answering = new Map<string | number, AbortController>();
  /** Progress listeners of requests in flight, by the progress token sent (the request's id). */
  readonly #progress = new Map<string | number, (p: Record<string, unknown>) => void>();

  constructor(spec: ServerSpec, options: ConnectOptions) {
    this.#spec = spec;
    this.#options = options;
    this.#life = new ConnectionLife(spec.name, () => this.stderrTail());
    this.#transport = new StdioTransport({
      name: spec.name,
      command: spec.command!,
      args: spec.args,
      env: spec.env,
      cwd: spec.cwd,
      maxMessageBytes: options.maxMessageBytes,
      onOversized: logOversized(spec.name, options.log),
    });
    // A stray stdout line or a dropped message is not fatal; what is fatal ends the process.
    this.#transport.onerror = () => {};
    this.#transport.onmessage = (message) => this.#receive(message);
    this.#transport.onclose = () => this.#stopAll({ kind: "ended" });
  }

  get pid(): number | undefined {
    return this.#transport.pid;
  }

  stderrTail(): string[] {
    return this.#transport.stderrTail();
  }

  async open(): Promise<void> {
    const transport = this.#transport;
    const ms = this.#options.startTimeoutMs;
    this.#watchExit();
    const signal = this.#options.signal;
    if (signal?.aborted) {
      await this.close();
      throw abandoned(this.#spec.name, signal);
    }
    try {
      await transport.start();
    } catch (error) {
      await this.close();
      throw error;
    }
    let reason: string | undefined;
    let cause: unknown;
    try {
      const result = await this.#request("initialize", {
        protocolVersion: LATEST_REVISION,
        capabilities: this.#options.onServerRequest
          ? declaredCapabilities(this.#options.capabilities)
          : {},
        clientInfo: this.#options.clientInfo ?? { name: "mcpx", version: VERSION },
      }, { timeoutMs: ms, signal, cancel: false }) as
        | { protocolVersion?: unknown; capabilities?: Record<string, unknown> }
        | undefined;
      const version = result?.protocolVersion;
      if (result?.capabilities && typeof result.capabilities === "object") {
        this.#capabilities = result.capabilities;
      }
      if (typeof version !== "string" || !SUPPORTED_REVISIONS.includes(version)) {
        reason = `the server answered initialize with protocol version ${
          JSON.stringify(version)
        }, which mcpx does not speak`;
      } else {
        this.protocolVersion = version;
        await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
        return;
      }
    } catch (error) {
      if (error instanceof Stopped && error.stop.kind === "cancelled") {
        await this.close();
        throw abandoned(this.#spec.name, signal!);
      }
      cause = error;
      // The child may be exiting right now; its status and last stderr lines explain more than
      // "connection closed" does.
      if (!transport.exit) await waitAtMost(transport.exited, 200);
      reason = this.#startFailure(error, ms);
    }
    await this.close();
    throw startFailed(this.#spec.name, reason, this.stderrTail(), cause);
  }

  /** See {@linkcode adoptStdio}. */
  adopt(handed: StdioHandoff, pipes: AdoptedPipes): void {
    this.#watchExit();
    this.protocolVersion = handed.protocolVersion;
    this.#capabilities = handed.capabilities;
    this.#nextId = handed.nextId;
    const stdout = Uint8Array.from(atob(handed.stdout), (c) => c.charCodeAt(0));
    this.#transport.adopt(handed.pid, handed.start, pipes, { stdout, stderr: handed.stderr });
  }

  async handoff(): Promise<StdioHandoff | undefined> {
    const pid = this.pid;
    const start = pid === undefined ? undefined : startOf(pid);
    if (
      pid === undefined || start === undefined || this.#life.end || this.#closing ||
      this.protocolVersion === undefined || this.#pending.size > 0 || this.#answering.size > 0
    ) return undefined;
    let held;
    try {
      held = await this.#transport.detach();
    } catch {
      return undefined; // It did not answer the fence: it stays with this daemon.
    }
    let binary = "";
    for (const b of held.stdout) binary += String.fromCharCode(b);
    return {
      pid,
      start,
      protocolVersion: this.protocolVersion,
      ...(this.#capabilities ? { capabilities: this.#capabilities } : {}),
      nextId: this.#nextId,
      stdout: btoa(binary),
      stderr: held.stderr,
    };
  }

  #watchExit(): void {
    this.#transport.exited.then((exit) =>
      this.#finish({
        code: exit.code,
        signal: exit.signal,
        reason: describeEnd(exit),
      })
    );
  }

  async listTools(): Promise<ToolInfo[]> {
    this.#life.assertOpen("list its tools");
    const ms = this.#options.startTimeoutMs;
    const deadline = performance.now() + ms;
    const tools: ToolInfo[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_PAGES; page++) {
        const left = Math.max(1, Math.round(deadline - performance.now()));
        const result = await this.#request(
          "tools/list",
          cursor === undefined ? {} : { cursor },
          { timeoutMs: left, cancel: true },
        ) as { tools?: unknown; nextCursor?: unknown } | undefined;
        if (!Array.isArray(result?.tools)) {
          throw new RpcError({ code: INVALID_REQUEST, message: "the answer has no tools list" });
        }
        for (const tool of result.tools as { name?: unknown; inputSchema?: unknown }[]) {
          if (typeof tool?.name !== "string") continue;
          const listed = tool as { name: string; inputSchema?: unknown };
          tools.push(
            toToolInfo({ ...listed, inputSchema: listed.inputSchema ?? { type: "object" } }),
          );
        }
        cursor = typeof result.nextCursor === "string" ? result.nextCursor : undefined;
        if (cursor === undefined) break;
      }
    } catch (error) {
      throw await this.#failure(error, {
        timeout: () => listTimeout(this.#spec.name, ms),
        ...LISTING,
      });
    }
    this.#outputs.clear();
    for (const tool of tools) {
      if (tool.outputSchema) this.#outputs.set(tool.name, { schema: tool.outputSchema });
    }
    return tools;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolEnvelope> {
    this.#life.assertOpen(`call "${name}"`);
    const server = this.#spec.name;
    const how = calling(name);
    let result: CallToolEnvelope;
    try {
      result = await this.#request("tools/call", { name, arguments: args }, {
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        cancel: true,
        onprogress: progressListener(options.onProgress),
      }) as CallToolEnvelope;
    } catch (error) {
      throw await this.#failure(error, {
        timeout: (cancelled) => callTimeout(server, name, options.timeoutMs, cancelled, error),
        ...how,
      });
    }
    const wrong = this.#checkOutput(name, result);
    if (wrong) throw rpcError(server, how, wrong);
    return result;
  }

  get ended(): Promise<ConnectionEnd> {
    return this.#life.ended;
  }

  onToolsChanged(listener: () => void): void {
    this.#life.onToolsChanged(listener);
  }

  onNotification(listener: (n: UpstreamNotification) => void): () => void {
    return this.#life.onNotification(listener);
  }

  capabilities(): Record<string, unknown> | undefined {
    return this.#capabilities;
  }

  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    this.#life.assertOpen(`answer "${method}"`);
    const server = this.#spec.name;
    try {
      return await this.#request(method, params ?? {}, {
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        cancel: true,
        onprogress: options.onprogress,
      }) as Record<string, unknown>;
    } catch (error) {
      throw await this.#failure(error, {
        timeout: (cancelled) =>
          new McpxError(
            "TOOL_TIMEOUT",
            cancelled
              ? `"${method}" to server "${server}" was cancelled`
              : `Server "${server}" did not answer "${method}" within ${options.timeoutMs} ms`,
            { cause: error },
          ),
        ...requesting(method),
      });
    }
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.#life.end) return;
    const message = params === undefined
      ? { jsonrpc: "2.0" as const, method }
      : { jsonrpc: "2.0" as const, method, params };
    await this.#transport.send(message as JSONRPCMessage).catch(() => {});
  }

  async setLoggingLevel(level: string, timeoutMs: number): Promise<void> {
    // A server that declared no logging would refuse the request; it is not asked.
    if (this.#capabilities?.logging === undefined || this.#life.end) return;
    await this.#request("logging/setLevel", { level }, { timeoutMs, cancel: true }).catch(
      () => {},
    );
  }

  close(): Promise<void> {
    this.#closing ??= this.#transport.close().then(() => this.ended).then(() => {});
    return this.#closing;
  }

  /**
   * Sends a request and resolves with its result. Its time running out, or `signal` aborting,
   * rejects with {@linkcode Stopped} and (with `cancel`) tells the server with
   * `notifications/cancelled`; the connection ending rejects every request in flight.
   */
  #request(
    method: string,
    params: Record<string, unknown>,
    options: {
      timeoutMs: number;
      signal?: AbortSignal;
      cancel: boolean;
      onprogress?: (p: Record<string, unknown>) => void;
    },
  ): Promise<unknown> {
    if (options.signal?.aborted) return Promise.reject(new Stopped({ kind: "cancelled" }));
    const id = this.#nextId++;
    if (options.onprogress) {
      // The request's id is its progress token; progress also restarts its time.
      const meta = (params._meta ?? {}) as Record<string, unknown>;
      params = { ...params, _meta: { ...meta, progressToken: id } };
      const listener = options.onprogress;
      this.#progress.set(id, (p) => {
        clearTimeout(timer);
        timer = setTimeout(() => stop({ kind: "timeout" }), options.timeoutMs);
        listener(p);
      });
    }
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    const stop = (s: Stop) => {
      if (!this.#pending.delete(id)) return;
      if (options.cancel && s.kind !== "ended" && !this.#life.end) {
        const reason = s.kind === "timeout" ? "The request timed out" : "The caller cancelled it";
        this.#transport.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason },
        }).catch(() => {});
      }
      reject(new Stopped(s));
    };
    let timer = setTimeout(() => stop({ kind: "timeout" }), options.timeoutMs);
    const onAbort = () => stop({ kind: "cancelled" });
    const done = () => {
      this.#progress.delete(id);
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    this.#pending.set(id, {
      resolve: (value) => {
        done();
        resolve(value);
      },
      reject: (error) => {
        done();
        reject(error);
      },
    });
    options.signal?.addEventListener("abort", onAbort, { once: true });
    this.#transport.send({ jsonrpc: "2.0", id, method, params } as JSONRPCMessage).catch(() => {
      // The process is gone: its end rejects the request, saying how it ended.
      if (!this.#transport.exit && !this.#life.end) stop({ kind: "ended" });
    });
    return promise.finally(() => {
      this.#pending.delete(id);
      done();
    });
  }

  /** Answers one server request through the handler; the connection's end aborts it. */
  #answerServer(
    id: string | number,
    method: string,
    params: unknown,
    handler: NonNullable<ConnectOptions["onServerRequest"]>,
  ): void {
    const abort = new AbortController();
    this.#life.ended.then(() => abort.abort(new Error("the connection ended")));
    // The server's notifications/cancelled for it aborts the signal (see #receive).
    this.#answering.set(id, abort);
    handler(method, params, { signal: abort.signal }).finally(() => this.#answering.delete(id))
      .then(
        (result) => ({ jsonrpc: "2.0" as const, id, result: result ?? {} }),
        (error) => ({
          jsonrpc: "2.0" as const,
          id,
          error: {
            code: typeof (error as { rpcCode?: unknown })?.rpcCode === "number"
              ? (error as { rpcCode: number }).rpcCode
              : INTERNAL_ERROR,
            message: messageOf(error),
          },
        }),
      ).then((answer) => {
        if (!abort.signal.aborted) this.#transport.send(answer as JSONRPCMessage).catch(() => {});
      });
  }

  #receive(message: JSONRPCMessage): void {
    const m = message as {
      id?: string | number;
      method?: string;
      result?: unknown;
      error?: RpcFailure;
    };
    if (typeof m.method === "string") {
      if (m.id === undefined) {
        const params = (message as { params?: Record<string, unknown> }).params;
        if (m.method === "notifications/tools/list_changed") this.#life.toolsChanged();
        else if (m.method === "notifications/progress") {
          const token = params?.progressToken;
          const listener = (typeof token === "number" || typeof token === "string")
            ? this.#progress.get(token)
            : undefined;
          if (listener) {
            const { progressToken: _token, ...progress } = params!;
            listener(progress);
          }
        } else {
          if (m.method === "notifications/cancelled") {
            const id = params?.requestId;
            if (typeof id === "string" || typeof id === "number") {
              const reason = typeof params?.reason === "string" ? params.reason : undefined;
              this.#answering.get(id)?.abort(new RequestWithdrawn(reason));
            }
          }
          this.#life.notify({ method: m.method, ...(params ? { params } : {}) });
        }
        try {
          this.#options.onNotification?.(m.method, params);
        } catch {
          // A listener's failure is its own.
        }
        return;
      }
      const handler = this.#options.onServerRequest;
      if (m.method !== "ping" && handler) {
        this.#answerServer(m.id, m.method, (message as { params?: unknown }).params, handler);
        return;
      }
      // Without a handler it answers ping and refuses every other request.
      const answer = m.method === "ping" ? { jsonrpc: "2.0" as const, id: m.id, result: {} } : {
        jsonrpc: "2.0" as const,
        id: m.id,
        error: { code: METHOD_NOT_FOUND, message: `Method not found: ${m.method}` },
      };
      this.#transport.send(answer as JSONRPCMessage).catch(() => {});
      return;
    }
    if (typeof m.id !== "number") return;
    const pending = this.#pending.get(m.id);
    if (!pending) return;
    this.#pending.delete(m.id);
    if (m.error !== undefined) {
      const e = m.error;
      pending.reject(
        new RpcError({
          code: typeof e?.code === "number" ? e.code : INVALID_REQUEST,
          message: typeof e?.message === "string" ? e.message : "unknown error",
          data: e?.data,
        }),
      );
    } else pending.resolve(m.result);
  }

  /** What is wrong with a result against the tool's output schema, as the SDK checks it. */
  #checkOutput(name: string, result: CallToolEnvelope): RpcFailure | undefined {
    const output = this.#outputs.get(name);
    if (!output || result?.isError) return undefined;
    if (result.structuredContent === undefined) {
      return {
        code: INVALID_REQUEST,
        message: `Tool ${name} has an output schema but did not return structured content`,
      };
    }
    try {
      output.validator ??= new Validator(output.schema as never, "2020-12", false);
      const check = output.validator.validate(result.structuredContent);
      if (check.valid) return undefined;
      const detail = check.errors.map((e) => `${e.instanceLocation}: ${e.error}`).join("; ");
      return {
        code: INVALID_PARAMS,
        message: `Structured content does not match the tool's output schema: ${detail}`,
      };
    } catch {
      return undefined; // A schema that cannot be compiled checks nothing.
    }
  }

  #stopAll(stop: Stop): void {
    for (const controller of this.#answering.values()) controller.abort();
    this.#answering.clear();
    for (const [id, pending] of [...this.#pending]) {
      this.#pending.delete(id);
      pending.reject(new Stopped(stop));
    }
  }

  #finish(end: ConnectionEnd): void {
    if (this.#life.finish(end)) this.#stopAll({ kind: "ended" });
  }

  /** Classifies a failed request. */
  async #failure(
    error: unknown,
    how: Attempt & { timeout: (cancelled: boolean) => McpxError },
  ): Promise<unknown> {
    if (error instanceof McpxError) return error;
    if (error instanceof Stopped) {
      if (error.stop.kind !== "ended") return how.timeout(error.stop.kind === "cancelled");
      // `ended` settles a moment after the pipes close; wait for it so the message can say how
      // the process ended.
      if (!this.#life.end) await waitAtMost(this.ended, 500);
      return this.#life.exited(how.during, error);
    }
    if (error instanceof RpcError) {
      return rpcError(this.#spec.name, how, error.rpc, oversizedData(error.rpc.data), error);
    }
    return error;
  }

  #startFailure(error: unknown, ms: number): string {
    const transport = this.#transport;
    if (transport.exit?.failure !== undefined) return transport.exit.failure;
    if (transport.exit && !transport.exit.closed) {
      return START_REASONS.exited(transport.exit);
    }
    if (error instanceof Stopped) {
      return error.stop.kind === "timeout"
        ? START_REASONS.silent(ms)
        : "the connection closed before initialize completed";
    }
    if (error instanceof RpcError) {
      return `initialize was refused: ${error.rpc.message} (JSON-RPC error ${error.rpc.code})`;
    }
    return messageOf(error);
  }
}

/** A call's `onProgress` as the `onprogress` of a request: reports that are not progress dropped. */
function progressListener(
  onProgress: CallOptions["onProgress"],
): ((p: Record<string, unknown>) => void) | undefined {
  if (!onProgress) return undefined;
  return (p) => {
    const report = progressOf(p);
    if (!report) return;
    try {
      onProgress(report);
    } catch {
      // A listener's failure is its own.
    }
  };
}
