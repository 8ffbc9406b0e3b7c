/**
 * A stdio server built on the official SDK v2 server. `serveStdio` lets the opening message
 * pick the era: `initialize` gets a 2025-era instance, `server/discover` a 2026-07-28 one.
 * One tool: `echo`. Run with `--import-map modern_server.imports.json` (the same pins as
 * deno.json) and `--no-config`, so that starting it never touches the repository's lockfile.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

serveStdio(() => {
  const server = new McpServer({ name: "modern", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Answers its text back", inputSchema: z.object({ text: z.string() }) },
    ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
});
