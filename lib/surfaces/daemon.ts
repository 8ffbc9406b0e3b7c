import { Context, JSON_FLAG } from "../context.ts";
import { runDaemon as runServer } from "../daemon/server.ts";
import { OPERATIONS } from "../operations/mod.ts";
import { load } from "../_load.ts";
import { messageOf } from "../errors.ts";
import { buildRouter } from "./http.ts";
import { CALLER_HEADER, decodeCaller, SESSION_HEADER } from "../daemon/wire.ts";
import type { McpHttpHandler } from "./mcp/http.ts";
import type { McpHost, ToolSet } from "./mcp/tools.ts";
import { McpxError, toProblem } from "../errors.ts";
import type { McpConnection } from "../mcp/types.ts";
import { isPagePath } from "../daemon/ui_gate.ts";
import { adHocOverTcp } from "../config/adhoc.ts";
import type { LogSink } from "../log/daemon.ts";

/**
 * The daemon as a surface: runs the daemon for the context's configuration, answering `/v1` with
 * the operations table and `/mcp` with the MCP surface (lib/daemon/ itself knows nothing of
 * operations). Resolves to an exit status.
 */
export function runDaemon(
  ctx: Context,
  autostarted: boolean,
  listen?: string,
  hooks?: Parameters<typeof runServer>[4],
): Promise<number> {
  return runServer(ctx, autostarted, listen, (perRequest) => {
    // What a request runs reaches the surfaces through this daemon's host (Context.host).
    const context = (req: Request) => {
      const made = perRequest(req);
      made.host = ctx.host;
      return made;
    };
    const v1 = buildRouter(OPERATIONS, context);
    // Code mode's two sets: /mcp serves the core tools, /mcp?tools=all every one.
    const mcp = new Map<ToolSet, Promise<McpHttpHandler>>();
    const gateways = new Map<string, Promise<McpHttpHandler>>();
    return (req) => {
      const url = new URL(req.url);
      const path = url.pathname;
      if (path === "/v1/events") return Promise.resolve(eventsResponse(req, url, context));
      if (isPagePath(path)) {
        // The web page (lib/web/): its files and the exchange of `mcpx ui`'s one-time code.
        return load<typeof import("../web/serve.ts")>("../web/serve.ts", import.meta.url)
          .then((w) => w.pageResponse(req, context(req)));
      }
      const exposed = /^\/mcp\/([^/]+)$/.exec(path);
      if (exposed) {
        // Gateway mode: /mcp/<ns> (or <ns>,<ns>… with namespaced names), each its own endpoint.
        const key = decodeURIComponent(exposed[1]);
        // An ad-hoc server's key names its command line: not for a holder of the listener token.
        if (key.split(",").some((ns) => ns.startsWith("adhoc:")) && context(req).caller.overTcp) {
          return Promise.resolve(Response.json({ error: adHocOverTcp().message }, { status: 403 }));
        }
        let handler = gateways.get(key);
        if (!handler) gateways.set(key, handler = gatewayHandler(context(req), key.split(",")));
        return handler.then((h) => h.fetch(req), (error) => {
          gateways.delete(key);
          return Response.json({ error: messageOf(error) }, { status: 404 });
        });
      }
      if (path !== "/mcp") return v1(req);
      // The MCP surface and the SDK's server are loaded by the first /mcp request, not at start.
      const set: ToolSet = url.searchParams.get("tools") === "all" ? "all" : "core";
      let handler = mcp.get(set);
      if (!handler) mcp.set(set, handler = mcpHandler(context(req), set));
      return handler.then((h) => h.fetch(req));
    };
  }, hooks);
}

/**
 * `GET /v1/events`: the daemon's bus as server-sent events (lib/events/bus.ts). `?since=N` or
 * `Last-Event-ID` replays what followed N (`0`: all retained), no position is live only;
 * `?follow=false` ends after the replay.
 */
async function eventsResponse(
  req: Request,
  url: URL,
  context: (req: Request) => Context,
): Promise<Response> {
  const problem = (error: McpxError) => {
    const body = toProblem(error);
    return new Response(JSON.stringify(body), {
      status: body.status,
      headers: { "content-type": "application/problem+json" },
    });
  };
  if (req.method !== "GET") {
    return problem(new McpxError("USAGE", `${req.method} is not allowed on /v1/events: use GET`));
  }
  const { sseResponse, startOf } = await load<typeof import("../events/bus.ts")>(
    "../events/bus.ts",
    import.meta.url,
  );
  const bus = context(req).daemon?.events;
  if (!bus) return problem(new McpxError("INTERNAL", "This daemon has no event bus"));
  const since = startOf(url, req.headers);
  if (typeof since === "string") return problem(new McpxError("USAGE", since));
  const follow = url.searchParams.get("follow") !== "false";
  return sseResponse(bus, since, { follow, signal: req.signal });
}

/** The `/mcp` handler: each tool's operation runs here, in the daemon, under its MCP session. */
async function mcpHandler(base: Context, tools: ToolSet): Promise<McpHttpHandler> {
  const { mcpHttpHandler } = await load<typeof import("./mcp/http.ts")>(
    "./mcp/http.ts",
    import.meta.url,
  );
  const settings = await base.settings();
  const contextFor = (session: string, signal?: AbortSignal) =>
    new Context(
      { ...base.io, out: () => {}, err: () => {}, isTerminal: false },
      [...base.flags, JSON_FLAG],
      base.daemon,
      // Only the session: the first /mcp request's caller is no other client's.
      { session },
      undefined,
      signal,
    );
  const end = OPERATIONS.find((op) => op.id === "sessions.end")!;
  const host: McpHost = {
    run: (op, input, call) => op.run(input, contextFor(call.session, call.signal)),
    async end(session) {
      await end.run({ session }, contextFor(session)).catch(() => {});
    },
    log: (level, event, message, attrs) => base.daemon?.log?.write(level, event, message, attrs),
  };
  return mcpHttpHandler(OPERATIONS, host, {
    tools,
    maxBodyBytes: settings.get("daemon.maxRequestBytes"),
    // The socket is the user's own (0600, a token on every request): no browser reaches it.
    checkOrigin: false,
    // A connection may join a session that outlives it (a named one rejoins it).
    namedSession: (req) => req.headers.get(SESSION_HEADER) ?? undefined,
    // A 2026-07-28 request belongs to no connection: the caller may name its session.
    modernSession: (req) => {
      try {
        return decodeCaller(req.headers.get(CALLER_HEADER)).session;
      } catch {
        return undefined;
      }
    },
  });
}

/** `/mcp/<ns>`: gateway mode for those namespaces, each connection leasing as its own session. */
async function gatewayHandler(base: Context, namespaces: string[]): Promise<McpHttpHandler> {
  const [{ httpHandlerWith }, { gatewayFactory }] = await Promise.all([
    load<typeof import("./mcp/http.ts")>("./mcp/http.ts", import.meta.url),
    load<typeof import("./mcp/gateway.ts")>("./mcp/gateway.ts", import.meta.url),
  ]);
  const settings = await base.settings();
  const registry = base.daemon!.registry;
  for (const ns of namespaces) registry.entry(ns);
  const end = OPERATIONS.find((op) => op.id === "sessions.end")!;
  const contextFor = (session: string) =>
    new Context(
      { ...base.io, out: () => {}, err: () => {}, isTerminal: false },
      [...base.flags, JSON_FLAG],
      base.daemon,
      { session },
    );
  const log: LogSink = (level, event, message, attrs) =>
    base.daemon?.log?.write(level, event, message, attrs);
  const host = {
    // A session answers what its calls' servers ask (lib/questions), else they stay questions.
    questions: registry.questions,
    holdMs: settings.get("elicit.deadline"),
    withConnection: <T>(
      ns: string,
      session: string,
      fn: (conn: McpConnection, ms: number) => Promise<T>,
    ) => registry.withConnection(ns, { session }, (conn, def) => fn(conn, def.pool.callTimeoutMs)),
    async end(session: string) {
      await end.run({ session }, contextFor(session)).catch(() => {});
    },
    log,
  };
  return httpHandlerWith(gatewayFactory(namespaces, host), host, {
    maxBodyBytes: settings.get("daemon.maxRequestBytes"),
    checkOrigin: false,
    modernSession: (req) => {
      try {
        return decodeCaller(req.headers.get(CALLER_HEADER)).session;
      } catch {
        return undefined;
      }
    },
  });
}
