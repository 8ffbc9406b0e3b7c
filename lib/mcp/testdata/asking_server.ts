/**
 * A server on the official SDK v2 server that uses the client half of MCP: its tools ask for
 * roots, report progress, log, change their list and wait to be cancelled. `--http` serves
 * Streamable HTTP (sessionful, 2025 era) on a free port and prints `PORT <n>` on stdout; otherwise
 * it serves stdio. What it heard (cancellations, levels set) is answered by the `heard` tool.
 * Run like modern_server.ts: `--no-config --import-map modern_server.imports.json`.
 */
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const heard: { cancelled: unknown[]; levels: string[] } = { cancelled: [], levels: [] };

function build(): McpServer {
  const server = new McpServer({ name: "asking", version: "1.0.0" }, {
    capabilities: { logging: {}, tools: { listChanged: true } },
  });
  const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
  // Sent as related to the call, so over HTTP it rides the call's own response stream rather
  // than the standalone GET stream, which the client may not have opened yet.
  server.registerTool("roots", { description: "Lists the client's roots" }, async (ctx) => {
    const { roots } = await ctx.mcpReq.send({ method: "roots/list" });
    return text(JSON.stringify(roots));
  });
  server.registerTool(
    "count",
    { description: "Reports progress n times", inputSchema: z.object({ n: z.number() }) },
    async ({ n }: { n: number }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= n; i++) {
        if (token !== undefined) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: n, message: `step ${i}` },
          });
        }
      }
      return text(`counted ${n}`);
    },
  );
  server.registerTool(
    "say",
    { description: "Logs a message", inputSchema: z.object({ line: z.string() }) },
    async ({ line }: { line: string }) => {
      await server.sendLoggingMessage({ level: "warning", logger: "asking", data: line });
      return text("said");
    },
  );
  server.registerTool("grow", { description: "Adds a tool named added" }, () => {
    server.registerTool("added", { description: "Added later" }, () => text("added"));
    return text("grown");
  });
  server.registerTool(
    "wait",
    { description: "Waits until cancelled" },
    (ctx) =>
      new Promise<ReturnType<typeof text>>((resolve) => {
        ctx.mcpReq.signal.addEventListener("abort", () => {
          heard.cancelled.push(ctx.mcpReq.id);
          resolve(text("cancelled"));
        });
      }),
  );
  server.registerTool(
    "heard",
    { description: "What the server heard" },
    () => text(JSON.stringify(heard)),
  );
  server.server.setRequestHandler("logging/setLevel", (request) => {
    heard.levels.push(request.params.level);
    return {};
  });
  return server;
}

if (Deno.args.includes("--http")) {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const http = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const id = req.headers.get("mcp-session-id");
    const open = id ? sessions.get(id) : undefined;
    if (open) return await open.handleRequest(req);
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, transport),
      });
    await build().connect(transport);
    return await transport.handleRequest(req);
  });
  console.log(`PORT ${http.addr.port}`);
} else {
  serveStdio(() => build());
}
