import { Context } from "../context.ts";
import type { Io } from "../io.ts";
import type { Operation } from "../operations/define.ts";
import { OPERATIONS } from "../operations/mod.ts";
import { sessionsEnd } from "../operations/tool_ops.ts";
import { execute } from "./cli.ts";
import { type McpHost, mcpHttpHandler, serveStdio } from "./mcp.ts";

/** `--json` as a flag: a tool's answer is the operation's document, never its terminal form. */
const JSON_FLAG = { key: "output.json", text: "true", spelling: "--json" };

/**
 * What the serving process runs a tool with: the command's own `execute` (local, or over `/v1` in
 * the daemon), under a context of the MCP session's own key and an io that keeps stdout, which is
 * the protocol's channel over stdio, to itself.
 */
export function cliHost(ctx: Context): McpHost {
  const contextFor = (session: string): Context => {
    const io: Io = {
      out: () => {},
      err: () => {},
      env: { ...ctx.io.env, MCPX_SESSION_ID: session },
      cwd: ctx.io.cwd,
      isTerminal: false,
      ppid: ctx.io.ppid,
      readStdin: () => Promise.resolve(""),
    };
    return new Context(io, [...ctx.flags, JSON_FLAG]);
  };
  return {
    run: (op: Operation, input, call) => execute(op, input, contextFor(call.session)),
    async end(session) {
      await execute(sessionsEnd as unknown as Operation, { session }, contextFor(session))
        .catch(() => {});
    },
    // Over stdio, stderr is what a host keeps of a server's own account: warnings, and the
    // cancellations it sent (recorded, not dropped; the call in the daemon runs to its end).
    log: (level, event, message) => {
      if (level === "warn" || event === "mcp.cancelled") {
        ctx.io.err(`mcpx serve: ${message.split("\n")[0]}\n`);
      }
    },
  };
}

/** Serves until the client goes away (stdio) or the process is stopped (HTTP). */
export async function serveFromCli(
  ctx: Context,
  http: string | undefined,
): Promise<{ served: string }> {
  const host = cliHost(ctx);
  const settings = await ctx.settings();
  if (http === undefined) {
    await serveStdio(OPERATIONS, host, settings.get("daemon.maxRequestBytes"));
    return { served: "stdio" };
  }
  const handler = mcpHttpHandler(OPERATIONS, host, {
    maxBodyBytes: settings.get("daemon.maxRequestBytes"),
    checkOrigin: true,
  });
  const at = http.lastIndexOf(":");
  const hostname = http.slice(0, at).replace(/^\[(.*)\]$/, "$1");
  const stopped = Promise.withResolvers<void>();
  const server = Deno.serve({
    hostname,
    port: Number(http.slice(at + 1)),
    onListen: ({ port }) => {
      const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
      ctx.io.err(`mcpx serve: MCP at http://${shown}:${port}/mcp\n`);
    },
  }, (req) => {
    if (new URL(req.url).pathname !== "/mcp") return new Response("not found", { status: 404 });
    return handler.fetch(req);
  });
  const stop = () => stopped.resolve();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await stopped.promise;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  await handler.close();
  await server.shutdown();
  return { served: `http://${http}/mcp` };
}
