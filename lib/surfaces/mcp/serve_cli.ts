/**
 * `mcpx serve` in its own process: code mode over stdio or `--http`, each tool run by the
 * command's own `execute` ({@linkcode cliHost}); gateway mode (`--expose`) relayed to the daemon's
 * `/mcp/<ns>`. Loaded by lib/operations/serve_op.ts when the command runs.
 */
import { Context, JSON_FLAG } from "../../context.ts";
import type { Io } from "../../io.ts";
import type { Operation } from "../../operations/define.ts";
import { OPERATIONS } from "../../operations/mod.ts";
import { sessionsEnd } from "../../operations/tool_ops.ts";
import { execute } from "../execute.ts";
import { mcpHttpHandler } from "./http.ts";
import { LineTransport, serveStdio } from "./stdio.ts";
import type { McpHost, ToolSet } from "./tools.ts";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { ensureDaemon, tokenHeaders } from "../../daemon/client.ts";
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import { McpxError, messageOf } from "../../errors.ts";
import { sameText } from "../../daemon/guard.ts";

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
  // Whether a daemon has answered this process: a daemon started after that replaced it.
  let answered = false;
  return {
    async run(op: Operation, input, call) {
      const c = contextFor(call.session);
      try {
        return await execute(op, input, c);
      } finally {
        if (c.rung === "spawn" && answered) {
          call.restarted = c.recovered ??
            "The mcpx daemon went away and a new one was started: every server process is new";
        }
        if (c.rung) answered = true;
      }
    },
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

/**
 * The daemon's `/mcp/<ns>` endpoint, reached over its socket with its token: what gateway mode
 * in this process relays to, so that the daemon's leases serve it.
 */
async function daemonEndpoint(ctx: Context, namespaces: readonly string[]) {
  await ensureDaemon(ctx);
  const paths = await ctx.paths();
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: paths.socket } });
  const url = `http://mcpx/mcp/${namespaces.map(encodeURIComponent).join(",")}`;
  const fetcher = (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : {}));
    for (const [k, v] of Object.entries(tokenHeaders(paths.token))) headers.set(k, v);
    return fetch(input, { ...init, headers, client } as RequestInit);
  };
  // A namespace the daemon does not serve is a one-line error now, not a broken session later.
  const probe = await fetcher(url, { method: "DELETE" });
  const body = await probe.text();
  if (probe.status === 404) {
    client.close();
    let message = body;
    try {
      message = JSON.parse(body).error ?? body;
    } catch { /* the text as it came */ }
    throw new McpxError("SERVER_NOT_FOUND", `Cannot expose "${namespaces.join(",")}": ${message}`, {
      hint: "Run `mcpx status` for the configured namespaces",
    });
  }
  return { url, fetcher, close: () => client.close() };
}

/** Gateway mode over stdio: every frame relayed to and from the daemon's `/mcp/<ns>`. */
async function bridgeStdio(
  ctx: Context,
  namespaces: readonly string[],
  maxLineBytes: number,
): Promise<void> {
  const endpoint = await daemonEndpoint(ctx, namespaces);
  const upstream = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    fetch: endpoint.fetcher,
  });
  const line = new LineTransport(Deno.stdin.readable, Deno.stdout.writable, maxLineBytes);
  const closed = Promise.withResolvers<void>();
  const initializing = new Set<unknown>();
  line.onmessage = (message) => {
    const m = message as { id?: unknown; method?: string };
    if (m.method === "initialize") initializing.add(m.id);
    upstream.send(message).catch((error) => {
      if (m.id !== undefined && m.method !== undefined) {
        void line.send({
          jsonrpc: "2.0",
          id: m.id,
          error: { code: -32603, message: `mcpx: the daemon did not answer: ${messageOf(error)}` },
        } as never);
      }
    });
  };
  upstream.onmessage = (message) => {
    const m = message as { id?: unknown; result?: { protocolVersion?: string } };
    if (initializing.delete(m.id) && m.result?.protocolVersion) {
      upstream.setProtocolVersion(m.result.protocolVersion);
    }
    void line.send(message);
  };
  upstream.onerror = (e) => ctx.io.err(`mcpx serve: ${messageOf(e).split("\n")[0]}\n`);
  line.onclose = () => closed.resolve();
  await upstream.start();
  await line.start();
  await closed.promise;
  // The daemon's session ends with the connection (DELETE), and with it its leases.
  await upstream.terminateSession().catch(() => {});
  await upstream.close().catch(() => {});
  endpoint.close();
}

/** Gateway mode over HTTP: each request handed to the daemon's `/mcp/<ns>` as it came. */
async function proxyHttp(ctx: Context, namespaces: readonly string[]) {
  const endpoint = await daemonEndpoint(ctx, namespaces);
  return async (req: Request): Promise<Response> => {
    const headers = new Headers(req.headers);
    headers.delete("host");
    const res = await endpoint.fetcher(endpoint.url, {
      method: req.method,
      headers,
      body: req.body,
      signal: req.signal,
    });
    return new Response(res.body, { status: res.status, headers: res.headers });
  };
}

/** Serves until the client goes away (stdio) or the process is stopped (HTTP). */
export async function serveFromCli(
  ctx: Context,
  http: string | undefined,
  expose?: readonly string[],
  options: { session?: string; token?: string; tokenGiven?: boolean; tools?: ToolSet } = {},
): Promise<{ served: string }> {
  const session = options.session;
  const host = cliHost(ctx);
  const settings = await ctx.settings();
  if (expose && http === undefined) {
    await bridgeStdio(ctx, expose, settings.get("daemon.maxRequestBytes"));
    return { served: "stdio" };
  }
  const proxy = expose ? await proxyHttp(ctx, expose) : undefined;
  if (http === undefined) {
    await serveStdio(
      OPERATIONS,
      host,
      settings.get("daemon.maxRequestBytes"),
      session,
      options.tools,
    );
    return { served: "stdio" };
  }
  const handler = mcpHttpHandler(OPERATIONS, host, {
    tools: options.tools,
    maxBodyBytes: settings.get("daemon.maxRequestBytes"),
    checkOrigin: true,
    ...(session ? { namedSession: () => session } : {}),
  });
  const at = http.lastIndexOf(":");
  const hostname = http.slice(0, at).replace(/^\[(.*)\]$/, "$1");
  const stopped = Promise.withResolvers<void>();
  const server = Deno.serve({
    hostname,
    port: Number(http.slice(at + 1)),
    onListen: ({ port }) => {
      const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
      ctx.io.err(
        `mcpx serve: MCP at http://${shown}:${port}/mcp ${
          options.token === undefined
            ? "(no token: every user of this machine can reach it)"
            : options.tokenGiven
            ? "(bearer token: the one given)"
            : `(bearer token: ${options.token})`
        }\n`,
      );
    },
  }, (req) => {
    if (new URL(req.url).pathname !== "/mcp") return new Response("not found", { status: 404 });
    // A loopback port is open to every user of the machine: the token says it is this one.
    if (options.token !== undefined && !bearerMatches(req, options.token)) {
      return Response.json({
        error:
          "mcpx serve --http needs `Authorization: Bearer <token>`: the token printed when it started, or the one given with --token",
      }, { status: 401, headers: { "www-authenticate": 'Bearer realm="mcpx serve"' } });
    }
    if (proxy) {
      const refused = hostHeaderValidationResponse(req, localhostAllowedHostnames()) ??
        originValidationResponse(req, localhostAllowedOrigins());
      return refused ?? proxy(req);
    }
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

/** Whether `req` carries `Authorization: Bearer <token>`, compared in constant time. */
function bearerMatches(req: Request, token: string): boolean {
  const given = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
  return given !== undefined && sameText(given, token);
}
