/**
 * The half of MCP that is not tools, across servers: prompts, resources and resource templates,
 * listed from every server (all pages walked), a prompt got and a resource read from one. A
 * server that does not declare the feature, or answers method-not-found, has none: an empty
 * list, never an error.
 */
import { McpxError, messageOf } from "../errors.ts";
import type { McpConnection } from "../mcp/types.ts";
import type { Caller } from "./scope.ts";
import type { Registry } from "./registry.ts";

/** The JSON-RPC code for an unknown method. */
const METHOD_NOT_FOUND = -32601;

/** The most pages of one list walked (a server handing out cursors forever stops there). */
const MAX_PAGES = 64;

type Kind = "prompts" | "resources" | "resourceTemplates";

const METHOD: Record<Kind, { method: string; capability: string }> = {
  prompts: { method: "prompts/list", capability: "prompts" },
  resources: { method: "resources/list", capability: "resources" },
  resourceTemplates: { method: "resources/templates/list", capability: "resources" },
};

/** Whether a TOOL_ERROR from a server is its saying it has no such method. */
export function isMethodNotFound(error: unknown): boolean {
  return error instanceof McpxError &&
    (error.data as { rpcCode?: number } | undefined)?.rpcCode === METHOD_NOT_FOUND;
}

/** Every item of one list of one connection, across pages; none when the feature is absent. */
export async function listAll(
  conn: McpConnection,
  kind: Kind,
  timeoutMs: number,
): Promise<Record<string, unknown>[]> {
  const { method, capability } = METHOD[kind];
  const caps = conn.capabilities?.();
  if (caps && !caps[capability]) return [];
  if (!conn.request) return [];
  const out: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    let result: Record<string, unknown>;
    try {
      result = await conn.request(method, cursor ? { cursor } : undefined, { timeoutMs });
    } catch (error) {
      if (isMethodNotFound(error)) return [];
      throw error;
    }
    const items = result[kind];
    if (Array.isArray(items)) out.push(...items as Record<string, unknown>[]);
    cursor = typeof result.nextCursor === "string" && result.nextCursor ? result.nextCursor : "";
    if (!cursor) break;
  }
  return out;
}

/** One namespace's list, or why it could not be had. */
export interface Listed {
  namespace: string;
  items: Record<string, unknown>[];
  error?: string;
}

/**
 * The lists of the named namespaces (every enabled one when none is named), each under the
 * caller's lease; a server that fails to answer is reported beside the others, not fatal.
 */
export async function listAcross(
  registry: Registry,
  caller: Caller,
  kinds: readonly Kind[],
  only?: string,
): Promise<Record<Kind, Listed[]>> {
  const namespaces = only !== undefined
    ? [registry.entry(only, caller.selection).def.namespace]
    : registry.status().filter((s) => s.state !== "disabled").map((s) => s.namespace);
  const per = await Promise.all(namespaces.map(async (namespace) => {
    try {
      return await registry.withConnection(namespace, caller, async (conn, def) => {
        const got: Partial<Record<Kind, Record<string, unknown>[]>> = {};
        for (const kind of kinds) got[kind] = await listAll(conn, kind, def.pool.callTimeoutMs);
        return { namespace, got };
      });
    } catch (error) {
      if (only !== undefined) throw error;
      return { namespace, error: messageOf(error).split("\n")[0] };
    }
  }));
  const out = {} as Record<Kind, Listed[]>;
  for (const kind of kinds) {
    out[kind] = per.map((p) =>
      "error" in p
        ? { namespace: p.namespace, items: [], error: p.error }
        : { namespace: p.namespace, items: p.got[kind] ?? [] }
    );
  }
  return out;
}

/** One request to one server under the caller's lease (prompts/get, resources/read, completion). */
export async function requestOne(
  registry: Registry,
  caller: Caller,
  namespace: string,
  method: string,
  params: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  return await registry.withConnection(namespace, caller, async (conn, def) => {
    if (!conn.request) {
      throw new McpxError("INTERNAL", `The connection to "${namespace}" cannot send "${method}"`);
    }
    return await conn.request(method, params, { timeoutMs: def.pool.callTimeoutMs, signal });
  });
}

/**
 * A resource's contents for a reader: text as it came; a blob described (its MIME type and size
 * in bytes), not inlined, unless `raw`.
 */
export function describeContents(
  contents: unknown,
  raw: boolean,
): Record<string, unknown>[] {
  if (!Array.isArray(contents)) return [];
  return contents.map((c: Record<string, unknown>) => {
    if (raw || typeof c.blob !== "string") return c;
    const { blob, ...rest } = c;
    const size = Math.floor((blob as string).replace(/=+$/, "").length * 3 / 4);
    return { ...rest, binary: true, size };
  });
}

/**
 * A server's completion/complete answer under the caller's lease; no values when the server does
 * not declare completions or answers method-not-found.
 */
export async function completeOne(
  registry: Registry,
  caller: Caller,
  namespace: string,
  params: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const none = { completion: { values: [] } };
  return await registry.withConnection(namespace, caller, async (conn, def) => {
    const caps = conn.capabilities?.();
    if ((caps && !caps.completions) || !conn.request) return none;
    try {
      return await conn.request("completion/complete", params, {
        timeoutMs: def.pool.callTimeoutMs,
        signal,
      });
    } catch (error) {
      if (isMethodNotFound(error)) return none;
      throw error;
    }
  });
}
