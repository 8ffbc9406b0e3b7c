import { McpxError, messageOf } from "../errors.ts";
import { type Api, type ApiAuth, callApi } from "./openapi.ts";

type Message = { jsonrpc: "2.0"; id?: string | number; method?: string; params?: unknown };

/** The MCP answer to one request, or undefined for a notification. */
export async function answer(
  api: Api,
  auth: ApiAuth,
  msg: Message,
  fetcher: typeof fetch = fetch,
): Promise<Record<string, unknown> | undefined> {
  if (msg.id === undefined) return undefined;
  const ok = (result: unknown) => ({ jsonrpc: "2.0", id: msg.id, result });
  const params = (msg.params ?? {}) as Record<string, unknown>;
  switch (msg.method) {
    case "initialize":
      return ok({
        protocolVersion: typeof params.protocolVersion === "string"
          ? params.protocolVersion
          : "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: `mcpx-api ${api.title}`, version: "1" },
      });
    case "ping":
      return ok({});
    case "tools/list":
      return ok({
        tools: api.tools.map((t) => ({
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          inputSchema: t.inputSchema,
          annotations: { readOnlyHint: t.method === "GET" || t.method === "HEAD" },
        })),
      });
    case "tools/call": {
      try {
        const out = await callApi(
          api,
          String(params.name),
          (params.arguments ?? {}) as Record<string, unknown>,
          auth,
          fetcher,
        );
        const text = typeof out.body === "string" ? out.body : JSON.stringify(out.body);
        return ok({
          content: [{ type: "text", text: out.ok ? text : `HTTP ${out.status}: ${text}` }],
          ...(out.ok ? {} : { isError: true }),
        });
      } catch (e) {
        if (e instanceof McpxError && e.code === "TOOL_NOT_FOUND") {
          return { jsonrpc: "2.0", id: msg.id, error: { code: -32602, message: e.message } };
        }
        return ok({ content: [{ type: "text", text: messageOf(e) }], isError: true });
      }
    }
    default:
      return {
        jsonrpc: "2.0",
        id: msg.id,
        error: { code: -32601, message: `Method not found: ${msg.method}` },
      };
  }
}

/** Serves `api` as an MCP server on stdin and stdout (one JSON message a line) until stdin ends. */
export async function serveApi(api: Api, auth: ApiAuth): Promise<void> {
  const encoder = new TextEncoder();
  let buffer = "";
  const pending = new Set<Promise<void>>();
  const write = (m: unknown) => Deno.stdout.writeSync(encoder.encode(JSON.stringify(m) + "\n"));
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      let msg: Message;
      try {
        msg = JSON.parse(line);
      } catch {
        write({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
        continue;
      }
      const job = answer(api, auth, msg).then((a) => {
        if (a) write(a);
      });
      pending.add(job);
      void job.finally(() => pending.delete(job));
    }
  }
  await Promise.all(pending);
}
