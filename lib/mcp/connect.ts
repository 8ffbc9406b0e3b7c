import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  SseError,
} from "@modelcontextprotocol/client";
import type {
  JSONRPCMessage,
  Transport,
  VersionNegotiationOptions,
} from "@modelcontextprotocol/client";
import { McpxError, messageOf } from "../errors.ts";
import { VERSION } from "../version.ts";
import { waitAtMost } from "./_wait.ts";
import {
  CancellableHttpTransport,
  EndpointUnreachable,
  reportingFetch,
  safeUrl,
} from "./http_transport.ts";
import { describeExit, oversizedData, StdioTransport } from "./stdio_transport.ts";
import type {
  CallToolEnvelope,
  ConnectionEnd,
  McpConnection,
  ServerSpec,
  ToolInfo,
  UpstreamNotification,
} from "./types.ts";

/** Options of {@linkcode connectServer}. */
export interface ConnectOptions {
  /**
   * How long starting may take: spawning (stdio) or reaching the endpoint, plus the
   * `initialize` handshake. Also bounds each `listTools()` walk.
   */
  startTimeoutMs: number;
  /** How mcpx introduces itself to the server (default `mcpx` and its version). */
  clientInfo?: { name: string; version: string };
  /**
   * Abandons the start: the child is killed and the start rejects with the signal's reason
   * (the daemon is stopping, and does not wait out `startTimeoutMs` for a server it will stop).
   */
  signal?: AbortSignal;
  /** stdio: the longest message read from the server (`daemon.maxMessageBytes`; 64 MiB). */
  maxMessageBytes?: number;
  /** Where what goes wrong outside a request (a reply over the limit) is recorded. */
  log?: (
    level: "warn" | "error",
    event: string,
    msg: string,
    attrs: Record<string, unknown>,
  ) => void;
}

/** The setting that bounds one message from a stdio server. */
const MESSAGE_SETTING = "daemon.maxMessageBytes";

/**
 * The only 2026-era revision SDK 2.4 speaks. `force-modern` pins it; the SDK exports no
 * constant for it (`LATEST_PROTOCOL_VERSION` is the latest 2025-era one).
 */
const MODERN_REVISION = "2026-07-28";

/** How long `close()` waits for an HTTP server to acknowledge the session's DELETE. */
const TERMINATE_SESSION_MS = 2000;

/**
 * Maps `spec.protocol` onto the SDK's `versionNegotiation`. The `server/discover` probe of
 * `prefer-modern` gets a third of the start budget: on stdio a probe that goes unanswered means
 * a legacy server, and the `initialize` that follows needs the rest of the time.
 */
export function negotiationFor(
  protocol: ServerSpec["protocol"],
  startTimeoutMs: number,
): VersionNegotiationOptions {
  switch (protocol) {
    case "prefer-modern":
      return { mode: "auto", probe: { timeoutMs: Math.max(1, Math.floor(startTimeoutMs / 3)) } };
    case "force-modern":
      return { mode: { pin: MODERN_REVISION } };
    case "legacy":
    case "force-legacy":
      return { mode: "legacy" };
  }
}

/**
 * Starts (stdio) or reaches (http, sse) one server and completes the MCP handshake.
 *
 * @throws {McpxError} SERVER_START_FAILED with the reason and the child's last stderr lines
 *   (also in `data.stderr`); the child is killed before this rejects.
 * @throws {McpxError} CONFIG_INVALID when the spec lacks its command or URL.
 */
export async function connectServer(
  spec: ServerSpec,
  options: ConnectOptions,
): Promise<McpConnection> {
  const connection = new Connection(spec, options);
  await connection.open();
  return connection;
}

/** One live client; see {@linkcode McpConnection} for the contract. */
class Connection implements McpConnection {
  readonly ended: Promise<ConnectionEnd>;
  protocolVersion?: string;

  readonly #spec: ServerSpec;
  readonly #options: ConnectOptions;
  readonly #transport: Transport;
  readonly #client: Client;
  readonly #listeners = new Set<() => void>();
  readonly #notified = new Set<(n: UpstreamNotification) => void>();
  #end?: ConnectionEnd;
  #resolveEnded!: (end: ConnectionEnd) => void;
  #closing?: Promise<void>;
  #closeRequested = false;
  /**
   * Each listed tool's input schema as it was on the wire. The SDK's parse rebuilds `properties`
   * by assignment, and a property named `__proto__` is lost there; these keep it.
   */
  readonly #schemas = new Map<string, Record<string, unknown>>();

  constructor(spec: ServerSpec, options: ConnectOptions) {
    this.#spec = spec;
    this.#options = options;
    this.ended = new Promise((resolve) => this.#resolveEnded = resolve);
    this.#transport = this.#createTransport();
    this.#client = new Client(options.clientInfo ?? { name: "mcpx", version: VERSION }, {
      // No roots, sampling or elicitation: mcpx cannot answer those requests yet, and a server
      // that believes it can ask would wait on silence.
      capabilities: {},
      versionNegotiation: negotiationFor(spec.protocol, options.startTimeoutMs),
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 0, onChanged: () => this.#toolsChanged() },
      },
    });
    // Transport errors are not fatal (a stray stdout line, a failed DELETE); what is fatal
    // surfaces as a closed connection or a rejected request, which are reported there.
    this.#client.onerror = () => {};
    // Whatever else the server says (log messages, prompt and resource list changes) goes to
    // whoever listens: a gateway relays it to its own clients.
    this.#client.fallbackNotificationHandler = (n) => {
      this.#notify({ method: n.method, params: n.params as Record<string, unknown> | undefined });
      return Promise.resolve();
    };
  }

  #notify(n: UpstreamNotification): void {
    for (const listener of this.#notified) {
      try {
        listener(n);
      } catch {
        // One listener's failure is its own.
      }
    }
  }

  onNotification(listener: (n: UpstreamNotification) => void): () => void {
    this.#notified.add(listener);
    return () => this.#notified.delete(listener);
  }

  capabilities(): Record<string, unknown> | undefined {
    return this.#client.getServerCapabilities() as Record<string, unknown> | undefined;
  }

  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: {
      timeoutMs: number;
      signal?: AbortSignal;
      onprogress?: (progress: Record<string, unknown>) => void;
    },
  ): Promise<Record<string, unknown>> {
    this.#assertOpen(`answer "${method}"`);
    const server = this.#spec.name;
    try {
      const result = await this.#client.request(
        { method: method as "ping", ...(params ? { params } : {}) },
        {
          timeout: options.timeoutMs,
          signal: options.signal,
          ...(options.onprogress
            ? {
              onprogress: (p: unknown) => options.onprogress!(p as Record<string, unknown>),
              resetTimeoutOnProgress: true,
            }
            : {}),
        },
      );
      return result as Record<string, unknown>;
    } catch (error) {
      throw await this.#failure(error, {
        timeout: () =>
          new McpxError(
            "TOOL_TIMEOUT",
            options.signal?.aborted
              ? `"${method}" to server "${server}" was cancelled`
              : `Server "${server}" did not answer "${method}" within ${options.timeoutMs} ms`,
            { cause: error },
          ),
        during: `while answering "${method}"`,
        rejected: (message) => `Server "${server}" refused "${method}": ${message}`,
      });
    }
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
        this.#finish({
          code: exit.code,
          signal: exit.signal,
          reason: exit.closed ? "closed by mcpx" : `the process ${describeExit(exit)}`,
        })
      );
    } else {
      this.#client.onclose = () =>
        this.#finish({
          code: null,
          signal: null,
          reason: this.#closeRequested ? "closed by mcpx" : "the connection closed",
        });
    }
    // Protocol.connect() chains a handler set beforehand. Over HTTP answers retire their abort
    // signals; on every transport the input schemas are kept as the server sent them.
    transport.onmessage = (message: JSONRPCMessage) => {
      if ("method" in message) return;
      if (transport instanceof CancellableHttpTransport && message.id !== undefined) {
        transport.settle(message.id);
      }
      this.#keepSchemas(message);
    };

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
      throw signal!.reason instanceof Error
        ? signal!.reason
        : new McpxError("SERVER_START_FAILED", `Start of server "${this.#spec.name}" abandoned`);
    }
    if (outcome.ok) {
      this.protocolVersion = this.#client.getNegotiatedProtocolVersion();
      return;
    }
    const error = "error" in outcome ? outcome.error : undefined;
    if (error instanceof McpxError) {
      await this.close();
      throw error;
    }
    // The child may be exiting right now; its status and last stderr lines explain more than
    // "connection closed" does.
    if (transport instanceof StdioTransport && !transport.exit) {
      await waitAtMost(transport.exited, 200);
    }
    const reason = this.#startFailure(error, ms);
    await this.close();
    const stderr = this.stderrTail();
    throw new McpxError(
      "SERVER_START_FAILED",
      `Cannot start server "${this.#spec.name}": ${reason}${tailSuffix(stderr)}`,
      { cause: error, data: { stderr } },
    );
  }

  async listTools(): Promise<ToolInfo[]> {
    this.#assertOpen("list its tools");
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
        timeout: () =>
          new McpxError(
            "TOOL_TIMEOUT",
            `Server "${this.#spec.name}" did not list its tools within ${ms} ms`,
            { cause: error },
          ),
        during: "while listing its tools",
        rejected: (message) => `Server "${this.#spec.name}" refused to list its tools: ${message}`,
      });
    }
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<CallToolEnvelope> {
    this.#assertOpen(`call "${name}"`);
    const server = this.#spec.name;
    try {
      // The SDK's own timeout and signal: either one sends notifications/cancelled for the
      // request (and, over HTTP, aborts the POST that carries it; see CancellableHttpTransport).
      const result = await this.#client.callTool({ name, arguments: args }, {
        timeout: options.timeoutMs,
        signal: options.signal,
      });
      return result as CallToolEnvelope;
    } catch (error) {
      throw await this.#failure(error, {
        timeout: () =>
          options.signal?.aborted
            ? new McpxError(
              "TOOL_TIMEOUT",
              `Call to "${name}" on server "${server}" was cancelled`,
              {
                cause: error,
                hint: "",
              },
            )
            : new McpxError(
              "TOOL_TIMEOUT",
              `Tool "${name}" on server "${server}" did not answer within ${options.timeoutMs} ms`,
              { cause: error },
            ),
        during: `during the call to "${name}"`,
        rejected: (message) => `Server "${server}" refused the call to "${name}": ${message}`,
      });
    }
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

  onToolsChanged(listener: () => void): void {
    this.#listeners.add(listener);
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
      this.#finish({ code: null, signal: null, reason: "closed by mcpx" });
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
        onOversized: (r) => {
          // Once when it passes the limit (if its id came first) and once when it ends.
          if (!r.ended && r.id !== undefined) return;
          this.#options.log?.(
            "error",
            "server.message_too_large",
            `Server "${spec.name}" wrote a message of ${r.bytes} bytes, over the ${r.limit}-byte limit (${MESSAGE_SETTING}); it was dropped${
              r.id === undefined
                ? " and no request could be told from it"
                : `, and request ${JSON.stringify(r.id)} failed`
            }`,
            { server: spec.name, bytes: r.bytes, limit: r.limit, requestId: r.id },
          );
        },
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
      fetch: reportingFetch(safeUrl(url)),
    };
    return spec.transport === "sse"
      ? new SSEClientTransport(url, options)
      : new CancellableHttpTransport(url, options);
  }

  #toolsChanged(): void {
    this.#notify({ method: "notifications/tools/list_changed" });
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // One listener's failure is its own; the others still hear about the change.
      }
    }
  }

  #finish(end: ConnectionEnd): void {
    if (this.#end) return;
    this.#end = end;
    this.#resolveEnded(end);
  }

  #assertOpen(attempt: string): void {
    if (this.#end) throw this.#exited(`cannot ${attempt}`);
  }

  /** SERVER_EXITED for a connection that has ended, with the child's last stderr lines. */
  #exited(during: string, cause?: unknown): McpxError {
    const end = this.#end;
    const how = end ? end.reason : "the connection closed";
    return new McpxError(
      "SERVER_EXITED",
      `Server "${this.#spec.name}" ended ${during}: ${how}${tailSuffix(this.stderrTail())}`,
      { cause, data: { stderr: this.stderrTail(), end } },
    );
  }

  /** Classifies a failed request; done here, where the SDK's error classes are known. */
  async #failure(
    error: unknown,
    how: {
      timeout: () => McpxError;
      during: string;
      rejected?: (message: string) => string;
    },
  ): Promise<unknown> {
    if (error instanceof McpxError) return error;
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      return how.timeout();
    }
    if (error instanceof EndpointUnreachable) {
      // Nothing answers at the endpoint any more: end this connection so that the pool starts
      // a fresh one instead of reusing a dead one.
      this.#finish({ code: null, signal: null, reason: `${error.where} is unreachable` });
      void this.close();
      return this.#exited(how.during, error);
    }
    if (
      error instanceof SdkHttpError && error.status === 404 &&
      this.#transport instanceof CancellableHttpTransport &&
      this.#transport.sessionId !== undefined
    ) {
      // 404 on a session is the server saying the session is gone (it restarted, or expired
      // it); the connection is over, and the next one must initialize again.
      this.#finish({ code: null, signal: null, reason: "the server ended the session (HTTP 404)" });
      void this.close();
      return this.#exited(how.during, error);
    }
    if (
      this.#end ||
      (error instanceof SdkError &&
        (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected))
    ) {
      // `ended` settles a moment after the transport reports the close; wait for it so the
      // message can say how the process ended.
      if (!this.#end) await waitAtMost(this.ended, 500);
      return this.#exited(how.during, error);
    }
    if (error instanceof SdkHttpError) {
      return new McpxError(
        "TOOL_ERROR",
        `Server "${this.#spec.name}" answered HTTP ${error.status} ${how.during}`,
        { cause: error, data: { status: error.status } },
      );
    }
    if (error instanceof ProtocolError) {
      const big = oversizedData(error.data);
      if (big) {
        return new McpxError(
          "MESSAGE_TOO_LARGE",
          `Server "${this.#spec.name}" replied ${how.during} with a message over the ${big.limit}-byte limit (${MESSAGE_SETTING}); the reply was dropped`,
          {
            cause: error,
            hint: `Raise ${MESSAGE_SETTING} (MCPX_DAEMON_MAX_MESSAGE_BYTES), or ask for less`,
          },
        );
      }
      const message = `${error.message} (JSON-RPC error ${error.code})`;
      return new McpxError("TOOL_ERROR", how.rejected?.(message) ?? message, {
        cause: error,
        data: { rpcCode: error.code, rpcData: error.data },
      });
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
    if (transport instanceof StdioTransport && transport.exit && !transport.exit.closed) {
      return `the process ${describeExit(transport.exit)} before initialize completed`;
    }
    if (
      error === undefined ||
      (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
    ) {
      return `no answer to initialize within ${ms} ms`;
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

/** The last stderr lines as a message suffix: `; stderr: a | b`, at most about 1000 chars. */
function tailSuffix(lines: string[]): string {
  const kept = lines.filter((line) => line.trim() !== "").slice(-10);
  if (kept.length === 0) return "";
  let text = kept.join(" | ");
  // The end of stderr is what explains a failure; cut from the front.
  if (text.length > 1000) text = `…${text.slice(-1000)}`;
  return `; stderr: ${text}`;
}

function toToolInfo(tool: {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}): ToolInfo {
  const info: ToolInfo = {
    name: tool.name,
    inputSchema: tool.inputSchema as Record<string, unknown>,
  };
  if (tool.title !== undefined) info.title = tool.title;
  if (tool.description !== undefined) info.description = tool.description;
  if (tool.outputSchema !== undefined) {
    info.outputSchema = tool.outputSchema as Record<string, unknown>;
  }
  if (tool.annotations !== undefined) {
    info.annotations = tool.annotations as Record<string, unknown>;
  }
  return info;
}
