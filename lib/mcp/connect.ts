// Connecting to one server. A stdio server spoken to in the 2025 era (`legacy`, its default) gets
// mcpx's own client (stdio_connection.ts), which loads nothing of the SDK; every other transport
// and era gets the SDK's `Client` (sdk_connection.ts). Each is loaded when first needed: a daemon
// of stdio servers never holds the SDK (~20 MiB resident, `deno run -A bench/daemon_memory.ts`).

import { load } from "../_load.ts";
import type { McpConnection, ServerSpec } from "./types.ts";
import { type ConnectOptions, negotiationFor } from "./_connection.ts";

// What both connections share lives in _connection.ts; said here too for connectServer's callers.
export {
  type ConnectOptions,
  declaredCapabilities,
  MODERN_REVISION,
  negotiationFor,
} from "./_connection.ts";

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
