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

/** `mcpx complete <ns.prompt | ns/uri-template> <argument>[=<prefix>] [name=value ...]`. */
export function parseCompleteWords(words: readonly string[]): Record<string, unknown> {
  const [target, wanted, ...rest] = words;
  if (target === undefined) return {};
  const slash = target.indexOf("/");
  const dot = target.indexOf(".");
  const ref: Record<string, unknown> = slash > 0 && (dot < 0 || slash < dot)
    ? { server: target.slice(0, slash), uri: target.slice(slash + 1) }
    : dot > 0 && dot < target.length - 1
    ? { server: target.slice(0, dot), prompt: target.slice(dot + 1) }
    : {};
  if (ref.server === undefined || ref.uri === "") {
    throw usage(
      `"${target}" is neither <namespace.prompt> nor <namespace>/<uri-template>: write it like everything.completable-prompt`,
      "complete",
    );
  }
  if (wanted === undefined) {
    throw usage("Name the argument to complete, as <argument> or <argument>=<prefix>", "complete");
  }
  const eq = wanted.indexOf("=");
  const context: Record<string, string> = {};
  for (const word of rest) {
    const at = word.indexOf("=");
    if (at <= 0) throw usage(`"${word}" is not name=value (an argument already given)`, "complete");
    Object.defineProperty(context, word.slice(0, at), {
      value: word.slice(at + 1),
      enumerable: true,
      writable: true,
    });
  }
  return {
    ...ref,
    argument: eq < 0 ? wanted : wanted.slice(0, eq),
    value: eq < 0 ? "" : wanted.slice(eq + 1),
    ...(rest.length ? { context } : {}),
  };
}

/** `mcpx complete`: the values a server offers for one argument of a prompt or resource template. */
export const completionsGet = defineOperation<
  {
    server?: string;
    prompt?: string;
    uri?: string;
    argument?: string;
    value?: string;
    context?: Record<string, unknown>;
  },
  { namespace: string; values: string[]; total?: number; hasMore?: boolean }
>({
  id: "completions.get",
  summary: "The values a server offers for an argument of a prompt or resource template",
  description:
    "Asks the server (MCP completion/complete) what the argument may be, given what is typed so far and the arguments already given. A server that does not declare completions, or answers method-not-found, offers no values. `mcpx serve` answers a client's completion/complete with it.",
  params: [
    { name: "server", type: "string", doc: "The prompt's or resource template's namespace" },
    { name: "prompt", type: "string", doc: "The prompt whose argument is completed" },
    { name: "uri", type: "string", doc: "The resource template whose variable is completed" },
    { name: "argument", type: "string", doc: "The argument (or template variable) to complete" },
    { name: "value", type: "string", doc: "What is typed of it so far" },
    { name: "context", type: "json", doc: "The arguments already given (strings)" },
  ],
  cli: {
    command: ["complete"],
    complete: "namespaces",
    usage: "<ns.prompt | ns/uri-template> <argument>[=<prefix>] [name=value ...]",
    positionals: parseCompleteWords,
    fills: ["prompt", "uri", "argument", "value", "context"],
    example: ["everything.completable-prompt", "department=E"],
    examples: [
      ["mcpx complete everything.completable-prompt department=S", "Departments starting with S"],
      [
        "mcpx complete everything.completable-prompt name department=Sales",
        "Names, given the department already chosen",
      ],
    ],
  },
  http: { method: "POST", path: "/v1/complete" },
  mcp: { expose: false },
  where: { daemon: "start" },
  needsTrust: true,
  output: (z) =>
    z.object({
      namespace: z.string(),
      values: z.array(z.string()),
      total: z.number().optional(),
      hasMore: z.boolean().optional(),
    }),
  async run(input, ctx) {
    if (input.server === undefined || (input.prompt === undefined) === (input.uri === undefined)) {
      throw usage(
        "Complete one prompt (--prompt) or one resource template (--uri) of --server",
        "complete",
      );
    }
    if (input.argument === undefined) {
      throw usage("Name the argument to complete (--argument)", "complete");
    }
    const f = await features();
    const ref = input.prompt !== undefined
      ? { type: "ref/prompt", name: input.prompt }
      : { type: "ref/resource", uri: input.uri };
    const params = {
      ref,
      argument: { name: input.argument, value: input.value ?? "" },
      ...(input.context ? { context: { arguments: input.context } } : {}),
    };
    const got = await f.completeOne(registry(ctx), ctx.caller, input.server, params, ctx.signal);
    const c = (got.completion ?? {}) as { values?: unknown; total?: unknown; hasMore?: unknown };
    return {
      namespace: input.server,
      values: Array.isArray(c.values) ? c.values.filter((v) => typeof v === "string") : [],
      ...(typeof c.total === "number" ? { total: c.total } : {}),
      ...(typeof c.hasMore === "boolean" ? { hasMore: c.hasMore } : {}),
    };
  },
  render(out) {
    return out.values.map((v) => `${v}\n`).join("") + (out.hasMore ? "…\n" : "");
  },
});
