// What both kinds of connection (lib/mcp/sdk_connection.ts, the SDK's client; stdio_connection.ts,
// mcpx's own for stdio) say the same way: the errors a caller sees, the stderr suffix, the shape
// a listed tool is handed on in, and how a reply over the message limit is logged.

import type { VersionNegotiationOptions } from "@modelcontextprotocol/client";
import { McpxError } from "../errors.ts";
import type { AdoptedPipes } from "../_proc.ts";
import { type ChildExit, describeExit, type OversizedReport } from "./stdio_transport.ts";
import type { LogSink } from "../log/daemon.ts";
import type {
  ConnectionEnd,
  ServerSpec,
  StdioHandoff,
  ToolInfo,
  UpstreamNotification,
} from "./types.ts";

/** Options of `connectServer` (connect.ts). */
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
  log?: LogSink;
  /**
   * Hears the server's notifications: `notifications/message`, `notifications/progress` (also
   * delivered to the call's `onProgress`) and `notifications/{tools,prompts,resources}/list_changed`.
   */
  onNotification?: (method: string, params: unknown) => void;
  /**
   * Answers a request the server sends the client (`elicitation/create`,
   * `sampling/createMessage`): its result is the reply; a thrown error is a JSON-RPC error.
   * Without it every such request but `ping` is refused.
   */
  onServerRequest?: (method: string, params: unknown, ctx: { signal: AbortSignal }) => Promise<
    unknown
  >;
  /** 2026-07-28: how many input_required rounds one request answers (`elicit.inputRounds`). */
  inputRounds?: number;
  /**
   * Goes on with a server a predecessor daemon handed over (lib/daemon/upgrade.ts) instead of
   * starting one: its handed state and its pipes, already open. mcpx's own stdio client only.
   */
  adopt?: { handed: StdioHandoff; pipes: AdoptedPipes };
  /** What the client declares in the handshake; declared only where `onServerRequest` answers it. */
  capabilities?: {
    roots?: boolean;
    elicitation?: { form?: boolean; url?: boolean };
    sampling?: boolean;
  };
}

/**
 * The handshake's `capabilities` object for {@linkcode ConnectOptions.capabilities}; `modern`: as
 * a 2026-07-28 request's `_meta` declares them, where `roots` has no `listChanged` (that revision
 * has no roots/list_changed notification).
 */
export function declaredCapabilities(
  caps: ConnectOptions["capabilities"],
  modern = false,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (caps?.roots) out.roots = modern ? {} : { listChanged: true };
  if (caps?.elicitation && (caps.elicitation.form || caps.elicitation.url)) {
    out.elicitation = {
      ...(caps.elicitation.form ? { form: {} } : {}),
      ...(caps.elicitation.url ? { url: {} } : {}),
    };
  }
  if (caps?.sampling) out.sampling = {};
  return out;
}

/**
 * The only 2026-era revision SDK 2.4 speaks. `force-modern` pins it; the SDK exports no
 * constant for it (`LATEST_PROTOCOL_VERSION` is the latest 2025-era one).
 */
export const MODERN_REVISION = "2026-07-28";

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

/** The setting that bounds one message from a stdio server. */
export const MESSAGE_SETTING = "daemon.maxMessageBytes";

/** The last stderr lines as a message suffix: `; stderr: a | b`, at most about 1000 chars. */
export function tailSuffix(lines: string[]): string {
  const kept = lines.filter((line) => line.trim() !== "").slice(-10);
  if (kept.length === 0) return "";
  let text = kept.join(" | ");
  // The end of stderr is what explains a failure; cut from the front.
  if (text.length > 1000) text = `…${text.slice(-1000)}`;
  return `; stderr: ${text}`;
}

/** Why a start failed, in the words both clients use: the child exited first, or was silent. */
export const START_REASONS = {
  exited: (exit: ChildExit) => `the process ${describeExit(exit)} before initialize completed`,
  silent: (ms: number) => `no answer to initialize within ${ms} ms`,
};

/** SERVER_START_FAILED with the reason and the child's last stderr lines. */
export function startFailed(
  server: string,
  reason: string,
  stderr: string[],
  cause?: unknown,
): McpxError {
  return new McpxError(
    "SERVER_START_FAILED",
    `Cannot start server "${server}": ${reason}${tailSuffix(stderr)}`,
    { cause, data: { stderr } },
  );
}

/** What an abandoned start rejects with: the signal's reason, or SERVER_START_FAILED. */
export function abandoned(server: string, signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new McpxError("SERVER_START_FAILED", `Start of server "${server}" abandoned`);
}

/** SERVER_EXITED for a connection that has ended, with the child's last stderr lines. */
export function endedError(
  server: string,
  during: string,
  end: ConnectionEnd | undefined,
  stderr: string[],
  cause?: unknown,
): McpxError {
  const how = end ? end.reason : "the connection closed";
  return new McpxError(
    "SERVER_EXITED",
    `Server "${server}" ended ${during}: ${how}${tailSuffix(stderr)}`,
    { cause, data: { stderr, end } },
  );
}

/** TOOL_TIMEOUT for a listing that took longer than the start budget. */
export function listTimeout(server: string, ms: number, cause?: unknown): McpxError {
  return new McpxError(
    "TOOL_TIMEOUT",
    `Server "${server}" did not list its tools within ${ms} ms`,
    { cause },
  );
}

/** TOOL_TIMEOUT for a call cut short: by its caller (`cancelled`) or by its time running out. */
export function callTimeout(
  server: string,
  tool: string,
  ms: number,
  cancelled: boolean,
  cause?: unknown,
): McpxError {
  return cancelled
    ? new McpxError("TOOL_TIMEOUT", `Call to "${tool}" on server "${server}" was cancelled`, {
      cause,
      hint: "",
    })
    : new McpxError(
      "TOOL_TIMEOUT",
      `Tool "${tool}" on server "${server}" did not answer within ${ms} ms`,
      { cause },
    );
}

/** What `during` says of a listing and of a call, and what a refusal of either says. */
export const LISTING: Attempt = {
  during: "while listing its tools",
  rejected: (server: string, message: string) =>
    `Server "${server}" refused to list its tools: ${message}`,
};
/** A request other than a tool call (prompts, resources, completion, a relayed one). */
export const requesting = (method: string): Attempt => ({
  during: `while answering "${method}"`,
  rejected: (server: string, message: string) =>
    `Server "${server}" refused "${method}": ${message}`,
});

export const calling = (tool: string): Attempt => ({
  during: `during the call to "${tool}"`,
  rejected: (server: string, message: string) =>
    `Server "${server}" refused the call to "${tool}": ${message}`,
});

/** What was being done when a request failed: {@linkcode LISTING} or {@linkcode calling}. */
export interface Attempt {
  during: string;
  rejected: (server: string, message: string) => string;
}

/**
 * TOOL_ERROR for a JSON-RPC error answer (`how.rejected` words it), or MESSAGE_TOO_LARGE when
 * the answer stands in for a reply over the message limit (`big`).
 */
export function rpcError(
  server: string,
  how: Attempt,
  error: { code: number; message: string; data?: unknown },
  big?: OversizedReport,
  cause?: unknown,
): McpxError {
  const during = how.during;
  if (big) {
    return new McpxError(
      "MESSAGE_TOO_LARGE",
      `Server "${server}" replied ${during} with a message over the ${big.limit}-byte limit (${MESSAGE_SETTING}); the reply was dropped`,
      {
        cause,
        hint: `Raise ${MESSAGE_SETTING} (MCPX_DAEMON_MAX_MESSAGE_BYTES), or ask for less`,
      },
    );
  }
  const message = `${error.message} (JSON-RPC error ${error.code})`;
  return new McpxError("TOOL_ERROR", how.rejected(server, message), {
    cause,
    data: { rpcCode: error.code, rpcData: error.data },
  });
}

/** The `onOversized` of a StdioTransport: a dropped reply is logged once, naming the setting. */
export function logOversized(
  server: string,
  log: ConnectOptions["log"],
): (report: OversizedReport) => void {
  return (r) => {
    // Once when it passes the limit (if its id came first) and once when it ends.
    if (!r.ended && r.id !== undefined) return;
    log?.(
      "error",
      "server.message_too_large",
      `Server "${server}" wrote a message of ${r.bytes} bytes, over the ${r.limit}-byte limit (${MESSAGE_SETTING}); it was dropped${
        r.id === undefined
          ? " and no request could be told from it"
          : `, and request ${JSON.stringify(r.id)} failed`
      }`,
      { server, bytes: r.bytes, limit: r.limit, requestId: r.id },
    );
  };
}

/** A listed tool as mcpx hands it on: the fields it knows, when present. */
export function toToolInfo(tool: {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  execution?: unknown;
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
  if (tool.execution && typeof tool.execution === "object") {
    info.execution = tool.execution as Record<string, unknown>;
  }
  return info;
}

/**
 * The part of a connection's life both clients keep alike: how it ended (once), the listeners of
 * `notifications/tools/list_changed`, and the SERVER_EXITED error for what is tried after the end.
 */
export class ConnectionLife {
  /** Resolves once, with the first end reported. */
  readonly ended: Promise<ConnectionEnd>;
  readonly #server: string;
  readonly #stderr: () => string[];
  readonly #listeners = new Set<() => void>();
  readonly #notified = new Set<(n: UpstreamNotification) => void>();
  #end?: ConnectionEnd;
  #resolve!: (end: ConnectionEnd) => void;

  constructor(server: string, stderr: () => string[]) {
    this.#server = server;
    this.#stderr = stderr;
    this.ended = new Promise((resolve) => this.#resolve = resolve);
  }

  /** How it ended, once it has. */
  get end(): ConnectionEnd | undefined {
    return this.#end;
  }

  /** Records the end; false when one was recorded already. */
  finish(end: ConnectionEnd): boolean {
    if (this.#end) return false;
    this.#end = end;
    this.#resolve(end);
    return true;
  }

  /** @throws {McpxError} SERVER_EXITED when the connection has ended */
  assertOpen(attempt: string): void {
    if (this.#end) throw this.exited(`cannot ${attempt}`);
  }

  /** SERVER_EXITED, saying how the connection ended and the child's last stderr lines. */
  exited(during: string, cause?: unknown): McpxError {
    return endedError(this.#server, during, this.#end, this.#stderr(), cause);
  }

  onToolsChanged(listener: () => void): void {
    this.#listeners.add(listener);
  }

  /** Every notification the server sends; returns the unsubscriber. */
  onNotification(listener: (n: UpstreamNotification) => void): () => void {
    this.#notified.add(listener);
    return () => this.#notified.delete(listener);
  }

  /** Hands a notification of the server to every listener. */
  notify(n: UpstreamNotification): void {
    for (const listener of this.#notified) {
      try {
        listener(n);
      } catch {
        // One listener's failure is its own.
      }
    }
  }

  toolsChanged(): void {
    this.notify({ method: "notifications/tools/list_changed" });
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // One listener's failure is its own; the others still hear about the change.
      }
    }
  }
}

/** A progress report of one call, as `notifications/progress` carries it. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** The fields of a `notifications/progress` params object, or undefined when it is not one. */
export function progressOf(params: unknown): Progress | undefined {
  const p = params as { progress?: unknown; total?: unknown; message?: unknown } | undefined;
  if (typeof p?.progress !== "number") return undefined;
  const out: Progress = { progress: p.progress };
  if (typeof p.total === "number") out.total = p.total;
  if (typeof p.message === "string") out.message = p.message;
  return out;
}
