import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  SseError,
} from "@modelcontextprotocol/client";
import { withdrawable } from "./withdrawn.ts";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { McpxError, messageOf } from "../errors.ts";
import { VERSION } from "../version.ts";
import { waitAtMost } from "./_wait.ts";
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
  MODERN_REVISION,
  negotiationFor,
  progressOf,
  requesting,
  rpcError,
  START_REASONS,
  startFailed,
  toToolInfo,
} from "./_connection.ts";
import {
  CancellableHttpTransport,
  EndpointUnreachable,
  reportingFetch,
  safeUrl,
} from "./http_transport.ts";
import { oauthFetch } from "./oauth/mod.ts";
import { describeEnd, oversizedData, StdioTransport } from "./stdio_transport.ts";
import type {
  CallOptions,
  CallToolEnvelope,
  ConnectionEnd,
  McpConnection,
  RequestOptions,
  ServerSpec,
  ToolInfo,
  UpstreamNotification,
} from "./types.ts";

/** Where a 2026-07-28 request carries the log level it wants (there is no logging/setLevel). */
const LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel";

/**
 * A Standard Schema that takes any object as it came: what `request(…, { raw: true })` hands the
 * SDK's `request()` in place of the method's own result schema.
 */
const ANY_OBJECT = {
  "~standard": {
    version: 1,
    vendor: "mcpx",
    validate: (value: unknown) =>
      value !== null && typeof value === "object" && !Array.isArray(value)
        ? { value }
        : { issues: [{ message: "the result is not an object" }] },
  },
};

/** The 2026-07-28 tasks extension's id, and the `_meta` key of a request's client capabilities. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities";

/**
 * Keeps the CreateTaskResults (`resultType: "task"`) of the requests marked with a nonce: the
 * SDK's client (2.4) decodes only complete and input_required results and rejects the rest, so
 * the answer is taken from the wire as it passes. The nonce is a `_meta` key of mcpx's own, read
 * and removed on the way out (the server never sees it), that ties the request's JSON-RPC id to
 * the caller.
 */
class TaskCapture {
  static readonly KEY = "dev.mcpx/task-nonce";
  readonly #ids = new Map<string | number, string>();
  readonly #kept = new Map<string, Record<string, unknown>>();

  watch(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const params = (message as { params?: { _meta?: Record<string, unknown> } }).params;
      const nonce = params?._meta?.[TaskCapture.KEY];
      if (typeof nonce === "string" && "id" in message && message.id !== undefined) {
        this.#ids.set(message.id, nonce);
        const { [TaskCapture.KEY]: _, ...meta } = params!._meta!;
        message = { ...message, params: { ...params, _meta: meta } } as JSONRPCMessage;
      }
      return send(message, options);
    };
  }

  heard(message: JSONRPCMessage): void {
    if (!("id" in message) || message.id === undefined || !this.#ids.has(message.id)) return;
    const nonce = this.#ids.get(message.id)!;
    this.#ids.delete(message.id);
    const result = (message as { result?: Record<string, unknown> }).result;
    if (result?.resultType === "task") this.#kept.set(nonce, result);
  }

  /** The CreateTaskResult kept for `nonce`, once; whatever else is kept for it is dropped. */
  take(nonce: string): Record<string, unknown> | undefined {
    const kept = this.#kept.get(nonce);
    this.#kept.delete(nonce);
    for (const [id, n] of this.#ids) if (n === nonce) this.#ids.delete(id);
    return kept;
  }
}

/** How long `close()` waits for an HTTP server to acknowledge the session's DELETE. */
const TERMINATE_SESSION_MS = 2000;

/**
 * Starts (stdio) or reaches (http, sse) one server through the SDK's `Client` and completes the
 * MCP handshake; see `connectServer` in connect.ts, which picks this or mcpx's own stdio client.
 */
export async function connectSdk(
  spec: ServerSpec,
  options: ConnectOptions,
): Promise<McpConnection> {
  const connection = new Connection(spec, options);
  await connection.open();
  return connection;
}

/** One live client; see {@linkcode McpConnection} for the contract. */
class Connection implements McpConnection {
  protocolVersion?: string;

  readonly #spec: ServerSpec;
  readonly #options: ConnectOptions;
  readonly #transport: Transport;
  readonly #client: Client;
  readonly #life: ConnectionLife;
  #closing?: Promise<void>;
  #closeRequested = false;
  /**
   * Each listed tool's input schema as it was on the wire. The SDK's parse rebuilds `properties`
   * by assignment, and a property named `__proto__` is lost there; these keep it.
   */
  readonly #schemas = new Map<string, Record<string, unknown>>();
  /** 2026-07-28: the level asked for (`servers.logLevel`), sent in every request's `_meta`. */
  #logLevel?: string;
  /** The progress listeners of `request()`s in flight, by the token mcpx gave each. */
  readonly #progress = new Map<string, (p: Record<string, unknown>) => void>();
  #progressSeq = 0;
  /** 2026-07-28 CreateTaskResults, which the SDK's client (2.4) refuses, kept for the caller. */
  readonly #taskCapture = new TaskCapture();

  constructor(spec: ServerSpec, options: ConnectOptions) {
    this.#spec = spec;
    this.#options = options;
    this.#life = new ConnectionLife(spec.name, () => this.stderrTail());
    this.#transport = this.#createTransport();
    const notify = (method: string, params: unknown) => {
      try {
        options.onNotification?.(method, params);
      } catch {
        // A listener's failure is its own.
      }
    };
    this.#client = new Client(options.clientInfo ?? { name: "mcpx", version: VERSION }, {
      // Declared here, at construction (a handler installed after the handshake is one the server
      // was never told about), and only where a handler answers them: a server that believes it
      // can ask would otherwise wait on silence.
      // Under force-modern the era is known: its shape. prefer-modern's probe and fallback
      // `initialize` share one object with the 2025 shape (docs/protocol.md).
      capabilities: options.onServerRequest
        ? declaredCapabilities(options.capabilities, spec.protocol === "force-modern")
        : {},
      // 2026-07-28: an input_required result is answered through the same handlers as a
      // 2025-era server request, and resent with inputResponses and the requestState exactly as
      // received, at most elicit.inputRounds times.
      inputRequired: { autoFulfill: true, maxRounds: options.inputRounds ?? 8 },
      versionNegotiation: negotiationFor(spec.protocol, options.startTimeoutMs),
      listChanged: {
        tools: {
          autoRefresh: false,
          debounceMs: 0,
          onChanged: () => {
            this.#life.toolsChanged();
            notify("notifications/tools/list_changed", undefined);
          },
        },
      },
    });
    // Transport errors are not fatal (a stray stdout line, a failed DELETE); what is fatal
    // surfaces as a closed connection or a rejected request, which are reported there.
    this.#client.onerror = () => {};
    const handler = options.onServerRequest;
    if (handler) {
      const methods = [
        ...(options.capabilities?.elicitation ? ["elicitation/create" as const] : []),
        ...(options.capabilities?.sampling ? ["sampling/createMessage" as const] : []),
        ...(options.capabilities?.roots ? ["roots/list" as const] : []),
      ];
      for (const method of methods) {
        this.#client.setRequestHandler(
          method,
          ((request: { params?: unknown }, ctx: { mcpReq?: { signal?: AbortSignal } }) =>
            handler(method, request.params, {
              signal: withdrawable(ctx?.mcpReq?.signal),
            })) as never,
        );
      }
    }
    // Whatever else the server says (log messages, prompt and resource list changes) goes to
    // whoever listens: the connection's listeners (a gateway relays it to its own clients) and
    // the daemon's onNotification.
    this.#client.fallbackNotificationHandler = (n) => {
      const params = (n as { params?: unknown }).params;
      this.#life.notify({
        method: n.method,
        params: params as Record<string, unknown> | undefined,
      });
      notify(n.method, params);
      return Promise.resolve();
    };
  }

  get pid(): number | undefined {
    return this.#transport instanceof StdioTransport ? this.#transport.pid : undefined;
  }

  stderrTail(): string[] {
    return this.#transport instanceof StdioTransport ? this.#transport.stderrTail() : [];
  }

  async open(): Promise<void> {
    const transport = this.#transport;
    if (transport instanceof StdioTransport) {
      transport.exited.then((exit) =>
        this.#life.finish({
          code: exit.code,
          signal: exit.signal,
          reason: describeEnd(exit),
        })
      );
    } else {
      this.#client.onclose = () =>
        this.#life.finish({
          code: null,
          signal: null,
          reason: this.#closeRequested ? "closed by mcpx" : "the connection closed",
        });
    }
    // Protocol.connect() chains a handler set beforehand. Over HTTP answers retire their abort
    // signals; on every transport the input schemas are kept as the server sent them.
    transport.onmessage = (message: JSONRPCMessage) => {
      if ("method" in message) {
        // Progress of a relayed request, heard in wire order: the SDK's client on a 2026-07-28
        // link drops one that comes just before its result.
        if (message.method === "notifications/progress") {
          const params = (message as { params?: Record<string, unknown> }).params;
          const token = params?.progressToken;
          if (typeof token === "string") this.#progress.get(token)?.(params!);
        }
        return;
      }
      if (transport instanceof CancellableHttpTransport && message.id !== undefined) {
        transport.settle(message.id);
      }
      this.#keepSchemas(message);
      this.#taskCapture.heard(message);
    };
    this.#taskCapture.watch(transport);

    const ms = this.#options.startTimeoutMs;
    const signal = this.#options.signal;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const outcome = await Promise.race([
      this.#client.connect(transport, { timeout: ms }).then(
        () => ({ ok: true as const }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
      new Promise<{ ok: false; timedOut: true }>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, timedOut: true }), ms);
      }),
      new Promise<{ ok: false; aborted: true }>((resolve) => {
        onAbort = () => resolve({ ok: false, aborted: true });
        if (signal?.aborted) onAbort();
        else signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort!);
    if ("aborted" in outcome) {
      await this.close();
      throw abandoned(this.#spec.name, signal!);
    }
    if (outcome.ok) {
      this.protocolVersion = this.#client.getNegotiatedProtocolVersion();
      if (transport instanceof StdioTransport) inOrder(transport);
      return;
    }
    const error = "error" in outcome ? outcome.error : undefined;
    // mcpx's own refusal (no OAuth token, an unsafe token file), also where the SDK wrapped it
    // (the 2026-07-28 `server/discover` probe): its code and one line, not a start failure.
    const own = ownError(error);
    if (own) {
      await this.close();
      throw own;
    }
    // The child may be exiting right now; its status and last stderr lines explain more than
    // "connection closed" does.
    if (transport instanceof StdioTransport && !transport.exit) {
      await waitAtMost(transport.exited, 200);
    }
    const reason = this.#startFailure(error, ms);
    await this.close();
    throw startFailed(this.#spec.name, reason, this.stderrTail(), error);
  }

  async listTools(): Promise<ToolInfo[]> {
    this.#life.assertOpen("list its tools");
    const ms = this.#options.startTimeoutMs;
    try {
      // The SDK walks `nextCursor` itself when no cursor is given (up to 64 pages), and keeps
      // the result for its output-schema checks; "refresh" makes every call ask the server.
      const { tools } = await this.#client.listTools(undefined, {
        timeout: ms,
        cacheMode: "refresh",
      });
      return tools.map((tool) => {
        const info = toToolInfo(tool);
        const wire = this.#schemas.get(tool.name);
        if (wire) info.inputSchema = wire;
        return info;
      });
    } catch (error) {
      throw await this.#failure(error, {
        timeout: () => listTimeout(this.#spec.name, ms, error),
        ...LISTING,
      });
    }
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolEnvelope> {
    this.#life.assertOpen(`call "${name}"`);
    const server = this.#spec.name;
    try {
      // The SDK's own timeout and signal: either one sends notifications/cancelled for the
      // request (and, over HTTP, aborts the POST that carries it; see CancellableHttpTransport).
      const onProgress = options.onProgress;
      const result = await this.#client.callTool({ name, arguments: args, ...this.#meta() }, {
        timeout: options.timeoutMs,
        signal: options.signal,
        onprogress: onProgress
          ? (p: unknown) => {
            const report = progressOf(p);
            // The SDK reports its own input_required rounds (2026-07-28) as progress: those are
            // mcpx answering, not the server working, and are not passed on.
            if (!report || report.message?.startsWith("Fulfilling input required by ")) return;
            try {
              onProgress(report);
            } catch {
              // A listener's failure is its own.
            }
          }
          : undefined,
      });
      return result as CallToolEnvelope;
    } catch (error) {
      throw await this.#failure(error, {
        timeout: () =>
          callTimeout(server, name, options.timeoutMs, options.signal?.aborted === true, error),
        ...calling(name),
      });
    }
  }

  /** The `_meta` that carries the log level of a 2026-07-28 request, merged with `params`' own. */
  #meta(params?: Record<string, unknown>): { _meta?: Record<string, unknown> } {
    if (this.#logLevel === undefined) return {};
    const own = params?._meta as Record<string, unknown> | undefined;
    return { _meta: { [LOG_LEVEL_META_KEY]: this.#logLevel, ...own } };
  }

  #keepSchemas(message: JSONRPCMessage): void {
    const tools = (message as { result?: { tools?: unknown } }).result?.tools;
    if (!Array.isArray(tools)) return;
    for (const tool of tools) {
      const schema = tool?.inputSchema;
      if (typeof tool?.name === "string" && schema && typeof schema === "object") {
        this.#schemas.set(tool.name, schema);
      }
    }
  }

  get ended(): Promise<ConnectionEnd> {
    return this.#life.ended;
  }

  onToolsChanged(listener: () => void): void {
    this.#life.onToolsChanged(listener);
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.#life.end) return;
    if (method === "notifications/roots/list_changed") {
      await this.#client.sendRootsListChanged().catch(() => {});
      return;
    }
    await this.#client.notification({ method, params } as never).catch(() => {});
  }

  async setLoggingLevel(level: string, timeoutMs: number): Promise<void> {
    // A server that declared no logging would refuse the request; it is not asked.
    if (this.#client.getServerCapabilities()?.logging === undefined || this.#life.end) return;
    if (this.protocolVersion === MODERN_REVISION) {
      // 2026-07-28 has no logging/setLevel: the level rides each request's envelope (the SDK's
      // Client does not add it itself), and a server logs only for requests that carry it.
      this.#logLevel = level;
      return;
    }
    await this.#client.setLoggingLevel(level as "info", { timeout: timeoutMs }).catch(() => {});
  }

  onNotification(listener: (n: UpstreamNotification) => void): () => void {
    return this.#life.onNotification(listener);
  }

  capabilities(): Record<string, unknown> | undefined {
    return this.#client.getServerCapabilities() as Record<string, unknown> | undefined;
  }

  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    this.#life.assertOpen(`answer "${method}"`);
    const server = this.#spec.name;
    const token = options.onprogress ? `mcpx-progress-${++this.#progressSeq}` : undefined;
    // With progress, the time runs out only after timeoutMs without a report (mcpx's own timer:
    // the SDK's client never sees these reports).
    const own = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        own.abort(new Error("timeout"));
      }, options.timeoutMs);
    };
    if (token) {
      const meta = (params?._meta ?? {}) as Record<string, unknown>;
      params = { ...params, _meta: { ...meta, progressToken: token } };
      this.#progress.set(token, (p) => {
        arm();
        const { progressToken: _t, ...rest } = p;
        options.onprogress!(rest);
      });
      arm();
    }
    // 2026-07-28: the tasks extension declared for this request alone (its `_meta` client
    // capabilities win over the envelope's), and the CreateTaskResult it may bring kept.
    const nonce = options.taskExtension ? crypto.randomUUID() : undefined;
    if (nonce) {
      const declared = this.#options.onServerRequest
        ? declaredCapabilities(this.#options.capabilities, true)
        : {};
      params = {
        ...params,
        _meta: {
          ...(params?._meta as Record<string, unknown> | undefined),
          [CLIENT_CAPABILITIES_META]: {
            ...declared,
            extensions: { [TASKS_EXTENSION]: {} },
          },
          [TaskCapture.KEY]: nonce,
        },
      };
    }
    try {
      // 2026-07-28: the log level rides the request's `_meta` (see setLoggingLevel).
      const sent = params || this.#logLevel ? { ...params, ...this.#meta(params) } : undefined;
      const request = { method: method as "ping", ...(sent ? { params: sent } : {}) };
      const result = await (this.#client.request as (...a: unknown[]) => Promise<unknown>).call(
        this.#client,
        request,
        ...(options.raw || nonce ? [ANY_OBJECT] : []),
        {
          timeout: token ? 2 ** 31 - 1 : options.timeoutMs,
          signal: token
            ? (options.signal ? AbortSignal.any([options.signal, own.signal]) : own.signal)
            : options.signal,
          ...(options.allowInputRequired ? { allowInputRequired: true } : {}),
        },
      );
      if (nonce) this.#taskCapture.take(nonce);
      return result as Record<string, unknown>;
    } catch (error) {
      const task = nonce ? this.#taskCapture.take(nonce) : undefined;
      if (task) return task;
      if (timedOut && !options.signal?.aborted) {
        throw new McpxError(
          "TOOL_TIMEOUT",
          `Server "${server}" did not answer "${method}" within ${options.timeoutMs} ms`,
          { cause: error },
        );
      }
      throw await this.#failure(error, {
        timeout: () =>
          new McpxError(
            "TOOL_TIMEOUT",
            options.signal?.aborted
              ? `"${method}" to server "${server}" was cancelled`
              : `Server "${server}" did not answer "${method}" within ${options.timeoutMs} ms`,
            { cause: error },
          ),
        ...requesting(method),
      });
    } finally {
      clearTimeout(timer);
      if (token) this.#progress.delete(token);
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#closeRequested = true;
    const transport = this.#transport;
    if (transport instanceof CancellableHttpTransport && transport.sessionId !== undefined) {
      // End the session server-side (DELETE with Mcp-Session-Id) before the transport goes:
      // without it the SDK's client may keep the process alive. A server that refuses DELETE
      // (405, or any error) or never answers does not hold up closing.
      await waitAtMost(transport.terminateSession(), TERMINATE_SESSION_MS);
    }
    await this.#client.close().catch(() => {});
    if (transport instanceof StdioTransport) {
      // Client.close() closes the transport, but make sure the group is gone even if it didn't.
      await transport.close();
      await this.ended;
    } else {
      this.#life.finish({ code: null, signal: null, reason: "closed by mcpx" });
    }
  }

  #createTransport(): Transport {
    const spec = this.#spec;
    if (spec.transport === "stdio") {
      if (!spec.command) {
        throw new McpxError("CONFIG_INVALID", `Server "${spec.name}" has no "command" to start`);
      }
      return new StdioTransport({
        name: spec.name,
        command: spec.command,
        args: spec.args,
        env: spec.env,
        cwd: spec.cwd,
        maxMessageBytes: this.#options.maxMessageBytes,
        onOversized: logOversized(spec.name, this.#options.log),
      });
    }
    let url: URL;
    try {
      url = new URL(spec.url ?? "");
    } catch {
      throw new McpxError("CONFIG_INVALID", `Server "${spec.name}" has no valid "url"`);
    }
    const options = {
      requestInit: { headers: spec.headers },
      fetch: spec.oauth
        ? oauthFetch(spec.oauth, reportingFetch(safeUrl(url)))
        : reportingFetch(safeUrl(url)),
    };
    return spec.transport === "sse"
      ? new SSEClientTransport(url, options)
      : new CancellableHttpTransport(url, options);
  }

  /** Classifies a failed request; done here, where the SDK's error classes are known. */
  async #failure(
    error: unknown,
    how: Attempt & { timeout: () => McpxError },
  ): Promise<unknown> {
    if (error instanceof McpxError) return error;
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      return how.timeout();
    }
    if (error instanceof EndpointUnreachable) {
      // Nothing answers at the endpoint any more: end this connection so that the pool starts
      // a fresh one instead of reusing a dead one.
      this.#life.finish({ code: null, signal: null, reason: `${error.where} is unreachable` });
      void this.close();
      return this.#life.exited(how.during, error);
    }
    if (
      error instanceof SdkHttpError && error.status === 404 &&
      this.#transport instanceof CancellableHttpTransport &&
      this.#transport.sessionId !== undefined
    ) {
      // 404 on a session is the server saying the session is gone (it restarted, or expired
      // it); the connection is over, and the next one must initialize again.
      this.#life.finish({
        code: null,
        signal: null,
        reason: "the server ended the session (HTTP 404)",
      });
      void this.close();
      return this.#life.exited(how.during, error);
    }
    if (
      this.#life.end ||
      (error instanceof SdkError &&
        (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected))
    ) {
      // `ended` settles a moment after the transport reports the close; wait for it so the
      // message can say how the process ended.
      if (!this.#life.end) await waitAtMost(this.ended, 500);
      return this.#life.exited(how.during, error);
    }
    if (error instanceof SdkHttpError) {
      return new McpxError(
        "TOOL_ERROR",
        `Server "${this.#spec.name}" answered HTTP ${error.status} ${how.during}`,
        { cause: error, data: { status: error.status } },
      );
    }
    if (error instanceof ProtocolError) {
      return rpcError(this.#spec.name, how, error, oversizedData(error.data), error);
    }
    const refused = refusal(error);
    if (refused) {
      // 2026-07-28: the server's input_required asked for something mcpx's handler refused (a
      // declined sampling request, a request over the size limit). In the 2025 era the refusal
      // goes to the server as a JSON-RPC error and the call fails there; here the client answers
      // the round itself, so the call fails the same way, as the server's error would.
      return new McpxError(
        "TOOL_ERROR",
        how.rejected(this.#spec.name, `mcpx refused what it asked for: ${refused.message}`),
        { cause: error, data: { rpcCode: refused.rpcCode } },
      );
    }
    if (error instanceof SdkError) {
      return new McpxError(
        "TOOL_ERROR",
        `Server "${this.#spec.name}" answered ${how.during}, but: ${error.message}`,
        { cause: error },
      );
    }
    return error;
  }

  #startFailure(error: unknown, ms: number): string {
    const transport = this.#transport;
    if (transport instanceof StdioTransport && transport.exit?.failure !== undefined) {
      return transport.exit.failure;
    }
    if (transport instanceof StdioTransport && transport.exit && !transport.exit.closed) {
      return START_REASONS.exited(transport.exit);
    }
    if (
      error === undefined ||
      (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
    ) {
      return START_REASONS.silent(ms);
    }
    if (error instanceof EndpointUnreachable) return `cannot reach ${error.where}`;
    const where = safeUrl(this.#spec.url ?? "");
    if (error instanceof SdkHttpError) {
      const refused = error.status === 401 || error.status === 403
        ? " (the credentials were refused or are missing)"
        : "";
      return `${where} answered HTTP ${error.status}${refused}`;
    }
    if (error instanceof SseError) {
      // The event stream never opened; the eventsource library's text repeats the URL.
      return error.code
        ? `${where} answered HTTP ${error.code} when opening the event stream`
        : `cannot open the event stream at ${where}`;
    }
    const message = messageOf(error);
    // SDK messages can quote the URL; never let a query-string credential through.
    return this.#spec.url ? message.replaceAll(this.#spec.url, where) : message;
  }
}

/**
 * Delivers the stdio transport's messages one microtask apart, in order. The SDK's `Client` runs a
 * notification's handler a microtask after it arrives but settles a response at once, so
 * `notifications/progress` read in the same chunk as the call's reply (a fast server on stdio)
 * would find its call already settled and be dropped; one hop per message lets each
 * notification's handler run before the next message is seen. Every hop is a microtask, so the
 * queue is drained before the transport can report its close.
 */
function inOrder(transport: StdioTransport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  let chain = Promise.resolve();
  transport.onmessage = (message) => {
    chain = chain.then(() => deliver(message)).catch((error) =>
      transport.onerror?.(error instanceof Error ? error : new Error(String(error)))
    );
  };
}

/**
 * The refusal of a server's request by mcpx's own handler (the question broker's
 * `RequestRefused`, which carries the JSON-RPC code it is sent with), where `error` is or wraps one.
 */
function refusal(error: unknown): { message: string; rpcCode: number } | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { rpcCode?: unknown }).rpcCode;
    if (typeof code === "number" && !(e instanceof McpxError)) {
      return { message: e.message, rpcCode: code };
    }
    e = e.cause;
  }
  return undefined;
}

/** The McpxError `error` is or was caused by (the SDK keeps the cause when it wraps one). */
function ownError(error: unknown): McpxError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    if (e instanceof McpxError) return e;
    e = e.cause;
  }
  return undefined;
}
