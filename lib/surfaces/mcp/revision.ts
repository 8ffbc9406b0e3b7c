/**
 * What mcpx sends as an MCP server, held to the revision its client negotiated: a member a later
 * revision added is left out for a client on an older one ("send conservatively";
 * docs/protocol.md). The SDK's server answers every 2025-era revision with the same objects, so a
 * 2024-11-05 client would otherwise be told of `completions`, tool annotations, output schemas and
 * structured content its revision does not have. A structured result's text is its JSON
 * (lib/surfaces/mcp/tools.ts), so such a client loses nothing by it. Content blocks are handed on as they
 * came. The 2026-07-28 era is not touched: its client speaks the newest revision.
 */
import type { JSONRPCMessage, Transport, TransportSendOptions } from "@modelcontextprotocol/server";

type Json = Record<string, unknown>;

/** The members each revision added to what mcpx sends, by what carries them. */
const ADDED: Record<"capabilities" | "tool" | "listed" | "callResult", [string, string[]][]> = {
  capabilities: [["2025-03-26", ["completions"]], ["2025-11-25", ["tasks"]], [
    "2026-07-28",
    ["extensions"],
  ]],
  tool: [
    ["2025-03-26", ["annotations"]],
    ["2025-06-18", ["outputSchema", "title", "_meta"]],
    ["2025-11-25", ["icons", "execution"]],
  ],
  // A prompt, resource or resource template.
  listed: [["2025-06-18", ["title", "_meta"]], ["2025-11-25", ["icons"]]],
  callResult: [["2025-06-18", ["structuredContent"]]],
};

/** `value` without the members of `of` that revisions after `rev` added. */
function without(rev: string, of: keyof typeof ADDED, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const later = ADDED[of].filter(([since]) => rev < since).flatMap(([, keys]) => keys);
  if (!later.some((k) => k in (value as Json))) return value;
  return Object.fromEntries(Object.entries(value as Json).filter(([k]) => !later.includes(k)));
}

const LISTS: Record<string, string> = {
  "prompts/list": "prompts",
  "resources/list": "resources",
  "resources/templates/list": "resourceTemplates",
};

/**
 * The result of `method` as a client that negotiated `rev` may be sent it. The same object when
 * there is nothing to leave out.
 */
export function forRevision(rev: string, method: string, result: Json): Json {
  if (rev >= "2026-07-28") return result;
  if (method === "initialize") {
    const capabilities = without(rev, "capabilities", result.capabilities);
    return capabilities === result.capabilities ? result : { ...result, capabilities };
  }
  if (method === "tools/list" && Array.isArray(result.tools)) {
    return { ...result, tools: result.tools.map((t) => without(rev, "tool", t)) };
  }
  if (method === "tools/call") return without(rev, "callResult", result) as Json;
  const list = LISTS[method];
  if (list && Array.isArray(result[list])) {
    return { ...result, [list]: (result[list] as unknown[]).map((e) => without(rev, "listed", e)) };
  }
  return result;
}

/**
 * A server transport that holds each result it sends to the revision negotiated
 * ({@linkcode forRevision}): the SDK's server names it through `setProtocolVersion` when it
 * answers `initialize`, and each request's method is noted as it arrives.
 */
export class RevisionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  readonly #inner: Transport;
  readonly #methods = new Map<string | number, string>();
  #revision?: string;

  constructor(inner: Transport) {
    this.#inner = inner;
    inner.onmessage = (message, extra) => {
      const m = message as { id?: string | number; method?: string };
      if (m.id !== undefined && typeof m.method === "string") this.#methods.set(m.id, m.method);
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.#inner.hasPerRequestStream;
  }

  setProtocolVersion(version: string): void {
    this.#revision = version;
    this.#inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.#inner.setSupportedProtocolVersions?.(versions);
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as { id?: string | number; method?: string; result?: Json };
    if (m.method === undefined && m.id !== undefined) {
      const method = this.#methods.get(m.id);
      this.#methods.delete(m.id);
      // The revision is named before `initialize` is answered.
      if (method && m.result && this.#revision) {
        const result = forRevision(this.#revision, method, m.result);
        if (result !== m.result) message = { ...message, result } as JSONRPCMessage;
      }
    }
    return this.#inner.send(message, options);
  }
}
