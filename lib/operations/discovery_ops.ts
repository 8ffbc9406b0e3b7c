import { defineOperation } from "./define.ts";
import { renderTable } from "../table.ts";
import type { Context } from "../context.ts";

interface LsRow {
  namespace: string;
  name: string;
  tools: number | null;
  sharing: string;
  scope: string;
  live: number;
  state: string;
  description: string;
  error?: string;
  listedAt?: string;
  aliasOf?: string;
}

const NEXT_READY =
  "Next: `mcpx types <namespace>` for signatures, `mcpx search <query>` to find a tool.";
const NEXT_UNLISTED =
  "Next: `mcpx refresh` lists the servers marked unlisted (once; the result is cached), then `mcpx types <namespace>`.";

function clip(text: string, width: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > width ? one.slice(0, width - 1) + "…" : one;
}

/** Live process counts from a running daemon, without starting one. */
async function liveCounts(ctx: Context): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  try {
    Deno.lstatSync((await ctx.paths()).socket);
  } catch {
    return counts; // no socket file: no daemon, nothing live
  }
  const { callDaemon } = await import("../daemon/client.ts");
  const answer = await callDaemon(ctx, { method: "GET", path: "/v1/status", start: false })
    .catch(() => undefined);
  const status = answer?.value as { servers?: { namespace: string; live: number }[] } | undefined;
  for (const s of status?.servers ?? []) counts.set(s.namespace, s.live);
  return counts;
}

/** `mcpx ls`: every namespace, from the schema cache; no server is started. */
export const namespacesList = defineOperation<
  Record<string, never>,
  { namespaces: LsRow[]; next: string }
>({
  id: "namespaces.list",
  summary: "List the namespaces: tools, sharing, scope, live processes, state",
  description:
    "Answers from the schema cache without starting a server (or a daemon). A server that failed to list says why in its row; one never listed says `unlisted` until `mcpx refresh`.",
  params: [],
  cli: { command: ["ls"] },
  http: { method: "GET", path: "/v1/namespaces" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  output: (z) =>
    z.object({
      namespaces: z.array(
        z.object({
          namespace: z.string(),
          tools: z.number().nullable(),
          sharing: z.string(),
          scope: z.string(),
          live: z.number(),
          state: z.string(),
          description: z.string(),
        }).loose(),
      ),
      next: z.string(),
    }),
  async run(_input, ctx) {
    const { loadNamespaces } = await import("../discovery/load.ts");
    const [{ namespaces, warnings }, live] = await Promise.all([
      loadNamespaces(ctx),
      liveCounts(ctx),
    ]);
    for (const w of warnings) ctx.io.err(`mcpx: warning: ${w}\n`);
    const rows = namespaces.map(({ def, cached, tools, state }): LsRow => ({
      namespace: def.namespace,
      name: def.name,
      tools: state === "unlisted" || (state === "error" && !cached?.tools) ? null : tools.length,
      sharing: def.pool.sharing,
      scope: def.pool.scope,
      live: live.get(def.namespace) ?? 0,
      state,
      description: state === "error"
        ? `server "${def.name}": ${cached?.error ?? "failed"}`
        : def.description ?? (def.aliasOf ? `alias of ${def.aliasOf}` : ""),
      ...(cached?.error ? { error: cached.error } : {}),
      ...(cached?.listedAt ? { listedAt: cached.listedAt } : {}),
      ...(def.aliasOf ? { aliasOf: def.aliasOf } : {}),
    }));
    return {
      namespaces: rows,
      next: rows.some((r) => r.state === "unlisted") ? NEXT_UNLISTED : NEXT_READY,
    };
  },
  render(out) {
    if (out.namespaces.length === 0) {
      return "no servers selected (see `mcpx config`, --profile, --all-profiles)\n";
    }
    return renderTable(
      ["NAMESPACE", "TOOLS", "SHARING", "SCOPE", "LIVE", "STATE", "DESCRIPTION"],
      out.namespaces.map((r) => [
        r.namespace,
        r.tools === null ? "-" : String(r.tools),
        r.sharing,
        r.scope,
        String(r.live),
        r.state,
        clip(r.description, 60),
      ]),
    ) + "\n" + out.next + "\n";
  },
});

/** The search documents of the selected namespaces, from the cache. */
async function searchDocs(ctx: Context) {
  const { loadNamespaces } = await import("../discovery/load.ts");
  const { toIdentifier } = await import("../pool/defs.ts");
  const { namespaces, warnings } = await loadNamespaces(ctx);
  for (const w of warnings) ctx.io.err(`mcpx: warning: ${w}\n`);
  return namespaces.flatMap((ns) =>
    ns.tools.map((t) => ({
      namespace: ns.def.namespace,
      tool: t.name,
      fn: `${ns.def.namespace}.${toIdentifier(t.name)}`,
      description: t.description,
      tags: [
        ...(t.annotations?.readOnlyHint ? ["readOnly"] : []),
        ...(t.annotations?.destructiveHint ? ["destructive"] : []),
      ],
    }))
  );
}

interface SearchOut {
  query: string;
  mode: "all" | "any";
  total: number;
  hits: {
    fn: string;
    namespace: string;
    tool: string;
    description: string;
    score: number;
    explain?: unknown;
  }[];
}

/** `mcpx search <words>`: find a tool by name or description, from the cache. */
export const toolsSearch = defineOperation<
  { query: string; limit?: number; tag?: string; explain?: boolean },
  SearchOut
>({
  id: "tools.search",
  summary: "Find tools by name or description (no server is started)",
  description:
    "Scores exact name 100, prefix 60, tag 50, substring 40, name word (split, stemmed) 40, function path 30, namespace 20, description 10. Tools matching every word come first; if none does, any word. docs/search.md has the rules.",
  params: [
    { name: "query", type: "string", required: true, doc: "The words to look for" },
    { name: "limit", type: "integer", short: "n", doc: "At most this many hits (default 20)" },
    { name: "tag", type: "string", doc: "Only tools with this tag (readOnly, destructive)" },
    { name: "explain", type: "boolean", doc: "Show the per-word, per-field score breakdown" },
  ],
  cli: {
    command: ["search"],
    usage: "<words...> [options]",
    positionals: (words) => ({ query: words.join(" ") }),
    fills: ["query"],
    example: ["screenshot", "click"],
  },
  http: { method: "GET", path: "/v1/search" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  output: (z) =>
    z.object({
      query: z.string(),
      mode: z.enum(["all", "any"]),
      total: z.number(),
      hits: z.array(z.object({ fn: z.string(), score: z.number() }).loose()),
    }),
  async run(input, ctx) {
    const { search } = await import("../search/search.ts");
    const result = search(await searchDocs(ctx), input.query, {
      limit: input.limit,
      tags: input.tag ? [input.tag] : undefined,
      explain: input.explain,
    });
    return { query: input.query, mode: result.mode, total: result.total, hits: result.hits };
  },
  async render(out) {
    if (out.hits.length === 0) {
      return `no tool matches "${out.query}" (\`mcpx ls\` lists namespaces)\n`;
    }
    const { renderHits, renderExplain } = await import("../search/search.ts");
    const hits = out.hits as Parameters<typeof renderHits>[0];
    return (out.hits[0]?.explain ? renderExplain(hits) : renderHits(hits)) +
      (out.mode === "any" ? "(no tool matched every word; these match some)\n" : "");
  },
});
