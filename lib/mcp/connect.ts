// Connecting to one server. A stdio server spoken to in the 2025 era (`legacy`, its default) gets
// mcpx's own client (stdio_connection.ts), which loads nothing of the SDK; every other transport
// and era gets the SDK's `Client` (sdk_connection.ts). Each is loaded when first needed: a daemon
// of stdio servers never holds the SDK (~20 MiB resident, `deno run -A bench/daemon_memory.ts`).

import type { VersionNegotiationOptions } from "@modelcontextprotocol/client";
import { load } from "../_load.ts";
import type { McpConnection, ServerSpec, StdioHandoff } from "./types.ts";
import type { AdoptedPipes } from "./stdio_transport.ts";

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

/** Whether `spec` is spoken to by mcpx's own stdio client rather than the SDK's. */
export function usesOwnClient(spec: ServerSpec): boolean {
  return spec.transport === "stdio" && negotiationFor(spec.protocol, 1).mode === "legacy";
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
  if (usesOwnClient(spec) || options.adopt) {
    const own = await load<typeof import("./stdio_connection.ts")>(
      "./stdio_connection.ts",
      import.meta.url,
    );
    if (options.adopt) {
      return own.adoptStdio(spec, options, options.adopt.handed, options.adopt.pipes);
    }
    return await own.connectStdio(spec, options);
  }
  const sdk = await load<typeof import("./sdk_connection.ts")>(
    "./sdk_connection.ts",
    import.meta.url,
  );
  return await sdk.connectSdk(spec, options);
}
