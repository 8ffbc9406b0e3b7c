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
import { describeExit, StdioTransport } from "./stdio_transport.ts";
import type {
  CallToolEnvelope,
  ConnectionEnd,
  McpConnection,
  ServerSpec,
  ToolInfo,
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
}

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
  #end?: ConnectionEnd;
  #resolveEnded!: (end: ConnectionEnd) => void;
  #closing?: Promise<void>;
  #closeRequested = false;

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
    if (transport instanceof CancellableHttpTransport) {
      // Protocol.connect() chains a handler set beforehand; answers retire their abort signals.
      transport.onmessage = (message: JSONRPCMessage) => {
        if (!("method" in message) && message.id !== undefined) transport.settle(message.id);
      };
    }

    const ms = this.#options.startTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      this.#client.connect(transport, { timeout: ms }).then(
        () => ({ ok: true as const }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
      new Promise<{ ok: false; timedOut: true }>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, timedOut: true }), ms);
      }),
    ]);
    clearTimeout(timer);
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
      return tools.map(toToolInfo);
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
