import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import type { AdHocTools } from "./tool_ops.ts";

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
  const { callDaemon } = await load<typeof import("../daemon/client.ts")>(
    "../daemon/client.ts",
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
