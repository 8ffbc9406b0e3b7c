import { McpxError } from "../errors.ts";
import { defineOperation, type ParamSpec } from "./define.ts";
import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import type { ApiAuth, ApiResult } from "../apis/openapi.ts";

const SPEC_PARAMS: readonly ParamSpec[] = [
  {
    name: "spec",
    type: "string",
    required: true,
    doc: "The OpenAPI 3.0/3.1 or Swagger 2.0 document: a file or an http(s) URL, JSON or YAML",
  },
  {
    name: "methods",
    type: "string",
    doc: 'Which operations become tools: "reads" (GET and HEAD, the default) or "all"',
  },
  { name: "deprecated", type: "boolean", doc: "Include deprecated operations (labelled)" },
];

function apiModule() {
  return load<typeof import("../apis/openapi.ts")>("../apis/openapi.ts", import.meta.url);
}

function methodsOf(value: string | undefined): "reads" | "all" {
  if (value === undefined || value === "reads") return "reads";
  if (value === "all") return "all";
  throw new McpxError("USAGE", `--methods "${value}" is neither "reads" nor "all"`);
}

interface SpecInput {
  spec: string;
  methods?: string;
  deprecated?: boolean;
}

async function apiOf(input: SpecInput, ctx: Context) {
  const { loadApi } = await apiModule();
  return await loadApi(input.spec, ctx.io.cwd, {
    methods: methodsOf(input.methods),
    deprecated: input.deprecated,
  });
}

/** `mcpx api tools --spec <doc>`: the tools an OpenAPI document makes, without configuring it. */
export const apiTools = defineOperation<
  SpecInput,
  {
    title: string;
    base: string;
    tools: { name: string; method: string; path: string; description?: string }[];
  }
>({
  id: "api.tools",
  summary: "Preview the tools an OpenAPI document becomes (reads only unless --methods all)",
  description:
    "Each operation is one tool: its operationId (else method and path) for the name, its parameters and request body (as `body`) for the input schema, its success response for the output. Relative server URLs resolve against the document's location.",
  params: SPEC_PARAMS,
  cli: {
    command: ["api", "tools"],
    examples: [[
      "mcpx api tools --spec petstore.json",
      "The tools a document's read operations become",
    ], [
      "mcpx api tools --spec https://example.com/openapi.yaml --methods all",
      "Every operation, writes too",
    ]],
  },
  http: { none: "It reads files and URLs of the caller's choosing" },
  mcp: { expose: false },
  where: "local",
  output: (z) =>
    z.object({
      title: z.string(),
      base: z.string(),
      tools: z.array(z.object({ name: z.string(), method: z.string(), path: z.string() }).loose()),
    }),
  async run(input, ctx) {
    const api = await apiOf(input, ctx);
    return { title: api.title, base: api.base, tools: api.tools };
  },
  render: (o) =>
    `${o.title} at ${o.base}\n` +
    o.tools.map((t) =>
      `  ${t.name}  ${t.method} ${t.path}${
        t.description ? `  ${t.description.split("\n")[0]}` : ""
      }`
    ).join("\n") + "\n",
});

/** The credentials of `api call`: from the environment variables the flags name, never typed. */
function authOf(
  input: { bearerEnv?: string; apiKeyEnv?: string; apiKeyHeader?: string; apiKeyQuery?: string },
  env: Readonly<Record<string, string>>,
): ApiAuth {
  const read = (name: string) => {
    const v = env[name];
    if (v === undefined || v === "") {
      throw new McpxError("CREDENTIALS_MISSING", `The variable ${name} is not set`, {
        hint: `Set ${name} to the API's credential`,
      });
    }
    return v;
  };
  const auth: ApiAuth = {};
  if (input.bearerEnv) auth.bearer = read(input.bearerEnv);
  if (input.apiKeyEnv) {
    const value = read(input.apiKeyEnv);
    if (input.apiKeyQuery) auth.apiKey = { in: "query", name: input.apiKeyQuery, value };
    else auth.apiKey = { in: "header", name: input.apiKeyHeader ?? "X-API-Key", value };
  }
  return auth;
}

/** `mcpx api call --spec <doc> <operation> [json | key=value …]`. */
export const apiCall = defineOperation<
  SpecInput & {
    operation: string;
    arguments?: Record<string, unknown>;
    words?: string[];
    bearerEnv?: string;
    apiKeyEnv?: string;
    apiKeyHeader?: string;
    apiKeyQuery?: string;
  },
  ApiResult & { operation: string; exitCode?: number }
>({
  id: "api.call",
  summary: "Call one operation of an OpenAPI document without configuring it",
  description:
    "Arguments are one JSON object or key=value words (a value is JSON when it parses, else text; `body` is the request body). Path parameters are escaped. Credentials come from environment variables the flags name, never from the document. A status of 400 or more prints the answer and exits 8.",
  params: [
    ...SPEC_PARAMS,
    { name: "operation", type: "string", required: true, doc: "The operation's tool name" },
    { name: "arguments", type: "json", doc: "The arguments as one JSON object" },
    { name: "words", type: "list", doc: "key=value words" },
    { name: "bearerEnv", type: "string", doc: "Send the value of this variable as a bearer token" },
    { name: "apiKeyEnv", type: "string", doc: "Send the value of this variable as an API key" },
    { name: "apiKeyHeader", type: "string", doc: "The API key's header (default X-API-Key)" },
    {
      name: "apiKeyQuery",
      type: "string",
      doc: "Send the API key as this query parameter instead",
    },
  ],
  cli: {
    command: ["api", "call"],
    usage: "<operation> [json | key=value ...] --spec <document> [options]",
    positionals: (words) => {
      const [operation, ...rest] = words;
      if (!operation) {
        throw new McpxError("USAGE", '"mcpx api call" needs <operation>', {
          hint: "Run `mcpx api tools --spec <document>` for its operations",
        });
      }
      if (rest.length === 1 && rest[0].trim().startsWith("{")) {
        try {
          return { operation, arguments: JSON.parse(rest[0]) };
        } catch {
          throw new McpxError("USAGE", "The arguments are not valid JSON");
        }
      }
      for (const w of rest) {
        if (w.indexOf("=") <= 0) throw new McpxError("USAGE", `"${w}" is not key=value`);
      }
      return { operation, ...(rest.length ? { words: rest } : {}) };
    },
    fills: ["operation", "arguments", "words"],
    example: ["findPetsByStatus", "status=available", "--spec", "petstore.json"],
    examples: [[
      "mcpx api call findPetsByStatus status=available --spec petstore.json",
      "Call one operation of a document",
    ], [
      "mcpx api call getUser id=7 --spec api.yaml --bearer-env API_TOKEN",
      "With a bearer token from a variable",
    ]],
  },
  http: { none: "It reads files and URLs of the caller's choosing" },
  mcp: { expose: false },
  where: "local",
  output: (z) =>
    z.object({
      operation: z.string(),
      status: z.number(),
      ok: z.boolean(),
      body: z.unknown(),
      exitCode: z.number().optional(),
    }),
  async run(input, ctx) {
    const auth = authOf(input, ctx.io.env);
    const api = await apiOf(input, ctx);
    const args: Record<string, unknown> = { ...(input.arguments ?? {}) };
    for (const w of input.words ?? []) {
      const eq = w.indexOf("=");
      const v = w.slice(eq + 1);
      const tool = api.tools.find((t) => t.name === input.operation);
      const prop = (tool?.inputSchema.properties as Record<string, { type?: string }> | undefined)
        ?.[w.slice(0, eq)];
      let value: unknown = v;
      if (prop?.type !== "string") {
        try {
          value = JSON.parse(v);
        } catch { /* text */ }
      }
      args[w.slice(0, eq)] = value;
    }
    const { callApi } = await apiModule();
    const out = await callApi(api, input.operation, args, auth);
    return { operation: input.operation, ...out, ...(out.ok ? {} : { exitCode: 8 }) };
  },
  render: (o) =>
    (typeof o.body === "string" ? o.body : JSON.stringify(o.body, null, 2)) +
    (o.ok ? "" : `\nHTTP ${o.status}`) + "\n",
});

/** `mcpx api serve --spec <doc>`: the document's operations as an MCP server on stdio. */
export const apiServe = defineOperation<
  SpecInput & {
    bearerEnv?: string;
    apiKeyEnv?: string;
    apiKeyHeader?: string;
    apiKeyQuery?: string;
  },
  Record<string, never>
>({
  id: "api.serve",
  summary: "Serve an OpenAPI document's operations as an MCP server on stdio",
  description:
    'What a configured server entry runs to make an API a namespace: `"petstore": {"command": "mcpx", "args": ["api", "serve", "--spec", "https://…/openapi.json"]}`, or `mcpx call --stdio \'mcpx api serve --spec …\' <operation>`. A status of 400 or more is a tool error carrying the answer.',
  params: [
    ...SPEC_PARAMS,
    { name: "bearerEnv", type: "string", doc: "Send the value of this variable as a bearer token" },
    { name: "apiKeyEnv", type: "string", doc: "Send the value of this variable as an API key" },
    { name: "apiKeyHeader", type: "string", doc: "The API key's header (default X-API-Key)" },
    {
      name: "apiKeyQuery",
      type: "string",
      doc: "Send the API key as this query parameter instead",
    },
  ],
  cli: {
    command: ["api", "serve"],
    examples: [[
      "mcpx api serve --spec petstore.json",
      "A document's read operations as a stdio MCP server",
    ], [
      "mcpx api serve --spec api.yaml --methods all --api-key-env API_KEY",
      "Every operation, with an API key",
    ]],
  },
  http: { none: "It serves MCP on its own stdin and stdout" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({}),
  async run(input, ctx) {
    const auth = authOf(input, ctx.io.env);
    const api = await apiOf(input, ctx);
    const { serveApi } = await load<typeof import("../apis/serve.ts")>(
      "../apis/serve.ts",
      import.meta.url,
    );
    await serveApi(api, auth);
    return {};
  },
  render: () => "",
});
