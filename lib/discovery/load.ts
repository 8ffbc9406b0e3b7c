import { configuredAdapters } from "../adapters/declare.ts";
import { secureCacheDir } from "../cache/secure.ts";
import { McpxError } from "../errors.ts";
import { didYouMean } from "../near.ts";
import type { Context } from "../context.ts";
import type { ToolInfo } from "../mcp/types.ts";
import { selectServers, type ServerDef, serverDefs } from "../config/servers.ts";
import {
  cacheIdentity,
  readCache,
  readCacheSync,
  type SchemaCache,
} from "../cache/schema_cache.ts";
import { loadConfig, loadConfigSync } from "../config/load.ts";
import { cacheDir } from "../paths.ts";
import { functionNames } from "../names.ts";
import { summaryStamp, writeSummary } from "./ls_summary.ts";
import type { Namespace } from "./types.ts";

/**
 * Everything `ls`, `search`, `types` and `catalog` need, from the configuration and the schema
 * cache alone: no daemon round trip and no server process. With `summarize` (`ls`), the summary
 * `ls` reads next time is written too (lib/discovery/ls_summary.ts).
 */
export async function loadNamespaces(
  ctx: Context,
  options: { summarize?: boolean } = {},
): Promise<{ namespaces: Namespace[]; warnings: string[] }> {
  // Synchronous unless the file is broken or this fingerprint has no cache yet: each turn of the
  // event loop on this path costs a start-up ~0.1-0.2 ms.
  const fp = ctx.fingerprintSync();
  const config = loadConfigSync(fp.path, fp.text) ?? await loadConfig(fp.path, fp.text);
  const warnings: string[] = [];
  const settings = await ctx.settings();
  const adapters = configuredAdapters(settings, ctx.io.cwd);
  const all = serverDefs(config, { warnings, adapters });
  const defs = selectServers(all, ctx.selection());
  const dir = secureCacheDir(cacheDir(ctx.boot, ctx.io.env));
  const stamp = options.summarize ? summaryStamp(dir, fp.hash) : undefined;
  const { cache, warning } = readCacheSync(dir, fp.hash, fp.path) ??
    await readCache(dir, fp.hash, fp.path);
  if (options.summarize && !warning) writeSummary(dir, fp.hash, stamp, namespacesOf(all, cache));
  if (warning) warnings.push(warning);
  return { namespaces: namespacesOf(defs, cache), warnings };
}

/** The namespaces of `defs`, as `cache` knows them. */
export function namespacesOf(defs: readonly ServerDef[], cache: SchemaCache): Namespace[] {
  return defs.map((def): Namespace => {
    const entry = cache.servers[def.name];
    const cached = entry && entry.identity === cacheIdentity(def.identity) ? entry : undefined;
    const tools = def.curateTools((cached?.tools ?? []).filter((t) => def.showsTool(t.name))).sort((
      a,
      b,
    ) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    const state = def.disabled
      ? "disabled"
      : cached?.error
      ? "error"
      : cached?.listedAt
      ? "ready"
      : "unlisted";
    return { def, cached, tools, state };
  });
}

/** The namespace named `name`, or a not-found error listing the nearest names. */
export function pickNamespace(namespaces: Namespace[], name: string): Namespace {
  const ns = namespaces.find((n) => n.def.namespace === name || n.def.name === name);
  if (ns) return ns;
  const names = namespaces.map((n) => n.def.namespace);
  throw new McpxError("SERVER_NOT_FOUND", `No namespace "${name}"${didYouMean(name, names)}`, {
    hint: `Namespaces: ${names.join(", ") || "none"} (\`mcpx ls\`)`,
  });
}

/** The tool `name` (real or identifier form) of a namespace, or a not-found error. */
export function pickTool(ns: Namespace, name: string): ToolInfo {
  const fn = functionNames(ns.tools);
  const tool = ns.tools.find((t) => t.name === name) ??
    ns.tools.find((t) => fn.get(t.name) === name);
  if (tool) return tool;
  const names = ns.tools.map((t) => fn.get(t.name)!);
  throw new McpxError(
    "TOOL_NOT_FOUND",
    `Namespace "${ns.def.namespace}" has no tool "${name}"${didYouMean(name, names)}`,
    { hint: `\`mcpx types ${ns.def.namespace}\` lists its tools` },
  );
}

/** An error for a namespace whose tools were never listed. */
export function unlistedError(ns: Namespace): McpxError {
  if (ns.state === "error") {
    return new McpxError(
      "SERVER_START_FAILED",
      `Namespace "${ns.def.namespace}" could not be listed: ${ns.cached?.error}`,
      { hint: "`mcpx status` shows its stderr; `mcpx refresh` tries again" },
    );
  }
  return new McpxError(
    "NOT_FOUND",
    `The tools of "${ns.def.namespace}" have not been listed yet`,
    { hint: "Run `mcpx refresh` (it starts each server once and caches its tools)" },
  );
}

const TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"];

/**
 * Why a tool's input schema is not valid JSON Schema at the level codegen relies on, or
 * undefined when it is. Such a tool is still listed and typed (loosely); the problem is reported.
 */
export function schemaProblem(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
    return "it is not an object";
  }
  const s = schema as Record<string, unknown>;
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type];
  const bad = types.find((t) => typeof t !== "string" || !TYPES.includes(t));
  if (bad !== undefined) return `"type" is ${JSON.stringify(bad)}`;
  if (s.properties !== undefined && (typeof s.properties !== "object" || s.properties === null)) {
    return `"properties" is not an object`;
  }
  if (s.required !== undefined && !Array.isArray(s.required)) return `"required" is not an array`;
  return undefined;
}
