import { McpxError } from "../errors.ts";
import { didYouMean } from "../near.ts";
import { defineOperation } from "./define.ts";
import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import { cacheDir } from "../paths.ts";
import {
  loadNamespaces,
  pickNamespace,
  pickTool,
  schemaProblem,
  unlistedError,
} from "../discovery/load.ts";
import { functionNames } from "../names.ts";
import { dirname, join, resolve } from "../_path.ts";
import { clip } from "../table.ts";

/**
 * How much of a description a search hit carries under `--json` and over MCP, as the human table
 * clips it: enough to choose, while `types <ns.tool>` has the whole.
 */
export const BRIEF_DESCRIPTION = 80;

/**
 * The hits as `--json` prints them: each its function path, its description folded onto one line
 * and cut at {@linkcode BRIEF_DESCRIPTION}, its score, and the tool's wire name only where it is
 * not the function's (`get-sum` for `everything.get_sum`); the namespace is the path's head.
 */
function briefHits(out: SearchOut) {
  return {
    ...out,
    hits: out.hits.map(({ fn, namespace, tool, description, score, explain }) => ({
      fn,
      ...(fn === `${namespace}.${tool}` ? {} : { tool }),
      description: clip(description, BRIEF_DESCRIPTION),
      score,
      ...(explain === undefined ? {} : { explain }),
    })),
  };
}

/** The search documents of the selected namespaces, from the cache. */
async function searchDocs(ctx: Context) {
  const { namespaces, warnings } = await loadNamespaces(ctx);
  for (const w of warnings) ctx.io.err(`mcpx: warning: ${w}\n`);
  return namespaces.flatMap((ns) => {
    const fns = functionNames(ns.tools);
    return ns.tools.map((t) => ({
      namespace: ns.def.namespace,
      tool: t.name,
      fn: `${ns.def.namespace}.${fns.get(t.name)}`,
      description: t.description,
      tags: toolTags(ns.def, t),
    }));
  });
}

/** A tool's tags as search and the catalog's bias weigh them: annotation tags, then configured. */
function toolTags(
  def: { tagsOf(tool: string): string[] },
  tool: { name: string; annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean } },
): string[] {
  return [
    ...(tool.annotations?.readOnlyHint ? ["readOnly"] : []),
    ...(tool.annotations?.destructiveHint ? ["destructive"] : []),
    ...def.tagsOf(tool.name),
  ];
}

/**
 * A `--tag` that is neither an annotation tag nor carried by any tool is a mistake (`redOnly`),
 * not a search that found nothing.
 */
function checkTag(tag: string, docs: { tags: string[] }[]): void {
  const known = [...new Set(["readOnly", "destructive", ...docs.flatMap((d) => d.tags)])];
  if (known.some((t) => t.toLowerCase() === tag.toLowerCase())) return;
  throw new McpxError("USAGE", `No tool has the tag "${tag}"${didYouMean(tag, known)}`, {
    hint: `Tags here: ${known.join(", ")} (\`mcpx.tags\` and \`mcpx.toolTags\` add some)`,
  });
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
    { name: "limit", type: "integer", short: "n", doc: "At most this many hits (default 8)" },
    {
      name: "tag",
      type: "string",
      doc: "Only tools with this tag: readOnly, destructive, or one the configuration gives",
    },
    { name: "explain", type: "boolean", doc: "Show the per-word, per-field score breakdown" },
  ],
  cli: {
    command: ["search"],
    usage: "<words...> [options]",
    positionals: (words) => ({ query: words.join(" ") }),
    fills: ["query"],
    example: ["screenshot", "click"],
    examples: [["mcpx search read file", "Tools whose name or description matches the words"], [
      "mcpx search screenshot -n 5",
      "At most five hits",
    ], ["mcpx search delete --tag destructive", "Only the tools marked destructive"]],
  },
  http: { method: "GET", path: "/v1/search" },
  mcp: {
    expose: true,
    readOnly: true,
    agent: {
      description:
        "Find tools across every server by words in their names and descriptions. Each hit is <namespace>.<tool> and the start of its description; mcpx_types gives one whole.",
      params: {
        query: 'Words to look for, e.g. "read file"',
        limit: "At most this many hits (default 8)",
      },
      text: (out) =>
        out.hits.length === 0
          ? `No tool matches "${out.query}": mcpx_ls lists the namespaces\n`
          : briefHits(out).hits.map((h) => `${h.fn}: ${h.description}`).join("\n") + "\n" +
            (out.total > out.hits.length
              ? `(${out.total - out.hits.length} more: raise limit)\n`
              : "") +
            (out.mode === "any" ? "(no tool matched every word; these match some)\n" : ""),
    },
  },
  where: "local",
  describes: "configuration",
  output: (z) =>
    z.object({
      query: z.string(),
      mode: z.enum(["all", "any"]),
      total: z.number(),
      hits: z.array(z.object({ fn: z.string(), score: z.number() }).loose()),
    }),
  async run(input, ctx) {
    const { search } = await load<typeof import("../search/search.ts")>(
      "../search/search.ts",
      import.meta.url,
    );
    const refused = await ctx.untrusted();
    if (refused) throw refused;
    const docs = await searchDocs(ctx);
    if (input.tag) checkTag(input.tag, docs);
    const result = search(docs, input.query, {
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
    const { renderHits, renderExplain } = await load<typeof import("../search/search.ts")>(
      "../search/search.ts",
      import.meta.url,
    );
    const hits = out.hits as Parameters<typeof renderHits>[0];
    return (out.hits[0]?.explain ? renderExplain(hits) : renderHits(hits)) +
      (out.mode === "any" ? "(no tool matched every word; these match some)\n" : "");
  },
  // Cut as the table cuts them: `types <ns.tool>` has a description whole.
  json: (out) => briefHits(out),
});

/**
 * Where `mcpx types <ns>` keeps its rendering, and the stamp it must carry (`cacheStamp`
 * of the code generator, and the namespace), once the namespace is known. Undefined when there is
 * no cache file yet.
 */
function renderedDeclarations(
  ctx: Context,
  { cacheStamp, codegenStamp }: typeof import("../cache/rendered.ts"),
): ((ns: string) => { path: string; stamp: string }) | undefined {
  const stamp = cacheStamp(ctx, codegenStamp());
  if (!stamp) return undefined;
  const dir = join(cacheDir(ctx.boot, ctx.io.env), "types");
  const short = ctx.fingerprintSync().short;
  // "brief": the form `types <ns>` prints (descriptions abridged), should another form be kept.
  return (ns) => ({ path: join(dir, `${short}-${ns}.d.ts`), stamp: stamp(ns, "brief") });
}

/** `mcpx types <ns>` or `<ns>.<tool>`: TypeScript declarations from the cached schemas. */
export const toolsTypes = defineOperation<
  { target?: string; stdio?: string; url?: string; name?: string },
  { target: string; declarations: string }
>({
  id: "tools.types",
  summary: "Print TypeScript declarations for one namespace, or one tool (no server is started)",
  description:
    "Compiled from each tool's own JSON Schema, so it is authoritative: enums as literal unions, nullable as `| null`, `$ref` resolved, descriptions as JSDoc. A namespace's descriptions are cut to their first paragraph or sentences (a cut ends in `…`); one tool (`ns.tool`) is printed whole, and is far cheaper.",
  params: [
    {
      name: "target",
      type: "string",
      required: true,
      doc: "A namespace, or namespace.tool (with --stdio or --url: a tool, or nothing)",
    },
    {
      name: "stdio",
      type: "string",
      doc: "Type this command line's tools as an ad-hoc server (started through the daemon)",
    },
    { name: "url", type: "string", doc: "Type the tools of the MCP server at this URL, ad hoc" },
    { name: "name", type: "string", doc: "The namespace of the ad-hoc server (--stdio, --url)" },
  ],
  cli: {
    command: ["types"],
    complete: "targets",
    usage: "<target> [options]",
    // Parsed here, not as a required positional: with --stdio or --url the target may be left out.
    positionals: (words) => {
      if (words.length > 1) {
        throw new McpxError("USAGE", `Unexpected argument "${words[1]}" for "mcpx types"`, {
          hint: "Run `mcpx types --help`",
        });
      }
      return words.length ? { target: words[0] } : {};
    },
    fills: ["target"],
    example: ["everything"],
    examples: [["mcpx types filesystem", "One namespace's signatures, each doc cut at …"], [
      "mcpx types filesystem.read_text_file",
      "One tool, its doc whole",
    ], [
      "mcpx types --stdio 'npx -y @modelcontextprotocol/server-memory'",
      "The tools of a server that is not configured",
    ]],
  },
  http: { method: "GET", path: "/v1/types/{target}" },
  // An ad-hoc server is named by a command line a user typed, not by an MCP client.
  mcp: {
    expose: true,
    readOnly: true,
    hidden: ["stdio", "url", "name"],
    agent: {
      description:
        "TypeScript signatures: of one tool (<namespace>.<tool>, whole, with its documentation) or of a namespace's tools (descriptions cut). mcpx_call and mcpx_exec take the arguments they show.",
      params: { target: "<namespace>.<tool>, or a namespace" },
      text: (out) => out.declarations,
    },
  },
  where: "local",
  describes: "configuration",
  output: (z) => z.object({ target: z.string(), declarations: z.string() }),
  async run(input, ctx) {
    if (input.stdio !== undefined || input.url !== undefined) return await adHocTypes(input, ctx);
    if (!input.target) {
      throw new McpxError("USAGE", '"mcpx types" needs <target>', {
        hint: "Run `mcpx types --help`",
      });
    }
    const refused = await ctx.untrusted();
    if (refused) throw refused;
    const target = input.target;
    const dot = target.indexOf(".");
    const cache = await load<typeof import("../cache/rendered.ts")>(
      "../cache/rendered.ts",
      import.meta.url,
    );
    const keep = dot < 0 ? renderedDeclarations(ctx, cache) : undefined;
    const { namespaces } = await loadNamespaces(ctx);
    const ns = pickNamespace(namespaces, dot < 0 ? target : target.slice(0, dot));
    if (ns.state === "unlisted" || (ns.state === "error" && ns.tools.length === 0)) {
      throw unlistedError(ns);
    }
    for (const t of dot < 0 ? ns.tools : []) {
      const problem = schemaProblem(t.inputSchema);
      if (problem) {
        ctx.io.err(
          `mcpx: warning: ${ns.def.namespace}.${t.name} has an invalid input schema (${problem}); its arguments are typed loosely\n`,
        );
      }
    }
    // A whole namespace is rendered once per schema cache, configuration and generator: for
    // chrome-devtools-mcp's 32 tools rendering took 6-7 ms of a ~28 ms start (performance.now()
    // marks around it), a read well under 1.
    const rendered = keep?.(ns.def.namespace);
    const again = rendered && cache.readRendered(rendered.path, rendered.stamp);
    if (again !== undefined) return { target: target, declarations: again };
    const { namespaceDeclarations, toolSignature } = await load<
      typeof import("../codegen/declarations.ts")
    >("../codegen/declarations.ts", import.meta.url);
    if (dot < 0) {
      const declarations = namespaceDeclarations(ns.def.namespace, ns.def.description, ns.tools, {
        brief: true,
      });
      if (rendered) cache.writeRendered(rendered.path, rendered.stamp, declarations);
      return { target: target, declarations };
    }
    const tool = pickTool(ns, target.slice(dot + 1));
    return {
      target: target,
      declarations: toolSignature(ns.def.namespace, tool, { tools: ns.tools }),
    };
  },
  render: (out) => out.declarations.endsWith("\n") ? out.declarations : out.declarations + "\n",
});

/** `mcpx catalog --budget N`: every namespace, then as many signatures as fit the budget. */
export const toolsCatalog = defineOperation<
  { budget?: number; bias?: string },
  { budget: number; tokens: number; text: string }
>({
  id: "tools.catalog",
  summary: "Fit every namespace and as many signatures as fit into a token budget",
  description:
    "Every namespace is listed, then full signatures round-robin across namespaces, shortest first (tools matching --bias words first). The output never exceeds the budget by the documented estimator (UTF-8 bytes / 4, rounded up).",
  params: [
    {
      name: "budget",
      type: "integer",
      doc: "Token budget (default: the catalog.budget setting, 2000)",
    },
    {
      name: "bias",
      type: "string",
      doc: "Words that move matching tools (name, tags, description) to the front",
    },
  ],
  cli: {
    command: ["catalog"],
    examples: [
      ["mcpx catalog", "Every namespace and as many signatures as fit the default budget"],
      ["mcpx catalog --budget 4000 --bias 'browser page'", "A larger budget, browser tools first"],
    ],
  },
  http: { method: "GET", path: "/v1/catalog" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  describes: "configuration",
  output: (z) => z.object({ budget: z.number(), tokens: z.number(), text: z.string() }),
  async run(input, ctx) {
    const { catalog, estimateTokens } = await load<typeof import("../codegen/catalog.ts")>(
      "../codegen/catalog.ts",
      import.meta.url,
    );
    const settings = await ctx.settings();
    const budget = input.budget ?? settings.get("catalog.budget");
    if (budget < 1) {
      throw new McpxError("USAGE", `A catalog budget of ${budget} tokens holds nothing`, {
        hint: "Give --budget a positive number of tokens, e.g. 2000",
      });
    }
    const refused = await ctx.untrusted();
    if (refused) throw refused;
    const { namespaces } = await loadNamespaces(ctx);
    const text = catalog(
      namespaces.filter((n) => n.state !== "disabled").map((n) => {
        const byName = new Map(n.tools.map((t) => [t.name, t]));
        return {
          ns: n.def.namespace,
          description: n.def.description,
          tools: n.tools,
          tagsOf: (name: string) => {
            const t = byName.get(name);
            return t ? toolTags(n.def, t) : [];
          },
        };
      }),
      {
        budget,
        bias: (input.bias ?? settings.get("catalog.bias")).split(/[\s,]+/).filter(Boolean),
      },
    );
    return { budget, tokens: estimateTokens(text), text };
  },
  render: (out) => out.text.endsWith("\n") ? out.text : out.text + "\n",
});

/** `mcpx schema --format …`: the selected namespaces' tools in the form a consumer reads. */
export const toolsSchema = defineOperation<
  { format?: string; namespace?: string },
  { format: string; document: unknown }
>({
  id: "tools.schema",
  summary: "Print every tool's schema as TypeScript, JSON Schema, OpenAPI or an MCP tools list",
  description:
    "Renderings of one fact, from the schema cache. JSON Schema puts each tool's input (and output) under $defs; OpenAPI describes POST /v1/call/<namespace>/<tool> for each tool; mcp is a tools/list result; namespaces is each namespace's description and state with its tools as its server lists them, what a script's typed client is written from (a script run against a daemon elsewhere reads it from that daemon).",
  params: [
    {
      name: "format",
      type: "enum",
      values: ["typescript", "json-schema", "openapi", "mcp", "namespaces"],
      doc: "The form to print (default typescript)",
    },
    { name: "namespace", type: "string", positional: true, doc: "Only this namespace" },
  ],
  cli: {
    command: ["schema"],
    complete: "namespaces",
    examples: [["mcpx schema", "Every tool's schema as TypeScript"], [
      "mcpx schema --format json-schema filesystem",
      "One namespace's tools as JSON Schema",
    ], ["mcpx schema --format mcp", "Every tool as an MCP tools/list answer"]],
  },
  http: { method: "GET", path: "/v1/schema" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  describes: "configuration",
  output: (z) => z.object({ format: z.string(), document: z.unknown() }),
  async run(input, ctx) {
    const format = input.format ?? "typescript";
    const refused = await ctx.untrusted();
    if (refused) throw refused;
    const { namespaces: all } = await loadNamespaces(ctx);
    const picked = input.namespace ? [pickNamespace(all, input.namespace)] : all;
    if (format === "namespaces") {
      // An unlisted namespace is one too: a client names it, and its calls say to refresh.
      return {
        format,
        document: {
          namespaces: picked.filter((n) => n.state !== "disabled").map((n) => ({
            namespace: n.def.namespace,
            description: n.def.description,
            state: n.state,
            ...(n.state === "error" && n.cached?.error ? { error: n.cached.error } : {}),
            tools: n.tools,
          })),
        },
      };
    }
    const namespaces = picked.filter((n) => n.state !== "disabled" && n.state !== "unlisted");
    if (format === "typescript") {
      const { namespaceDeclarations, TOOL_RESULT_DECL } = await load<
        typeof import("../codegen/declarations.ts")
      >("../codegen/declarations.ts", import.meta.url);
      const text = [
        TOOL_RESULT_DECL,
        ...namespaces.map((n) =>
          namespaceDeclarations(n.def.namespace, n.def.description, n.tools)
        ),
      ].join("\n");
      return { format, document: text };
    }
    const each = namespaces.flatMap((n) => {
      const fns = functionNames(n.tools);
      return n.tools.map((t) => ({ ns: n.def.namespace, id: fns.get(t.name)!, t }));
    });
    if (format === "json-schema") {
      const defs: Record<string, unknown> = {};
      for (const { ns, id, t } of each) {
        defs[`${ns}.${id}`] = { description: t.description, ...t.inputSchema };
        if (t.outputSchema) defs[`${ns}.${id}.output`] = t.outputSchema;
      }
      return {
        format,
        document: { $schema: "https://json-schema.org/draft/2020-12/schema", $defs: defs },
      };
    }
    if (format === "openapi") {
      const paths: Record<string, unknown> = {};
      for (const { ns, id, t } of each) {
        // A function name may be any identifier (`ünïcode`): the path is percent-encoded.
        paths[`/v1/call/${ns}/${encodeURIComponent(id)}`] = {
          post: {
            operationId: `${ns}_${id}`,
            summary: (t.description ?? "").split("\n")[0],
            requestBody: {
              required: true,
              content: { "application/json": { schema: t.inputSchema } },
            },
            responses: {
              "200": {
                description: "The unwrapped result, the envelope under raw when ?raw=true",
                content: { "application/json": { schema: { type: "object" } } },
              },
              default: {
                description: "A problem document (code, detail, hint)",
                content: { "application/problem+json": { schema: { type: "object" } } },
              },
            },
          },
        };
      }
      return {
        format,
        document: {
          openapi: "3.1.0",
          info: { title: "mcpx tools", version: "1" },
          servers: [{ url: "http://mcpx", description: "over the daemon's unix socket" }],
          paths,
        },
      };
    }
    return {
      format,
      document: {
        tools: each.map(({ ns, id, t }) => ({
          name: `${ns}.${id}`,
          ...(t.title ? { title: t.title } : {}),
          description: t.description,
          inputSchema: t.inputSchema,
          ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
          ...(t.annotations ? { annotations: t.annotations } : {}),
        })),
      },
    };
  },
  render: (out) =>
    typeof out.document === "string" ? out.document : JSON.stringify(out.document, null, 2) + "\n",
});

/** `mcpx client -o <path>`: write the typed client module for a checked-in script. */
export const clientWrite = defineOperation<{ output: string }, { path: string; socket: string }>({
  id: "client.write",
  summary: "Write the typed client module (mcpx-client.ts) for a checked-in script",
  description:
    "The module is what `mcpx run` writes beside a script: typed functions per tool, search() and describe(). Its calls reach this configuration's daemon (MCPX_SOCKET overrides the socket it names, MCPX_TOKEN_FILE the token file).",
  params: [{
    name: "output",
    type: "string",
    short: "o",
    required: true,
    doc: "Where to write it (a file path)",
  }],
  cli: {
    command: ["client"],
    examples: [[
      "mcpx client -o mcpx-client.ts",
      "Write the client beside the scripts of the working directory",
    ], [
      "mcpx client -o scripts/mcpx-client.ts",
      "Write it where a checked-in script imports it",
    ]],
  },
  http: { none: "it writes a file on the caller's machine" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({ path: z.string(), socket: z.string() }),
  async run(input, ctx) {
    const { writeClient } = await load<typeof import("../scripts/client_module.ts")>(
      "../scripts/client_module.ts",
      import.meta.url,
    );
    const target = resolve(ctx.io.cwd, input.output);
    // A daemon elsewhere (daemon.endpoint) is reached by the endpoint a run hands on, no socket.
    const socket = ctx.boot.get("daemon.endpoint") ? "" : (await ctx.paths()).socket;
    await Deno.mkdir(dirname(target), { recursive: true });
    const path = await writeClient(ctx, dirname(target), socket, target);
    return { path, socket };
  },
  render: (out) => `wrote ${out.path}\n`,
});

/** `mcpx types --stdio …` / `--url …`: declarations of an ad-hoc server's tools, listed live. */
async function adHocTypes(
  input: { target?: string; stdio?: string; url?: string; name?: string },
  ctx: Context,
): Promise<{ target: string; declarations: string }> {
  const { adHocTools } = await load<typeof import("../daemon/adhoc.ts")>(
    "../daemon/adhoc.ts",
    import.meta.url,
  );
  const got = await adHocTools(input, ctx);
  const { namespaceDeclarations, toolSignature } = await load<
    typeof import("../codegen/declarations.ts")
  >("../codegen/declarations.ts", import.meta.url);
  // A tool may be named alone or as <namespace>.<tool>.
  const wanted = input.target?.startsWith(`${got.namespace}.`)
    ? input.target.slice(got.namespace.length + 1)
    : input.target;
  if (!wanted) {
    return {
      target: got.namespace,
      declarations: namespaceDeclarations(got.namespace, undefined, got.tools, { brief: true }),
    };
  }
  const tool = got.tools.find((t) => t.name === wanted);
  if (!tool) {
    const names = got.tools.map((t) => t.name);
    throw new McpxError(
      "TOOL_NOT_FOUND",
      `No tool "${wanted}" on ${got.namespace}${didYouMean(wanted, names)}`,
      { hint: `Its tools: ${names.join(", ")}` },
    );
  }
  return {
    target: `${got.namespace}.${tool.name}`,
    declarations: toolSignature(got.namespace, tool, { tools: got.tools }),
  };
}
