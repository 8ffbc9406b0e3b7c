import { McpxError } from "../errors.ts";
import { defineOperation } from "./define.ts";
import type { Context } from "../context.ts";
import { load } from "../_load.ts";

function registry(ctx: Context) {
  const d = ctx.daemon;
  if (!d) throw new McpxError("INTERNAL", "This operation runs inside the daemon");
  return d.registry;
}

function features() {
  return load<typeof import("../pool/features.ts")>("../pool/features.ts", import.meta.url);
}

const usage = (message: string, command: string) =>
  new McpxError("USAGE", message, { hint: `Run \`mcpx ${command} --help\`` });

/** `mcpx prompts [ns.name [key=value ...]]`. */
export function parsePromptWords(words: readonly string[]): Record<string, unknown> {
  const [target, ...rest] = words;
  if (target === undefined) return {};
  const dot = target.indexOf(".");
  if (dot <= 0 || dot === target.length - 1) {
    throw usage(
      `"${target}" is not <namespace.prompt>: write it like everything.simple-prompt`,
      "prompts",
    );
  }
  const args: Record<string, string> = {};
  for (const word of rest) {
    const eq = word.indexOf("=");
    if (eq <= 0) throw usage(`"${word}" is not key=value`, "prompts");
    Object.defineProperty(args, word.slice(0, eq), {
      value: word.slice(eq + 1),
      enumerable: true,
      writable: true,
    });
  }
  return { server: target.slice(0, dot), name: target.slice(dot + 1), arguments: args };
}

/** `mcpx resources [ns/uri]`. */
export function parseResourceWords(words: readonly string[]): Record<string, unknown> {
  if (words.length === 0) return {};
  if (words.length > 1) throw usage("mcpx resources takes one <namespace>/<uri>", "resources");
  const slash = words[0].indexOf("/");
  if (slash <= 0 || slash === words[0].length - 1) {
    throw usage(
      `"${
        words[0]
      }" is not <namespace>/<uri>: write it like everything/demo://resource/static/document/1`,
      "resources",
    );
  }
  return { server: words[0].slice(0, slash), uri: words[0].slice(slash + 1) };
}

type Listed = { namespace: string; [k: string]: unknown };
type Failed = { namespace: string; error: string };

function flatten(
  lists: { namespace: string; items: Record<string, unknown>[]; error?: string }[],
): { items: Listed[]; errors: Failed[] } {
  const items: Listed[] = [];
  const errors: Failed[] = [];
  for (const l of lists) {
    if (l.error !== undefined) errors.push({ namespace: l.namespace, error: l.error });
    for (const item of l.items) items.push({ namespace: l.namespace, ...item });
  }
  return { items, errors };
}

/** `mcpx prompts`: every server's prompts, or one prompt got with its arguments. */
export const promptsGet = defineOperation<
  { server?: string; name?: string; arguments?: Record<string, unknown> },
  {
    prompts?: Listed[];
    errors?: Failed[];
    namespace?: string;
    name?: string;
    description?: string;
    messages?: unknown[];
  }
>({
  id: "prompts.get",
  summary: "List every server's prompts, or get one with its arguments",
  description:
    "Without a target, the prompts of every enabled server (or of --server), each with its namespace, name, description and arguments; a server without prompts (or that answers method-not-found) has none, and one that cannot be reached is listed under errors. With <namespace.prompt> and key=value words, the prompt's messages as the server renders them.",
  params: [
    { name: "server", type: "string", doc: "Only this namespace (listing), or the prompt's" },
    { name: "name", type: "string", doc: "The prompt to get" },
    { name: "arguments", type: "json", doc: "The prompt's arguments (strings)" },
  ],
  cli: {
    command: ["prompts"],
    complete: "namespaces",
    usage: "[<namespace.prompt> [key=value ...]] [options]",
    positionals: parsePromptWords,
    fills: ["name", "arguments"],
    example: ["everything.simple-prompt"],
    examples: [["mcpx prompts", "Every server's prompts"], [
      "mcpx prompts everything.simple-prompt",
      "Get one prompt",
    ], ["mcpx prompts everything.args-prompt city=Paris", "Get one with its arguments"]],
  },
  http: { method: "POST", path: "/v1/prompts" },
  mcp: { expose: false },
  where: { daemon: "start" },
  needsTrust: true,
  output: (z) =>
    z.object({
      prompts: z.array(z.object({ namespace: z.string() }).passthrough()).optional(),
      errors: z.array(z.object({ namespace: z.string(), error: z.string() })).optional(),
      namespace: z.string().optional(),
      name: z.string().optional(),
      description: z.string().optional(),
      messages: z.array(z.unknown()).optional(),
    }),
  async run(input, ctx) {
    const f = await features();
    if (input.name === undefined) {
      const lists = await f.listAcross(registry(ctx), ctx.caller, ["prompts"], input.server);
      const { items, errors } = flatten(lists.prompts);
      return { prompts: items, ...(errors.length ? { errors } : {}) };
    }
    if (input.server === undefined) throw usage("A prompt needs its namespace", "prompts");
    const got = await f.requestOne(registry(ctx), ctx.caller, input.server, "prompts/get", {
      name: input.name,
      arguments: input.arguments ?? {},
    }, ctx.signal);
    return {
      namespace: input.server,
      name: input.name,
      ...(typeof got.description === "string" ? { description: got.description } : {}),
      messages: Array.isArray(got.messages) ? got.messages : [],
    };
  },
  render(out) {
    if (out.prompts) {
      const lines = out.prompts.map((p) => {
        const args = Array.isArray(p.arguments)
          ? (p.arguments as { name: string; required?: boolean }[])
            .map((a) => a.required ? a.name : `${a.name}?`).join(" ")
          : "";
        const desc = typeof p.description === "string" ? `  ${p.description.split("\n")[0]}` : "";
        return `${p.namespace}.${p.name}${args ? ` (${args})` : ""}${desc}`;
      });
      for (const e of out.errors ?? []) lines.push(`${e.namespace}: ${e.error}`);
      return lines.join("\n") + (lines.length ? "\n" : "");
    }
    const lines = (out.messages ?? []).map((m) => {
      const msg = m as { role?: string; content?: { type?: string; text?: string } };
      const c = msg.content;
      const body = c?.type === "text" ? c.text : JSON.stringify(c);
      return `${msg.role}: ${body}`;
    });
    return lines.join("\n") + "\n";
  },
});

/** `mcpx resources`: every server's resources and templates, or one resource read. */
export const resourcesRead = defineOperation<
  { server?: string; uri?: string; raw?: boolean },
  {
    resources?: Listed[];
    templates?: Listed[];
    errors?: Failed[];
    namespace?: string;
    uri?: string;
    contents?: Record<string, unknown>[];
  }
>({
  id: "resources.read",
  summary: "List every server's resources and resource templates, or read one",
  description:
    "Without a target, the resources and resource templates of every enabled server (or of --server), each with its namespace; a server without resources (or that answers method-not-found) has none. With <namespace>/<uri>, the resource's contents: text as it came, binary described by MIME type and size in bytes (its base64 only with --raw).",
  params: [
    { name: "server", type: "string", doc: "Only this namespace (listing), or the resource's" },
    { name: "uri", type: "string", doc: "The resource to read" },
    {
      name: "raw",
      type: "boolean",
      doc: "Binary contents inlined as base64, as the server sent them",
    },
  ],
  cli: {
    command: ["resources"],
    complete: "namespaces",
    usage: "[<namespace>/<uri>] [options]",
    positionals: parseResourceWords,
    fills: ["uri"],
    example: ["everything/demo://resource/static/document/1"],
    examples: [["mcpx resources", "Every server's resources and templates"], [
      "mcpx resources everything/demo://resource/static/document/1",
      "Read one",
    ]],
  },
  http: { method: "POST", path: "/v1/resources" },
  mcp: { expose: false },
  where: { daemon: "start" },
  needsTrust: true,
  output: (z) =>
    z.object({
      resources: z.array(z.object({ namespace: z.string() }).passthrough()).optional(),
      templates: z.array(z.object({ namespace: z.string() }).passthrough()).optional(),
      errors: z.array(z.object({ namespace: z.string(), error: z.string() })).optional(),
      namespace: z.string().optional(),
      uri: z.string().optional(),
      contents: z.array(z.record(z.string(), z.unknown())).optional(),
    }),
  async run(input, ctx) {
    const f = await features();
    if (input.uri === undefined) {
      const lists = await f.listAcross(
        registry(ctx),
        ctx.caller,
        ["resources", "resourceTemplates"],
        input.server,
      );
      const r = flatten(lists.resources);
      const t = flatten(lists.resourceTemplates);
      return {
        resources: r.items,
        templates: t.items,
        ...(r.errors.length ? { errors: r.errors } : {}),
      };
    }
    if (input.server === undefined) throw usage("A resource needs its namespace", "resources");
    const got = await f.requestOne(registry(ctx), ctx.caller, input.server, "resources/read", {
      uri: input.uri,
    }, ctx.signal);
    return {
      namespace: input.server,
      uri: input.uri,
      contents: f.describeContents(got.contents, input.raw === true),
    };
  },
  render(out) {
    if (out.resources) {
      const lines = out.resources.map((r) =>
        `${r.namespace}/${r.uri}${typeof r.mimeType === "string" ? `  ${r.mimeType}` : ""}${
          typeof r.name === "string" ? `  ${r.name}` : ""
        }`
      );
      for (const t of out.templates ?? []) {
        lines.push(
          `${t.namespace}/${t.uriTemplate}  (template)${
            typeof t.name === "string" ? `  ${t.name}` : ""
          }`,
        );
      }
      for (const e of out.errors ?? []) lines.push(`${e.namespace}: ${e.error}`);
      return lines.join("\n") + (lines.length ? "\n" : "");
    }
    return (out.contents ?? []).map((c) =>
      typeof c.text === "string"
        ? c.text
        : c.binary
        ? `(binary ${c.mimeType ?? "data"}, ${c.size} bytes: --raw inlines it as base64)`
        : JSON.stringify(c)
    ).join("\n") + "\n";
  },
});
