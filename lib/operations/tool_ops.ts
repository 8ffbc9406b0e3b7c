import { McpxError, messageOf } from "../errors.ts";
import { defineOperation } from "./define.ts";
import type { Context } from "../context.ts";
import type { CallOutput } from "../pool/registry.ts";
import type { TaskView } from "../tasks/tasks.ts";
import type { AdHocTools } from "../daemon/adhoc.ts";
import { load } from "../_load.ts";
import { readInputFile } from "../_input.ts";

function registry(ctx: Context) {
  const d = ctx.daemon;
  if (!d) throw new McpxError("INTERNAL", "This operation runs inside the daemon");
  return d.registry;
}

/** Where `call` reads its arguments when they are not on the command line (`-` or `@file`). */
const FROM = Symbol.for("mcpx.call.argumentsFrom");

/**
 * `ns.tool` followed by one JSON object, by `-` (a JSON object on stdin) or `@file` (one in a
 * file), or by `key=value` words. The words are sent as typed: the daemon, which holds the
 * tool's input schema, gives each value its type (lib/pool/words.ts).
 */
export function parseCallWords(words: readonly string[]): Record<string, unknown> {
  const [target, ...rest] = words;
  const usage = (message: string) =>
    new McpxError("USAGE", message, { hint: "Run `mcpx call --help`" });
  if (!target) {
    throw usage('"mcpx call" needs <namespace.tool>, e.g. `mcpx call everything.echo message=hi`');
  }
  const dot = target.indexOf(".");
  // A bare tool name is for an ad-hoc server (--stdio, --url); `request` refuses it otherwise.
  if (dot === 0 || dot === target.length - 1) {
    throw usage(`"${target}" is not <namespace.tool>: write it like everything.echo`);
  }
  const input: Record<string, unknown> = dot < 0 ? { server: "", tool: target } : {
    server: target.slice(0, dot),
    tool: target.slice(dot + 1),
  };
  if (rest.length === 1 && (rest[0] === "-" || (rest[0].startsWith("@") && rest[0].length > 1))) {
    (input as Record<symbol, unknown>)[FROM] = rest[0];
    return input;
  }
  if (rest.length === 1 && rest[0].trim().startsWith("{")) {
    input.arguments = argumentsJson(rest[0], "The arguments");
    return input;
  }
  for (const word of rest) {
    if (word.indexOf("=") <= 0) {
      throw usage(
        `"${word}" is neither a JSON object, - (JSON on stdin), @file nor key=value`,
      );
    }
  }
  if (rest.length > 0) input.words = rest;
  return input;
}

/** One JSON object, or a one-line USAGE error saying where the text came from. */
function argumentsJson(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // V8's message may quote the text, new lines and all; the error stays on one line.
    const why = messageOf(e).replace(/\s+/g, " ");
    throw new McpxError("USAGE", `${what} are not valid JSON: ${why}`, {
      hint: "Run `mcpx call --help`",
    });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new McpxError("USAGE", `${what} must be one JSON object, like {"key": "value"}`, {
      hint: "Run `mcpx call --help`",
    });
  }
  return value as Record<string, unknown>;
}

/** Reads the arguments of `mcpx call ns.tool -` (stdin) or `… @file` (relative to cwd). */
async function readArguments(from: string, ctx: Context): Promise<Record<string, unknown>> {
  if (from === "-") {
    return argumentsJson(await ctx.io.readStdin(), "The arguments on stdin");
  }
  const text = await readInputFile(
    ctx.io.cwd,
    from.slice(1),
    "the arguments file",
    "Write @<path to a JSON file>, or - to read the JSON from stdin",
    { maxBytes: (await ctx.settings()).get("daemon.maxRequestBytes") },
  );
  return argumentsJson(text, `The arguments in "${from.slice(1)}"`);
}

/** `--stdio`, `--url` and `--name`: a server used without configuring it. */
export const AD_HOC_PARAMS = [
  {
    name: "stdio",
    type: "string",
    doc:
      "Use this command line as an ad-hoc stdio server (split into words without a shell; the namespace is the program's or package's name)",
  },
  {
    name: "url",
    type: "string",
    doc: "Use the MCP server at this URL ad hoc (Streamable HTTP, SSE as a fallback)",
  },
  { name: "name", type: "string", doc: "The namespace of the ad-hoc server (--stdio, --url)" },
] as const;

/** `mcpx call ns.tool …`: one tool call through the daemon's pools. */
export const toolsCall = defineOperation<
  {
    server: string;
    tool: string;
    arguments?: Record<string, unknown>;
    words?: string[];
    raw?: boolean;
    session?: string;
    handOff?: boolean;
    stdio?: string;
    url?: string;
    name?: string;
    task?: boolean;
    ttl?: string;
  },
  CallOutput
>({
  id: "tools.call",
  summary: "Call one tool on a managed server",
  description:
    "Arguments are one JSON object, - (one JSON object read from stdin), @file (one read from that file: the way past the system's limit on one command-line argument, 128 KiB on Linux; a file larger than daemon.maxRequestBytes is refused in one line, unread past the bound) or key=value words. Each word's value is typed by the tool's input schema, in the daemon: a string property gets the text exactly as typed (1.50, 007, null and quotes included); a number, integer, boolean, null, object or array property reads it as JSON of that type, else the call fails naming the argument; a key the schema does not declare is refused, naming the nearest declared one (msg for message), unless the schema takes keys it does not name (additionalProperties true or a schema, patternProperties, no properties at all), where such a value is JSON when it parses, text otherwise. The arguments are checked against the schema before they are sent. The result prints unwrapped: structured content or JSON-in-text parsed, plain text as a string; structured content that only wraps the text beside it (one string field equal to that text, as server-filesystem answers) prints as that text. With --json it is the MCP result envelope (content, structuredContent, isError, _meta as the server sent them) plus an mcpx field naming the server, tool, instance (id, pid, scope key) and duration, and restarted: true with restartReason when the session's earlier process was stopped to make room or exited (a warning on stderr says so too); a tool error prints its envelope with isError and an error field. Binary content (image, audio, blob resources) is never printed: each item's bytes are saved to a file of their own, named in its place (with --json the item has bytes and file instead of data or blob). Output past output.maxBytes prints its head, then a line naming the file under the state directory that holds all of it and its size; a --json document is cut to fit and marked truncated, spilledTo and bytes. A tool that reports an error exits 8 with the server's text.",
  params: [
    { name: "server", type: "string", required: true, doc: "The namespace (or configured name)" },
    {
      name: "tool",
      type: "string",
      required: true,
      doc: "The tool's name, or its identifier form",
    },
    { name: "arguments", type: "json", doc: "The tool's arguments as a JSON object" },
    {
      name: "words",
      type: "list",
      doc:
        "key=value words as typed, each value given its type by the tool's input schema (a string property keeps the exact text); they override arguments of the same name",
    },
    {
      name: "raw",
      type: "boolean",
      doc: "Print the MCP result envelope (binary saved to files) instead of the unwrapped value",
    },
    {
      name: "session",
      type: "string",
      doc:
        "Join the lease of this session key; the name of a named session (mcpx session new) rejoins it (default MCPX_SESSION_ID)",
    },
    {
      name: "handOff",
      type: "boolean",
      doc:
        "A question the server asks fails the call INPUT_REQUIRED at once, without waiting elicit.wait (a script with onElicit / onSample answers it itself)",
    },
    {
      name: "task",
      type: "boolean",
      doc:
        "Run the call as an MCP task: print its handle (id, server, status, TTL) at once instead of waiting; `mcpx tasks` follows it (docs/tasks.md)",
    },
    {
      name: "ttl",
      type: "string",
      doc: "With --task: how long the task is kept, 1s to 24h (default tasks.ttl, 1h)",
    },
    ...AD_HOC_PARAMS,
  ],
  cli: {
    command: ["call"],
    complete: "tools",
    usage: "<namespace.tool> [json | - | @file | key=value ...] [options]",
    positionals: parseCallWords,
    fills: ["server", "tool", "arguments", "words"],
    example: ["everything.echo", "message=hi"],
    // The envelope is what the command renders: binary saved to files, long output bounded.
    request: async (input, ctx) => {
      const from = (input as { [FROM]?: string })[FROM];
      const adHoc = input.stdio !== undefined || input.url !== undefined;
      if (!adHoc && !input.server) {
        throw new McpxError(
          "USAGE",
          `"${input.tool}" is not <namespace.tool>: write it like everything.echo`,
          { hint: "Or name an ad-hoc server: mcpx call --stdio '<command line>' <tool>" },
        );
      }
      // The caller's tasks.ttl (its environment, its flags), not the daemon's, when --ttl is absent.
      const ttl = input.task && input.ttl === undefined
        ? { ttl: `${(await ctx.settings()).get("tasks.ttl")}ms` }
        : {};
      return {
        ...input,
        ...(from === undefined ? {} : { arguments: await readArguments(from, ctx) }),
        ...ttl,
        raw: true,
      };
    },
    examples: [
      [
        "mcpx call everything.echo message=hi",
        "One call; each key=value typed by the tool's schema",
      ],
      ['mcpx call everything.get_sum \'{"a": 2, "b": 40}\'', "The arguments as one JSON object"],
      [
        "mcpx call --task everything.simulate_research_query topic=mcp",
        "A slow tool as a task: its handle at once, `mcpx tasks result` later",
      ],
    ],
  },
  http: {
    method: "POST",
    path: "/v1/tools/call",
    also: [
      { method: "POST", path: "/v1/call/{server}/{tool}", bodyField: "arguments" },
      // One plain POST per tool, as `mcpx call` names it: /v1/tools/everything.echo.
      { method: "POST", path: "/v1/tools/{server}.{tool}", bodyField: "arguments" },
    ],
  },
  mcp: {
    expose: true,
    // An ad-hoc server is named by a command line a user typed, not by an MCP client; a task is
    // made by `mcpx_call`'s own caller only through the CLI and /v1 (docs/tasks.md).
    hidden: ["words", "raw", "handOff", "stdio", "url", "name", "task", "ttl"],
    agent: {
      description:
        "Call one tool of one server. The result is the tool's own, as its server sent it (isError included).",
      params: {
        server: "The namespace, as mcpx_ls lists it",
        tool: "The tool, as mcpx_search or mcpx_types names it",
        arguments: "The tool's arguments, as mcpx_types shows them",
      },
    },
    // The called tool's own result, as its server sent it: isError passes through, not flattened.
    request: (input) => ({ ...input, raw: true }),
    result: (out) => out.raw,
    errorResult: (error) => error.code === "TOOL_ERROR" ? error.data : undefined,
  },
  where: { daemon: "start" },
  needsTrust: true,
  output: (z) =>
    z.object({
      server: z.string(),
      tool: z.string(),
      result: z.unknown(),
      raw: z.unknown().optional(),
      instance: z.object({ id: z.string(), pid: z.number().nullable(), key: z.string() }),
      durationMs: z.number(),
      restarted: z.literal(true).optional(),
      restartReason: z.string().optional(),
      alone: z.string().optional(),
    }),
  async run(input, ctx) {
    const server = await adHocKey(input, ctx) ?? input.server;
    if (input.task !== true && input.ttl !== undefined) {
      throw new McpxError("USAGE", "--ttl is for a task: add --task", {
        hint: "Run `mcpx call --help`",
      });
    }
    const asTask = input.task === true
      ? await (await taskModule()).taskStarter(input.ttl, ctx)
      : undefined;
    const token = ctx.caller.progress;
    const events = ctx.daemon?.events;
    return await registry(ctx).call({
      server,
      tool: input.tool,
      arguments: input.arguments ?? {},
      words: input.words,
      raw: input.raw,
      // The caller hears its progress on the bus, under the token it made up.
      ...(token && events
        ? {
          onProgress: (p: { progress: number; total?: number; message?: string }) =>
            void events.publish("call.progress", {
              token,
              server: input.server,
              tool: input.tool,
              ...p,
            }),
        }
        : {}),
      ...(input.handOff ? { elicitWaitMs: 0 } : {}),
      ...(asTask ? { asTask } : {}),
      caller: {
        ...ctx.caller,
        // --session names the session: its process is never stopped to make room; another
        // session than the environment's is not the one MCPX_SESSION_OWNER owns.
        ...(input.session ? { session: input.session, sessionMinted: false } : {}),
        ...(input.session && input.session !== ctx.caller.session ? { owner: undefined } : {}),
      },
    }, ctx.signal);
  },
  async render(out, ctx, input) {
    if (input.task === true) {
      const { renderTask } = await taskModule();
      return renderTask(out.result as TaskView);
    }
    const { renderCall, restartWarning } = await outputModule();
    const warning = restartWarning(out);
    if (warning) ctx.io.err(warning);
    return renderCall(out, input.raw === true, await bound(ctx, input));
  },
  async json(out, ctx, input) {
    if (input.task === true) return out.result;
    const { callDocument, restartWarning } = await outputModule();
    const warning = restartWarning(out);
    if (warning) ctx.io.err(warning);
    return callDocument(out, await bound(ctx, input));
  },
  async jsonError(error, ctx, input) {
    if (error.code !== "TOOL_ERROR") return undefined;
    const { callErrorDocument } = await outputModule();
    return callErrorDocument(error, input, await bound(ctx, input));
  },
});

/**
 * The registry's key of the ad-hoc server `input` names, taken up by the daemon's registry (the
 * same command line is the same pool), or undefined when it names none.
 */
export async function adHocKey(
  input: { stdio?: string; url?: string; name?: string },
  ctx: Context,
): Promise<string | undefined> {
  if (input.stdio === undefined && input.url === undefined) return undefined;
  (await load<typeof import("../daemon/adhoc.ts")>("../daemon/adhoc.ts", import.meta.url))
    .refuseOverTcp(ctx);
  const { adHocEntry } = await load<typeof import("../config/adhoc.ts")>(
    "../config/adhoc.ts",
    import.meta.url,
  );
  const { serverDefs } = await load<typeof import("../config/servers.ts")>(
    "../config/servers.ts",
    import.meta.url,
  );
  const { name, entry } = adHocEntry(input);
  const settings = await ctx.settings();
  const [def] = serverDefs({
    path: "(ad hoc)",
    mcpServers: { [name]: entry },
    pool: {},
    data: {},
  }, {
    queueTimeoutMs: settings.get("pool.queueTimeout"),
    evictNamed: settings.get("pool.evictNamed"),
  });
  return registry(ctx).adHoc(def);
}

function taskModule() {
  return load<typeof import("./task_ops.ts")>("./task_ops.ts", import.meta.url);
}

function outputModule() {
  return load<typeof import("../output/call.ts")>("../output/call.ts", import.meta.url);
}

async function bound(ctx: Context, input: { server?: string; tool?: string }) {
  const { outputBound } = await load<typeof import("../output/bound.ts")>(
    "../output/bound.ts",
    import.meta.url,
  );
  return await outputBound(ctx, `call-${input.server}.${input.tool}`);
}

/** `mcpx restart <ns> [--session key]`. */
export const serversRestart = defineOperation<
  { server: string; session?: string },
  { server: string; stopped: number }
>({
  id: "servers.restart",
  summary: "Restart a server: stop its processes (or one session's) so the next call starts fresh",
  params: [
    { name: "server", type: "string", positional: true, required: true, doc: "The namespace" },
    {
      name: "session",
      type: "string",
      doc:
        "Only the instance serving this session key or named session; other sessions' instances stay",
    },
  ],
  cli: {
    command: ["restart"],
    complete: "namespaces",
    examples: [[
      "mcpx restart playwright",
      "Stop every playwright process; the next call starts a fresh one",
    ], ["mcpx restart playwright --session agent-1", "Only the process one session holds"]],
  },
  http: { method: "POST", path: "/v1/servers/{server}/restart" },
  mcp: { expose: true, destructive: true },
  where: { daemon: "start" },
  needsTrust: true,
  output: (z) => z.object({ server: z.string(), stopped: z.number() }),
  async run(input, ctx) {
    return {
      server: input.server,
      stopped: await registry(ctx).restart(input.server, input.session),
    };
  },
  render: (o) => `restarted ${o.server}: stopped ${o.stopped} process(es)\n`,
});

/** `mcpx refresh`: list every server's tools again. */
export const serversRefresh = defineOperation<
  Record<string, never>,
  { servers: { namespace: string; tools: number | null; error?: string }[]; exitCode?: number }
>({
  id: "servers.refresh",
  summary: "Re-read every server's tool list",
  description: "Servers not running are started for it, at most 8 at once, and stopped after.",
  params: [],
  cli: {
    command: ["refresh"],
    examples: [["mcpx refresh", "Start every server once and re-read its tools into the cache"], [
      "mcpx --all-profiles refresh",
      "The same for the servers of every profile",
    ]],
  },
  http: { method: "POST", path: "/v1/servers/refresh" },
  mcp: {
    expose: true,
    // A namespace never listed (`unlisted` in mcpx_ls) has nothing to search until this runs.
    agent: {
      description:
        "List every server's tools again (it starts them): for a namespace mcpx_ls shows unlisted or in error.",
      params: {},
      text: (out) =>
        out.servers.map((s) =>
          `${s.namespace}: ${s.error ? `failed: ${s.error}` : `${s.tools ?? 0} tools`}\n`
        ).join(""),
    },
  },
  where: { daemon: "start" },
  needsTrust: true,
  output: (z) =>
    z.object({
      servers: z.array(
        z.object({
          namespace: z.string(),
          tools: z.number().nullable(),
          error: z.string().optional(),
        }),
      ),
      exitCode: z.number().optional(),
    }),
  async run(_input, ctx) {
    const out = await registry(ctx).refresh(ctx.caller);
    const failed = out.some((s) => s.error);
    return {
      // Some server could not be listed: the command fails (6), each row says why.
      ...(failed ? { exitCode: 6 } : {}),
      servers: out.map((s) => ({
        namespace: s.namespace,
        tools: s.tools ? s.tools.length : null,
        ...(s.error ? { error: s.error } : {}),
      })),
    };
  },
  render: (o) =>
    o.servers.map((s) => `${s.namespace}: ${s.error ? `error: ${s.error}` : `${s.tools} tools`}`)
      .join("\n") + "\n",
});

/** `mcpx end-session <key>`: stop what a session a caller minted holds. */
export const sessionsEnd = defineOperation<
  { session: string },
  { session: string; stopped: number }
>({
  id: "sessions.end",
  summary: "Stop every server process held for a session key, now that the session is over",
  params: [{
    name: "session",
    type: "string",
    positional: true,
    required: true,
    doc: "The session key",
  }],
  cli: {
    command: ["end-session"],
    examples: [
      ["mcpx end-session agent-1", "Stop the processes held for the session key agent-1"],
      ['mcpx end-session "$MCPX_SESSION_ID"', "End this shell's own session"],
    ],
  },
  http: { method: "POST", path: "/v1/sessions/{session}/end" },
  mcp: { expose: true, destructive: true },
  where: { daemon: "running" },
  output: (z) => z.object({ session: z.string(), stopped: z.number() }),
  async run(input, ctx) {
    return { session: input.session, stopped: await registry(ctx).endSession(input.session) };
  },
  offline: (input) => Promise.resolve({ session: input.session, stopped: 0 }),
  render: (o) => `session ${o.session}: stopped ${o.stopped} process(es)\n`,
});

/** `mcpx tools --stdio '<command line>'` (or `--url`): an ad-hoc server's tools, listed live. */
export const toolsAdHoc = defineOperation<
  { stdio?: string; url?: string; name?: string },
  AdHocTools
>({
  id: "tools.adhoc",
  summary: "List the tools of an ad-hoc server (--stdio or --url), started through the daemon",
  description:
    "The server is taken up by the daemon as `mcpx call --stdio` takes it up: the same command line (or URL) is the same pool, so a later call reuses the process. `ls` and `types` with --stdio or --url answer from this listing.",
  params: [...AD_HOC_PARAMS],
  cli: {
    command: ["tools"],
    example: ["--stdio", "npx -y @modelcontextprotocol/server-everything"],
    examples: [[
      "mcpx tools --stdio 'npx -y @modelcontextprotocol/server-everything'",
      "The tools of a server given on the command line",
    ], [
      "mcpx tools --url http://127.0.0.1:3001/mcp --name demo",
      "The tools of a remote server, under the namespace demo",
    ]],
  },
  http: { method: "POST", path: "/v1/adhoc/tools" },
  mcp: { expose: false },
  where: { daemon: "start" },
  output: (z) =>
    z.object({
      namespace: z.string(),
      tools: z.array(z.object({ name: z.string(), inputSchema: z.unknown() }).loose()),
    }),
  async run(input, ctx) {
    const key = await adHocKey(input, ctx);
    if (!key) {
      throw new McpxError(
        "USAGE",
        "Name an ad-hoc server with --stdio '<command line>' or --url <url>",
      );
    }
    return await registry(ctx).withConnection(
      key,
      ctx.caller,
      (_conn, def, tools) =>
        Promise.resolve({
          namespace: def.namespace,
          tools: tools.map((t) => ({
            name: t.name,
            ...(t.description ? { description: t.description } : {}),
            inputSchema: t.inputSchema,
            ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
          })),
        }),
    );
  },
  render: (o) =>
    o.tools.map((t) => `${o.namespace}.${t.name}  ${(t.description ?? "").split("\n")[0]}`)
      .join("\n") + "\n",
});
