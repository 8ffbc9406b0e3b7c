import type { OAuthUse } from "./oauth/mod.ts";

/** How a client speaks to one server, resolved from its configuration entry. */
export interface ServerSpec {
  /** The key under `mcpServers`. */
  name: string;
  transport: "stdio" | "http" | "sse";
  /** stdio: the program, its arguments, its whole environment and working directory. */
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** http/sse: the endpoint and the headers to send (credentials already expanded). */
  url?: string;
  headers: Record<string, string>;
  /**
   * The working directory of the caller whose call starts it: its MCP root when the
   * configuration names none (lib/daemon/client_half.ts).
   */
  callerCwd?: string;
  /**
   * http/sse: where stored OAuth tokens for this endpoint are looked up and refreshed
   * (lib/mcp/oauth/); absent when the entry sets its own `Authorization` header.
   */
  oauth?: OAuthUse;
  /** Protocol era; a server with none configured gets `defaultProtocol()` (lib/config/servers.ts). */
  protocol: "legacy" | "prefer-modern" | "force-legacy" | "force-modern";
}

/** One tool as a server lists it. */
export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** 2025-11-25: whether the tool may run as a task (`taskSupport`: forbidden, optional, required). */
  execution?: Record<string, unknown>;
}

/** The MCP `CallToolResult` envelope, as received. */
export interface CallToolEnvelope {
  content?: {
    type: string;
    text?: string;
    data?: string;
    mimeType?: string;
    [k: string]: unknown;
  }[];
  structuredContent?: unknown;
  isError?: boolean;
  [k: string]: unknown;
}

/** Why a connection ended. */
export interface ConnectionEnd {
  code: number | null;
  signal: string | null;
  reason: string;
}

/** The options of one `callTool`. */
export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Asks for progress (a `progressToken` is sent) and hears each report. */
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
}

/** A notification a server sent, as it came. */
export interface UpstreamNotification {
  method: string;
  params?: Record<string, unknown>;
}

/** A live, initialised client connection to one server process or endpoint. */
/** What a daemon hands its successor of one stdio connection: see {@linkcode McpConnection.handoff}. */
export interface StdioHandoff {
  pid: number;
  /** The process's start time in /proc: tells it from a later process of its pid. */
  start: string;
  protocolVersion: string;
  capabilities?: Record<string, unknown>;
  /** The id the next request takes: the server may remember ids it has seen. */
  nextId: number;
  /** What was read of stdout and not yet handled (the start of a line), base64. */
  stdout: string;
  stderr: string[];
}

/** How {@linkcode McpConnection.request} sends one request. */
export interface RequestOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  onprogress?: (progress: Record<string, unknown>) => void;
  /**
   * 2026-07-28: an `input_required` result is resolved as it came, not answered through
   * the connection's handlers (a gateway hands it to its own client). SDK connections only.
   */
  allowInputRequired?: boolean;
  /**
   * The result as the server sent it, checked only as an object: for what the client's own
   * schemas do not describe (a task-augmented `tools/call`, `tasks/*` in the 2025 era).
   */
  raw?: boolean;
  /**
   * 2026-07-28: declares the tasks extension for this request alone, and resolves to the
   * CreateTaskResult (`resultType: "task"`) when the server makes a task.
   */
  taskExtension?: boolean;
}

export interface McpConnection {
  /** The child's pid (stdio only). */
  readonly pid?: number;
  /** The negotiated protocol version. */
  readonly protocolVersion?: string;
  /** Resolves once, when the process exits or the connection drops. */
  readonly ended: Promise<ConnectionEnd>;
  /** The last lines the child wrote to stderr (stdio only), oldest first. */
  stderrTail(): string[];
  /** Every tool, across pages. */
  listTools(): Promise<ToolInfo[]>;
  /**
   * Calls a tool. On timeout or abort it sends `notifications/cancelled` and rejects with
   * McpxError TOOL_TIMEOUT; if the connection ends first it rejects with SERVER_EXITED.
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolEnvelope>;
  /**
   * Sends any other request (prompts, resources, completion; a gateway's relayed call) and
   * resolves to its result as the server sent it. A JSON-RPC error from the server rejects with
   * McpxError TOOL_ERROR whose data carries `rpcCode` and `rpcData`; progress the server reports
   * for it reaches `onprogress`. Absent on test doubles.
   */
  request?(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<Record<string, unknown>>;
  /** What the server declared at the handshake (tools, prompts, resources, logging, completions). */
  capabilities?(): Record<string, unknown> | undefined;
  /** Every notification the server sends (log messages, list changes); returns the unsubscriber. */
  onNotification?(listener: (notification: UpstreamNotification) => void): () => void;
  /** Called when the server sends `notifications/tools/list_changed`. */
  onToolsChanged(listener: () => void): void;
  /** Sends a notification to the server (`notifications/roots/list_changed`). */
  notify?(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Asks the server to send `notifications/message` at `level` and above (`logging/setLevel`). */
  setLoggingLevel?(level: string, timeoutMs: number): Promise<void>;
  /**
   * Lets go of the server without ending it, for a successor daemon that has opened its pipes
   * (lib/daemon/upgrade.ts): what that one needs to go on speaking to it. Undefined when it
   * cannot be handed over now (a request of either side is under way). mcpx's own stdio
   * connections only.
   */
  handoff?(): Promise<StdioHandoff | undefined>;
  /** Closes: HTTP sessions are ended with DELETE; stdio children are killed by process group. */
  close(): Promise<void>;
}
