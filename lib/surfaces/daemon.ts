import type { Context } from "../context.ts";
import { runDaemon as runServer } from "../daemon/server.ts";
import { OPERATIONS } from "../operations/mod.ts";
import { buildRouter } from "./http.ts";

/**
 * The daemon as a surface: runs the daemon for the context's configuration, answering `/v1` with
 * the operations table (lib/daemon/ itself knows nothing of operations). Resolves to an exit
 * status.
 */
export function runDaemon(ctx: Context, autostarted: boolean): Promise<number> {
  return runServer(ctx, autostarted, (context) => buildRouter(OPERATIONS, context));
}
