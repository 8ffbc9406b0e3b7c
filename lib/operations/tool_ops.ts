import { McpxError, messageOf } from "../errors.ts";
import { defineOperation } from "./define.ts";
import type { Context } from "../context.ts";
import type { CallOutput } from "../pool/registry.ts";
import { load } from "../_load.ts";

function registry(ctx: Context) {
  const d = ctx.daemon;
  if (!d) throw new McpxError("INTERNAL", "This operation runs inside the daemon");
  return d.registry;
}

/**
 * `ns.tool` followed by one JSON object, or by `key=value` pairs whose values are read as JSON
 * when they parse (`n=3`, `flag=true`, `list=[1,2]`) and as strings otherwise.
 */
export function parseCallWords(words: readonly string[]): Record<string, unknown> {
  const [target, ...rest] = words;
  const usage = (message: string) =>
    new McpxError("USAGE", message, { hint: "Run `mcpx call --help`" });
  if (!target) {
    throw usage('"mcpx call" needs <namespace.tool>, e.g. `mcpx call everything.echo message=hi`');
  }
  const dot = target.indexOf(".");
  if (dot <= 0 || dot === target.length - 1) {
    throw usage(`"${target}" is not <namespace.tool>: write it like everything.echo`);
  }
  const input: Record<string, unknown> = {
    server: target.slice(0, dot),
    tool: target.slice(dot + 1),
  };
  if (rest.length === 1 && rest[0].trim().startsWith("{")) {
    try {
      input.arguments = JSON.parse(rest[0]);
    } catch (e) {
      throw usage(`The arguments are not valid JSON: ${messageOf(e)}`);
    }
    return input;
  }
  const args: Record<string, unknown> = {};
  // Values were read as JSON when they parse; the daemon turns one back into text where the
  // tool's schema wants a string (`value=1` for a string field is "1").
  if (rest.length > 0) input.textValues = true;
  for (const word of rest) {
    const eq = word.indexOf("=");
    if (eq <= 0) throw usage(`"${word}" is neither a JSON object nor key=value`);
    const text = word.slice(eq + 1);
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch { /* a plain string */ }
    args[word.slice(0, eq)] = value;
  }
  input.arguments = args;
  return input;
}

/** `mcpx call ns.tool …`: one tool call through the daemon's pools. */
export const toolsCall = defineOperation<
  {
    server: string;
    tool: string;
    arguments?: Record<string, unknown>;
    textValues?: boolean;
    raw?: boolean;
    session?: string;
  },
  CallOutput
>({
  id: "tools.call",
  summary: "Call one tool on a managed server",
  description:
    "Arguments are one JSON object or key=value pairs, checked against the tool's input schema before they are sent. The result prints unwrapped: structured content or JSON-in-text parsed, plain text as a string. With --json it is the MCP result envelope (content, structuredContent, isError, _meta as the server sent them) plus an mcpx field naming the server, tool, instance (id, pid, scope key) and duration; a tool error prints its envelope with isError and an error field. Binary content (image, audio, blob resources) is never printed: each item's bytes are saved to a file of their own, named in its place (with --json the item has bytes and file instead of data or blob). Output past output.maxBytes prints its head, then a line naming the file under the state directory that holds all of it and its size; a --json document is cut to fit and marked truncated, spilledTo and bytes. A tool that reports an error exits 8 with the server's text.",
  params: [
    { name: "server", type: "string", required: true, doc: "The namespace (or configured name)" },
    {
      name: "tool",
      type: "string",
      required: true,
      doc: "The tool's name, or its identifier form",
    },
    { name: "arguments", type: "json", doc: "The tool's arguments as a JSON object" },
    {
      name: "textValues",
      type: "boolean",
      doc:
        "The arguments came from key=value words: a value is kept as text where the schema wants a string",
    },
    {
      name: "raw",
      type: "boolean",
      doc: "Print the MCP result envelope (binary saved to files) instead of the unwrapped value",
    },
    {
      name: "session",
      type: "string",
      doc: "Join the lease of this session key (default MCPX_SESSION_ID)",
    },
  ],
  cli: {
    command: ["call"],
    complete: "tools",
    usage: "<namespace.tool> [json | key=value ...] [options]",
    positionals: parseCallWords,
    fills: ["server", "tool", "arguments", "textValues"],
    example: ["everything.echo", "message=hi"],
    // The envelope is what the command renders: binary saved to files, long output bounded.
    request: (input) => ({ ...input, raw: true }),
  },
  http: {
    method: "POST",
    path: "/v1/tools/call",
    also: [{ method: "POST", path: "/v1/call/{server}/{tool}", bodyField: "arguments" }],
  },
  mcp: { expose: true },
  where: { daemon: "start" },
  output: (z) =>
    z.object({
      server: z.string(),
      tool: z.string(),
      result: z.unknown(),
      raw: z.unknown().optional(),
      instance: z.object({ id: z.string(), pid: z.number().nullable(), key: z.string() }),
      durationMs: z.number(),
    }),
  async run(input, ctx) {
    return await registry(ctx).call({
      server: input.server,
      tool: input.tool,
      arguments: input.arguments ?? {},
      textValues: input.textValues,
      raw: input.raw,
      caller: { ...ctx.caller, ...(input.session ? { session: input.session } : {}) },
    }, ctx.signal);
  },
  async render(out, ctx, input) {
    const { renderCall } = await outputModule();
    return renderCall(out, input.raw === true, await bound(ctx, input));
  },
  async json(out, ctx, input) {
    const { callDocument } = await outputModule();
    return callDocument(out, await bound(ctx, input));
  },
  async jsonError(error, ctx, input) {
    if (error.code !== "TOOL_ERROR") return undefined;
    const { callErrorDocument } = await outputModule();
    return callErrorDocument(error, input, await bound(ctx, input));
  },
});

function outputModule() {
  return load<typeof import("../output/call.ts")>("../output/call.ts", import.meta.url);
}

async function bound(ctx: Context, input: { server?: string; tool?: string }) {
  const { outputBound } = await load<typeof import("../output/bound.ts")>(
    "../output/bound.ts",
    import.meta.url,
  );
  return await outputBound(ctx, `call-${input.server}.${input.tool}`);
}

/** `mcpx restart <ns> [--session key]`. */
export const serversRestart = defineOperation<
  { server: string; session?: string },
  { server: string; stopped: number }
>({
  id: "servers.restart",
  summary: "Restart a server: stop its processes (or one session's) so the next call starts fresh",
  params: [
    { name: "server", type: "string", positional: true, required: true, doc: "The namespace" },
    { name: "session", type: "string", doc: "Only the instance serving this session key" },
  ],
  cli: { command: ["restart"], complete: "namespaces" },
  http: { method: "POST", path: "/v1/servers/{server}/restart" },
  mcp: { expose: true, destructive: true },
  where: { daemon: "start" },
  output: (z) => z.object({ server: z.string(), stopped: z.number() }),
  async run(input, ctx) {
    return {
      server: input.server,
      stopped: await registry(ctx).restart(input.server, input.session),
    };
  },
  render: (o) => `restarted ${o.server}: stopped ${o.stopped} process(es)\n`,
});

/** `mcpx refresh`: list every server's tools again. */
export const serversRefresh = defineOperation<
  Record<string, never>,
  { servers: { namespace: string; tools: number | null; error?: string }[]; exitCode?: number }
>({
  id: "servers.refresh",
  summary: "Re-read every server's tool list",
  params: [],
  cli: { command: ["refresh"] },
  http: { method: "POST", path: "/v1/servers/refresh" },
  mcp: { expose: true },
  where: { daemon: "start" },
  output: (z) =>
    z.object({
      servers: z.array(
        z.object({
          namespace: z.string(),
          tools: z.number().nullable(),
          error: z.string().optional(),
        }),
      ),
      exitCode: z.number().optional(),
    }),
  async run(_input, ctx) {
    const out = await registry(ctx).refresh();
    const failed = out.some((s) => s.error);
    return {
      // Some server could not be listed: the command fails (6), each row says why.
      ...(failed ? { exitCode: 6 } : {}),
      servers: out.map((s) => ({
        namespace: s.namespace,
        tools: s.tools ? s.tools.length : null,
        ...(s.error ? { error: s.error } : {}),
      })),
    };
  },
  render: (o) =>
    o.servers.map((s) => `${s.namespace}: ${s.error ? `error: ${s.error}` : `${s.tools} tools`}`)
      .join("\n") + "\n",
});

/** `mcpx end-session <key>`: stop what a session a caller minted holds. */
export const sessionsEnd = defineOperation<
  { session: string },
  { session: string; stopped: number }
>({
  id: "sessions.end",
  summary: "Stop every server process held for a session key, now that the session is over",
  params: [{
    name: "session",
    type: "string",
    positional: true,
    required: true,
    doc: "The session key",
  }],
  cli: { command: ["end-session"] },
  http: { method: "POST", path: "/v1/sessions/{session}/end" },
  mcp: { expose: true, destructive: true },
  where: { daemon: "running" },
  output: (z) => z.object({ session: z.string(), stopped: z.number() }),
  async run(input, ctx) {
    return { session: input.session, stopped: await registry(ctx).endSession(input.session) };
  },
  offline: (input) => Promise.resolve({ session: input.session, stopped: 0 }),
  render: (o) => `session ${o.session}: stopped ${o.stopped} process(es)\n`,
});
