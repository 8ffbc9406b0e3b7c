/**
 * The MCP surface over stdio (`mcpx serve`): one JSON-RPC message per line, every frame checked
 * ({@linkcode readFrame}, which the Streamable HTTP handler uses for a POST body too) and every
 * one it cannot hand on answered.
 */
import { RevisionTransport } from "./revision.ts";
import {
  type JSONRPCMessage,
  type Server,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/server";
import { serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";
import type { Operation } from "../../operations/define.ts";
import { messageOf } from "../../errors.ts";
import { newServer, newSessionKey } from "./server.ts";
import { buildMcpTools, type McpHost, type ToolSet } from "./tools.ts";

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
export function errorFrame(
  id: string | number | null,
  code: number,
  message: string,
): JSONRPCMessage {
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
  // Each result held to the revision the client negotiated (lib/surfaces/mcp/revision.ts).
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
