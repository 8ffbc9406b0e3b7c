/**
 * A stdio server built on the official SDK v2 server, which speaks both the 2025 `initialize`
 * handshake and the 2026-07-28 revision (`server/discover`). One tool: `echo`.
 */
import { McpServer } from "npm:@modelcontextprotocol/server@2.4.0";
import { StdioServerTransport } from "npm:@modelcontextprotocol/server@2.4.0/stdio";
import { z } from "npm:zod@4.1.12";

const server = new McpServer({ name: "modern", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Answers its text back", inputSchema: z.object({ text: z.string() }) },
  ({ text }) => ({ content: [{ type: "text", text }] }),
);
await server.connect(new StdioServerTransport());
