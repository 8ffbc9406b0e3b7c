/**
 * mcpx as an MCP server: the operations the table marks for MCP, each a tool named `mcpx_<command>`
 * with its annotations (by default only the core few declared for an agent, `mcp.agent`), served over stdio (`mcpx serve`) and Streamable HTTP (the daemon's `/mcp`,
 * `mcpx serve --http`), in both protocol eras. The official SDK's server does the protocol (the
 * `initialize` handshake, 2026-07-28 `server/discover` and per-request `_meta`, -32022 with the
 * versions that would work, ping, logging/setLevel, cancellation); this module decides what is
 * served and who runs it. Each MCP connection is its own mcpx session, so two hosts never share a
 * leased server (a browser above all).
 *
 * Loaded on demand: the daemon imports it on the first `/mcp` request, never at start.
 */
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  type JSONRPCMessage,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  type TransportSendOptions,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
import type { Operation, ParamSpec } from "../operations/define.ts";
import { McpxError, messageOf } from "../errors.ts";
import { completionsGet, promptsGet, resourcesRead } from "../operations/feature_ops.ts";
import { VERSION } from "../version.ts";
import { RevisionTransport } from "./mcp_revision.ts";

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
  log?(
    level: "info" | "warn",
    event: string,
    message: string,
    attrs?: Record<string, unknown>,
  ): void;
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

/** The revisions that negotiate through `initialize`; a modern one is never agreed to there. */
export const LEGACY_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

/**
 * The error for an `initialize` that asks for a revision without a handshake (2026-07-28 or
 * later): a client sending `initialize` is legacy by definition, so agreeing, or answering with an
 * older revision as if it had asked for one, would promise a protocol neither side speaks.
 */
export function modernInitializeError(
  message: unknown,
): { jsonrpc: "2.0"; id: string | number; error: Record<string, unknown> } | undefined {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return undefined;
  const m = message as { method?: unknown; id?: unknown; params?: { protocolVersion?: unknown } };
  const version = m.params?.protocolVersion;
  if (m.method !== "initialize" || typeof version !== "string") return undefined;
  if (LEGACY_VERSIONS.includes(version) || !/^\d{4}-\d{2}-\d{2}$/.test(version)) return undefined;
  if (version < LEGACY_VERSIONS[0]) return undefined;
  return {
    jsonrpc: "2.0",
    id: (typeof m.id === "string" || typeof m.id === "number") ? m.id : 0,
    error: {
      code: -32022,
      message:
        `Protocol version ${version} has no initialize handshake: send server/discover, or initialize with one of ${
          LEGACY_VERSIONS.join(", ")
        }`,
      data: { supported: [...LEGACY_VERSIONS], requested: version },
    },
  };
}

/**
 * A JSON-RPC error frame. An unknown id is left out rather than null: the MCP schema of every
 * revision served types `id` as a string or integer and makes it optional on an error.
 */
function errorFrame(id: string | number | null, code: number, message: string): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    ...(id === null ? {} : { id }),
    error: { code, message },
  } as unknown as JSONRPCMessage;
}

/**
 * What a frame read from a client is: a message to hand on, or the error it is answered with
 * (text that is not JSON -32700; a batch, which no revision mcpx serves has, or anything else
 * that is not one JSON-RPC message -32600; an `initialize` asking for a modern revision -32022).
 */
export function readFrame(text: string): { message: JSONRPCMessage } | { answer: JSONRPCMessage } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { answer: errorFrame(null, -32700, "Parse error: the frame is not JSON") };
  }
  if (Array.isArray(value)) {
    return {
      answer: errorFrame(
        null,
        -32600,
        `Invalid request: a batch (${value.length} entries) is not part of the protocol revisions served; send each message alone`,
      ),
    };
  }
  const m = value as Record<string, unknown> | null;
  const id = m?.id;
  const idOk = id === undefined || typeof id === "string" || Number.isInteger(id);
  const shapeOk = m !== null && typeof m === "object" && m.jsonrpc === "2.0" && idOk &&
    (typeof m.method === "string" || (id !== undefined && ("result" in m || "error" in m)));
  if (!shapeOk) {
    const answerId = idOk && id !== undefined ? id as string | number : null;
    return { answer: errorFrame(answerId, -32600, "Invalid request: not a JSON-RPC 2.0 message") };
  }
  const refused = modernInitializeError(m);
  if (refused) return { answer: refused as unknown as JSONRPCMessage };
  return { message: m as unknown as JSONRPCMessage };
}

/**
 * The stdio transport: one JSON-RPC message per line on stdin and stdout. Unlike the SDK's, it
 * answers every frame it cannot hand on ({@linkcode readFrame}), and a request whose id is
 * already in flight on the connection (-32600), instead of dropping them.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  readonly #input: ReadableStream<Uint8Array>;
  readonly #output: WritableStreamDefaultWriter<Uint8Array>;
  readonly #maxLineBytes: number;
  readonly #inflight = new Set<string | number>();
  #closed = false;
  #writes: Promise<void> = Promise.resolve();

  constructor(
    input: ReadableStream<Uint8Array>,
    output: WritableStream<Uint8Array>,
    maxLineBytes: number,
  ) {
    this.#input = input;
    this.#output = output.getWriter();
    this.#maxLineBytes = maxLineBytes;
  }

  start(): Promise<void> {
    void this.#read();
    return Promise.resolve();
  }

  async #read() {
    const decoder = new TextDecoder();
    let buffered = "";
    let skipping = false;
    try {
      for await (const chunk of this.#input) {
        buffered += decoder.decode(chunk, { stream: true });
        for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
          const line = buffered.slice(0, nl).replace(/\r$/, "");
          buffered = buffered.slice(nl + 1);
          if (skipping) skipping = false;
          else if (line.length > this.#maxLineBytes) this.#answer(this.#tooLarge());
          else if (line.trim() !== "") this.#frame(line);
        }
        if (buffered.length > this.#maxLineBytes) {
          // Never held whole: the rest of the line is dropped as it comes.
          if (!skipping) this.#answer(this.#tooLarge());
          skipping = true;
          buffered = "";
        }
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
    await this.close();
  }

  #tooLarge(): JSONRPCMessage {
    return errorFrame(
      null,
      -32600,
      `Invalid request: the frame is larger than ${this.#maxLineBytes} bytes`,
    );
  }

  #frame(line: string) {
    const read = readFrame(line);
    if ("answer" in read) return this.#answer(read.answer);
    const m = read.message as { id?: string | number; method?: string };
    if (m.method !== undefined && m.id !== undefined) {
      if (this.#inflight.has(m.id)) {
        return this.#answer(errorFrame(
          m.id,
          -32600,
          `Invalid request: id ${JSON.stringify(m.id)} is already in use by a request in flight`,
        ));
      }
      this.#inflight.add(m.id);
    }
    this.onmessage?.(read.message);
  }

  #answer(frame: JSONRPCMessage) {
    void this.#write(frame).catch(() => {});
  }

  #write(message: JSONRPCMessage): Promise<void> {
    const bytes = new TextEncoder().encode(JSON.stringify(message) + "\n");
    this.#writes = this.#writes.then(() => this.#closed ? undefined : this.#output.write(bytes));
    return this.#writes;
  }

  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    const m = message as { id?: string | number; method?: string };
    if (m.method === undefined && m.id !== undefined) this.#inflight.delete(m.id);
    return this.#write(message);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#writes.catch(() => {});
    this.#closed = true;
    this.onclose?.();
  }
}

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
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listed: Record<string, unknown>[] = [
    ...tools.map(wireTool),
    ...(batch ? [BATCH_TOOL] : []),
  ];
  server.setRequestHandler("tools/list", (request) => {
    const offset = decodeCursor(request.params?.cursor, listed.length);
    const page = listed.slice(offset, offset + PAGE_SIZE);
    const next = offset + PAGE_SIZE < listed.length ? encodeCursor(offset + PAGE_SIZE) : undefined;
    return { tools: page, ...(next ? { nextCursor: next } : {}) } as never;
  });
  const features = codeModeFeatures(host, session);
  server.setRequestHandler(
    "prompts/list",
    (r, ctx) => features.prompts(r.params?.cursor, ctx) as never,
  );
  server.setRequestHandler(
    "prompts/get",
    (r, ctx) => features.prompt(r.params.name, r.params.arguments ?? {}, ctx) as never,
  );
  server.setRequestHandler(
    "resources/list",
    (r, ctx) => features.resources("resources", r.params?.cursor, ctx) as never,
  );
  server.setRequestHandler(
    "resources/templates/list",
    (r, ctx) => features.resources("resourceTemplates", r.params?.cursor, ctx) as never,
  );
  server.setRequestHandler("resources/read", (r, ctx) => features.read(r.params.uri, ctx) as never);
  server.setRequestHandler("completion/complete", (r, ctx) =>
    features.complete(
      r.params.ref as { type: string; name?: string; uri?: string },
      r.params.argument as { name: string; value: string },
      r.params.context as { arguments?: Record<string, unknown> } | undefined,
      ctx,
    ) as never);
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
  return server;
}

/** A new mcpx session key for one MCP connection. */
export function newSessionKey(): string {
  return `mcp-${crypto.randomUUID()}`;
}

/**
 * Serves the MCP surface over this process's stdin and stdout until stdin closes: one connection,
 * one mcpx session. Resolves once the connection is over.
 */
export async function serveStdio(
  operations: readonly Operation[],
  host: McpHost,
  maxLineBytes: number,
  named?: string,
  set: ToolSet = "core",
): Promise<void> {
  const tools = buildMcpTools(operations, set);
  await serveStdioWith(
    (session) => newServer(tools, host, session, set === "all"),
    host,
    maxLineBytes,
    named,
  );
}

/**
 * Serves what `make` makes over stdin and stdout until stdin closes: one mcpx session, its own
 * (ended with the connection) unless `named` names one (`mcpx serve --session`), which outlives it.
 */
export async function serveStdioWith(
  make: (session: string) => Server,
  host: Pick<McpHost, "end" | "log">,
  maxLineBytes: number,
  named?: string,
): Promise<void> {
  const session = named ?? newSessionKey();
  const closed = Promise.withResolvers<void>();
  // Each result held to the revision the client negotiated (lib/surfaces/mcp_revision.ts).
  const transport = new RevisionTransport(
    new LineTransport(Deno.stdin.readable, Deno.stdout.writable, maxLineBytes),
  );
  const handle = sdkServeStdio(() => {
    const server = make(session);
    const before = server.onclose;
    server.onclose = () => {
      before?.();
      closed.resolve();
    };
    return server;
  }, { transport, onerror: (e) => host.log?.("warn", "mcp.error", messageOf(e), { session }) });
  await closed.promise;
  await handle.close();
  if (named === undefined) await host.end?.(session);
}

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

/** The scheme of a resource of a configured server as code mode serves it: `mcpx://<ns>/<uri>`. */
export const RESOURCE_SCHEME = "mcpx://";

/** The protocol error for a failed feature request (a server's own JSON-RPC code kept). */
function featureError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const e = error instanceof McpxError ? error : undefined;
  const rpc = e?.data as { rpcCode?: number; rpcData?: unknown } | undefined;
  if (typeof rpc?.rpcCode === "number") {
    return new ProtocolError(rpc.rpcCode, e!.message, rpc.rpcData);
  }
  const code = e?.code === "SERVER_NOT_FOUND" || e?.code === "USAGE"
    ? ProtocolErrorCode.InvalidParams
    : ProtocolErrorCode.InternalError;
  return new ProtocolError(code, e ? e.message : messageOf(error));
}

/**
 * Code mode's prompts and resources: every configured server's, through the `prompts` and
 * `resources` operations (so under this session's leases), namespaced, paged with mcpx's cursor.
 * Completion of a prompt's argument or a template's variable is the server's own (the
 * `completions` operation, relayed); the `{ns}` of an `mcpx://{ns}/…` template is completed from
 * what mcpx holds, the namespaces.
 */
function codeModeFeatures(host: McpHost, session: string) {
  type Ctx = { mcpReq: { signal: AbortSignal } };
  const run = async (op: Operation, input: Record<string, unknown>, ctx: Ctx) => {
    try {
      return await host.run(op, input, { session, signal: ctx.mcpReq.signal }) as Record<
        string,
        unknown
      >;
    } catch (error) {
      throw featureError(error);
    }
  };
  const page = (kind: string, all: unknown[], cursor: string | undefined) => {
    const offset = decodeCursor(cursor, all.length);
    const next = offset + PAGE_SIZE < all.length ? encodeCursor(offset + PAGE_SIZE) : undefined;
    return { [kind]: all.slice(offset, offset + PAGE_SIZE), ...(next ? { nextCursor: next } : {}) };
  };
  type Listed = { namespace: string; [k: string]: unknown };
  const strip = ({ namespace: _ns, ...rest }: Listed) => rest;
  const prompts = async (ctx: Ctx) =>
    ((await run(promptsGet as unknown as Operation, {}, ctx)).prompts ?? []) as Listed[];
  const splitUri = (uri: string) => {
    if (!uri.startsWith(RESOURCE_SCHEME)) return undefined;
    const rest = uri.slice(RESOURCE_SCHEME.length);
    const slash = rest.indexOf("/");
    return slash > 0 ? { ns: rest.slice(0, slash), uri: rest.slice(slash + 1) } : undefined;
  };
  return {
    async prompts(cursor: string | undefined, ctx: Ctx) {
      const all = (await prompts(ctx)).map((p) => ({
        ...strip(p),
        name: `${p.namespace}.${p.name}`,
      }));
      return page("prompts", all, cursor);
    },
    async prompt(name: string, args: Record<string, unknown>, ctx: Ctx) {
      const dot = name.indexOf(".");
      if (dot <= 0) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown prompt "${name}": prompts are <namespace>.<name>`,
        );
      }
      const got = await run(promptsGet as unknown as Operation, {
        server: name.slice(0, dot),
        name: name.slice(dot + 1),
        arguments: args,
      }, ctx);
      return {
        ...(typeof got.description === "string" ? { description: got.description } : {}),
        messages: got.messages ?? [],
      };
    },
    async resources(kind: "resources" | "resourceTemplates", cursor: string | undefined, ctx: Ctx) {
      const out = await run(resourcesRead as unknown as Operation, {}, ctx);
      const all = kind === "resources"
        ? ((out.resources ?? []) as Listed[]).map((r) => ({
          ...strip(r),
          uri: `${RESOURCE_SCHEME}${r.namespace}/${r.uri}`,
        }))
        : ((out.templates ?? []) as Listed[]).map((t) => ({
          ...strip(t),
          uriTemplate: `${RESOURCE_SCHEME}${t.namespace}/${t.uriTemplate}`,
        }));
      return page(kind, all, cursor);
    },
    async read(uri: string, ctx: Ctx) {
      const at = splitUri(uri);
      if (!at) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Resource not found", { uri });
      }
      const got = await run(resourcesRead as unknown as Operation, {
        server: at.ns,
        uri: at.uri,
        raw: true,
      }, ctx);
      const contents = (got.contents ?? []) as { uri?: string }[];
      return {
        contents: contents.map((c) => ({
          ...c,
          uri: `${RESOURCE_SCHEME}${at.ns}/${c.uri ?? at.uri}`,
        })),
      };
    },
    async complete(
      ref: { type: string; name?: string; uri?: string },
      argument: { name: string; value: string },
      context: { arguments?: Record<string, unknown> } | undefined,
      ctx: Ctx,
    ) {
      const value = String(argument?.value ?? "");
      let values: string[] = [];
      const relayed = async (input: Record<string, unknown>) => {
        const got = await run(completionsGet as unknown as Operation, {
          ...input,
          argument: argument.name,
          value,
          ...(context?.arguments ? { context: context.arguments } : {}),
        }, ctx);
        const { values, total, hasMore } = got as {
          values: string[];
          total?: number;
          hasMore?: boolean;
        };
        return {
          completion: {
            values: values.slice(0, 100),
            ...(total !== undefined ? { total } : {}),
            ...(hasMore !== undefined ? { hasMore } : {}),
          },
        };
      };
      // A prompt not named <namespace>.<name> is none of a fronted server's: no values are known
      // for it (an empty answer, as the spec allows, rather than an error).
      const dot = ref.type === "ref/prompt" && ref.name ? ref.name.indexOf(".") : -1;
      if (ref.type === "ref/prompt" && ref.name && dot > 0) {
        return await relayed({ server: ref.name.slice(0, dot), prompt: ref.name.slice(dot + 1) });
      }
      if (ref.type === "ref/resource" && ref.uri?.startsWith(`${RESOURCE_SCHEME}{ns}/`)) {
        if (argument?.name === "ns") {
          const out = await run(resourcesRead as unknown as Operation, {}, ctx);
          const all = [...(out.resources ?? []) as Listed[], ...(out.templates ?? []) as Listed[]];
          values = [...new Set(all.map((r) => r.namespace))];
        }
      } else if (ref.type === "ref/resource" && ref.uri) {
        const at = splitUri(ref.uri);
        if (at) return await relayed({ server: at.ns, uri: at.uri });
      }
      const matching = values.filter((v) => v.startsWith(value)).slice(0, 100);
      return { completion: { values: matching, total: matching.length, hasMore: false } };
    },
  };
}
