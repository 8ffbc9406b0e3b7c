/**
 * The MCP surface over Streamable HTTP (the daemon's `/mcp` and `/mcp/<ns>`, `mcpx serve --http`):
 * Host and Origin checked against loopback names, a POST body checked as one frame, 2025-era
 * sessions and 2026-07-28 requests one by one.
 *
 * Loaded on demand: the daemon imports it on the first `/mcp` request, never at start.
 */
import { RevisionTransport } from "./revision.ts";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Operation } from "../../operations/define.ts";
import { messageOf } from "../../errors.ts";
import { newServer, newSessionKey } from "./server.ts";
import { errorFrame, readFrame } from "./stdio.ts";
import { buildMcpTools, type McpHost, type ToolSet } from "./tools.ts";

/**
 * The answer to a POST body that is not one JSON-RPC message (or is too large), in the frames
 * {@linkcode readFrame} makes; undefined when the body is fit to hand to the SDK.
 */
async function refuseBody(req: Request, max: number): Promise<Response | undefined> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > max) return tooLarge(max);
  const text = await req.clone().text();
  if (new TextEncoder().encode(text).length > max) return tooLarge(max);
  const read = readFrame(text);
  if (!("answer" in read)) return undefined;
  const code = (read.answer as unknown as { error: { code: number } }).error.code;
  // An initialize for a modern revision is a well-formed request answered in-band.
  return Response.json(read.answer, { status: code === -32022 ? 200 : 400 });
}

function tooLarge(max: number): Response {
  return Response.json(
    errorFrame(null, -32600, `Invalid request: the body is larger than ${max} bytes`),
    { status: 413 },
  );
}

/** Options of {@linkcode mcpHttpHandler}. */
export interface McpHttpOptions {
  /** The most bytes of one POST body read (413 past it). */
  maxBodyBytes: number;
  /** Check Host and Origin against loopback names (DNS rebinding); off for a unix socket. */
  checkOrigin: boolean;
  /** The mcpx session of modern-era requests, which belong to no connection. */
  modernSession?: (req: Request) => string | undefined;
  /**
   * The session a legacy connection joins, from its initialize request (`mcpx serve --session`,
   * or the daemon's `x-mcpx-session` header): it outlives the connection. Without one, each
   * connection is a session of its own, ended with it.
   */
  namedSession?: (req: Request) => string | undefined;
  /** The tools served (default `core`). */
  tools?: ToolSet;
}

/** The Streamable HTTP face of the MCP surface: `fetch` answers `/mcp`, `close` ends it all. */
export interface McpHttpHandler {
  fetch(req: Request): Promise<Response>;
  close(): Promise<void>;
  /** The legacy sessions open now. */
  readonly sessions: number;
}

/**
 * The MCP surface over Streamable HTTP. 2025-era clients get a session each (`Mcp-Session-Id`,
 * ended by DELETE), each its own mcpx session; 2026-07-28 requests are answered one by one, as
 * that revision has no connection.
 */
export function mcpHttpHandler(
  operations: readonly Operation[],
  host: McpHost,
  options: McpHttpOptions,
): McpHttpHandler {
  const set = options.tools ?? "core";
  const tools = buildMcpTools(operations, set);
  return httpHandlerWith(
    (session) => newServer(tools, host, session, set === "all"),
    host,
    options,
  );
}

/**
 * Streamable HTTP for any server a factory makes per mcpx session (code mode, or gateway mode's
 * `/mcp/<ns>`): legacy sessions each their own, modern requests one by one.
 */
export function httpHandlerWith(
  make: (session: string) => Server,
  host: Pick<McpHost, "end" | "log">,
  options: McpHttpOptions,
): McpHttpHandler {
  const legacy = new Map<string, { transport: WebStandardStreamableHTTPServerTransport }>();
  const modernDefault = newSessionKey();
  const modern = createMcpHandler(
    ({ requestInfo }) =>
      make(
        (requestInfo &&
          (options.namedSession?.(requestInfo) || options.modernSession?.(requestInfo))) ??
          modernDefault,
      ),
    {
      legacy: "reject",
      maxRequestBodySize: options.maxBodyBytes,
      onerror: (e) => host.log?.("warn", "mcp.error", messageOf(e)),
    },
  );
  const hostnames = localhostAllowedHostnames();
  const origins = localhostAllowedOrigins();

  async function openLegacy(req: Request): Promise<Response> {
    const named = options.namedSession?.(req) || undefined;
    const session = named ?? newSessionKey();
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        maxRequestBodySize: options.maxBodyBytes,
        onsessioninitialized: (id) => {
          legacy.set(id, { transport });
          host.log?.("info", "mcp.session_opened", "An MCP client connected", { session });
        },
        onsessionclosed: (id) => void closeLegacy(id, session, named !== undefined),
      });
    const server = make(session);
    await server.connect(new RevisionTransport(transport));
    const res = await transport.handleRequest(req);
    // A failed initialize leaves no session behind.
    if (!transport.sessionId) await server.close();
    return res;
  }

  async function closeLegacy(id: string, session: string, named: boolean) {
    if (!legacy.delete(id)) return;
    host.log?.("info", "mcp.session_closed", "An MCP client disconnected", { session });
    if (!named) await host.end?.(session);
  }

  return {
    get sessions() {
      return legacy.size;
    },
    async fetch(req) {
      if (options.checkOrigin) {
        const refused = hostHeaderValidationResponse(req, hostnames) ??
          originValidationResponse(req, origins);
        if (refused) return refused;
      }
      if (req.method === "POST") {
        const refused = await refuseBody(req, options.maxBodyBytes);
        if (refused) return refused;
      }
      const id = req.headers.get("mcp-session-id");
      if (id !== null) {
        const open = legacy.get(id);
        if (!open) {
          return Response.json(errorFrame(null, -32001, "Session not found"), { status: 404 });
        }
        return await open.transport.handleRequest(req);
      }
      if (
        req.method === "POST" &&
        await isLegacyRequest(req, undefined, { maxRequestBodySize: options.maxBodyBytes })
      ) {
        return await openLegacy(req);
      }
      return await modern.fetch(req);
    },
    async close() {
      await modern.close();
      for (const [id, { transport }] of [...legacy]) {
        await transport.close().catch(() => {});
        legacy.delete(id);
      }
    },
  };
}
