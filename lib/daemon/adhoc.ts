import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import { adHocOverTcp } from "../config/adhoc.ts";

/** What `mcpx tools --stdio …` answers: an ad-hoc server's namespace and its tools. */
export interface AdHocTools {
  namespace: string;
  tools: {
    name: string;
    description?: string;
    inputSchema: Record<string, unknown>;
    outputSchema?: Record<string, unknown>;
  }[];
}

/**
 * Refuses an ad-hoc server named by a request that came over the daemon's TCP listener: the
 * command line a user typed is the consent for one, and a holder of the listener token is not
 * that user at a command line (docs/security.md).
 * @throws {McpxError} FORBIDDEN
 */
export function refuseOverTcp(ctx: Context): void {
  if (ctx.caller.overTcp) throw adHocOverTcp();
}

/** Whether an input names an ad-hoc server. */
export function namesAdHoc(input: { stdio?: string; url?: string }): boolean {
  return input.stdio !== undefined || input.url !== undefined;
}

/**
 * An ad-hoc server's tools, listed by the daemon (started on demand): what `ls` and `types` show
 * for `--stdio` and `--url`, from the same pool `call` uses.
 */
export async function adHocTools(
  input: { stdio?: string; url?: string; name?: string },
  ctx: Context,
): Promise<AdHocTools> {
  refuseOverTcp(ctx);
  const { callDaemon } = await load<typeof import("./client.ts")>(
    "./client.ts",
    import.meta.url,
  );
  const body = {
    ...(input.stdio !== undefined ? { stdio: input.stdio } : {}),
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.name !== undefined ? { name: input.name } : {}),
  };
  const answer = await callDaemon(ctx, {
    method: "POST",
    path: "/v1/adhoc/tools",
    body,
    start: true,
    caller: ctx.callerInfo(),
  });
  return answer!.value as AdHocTools;
}
