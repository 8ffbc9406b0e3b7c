/**
 * A small stdio MCP server for tests, speaking just enough JSON-RPC to drive the cases the
 * real servers cannot be made to show on demand. Tools:
 *
 * - `echo`: answers `{ text }` back.
 * - `change`: sends `notifications/tools/list_changed`, then answers.
 * - `hang`: never answers; a `notifications/cancelled` for it is written to stderr.
 * - `crash`: writes "dying on purpose" to stderr and exits with code 7.
 * - `shaped`: declares an output schema (`{ n: number }`) and answers `{ n }` from its arguments
 *   as structured content, whatever `n` is; with `bare: true`, no structured content at all.
 * - `ask`: asks the client two requests of its own, `ping` and `roots/list`, and answers with
 *   what came back (`{ ping, roots }`: the ping's result, the error code roots/list got).
 *
 * `tools/list` answers in two pages, so that clients must follow `nextCursor`. With
 * `SCRIPTED_SILENT=1` in its environment it ignores requests it does not know (as some legacy
 * servers ignore `server/discover`) instead of answering "method not found". With
 * `SCRIPTED_VERSION=<v>` it answers `initialize` with protocol version `<v>`.
 */
const silent = Deno.env.get("SCRIPTED_SILENT") === "1";
const version = Deno.env.get("SCRIPTED_VERSION");
/** The `ask` call waiting for the client's answers, and the answers so far. */
let asking: { id: number | string; answers: Record<string, unknown> } | undefined;
const encoder = new TextEncoder();

async function send(message: Record<string, unknown>): Promise<void> {
  await Deno.stdout.write(encoder.encode(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n"));
}

function tool(name: string) {
  return { name, description: `The ${name} tool`, inputSchema: { type: "object" } };
}

async function handle(message: {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
}): Promise<void> {
  const { id, method, params = {} } = message;
  if (method === undefined && asking && (id === "ping-1" || id === "roots-1")) {
    const answer = message as { result?: unknown; error?: { code: number } };
    asking.answers[id === "ping-1" ? "ping" : "roots"] = answer.result ?? answer.error?.code;
    if (Object.keys(asking.answers).length === 2) {
      const text = JSON.stringify(asking.answers);
      await send({ id: asking.id, result: { content: [{ type: "text", text }] } });
      asking = undefined;
    }
    return;
  }
  if (method === "notifications/cancelled") {
    console.error(`cancelled ${params.requestId}`);
    return;
  }
  if (id === undefined) return;
  switch (method) {
    case "initialize":
      return send({
        id,
        result: {
          protocolVersion: version ?? params.protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: "scripted", version: "1.0.0" },
        },
      });
    case "ping":
      return send({ id, result: {} });
    case "tools/list":
      return send({
        id,
        result: params.cursor === "page-2"
          ? {
            tools: [tool("change"), tool("hang"), tool("crash"), {
              ...tool("shaped"),
              outputSchema: {
                type: "object",
                properties: { n: { type: "number" } },
                required: ["n"],
              },
            }, tool("ask")],
          }
          : { tools: [tool("echo")], nextCursor: "page-2" },
      });
    case "tools/call": {
      const args = (params.arguments ?? {}) as Record<string, unknown>;
      switch (params.name) {
        case "echo":
          return send({ id, result: { content: [{ type: "text", text: String(args.text) }] } });
        case "change":
          await send({ method: "notifications/tools/list_changed" });
          return send({ id, result: { content: [{ type: "text", text: "changed" }] } });
        case "hang":
          return;
        case "shaped":
          return send({
            id,
            result: {
              content: [{ type: "text", text: JSON.stringify({ n: args.n }) }],
              ...(args.bare ? {} : { structuredContent: { n: args.n } }),
            },
          });
        case "ask":
          asking = { id, answers: {} };
          await send({ id: "ping-1", method: "ping" });
          return send({ id: "roots-1", method: "roots/list" });
        case "crash":
          console.error("dying on purpose");
          Deno.exit(7);
      }
      return send({ id, error: { code: -32602, message: `Unknown tool: ${params.name}` } });
    }
  }
  if (silent) return;
  return send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
}

let buffer = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf("\n")) !== -1) {
    const line = buffer.slice(0, newline).trim();
    buffer = buffer.slice(newline + 1);
    if (line) await handle(JSON.parse(line));
  }
}
