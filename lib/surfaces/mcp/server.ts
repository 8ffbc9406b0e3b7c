/**
 * mcpx as an MCP server: the operations the table marks for MCP, each a tool named `mcpx_<command>`
 * with its annotations (by default only the core few declared for an agent, `mcp.agent`), served over stdio (`mcpx serve`) and Streamable HTTP (the daemon's `/mcp`,
 * `mcpx serve --http`), in both protocol eras. The official SDK's server does the protocol (the
 * `initialize` handshake, 2026-07-28 `server/discover` and per-request `_meta`, -32022 with the
 * versions that would work, ping, logging/setLevel, cancellation); this folder decides what is
 * served and who runs it. Each MCP connection is its own mcpx session, so two hosts never share a
 * leased server (a browser above all).
 *
 * This file is the server of one session: the tools (tools.ts) and code mode's prompts, resources
 * and completion (features.ts). Its transports are stdio.ts and http.ts; gateway mode's server is
 * gateway.ts.
 */
import { Server } from "@modelcontextprotocol/server";
import { VERSION } from "../../version.ts";
import { serveCodeModeFeatures } from "./features.ts";
import { type McpHost, type McpTool, serveTools } from "./tools.ts";

/**
 * A fresh low-level SDK server answering the MCP surface for one mcpx session; `mcpx_batch` is
 * served beside the whole set only (`batch`).
 */
export function newServer(
  tools: readonly McpTool[],
  host: McpHost,
  session: string,
  batch = true,
): Server {
  const server = new Server(
    { name: "mcpx", version: VERSION },
    {
      // Prompts and resources: every configured server's, namespaced (`<ns>.<prompt>`,
      // `mcpx://<ns>/<uri>`); a server without them adds none.
      capabilities: {
        tools: { listChanged: false },
        prompts: { listChanged: false },
        resources: {},
        logging: {},
        completions: {},
      },
      instructions:
        "mcpx fronts every configured MCP server. Find tools with mcpx_ls and mcpx_search, read " +
        "their TypeScript signatures with mcpx_types, call one with mcpx_call, or run a program " +
        "against all of them with mcpx_exec: only what it prints comes back.",
    },
  );
  serveTools(server, tools, host, session, batch);
  serveCodeModeFeatures(server, host, session);
  return server;
}

/** A new mcpx session key for one MCP connection. */
export function newSessionKey(): string {
  return `mcp-${crypto.randomUUID()}`;
}
