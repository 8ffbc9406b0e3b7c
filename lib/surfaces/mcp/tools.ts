/**
 * The operations table as MCP tools: every operation marked for MCP a tool named `mcpx_<command>`
 * with its annotations (by default only the core few declared for an agent, `mcp.agent`), its
 * arguments checked against the declaration, its failures tool results; `mcpx_batch`; and the
 * opaque cursors of mcpx's lists. Who runs a tool is the host's ({@linkcode McpHost}): the
 * transports are stdio.ts and http.ts, the server of one session server.ts.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Operation, ParamSpec } from "../../operations/define.ts";
import { McpxError, messageOf } from "../../errors.ts";
import type { LogSink } from "../../log/daemon.ts";

/** One tool of the MCP surface: its wire description and the operation behind it. */
export interface McpTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
  readonly annotations: {
    readonly title?: string;
    readonly readOnlyHint: boolean;
    readonly destructiveHint: boolean;
    readonly idempotentHint?: boolean;
    readonly openWorldHint: boolean;
  };
  readonly op: Operation;
  /** The parameters the tool offers (its arguments). */
  readonly params: readonly ParamSpec[];
  /** The answer's text, when it is not the output as JSON (`mcp.agent.text`). */
  readonly text?: (output: unknown) => string;
}

/**
 * The tools code mode serves: `core`, the few an agent needs, each declared for it
 * (`mcp.agent` in lib/operations/), the default; or `all`, every operation marked for MCP.
 */
export const TOOL_SETS = ["core", "all"] as const;
export type ToolSet = typeof TOOL_SETS[number];

/** Who runs a tool's operation for one MCP session, and how the session is ended. */
export interface McpHost {
  /** Runs `op` with `input` for the session; resolves to the operation's output. */
  run(
    op: Operation,
    input: Record<string, unknown>,
    call: McpCall,
  ): Promise<unknown>;
  /** The session is over (its client went away): release what it holds. */
  end?(session: string): Promise<void>;
  /** A record for the host's log (a cancellation, a session opened or closed). */
  log?: LogSink;
}

/** One tool call as the host runs it. */
export interface McpCall {
  session: string;
  signal: AbortSignal;
  /**
   * Set by the host when the daemon had to be started anew for this call after one had answered
   * this process (it died, or was stopped): why, since the servers' processes, and their state,
   * are new. The result's `_meta` says so, and a logging notification.
   */
  restarted?: string;
}

/** The `_meta` key of a result whose daemon, hence its server processes, was replaced. */
export const RESTARTED_META = "io.mcpx/restarted";

/** Tools per `tools/list` page; the cursor is opaque to clients (base64 of an offset). */
export const PAGE_SIZE = 50;

/** The MCP tool name of an operation: `mcpx_` and its command words (`mcpx_call`, `mcpx_ls`). */
export function mcpToolName(op: Operation): string {
  return "mcpx_" + op.cli.command.join("_").replaceAll("-", "_");
}

function paramSchema(p: ParamSpec): Record<string, unknown> {
  const base: Record<string, unknown> = p.type === "boolean"
    ? { type: "boolean" }
    : p.type === "integer"
    ? { type: "integer" }
    : p.type === "enum"
    ? { type: "string", enum: [...p.values!] }
    : p.type === "list"
    ? { type: "array", items: { type: "string" } }
    : p.type === "json"
    // One type: a client fills a schema by its type (the Inspector CLI parses JSON only then).
    ? { type: "object" }
    : { type: "string" };
  return { ...base, description: p.doc };
}

function outputSchemaOf(op: Operation): Record<string, unknown> | undefined {
  const json = z.toJSONSchema(op.output(z), { io: "output", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  if (json.type !== "object") return undefined;
  delete json.$schema;
  return json;
}

/**
 * The tools the MCP surface serves, from the operations table: every operation marked
 * `mcp.expose`, in table order (`all`), or those of them declared for an agent (`core`: no output
 * schemas, the agent's descriptions, only the parameters it is offered). Pure: a function of the
 * declarations.
 */
export function buildMcpTools(operations: readonly Operation[], set: ToolSet = "all"): McpTool[] {
  if (set === "core") return operations.filter((op) => op.mcp.expose && op.mcp.agent).map(coreTool);
  return operations.filter((op) => op.mcp.expose).map((op) => {
    const params = op.params.filter((p) => !op.mcp.hidden?.includes(p.name));
    const required = params.filter((p) => p.required).map((p) => p.name);
    const passThrough = op.mcp.result !== undefined;
    return {
      name: mcpToolName(op),
      description: [op.summary, op.description].filter(Boolean).join(". "),
      inputSchema: {
        type: "object",
        properties: Object.fromEntries(params.map((p) => [p.name, paramSchema(p)])),
        ...(required.length ? { required } : {}),
        additionalProperties: false,
      },
      // A tool whose result is another server's passes that result through: no schema of ours.
      ...(passThrough ? {} : { outputSchema: outputSchemaOf(op) }),
      annotations: {
        title: op.summary,
        readOnlyHint: op.mcp.readOnly === true,
        destructiveHint: op.mcp.destructive === true,
        openWorldHint: passThrough,
      },
      op,
      params,
    };
  });
}

/** An operation's tool in the core set: what `mcp.agent` declares, and nothing to skip over. */
function coreTool(op: Operation): McpTool {
  const agent = op.mcp.agent!;
  const params = op.params.filter((p) => p.name in agent.params)
    .map((p) => ({ ...p, doc: agent.params[p.name] }));
  const required = params.filter((p) => p.required).map((p) => p.name);
  return {
    name: mcpToolName(op),
    description: agent.description,
    inputSchema: {
      type: "object",
      properties: Object.fromEntries(params.map((p) => [p.name, paramSchema(p)])),
      ...(required.length ? { required } : {}),
    },
    annotations: {
      readOnlyHint: op.mcp.readOnly === true,
      destructiveHint: op.mcp.destructive === true,
      openWorldHint: op.mcp.result !== undefined,
    },
    op,
    params,
    text: agent.text as ((output: unknown) => string) | undefined,
  };
}

function typeOk(p: ParamSpec, v: unknown): boolean {
  switch (p.type) {
    case "boolean":
      return typeof v === "boolean";
    case "integer":
      return Number.isInteger(v);
    case "enum":
      return typeof v === "string" && p.values!.includes(v);
    case "list":
      return Array.isArray(v) && v.every((x) => typeof x === "string");
    case "json":
      return v !== null && typeof v === "object" && !Array.isArray(v);
    default:
      return typeof v === "string";
  }
}

/**
 * The operation's input from a tool call's arguments, checked against the declaration.
 * @throws {McpxError} USAGE naming the first argument that is unknown, missing or mistyped.
 */
export function toolInput(tool: McpTool, args: Record<string, unknown>): Record<string, unknown> {
  const op = tool.op;
  const params = tool.params;
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    const p = params.find((q) => q.name === k);
    if (!p) {
      throw new McpxError("USAGE", `${tool.name} has no argument "${k}"`, {
        hint: `Its arguments: ${params.map((q) => q.name).join(", ") || "none"}`,
      });
    }
    if (v === undefined || v === null) continue;
    if (!typeOk(p, v)) {
      throw new McpxError("USAGE", `${tool.name}: argument "${k}" must be ${expected(p)}`);
    }
    Object.defineProperty(input, k, { value: v, enumerable: true, writable: true });
  }
  for (const p of params) {
    if (p.required && input[p.name] === undefined) {
      throw new McpxError("USAGE", `${tool.name} needs the argument "${p.name}"`);
    }
  }
  return op.mcp.request ? op.mcp.request(input) : input;
}

function expected(p: ParamSpec): string {
  return p.type === "enum"
    ? `one of ${p.values!.map((v) => `"${v}"`).join(", ")}`
    : p.type === "json"
    ? "a JSON object"
    : p.type === "list"
    ? "an array of strings"
    : `a ${p.type}`;
}

/** A CallToolResult. */
export type ToolResult = {
  content: { type: "text"; text: string }[] | unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
};

function errorResult(error: unknown): ToolResult {
  const e = error instanceof McpxError ? error : undefined;
  const text = e
    ? `${e.code}: ${e.message}${e.hint ? `. ${e.hint}` : ""}`
    : `INTERNAL: ${messageOf(error)}`;
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * Runs one tool call: a failure of the operation is a tool result with `isError` (the model reads
 * it), never a protocol error; a tool that passes another server's result through
 * (`mcp.result`) hands on its `isError` as it came.
 */
export async function callTool(
  tool: McpTool,
  args: Record<string, unknown>,
  host: McpHost,
  call: McpCall,
): Promise<ToolResult> {
  const result = await toolResult(tool, args, host, call);
  if (!call.restarted) return result;
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  return { ...result, _meta: { ...meta, [RESTARTED_META]: { reason: call.restarted } } };
}

async function toolResult(
  tool: McpTool,
  args: Record<string, unknown>,
  host: McpHost,
  call: McpCall,
): Promise<ToolResult> {
  let input: Record<string, unknown>;
  try {
    input = toolInput(tool, args);
  } catch (error) {
    return errorResult(error);
  }
  const op = tool.op;
  try {
    const output = await host.run(op, input, call);
    if (op.mcp.result) return op.mcp.result(output) as ToolResult;
    // A core tool answers with text alone: what an agent reads, without a second copy.
    if (!tool.outputSchema && tool.text) {
      return { content: [{ type: "text", text: tool.text(output) }] };
    }
    const structured = output !== null && typeof output === "object" && !Array.isArray(output)
      ? output as Record<string, unknown>
      : { value: output };
    return {
      content: [{ type: "text", text: JSON.stringify(output, null, 2) }],
      ...(tool.outputSchema ? { structuredContent: structured } : {}),
    };
  } catch (error) {
    const own = op.mcp.errorResult && error instanceof McpxError
      ? op.mcp.errorResult(error)
      : undefined;
    return (own as ToolResult | undefined) ?? errorResult(error);
  }
}

/** The most calls one `mcpx_batch` runs. */
export const MAX_BATCH = 100;

/**
 * `mcpx_batch`: several of the other tools' calls at once, run concurrently, each answered with
 * its own result (a failing one does not fail the rest). The one tool that is no operation: it is
 * a feature of the MCP surface, which JSON-RPC batches (removed from the protocol) no longer give.
 */
export const BATCH_TOOL = {
  name: "mcpx_batch",
  description:
    `Call several mcpx tools at once (at most ${MAX_BATCH}), concurrently: e.g. many mcpx_call of independent tools. Each entry gets its own result, isError included; one failing does not fail the others.`,
  inputSchema: {
    type: "object",
    properties: {
      calls: {
        type: "array",
        description: "The calls: each the name of an mcpx tool and its arguments",
        items: {
          type: "object",
          properties: {
            tool: { type: "string", description: "An mcpx tool, e.g. mcpx_call" },
            arguments: { type: "object", description: "Its arguments" },
          },
          required: ["tool"],
          additionalProperties: false,
        },
        minItems: 1,
        maxItems: MAX_BATCH,
      },
    },
    required: ["calls"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: { results: { type: "array", items: { type: "object" } } },
    required: ["results"],
  },
  annotations: {
    title: "Call several mcpx tools at once",
    readOnlyHint: false,
    destructiveHint: false,
    openWorldHint: true,
  },
} as const;

/** Runs one `mcpx_batch` call against the served tools. */
export async function callBatch(
  tools: ReadonlyMap<string, McpTool>,
  args: Record<string, unknown>,
  host: McpHost,
  call: { session: string; signal: AbortSignal },
): Promise<ToolResult> {
  const calls = args.calls;
  const extra = Object.keys(args).filter((k) => k !== "calls");
  if (!Array.isArray(calls) || calls.length === 0 || calls.length > MAX_BATCH || extra.length) {
    return errorResult(
      new McpxError(
        "USAGE",
        `mcpx_batch takes { calls: [{ tool, arguments }] } with 1 to ${MAX_BATCH} calls`,
      ),
    );
  }
  const results = await Promise.all(calls.map((entry: unknown) => {
    const e = entry as { tool?: unknown; arguments?: unknown } | null;
    const tool = typeof e?.tool === "string" ? tools.get(e.tool) : undefined;
    if (!tool) {
      const name = typeof e?.tool === "string" ? `"${e.tool}"` : "no tool";
      return Promise.resolve(
        errorResult(new McpxError("USAGE", `mcpx_batch: an entry names ${name}, not an mcpx tool`)),
      );
    }
    const a = e?.arguments ?? {};
    if (a === null || typeof a !== "object" || Array.isArray(a)) {
      return Promise.resolve(
        errorResult(
          new McpxError("USAGE", `mcpx_batch: ${tool.name}'s arguments are not an object`),
        ),
      );
    }
    return callTool(tool, a as Record<string, unknown>, host, call);
  }));
  return {
    content: [{ type: "text", text: JSON.stringify(results, null, 2) }],
    structuredContent: { results },
  };
}

function wireTool(tool: McpTool): Record<string, unknown> {
  const { op: _op, params: _params, text: _text, ...wire } = tool;
  return wire;
}

/**
 * The offset an opaque `tools/list` cursor names.
 * @throws {ProtocolError} -32602 when it is not one this server handed out.
 */
export function decodeCursor(cursor: string | undefined, total: number): number {
  if (cursor === undefined) return 0;
  const bad = () =>
    new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor "${cursor.slice(0, 64)}"`);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(cursor) || cursor.length % 4 !== 0) throw bad();
  let text: string;
  try {
    text = atob(cursor);
  } catch {
    throw bad();
  }
  const m = /^offset:(\d+)$/.exec(text);
  if (!m || Number(m[1]) > total) throw bad();
  return Number(m[1]);
}

/** The cursor of the page that starts at `offset`. */
export function encodeCursor(offset: number): string {
  return btoa(`offset:${offset}`);
}

/** One page of a list, from `cursor`: `kind` holds the items, `nextCursor` the rest's cursor. */
export function pageOf(kind: string, all: readonly unknown[], cursor: string | undefined) {
  const offset = decodeCursor(cursor, all.length);
  const next = offset + PAGE_SIZE < all.length ? encodeCursor(offset + PAGE_SIZE) : undefined;
  return { [kind]: all.slice(offset, offset + PAGE_SIZE), ...(next ? { nextCursor: next } : {}) };
}

/**
 * Serves `tools` on `server` for one mcpx session: `tools/list` paged, `tools/call` run by the
 * host; `mcpx_batch` is served beside the whole set only (`batch`).
 */
export function serveTools(
  server: Server,
  tools: readonly McpTool[],
  host: McpHost,
  session: string,
  batch: boolean,
): void {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listed: Record<string, unknown>[] = [
    ...tools.map(wireTool),
    ...(batch ? [BATCH_TOOL] : []),
  ];
  server.setRequestHandler(
    "tools/list",
    (request) => pageOf("tools", listed, request.params?.cursor) as never,
  );
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const signal = ctx.mcpReq.signal;
    if (batch && request.params.name === BATCH_TOOL.name) {
      return await callBatch(byName, request.params.arguments ?? {}, host, {
        session,
        signal,
      }) as never;
    }
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool "${request.params.name}"`,
      );
    }
    signal.addEventListener(
      "abort",
      () =>
        host.log?.("info", "mcp.cancelled", "A client cancelled a tool call", {
          session,
          tool: tool.name,
          id: ctx.mcpReq.id,
        }),
      { once: true },
    );
    const call: McpCall = { session, signal };
    const result = await callTool(tool, request.params.arguments ?? {}, host, call);
    if (call.restarted) {
      // Said as it happens too, for a client that reads notifications rather than _meta.
      await server.sendLoggingMessage({
        level: "warning",
        logger: "mcpx",
        data:
          `${call.restarted}. Any state a server held (pages, logins, counters) is gone: redo lost steps`,
      }).catch(() => {});
    }
    return result as never;
  });
}
