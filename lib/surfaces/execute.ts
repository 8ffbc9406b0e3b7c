// How a command runs one operation: in its own process when the operation is local, else over
// `/v1` in the daemon. The command line, `mcpx serve` and the browser run operations through it.

import type { Context } from "../context.ts";
import type { Operation } from "../operations/define.ts";
import { load } from "../_load.ts";

function routePath(
  op: Operation & { http: { method: string; path: string } },
  input: Record<string, unknown>,
) {
  const used = new Set<string>();
  let path = op.http.path.replace(/\{(\w+)\}/g, (_, name) => {
    used.add(name);
    return encodeURIComponent(String(input[name]));
  });
  const rest = Object.entries(input).filter(([k, v]) => !used.has(k) && v !== undefined);
  if (op.http.method === "GET" && rest.length > 0) {
    path += "?" + new URLSearchParams(rest.map(([k, v]) => [k, String(v)])).toString();
  }
  return { path, body: op.http.method === "POST" ? Object.fromEntries(rest) : undefined };
}

/**
 * Runs an operation as a command does: in this process when it is local, else over `/v1` in the
 * daemon (started on demand when the operation says so). `mcpx serve` runs its tools through it.
 */
export async function execute(
  op: Operation,
  input: Record<string, unknown>,
  ctx: Context,
): Promise<unknown> {
  // A daemon elsewhere (daemon.endpoint) starts nothing here: this machine's configuration,
  // if there is one, is not what it runs.
  const remote = ctx.boot.get("daemon.endpoint") !== "" && op.id !== "daemon.run";
  // An ad-hoc server is run on the word of the command line that names it, under a trusted
  // configuration's daemon or else mcpx's own empty one (Context.useAdHocConfig).
  const adHoc = (input.stdio !== undefined || input.url !== undefined) &&
    op.params.some((p) => p.name === "stdio");
  if (!remote && adHoc) await ctx.useAdHocConfig();
  if (op.needsTrust && !remote) await ctx.requireTrust();
  // What describes the configuration is the daemon elsewhere's to say (an ad-hoc server is
  // listed through it already, by the operation's own run).
  const theirs = remote && op.describes === "configuration" && !adHoc && "method" in op.http;
  if (!theirs && (op.where === "local" || !("method" in op.http))) return await op.run(input, ctx);
  const { callDaemon } = await load<typeof import("../daemon/client.ts")>(
    "../daemon/client.ts",
    import.meta.url,
  );
  const { path, body } = routePath(
    op as Operation & { http: { method: string; path: string } },
    input,
  );
  const method = op.http.method;
  const send = (progress?: string) =>
    callDaemon(ctx, {
      method,
      path,
      body,
      start: op.where !== "local" && op.where.daemon === "start",
      caller: progress === undefined ? ctx.callerInfo() : { ...ctx.callerInfo(), progress },
    });
  // A tool call's progress is drawn on stderr while it runs (lib/surfaces/progress.ts).
  const answer = op.id === "tools.call"
    ? await (await load<typeof import("./progress.ts")>(
      "./progress.ts",
      import.meta.url,
    )).withProgress(ctx, send)
    : await send();
  return answer ? answer.value : await op.offline!(input, ctx);
}
