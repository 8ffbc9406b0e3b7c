import { join } from "../_path.ts";
import { writeFileAtomic } from "../_atomic.ts";
import { load } from "../_load.ts";
import type { Context } from "../context.ts";
import type { ToolInfo } from "../mcp/types.ts";
import { functionNames } from "../names.ts";
import { clientStamp, isFresh } from "./client_stamp.ts";
import { McpxError } from "../errors.ts";

/** One namespace as the client module exposes it. */
export interface ClientNamespace {
  ns: string;
  description?: string;
  tools: ToolInfo[];
  /** Why the server has no tools listed: its last start failed with this. */
  error?: string;
  /** For an ad-hoc server (`--stdio`, `--url`): what names it on every call. */
  adHoc?: { stdio?: string; url?: string; name: string };
}

/** Turns a JSON Schema into a TypeScript type expression (the codegen's job). */
export type TypeOf = (
  schema: Record<string, unknown> | undefined,
  options?: { indent?: string },
) => string;

function jsdoc(text: string | undefined, indent: string): string {
  if (!text) return "";
  const body = text.replaceAll("*/", "*\\/").trim().split("\n");
  return body.length === 1
    ? `${indent}/** ${body[0]} */\n`
    : `${indent}/**\n${body.map((l) => `${indent} * ${l}`.trimEnd()).join("\n")}\n${indent} */\n`;
}

const BAKED = [
  'const BAKED_SOCKET: string = "";',
  'const BAKED_TOKEN_FILE: string = "";',
  "const META: ToolMeta[] = [];",
  "const AD_HOC: Record<string, string> = {};",
];
let runtime: string | undefined;

/**
 * The runtime the module carries: lib/runtime/client.ts as written, less its opening comment,
 * with `socket`, `tokenFile` and `meta` in place of its three placeholder lines.
 */
function runtimeText(
  socket: string,
  tokenFile: string,
  meta: unknown[],
  adHoc: Record<string, string>,
): string {
  runtime ??= Deno.readTextFileSync(new URL("../runtime/client.ts", import.meta.url));
  const text = runtime.slice(runtime.indexOf("\n\n") + 2);
  if (!BAKED.every((line) => text.includes(line))) {
    throw new TypeError(
      "lib/runtime/client.ts lost its BAKED_SOCKET, BAKED_TOKEN_FILE, META and AD_HOC lines",
    );
  }
  return text.replace(BAKED[0], `const BAKED_SOCKET: string = ${JSON.stringify(socket)};`)
    .replace(BAKED[1], `const BAKED_TOKEN_FILE: string = ${JSON.stringify(tokenFile)};`)
    .replace(BAKED[2], `const META: ToolMeta[] = ${JSON.stringify(meta)};`)
    .replace(BAKED[3], `const AD_HOC: Record<string, string> = ${JSON.stringify(adHoc)};`);
}

/**
 * The client module for some namespaces: typed functions per tool over one runtime that talks to
 * the daemon, `search()` and `describe()` answering synchronously, and `__mcpxGlobals` naming
 * what a launcher puts on globalThis. Deterministic: no timestamps.
 */
export function renderClientModule(
  namespaces: ClientNamespace[],
  options: {
    socket: string;
    /** The daemon's token file (MCPX_TOKEN_FILE overrides it at run time). */
    tokenFile: string;
    typeOf: TypeOf;
    signature: (ns: string, tool: ToolInfo, options: { tools: ToolInfo[] }) => string;
  },
): string {
  const meta: unknown[] = [];
  const adHoc: Record<string, string> = {};
  let api = "";
  const names: string[] = [];
  for (const n of [...namespaces].sort((a, b) => a.ns.localeCompare(b.ns))) {
    names.push(n.ns);
    if (n.adHoc) {
      const { stdio, url, name } = n.adHoc;
      adHoc[n.ns] = new URLSearchParams({
        ...(stdio !== undefined ? { stdio } : {}),
        ...(url !== undefined ? { url } : {}),
        name,
      }).toString();
    }
    if (n.tools.length === 0 && n.error) {
      // A server whose start failed has no tools to type. Any name still calls the daemon, which
      // tries the server again and answers with why it fails now (or with its result, once it
      // starts), instead of a script failing on "x.y is not a function".
      api += `\n${jsdoc(`${n.description ? `${n.description}\n` : ""}Not listed: ${n.error}`, "")}`;
      api +=
        `export const ${n.ns}: Record<string, (args?: Record<string, unknown>, options?: CallOptions) => Promise<ToolResult>> = new Proxy({}, {\n  get: (_, tool) => typeof tool === "string" && tool !== "then" ? (args: Record<string, unknown> = {}, options?: CallOptions) => call(${
          JSON.stringify(n.ns)
        }, tool, args, options) : undefined,\n});\n`;
      continue;
    }
    api += `\n${jsdoc(n.description, "")}export const ${n.ns} = {\n`;
    // The names `mcpx types` declares (lib/names.ts): identifiers, none of them `__proto__`.
    const fns = functionNames(n.tools);
    for (const t of [...n.tools].sort((a, b) => a.name.localeCompare(b.name))) {
      const id = fns.get(t.name)!;
      const out = t.outputSchema ? options.typeOf(t.outputSchema) : "unknown";
      api += jsdoc(t.description, "  ");
      // Arguments that are all optional may be left out, as `mcpx types` declares them.
      const required = t.inputSchema?.required;
      api += `  ${id}: (args: ${options.typeOf(t.inputSchema)}${
        Array.isArray(required) && required.length > 0 ? "" : " = {}"
      }, options?: CallOptions): Promise<ToolResult<${out}>> =>\n    call(${
        JSON.stringify(n.ns)
      }, ${JSON.stringify(t.name)}, args, options) as Promise<ToolResult<${out}>>,\n`;
      meta.push({
        namespace: n.ns,
        tool: t.name,
        fn: `${n.ns}.${id}`,
        description: (t.description ?? "").split("\n")[0].slice(0, 200),
        required: (t.inputSchema?.required as string[] | undefined) ?? [],
        signature: options.signature(n.ns, t, { tools: n.tools }),
      });
    }
    // The server's prompts and resources: `$` names, which no tool's function name takes.
    const ns = JSON.stringify(n.ns);
    const taken = new Set(fns.values());
    const helpers: [string, string][] = [
      [
        "$prompts",
        `(): Promise<Json[]> =>\n    requestFeature("/v1/prompts", { server: ${ns} }).then((o) => o.prompts as Json[])`,
      ],
      [
        "$prompt",
        `(name: string, args: Record<string, string> = {}): Promise<{ description?: string; messages: Json[] }> =>\n    requestFeature("/v1/prompts", { server: ${ns}, name, arguments: args }) as Promise<{ description?: string; messages: Json[] }>`,
      ],
      [
        "$resources",
        `(): Promise<{ resources: Json[]; templates: Json[] }> =>\n    requestFeature("/v1/resources", { server: ${ns} }) as Promise<{ resources: Json[]; templates: Json[] }>`,
      ],
      [
        "$task",
        `(tool: string, args: Record<string, unknown> = {}, options: { ttl?: string } = {}): Promise<TaskHandle> =>\n    startTask(${ns}, tool, args, options)`,
      ],
      [
        "$read",
        `(uri: string, raw = false): Promise<Json[]> =>\n    requestFeature("/v1/resources", { server: ${ns}, uri, raw }).then((o) => o.contents as Json[])`,
      ],
    ];
    for (const [name, body] of helpers) {
      if (!taken.has(name)) api += `  ${name}: ${body},\n`;
    }
    api += "};\n";
  }
  const tools = `{ ${names.join(", ")} }`;
  return `// Generated by mcpx: \`mcpx client -o <path>\` writes it again. Do not edit.
// Typed functions for every tool of the selected namespaces; each call goes to the mcpx daemon
// (MCPX_SOCKET, else the socket below; the token from MCPX_TOKEN_FILE, else the file below) under
// this run's session (MCPX_SESSION_ID).
// deno-lint-ignore-file
${runtimeText(options.socket, options.tokenFile, meta, adHoc)}${api}
/** Every namespace, by name. */
const tools = ${tools};
export default tools;

/** What a launcher installs on globalThis so a script needs no imports. */
export const __mcpxGlobals: Record<string, unknown> = { tools, ${names.join(", ")}${
    names.length ? ", " : ""
  }search, describe, ToolError, onElicit, onSample };
`;
}

/** The `mcpx-globals.d.ts` beside a script, so an editor knows the globals without an import. */
export function renderGlobalsDeclaration(names: string[]): string {
  return `// Generated by mcpx. Tells an editor which globals a script run by mcpx has.
import type * as client from "./mcpx-client.ts";
declare global {
  const tools: typeof client.default;
${names.map((n) => `  const ${n}: typeof client.${n};`).join("\n")}
  const search: typeof client.search;
  const describe: typeof client.describe;
  const ToolError: typeof client.ToolError;
  /** Answers the questions (elicitation) a server asks during this script's calls. */
  const onElicit: typeof client.onElicit;
  /** Answers the sampling requests a server makes during this script's calls. */
  const onSample: typeof client.onSample;
  /** Structured logging to stderr: log("msg"), log.info("fetched {n} pages", { n }). */
  const log: ((msg: string, ...args: unknown[]) => void) & Record<"debug" | "info" | "warn" | "error", (msg: string, ...args: unknown[]) => void> & { with(attrs: Record<string, unknown>): typeof log };
  /** Streams one value as a JSON line on stdout (collected under --json). */
  const emit: (value: unknown) => void;
  /** The run's arguments (also Deno.args and process.argv.slice(2)). */
  const args: string[];
  /** One stack frame as data: function, file, line, column, async and native flags. */
  type McpxFrame = { fn?: string; file?: string; line?: number; col?: number; async?: boolean; native?: boolean; text: string };
  /** The caller's frames, \`skip\` more of the innermost left out, at most \`limit\`. */
  const captureFrames: (skip?: number, limit?: number) => McpxFrame[];
  /** An error's frames as data (its \`.stack\` string stays as it was). */
  const errorFrames: (error: unknown) => McpxFrame[];
}
export {};
`;
}

/**
 * Writes `mcpx-client.ts` and `mcpx-globals.d.ts` into `dir` for the selected namespaces, from
 * the schema cache (no server is started), and returns the client's path. A file whose bytes
 * would not change is left alone, so the runtime's module cache stays warm.
 */
export async function writeClient(
  ctx: Context,
  dir: string,
  socket: string,
  clientPath = join(dir, "mcpx-client.ts"),
  options: {
    listUnlisted?: boolean;
    /** An ad-hoc server's namespace, listed live, beside the configured ones. */
    adHoc?: ClientNamespace;
  } = {},
): Promise<string> {
  const extra = options.adHoc;
  // A daemon elsewhere (daemon.endpoint) runs a configuration of its own: the client is written
  // from what that daemon lists, compared byte for byte, as this machine has no stamp of it.
  const remote = ctx.boot.get("daemon.endpoint") !== "";
  // What the module is a function of: when none of it moved since the last write, the module on
  // disk is already right, and neither the cache nor the code generator needs loading. An ad-hoc
  // namespace is not in the stamp: that client is compared byte for byte instead.
  if (!extra && !remote && isFresh(ctx, clientPath, socket)) return clientPath;
  const codegen = await load<typeof import("../codegen/declarations.ts")>(
    "../codegen/declarations.ts",
    import.meta.url,
  );
  const got = remote
    ? { listed: await remoteNamespaces(ctx, options.listUnlisted), stamp: undefined }
    : await localNamespaces(ctx, socket, options.listUnlisted);
  const listed = got.listed;
  let stamp = got.stamp;
  if (extra && listed.some((n) => n.ns === extra.ns)) {
    throw new McpxError(
      "USAGE",
      `The ad-hoc server's namespace "${extra.ns}" is a configured server's too`,
      { hint: "Give the ad-hoc server another with --name" },
    );
  }
  if (extra) {
    listed.push(extra);
    stamp = undefined;
  }
  const text = renderClientModule(
    listed,
    {
      socket,
      tokenFile: remote ? "" : (await ctx.paths()).token,
      typeOf: codegen.typeExpression,
      signature: codegen.toolSignature,
    },
  );
  const path = clientPath;
  await writeIfChanged(path, (stamp ? stamp + "\n" : "") + text);
  await writeIfChanged(
    join(dir, "mcpx-globals.d.ts"),
    renderGlobalsDeclaration(listed.map((n) => n.ns)),
  );
  return path;
}

/** The namespaces a client is written for, from this machine's schema cache, and their stamp. */
async function localNamespaces(
  ctx: Context,
  socket: string,
  listUnlisted?: boolean,
): Promise<{ listed: ClientNamespace[]; stamp: string | undefined }> {
  const { loadNamespaces } = await load<typeof import("../discovery/load.ts")>(
    "../discovery/load.ts",
    import.meta.url,
  );
  // The stamp is taken before the cache is read: should the daemon write it in between, the stamp
  // is older than the text, and the next run writes the client again (never the other way round).
  let stamp = clientStamp(ctx, socket);
  let { namespaces } = await loadNamespaces(ctx);
  if (listUnlisted && namespaces.some((n) => n.state === "unlisted")) {
    // A script is about to start servers anyway: list the ones never listed, once, so that its
    // client is not missing whole namespaces.
    const { callDaemon } = await load<typeof import("../daemon/client.ts")>(
      "../daemon/client.ts",
      import.meta.url,
    );
    await callDaemon(ctx, { method: "POST", path: "/v1/servers/refresh", body: {}, start: true });
    stamp = clientStamp(ctx, socket);
    ({ namespaces } = await loadNamespaces(ctx));
  }
  const listed = namespaces.filter((n) => n.state !== "disabled").map((n) => ({
    ns: n.def.namespace,
    description: n.def.description,
    tools: n.tools,
    ...(n.state === "error" && n.cached?.error ? { error: n.cached.error } : {}),
  }));
  return { listed, stamp };
}

/** What `mcpx schema --format namespaces` answers (lib/operations/discovery_ops.ts). */
interface ListedNamespaces {
  document: {
    namespaces: {
      namespace: string;
      description?: string;
      state: string;
      error?: string;
      tools: ToolInfo[];
    }[];
  };
}

/**
 * The namespaces a client is written for, as the daemon `daemon.endpoint` names lists them: its
 * configuration, not this machine's (which it may not have).
 */
async function remoteNamespaces(ctx: Context, listUnlisted?: boolean): Promise<ClientNamespace[]> {
  const { callDaemon } = await load<typeof import("../daemon/client.ts")>(
    "../daemon/client.ts",
    import.meta.url,
  );
  const ask = async () =>
    ((await callDaemon(ctx, {
      method: "GET",
      path: "/v1/schema?format=namespaces",
      start: false,
    }))!.value as ListedNamespaces).document.namespaces;
  let namespaces = await ask();
  if (listUnlisted && namespaces.some((n) => n.state === "unlisted")) {
    await callDaemon(ctx, { method: "POST", path: "/v1/servers/refresh", body: {}, start: false });
    namespaces = await ask();
  }
  return namespaces.map((n) => ({
    ns: n.namespace,
    description: n.description,
    tools: n.tools,
    ...(n.error !== undefined ? { error: n.error } : {}),
  }));
}

/**
 * Writes a generated file unless it already holds `text`. Mode 0644, as any file of the user's
 * project: it holds no secret (the token is read from its own 0600 file at each call).
 */
async function writeIfChanged(path: string, text: string): Promise<void> {
  try {
    if (await Deno.readTextFile(path) === text) return;
  } catch { /* absent */ }
  writeFileAtomic(path, text, { mode: 0o644 });
}
