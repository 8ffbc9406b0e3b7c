import { join } from "../_path.ts";
import { load } from "../_load.ts";
import type { Context } from "../context.ts";
import type { ToolInfo } from "../mcp/types.ts";
import { toIdentifier } from "../pool/defs.ts";
import { clientStamp, isFresh } from "./client_stamp.ts";

/** One namespace as the client module exposes it. */
export interface ClientNamespace {
  ns: string;
  description?: string;
  tools: ToolInfo[];
}

/** Turns a JSON Schema into a TypeScript type expression (the codegen's job). */
export type TypeOf = (
  schema: Record<string, unknown> | undefined,
  options?: { indent?: string },
) => string;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function jsdoc(text: string | undefined, indent: string): string {
  if (!text) return "";
  const body = text.replaceAll("*/", "*\\/").trim().split("\n");
  return body.length === 1
    ? `${indent}/** ${body[0]} */\n`
    : `${indent}/**\n${body.map((l) => `${indent} * ${l}`.trimEnd()).join("\n")}\n${indent} */\n`;
}

// The runtime part of the module: plain TypeScript with erasable syntax only (no enums, no
// parameter properties, no namespaces with values), so Deno, Bun and Node's type stripping all
// run it, and without imports, so it starts in the tens of milliseconds a script allows.
const RUNTIME = `
type Json = unknown;
/** The MCP result envelope, as the server sent it: image bytes live here. */
export interface RawResult {
  content?: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: Json;
  isError?: boolean;
  [key: string]: Json;
}
/** A tool's answer, unwrapped (structured content or JSON-in-text parsed, text as a string), with \`.raw\`. */
export type ToolResult<T = unknown> = T & { readonly raw: RawResult };

/** A tool reported an error (\`isError\`), or the call could not be made. */
export class ToolError extends Error {
  server: string;
  tool: string;
  code: string;
  raw: RawResult | undefined;
  constructor(server: string, tool: string, code: string, message: string, raw?: RawResult) {
    super(message);
    this.name = "ToolError";
    this.server = server;
    this.tool = tool;
    this.code = code;
    this.raw = raw;
  }
}

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
// Deno's own API where there is one: under Deno, touching globalThis.process at all loads Node's
// process object, 11 ms of a run's first call (performance.now() around the access, in a script).
const deno = g.Deno;
const env = (key: string): string | undefined => deno ? deno.env.get(key) : g.process?.env?.[key];
const socket = (): string => env("MCPX_SOCKET") ?? BAKED_SOCKET;
// The daemon's token, read at each call (a restarted daemon has a new one); mcpx has checked the
// file is the user's own and private before handing it on. No file: no header, and the daemon
// answers 401.
async function token(): Promise<string | undefined> {
  const path = env("MCPX_TOKEN_FILE") ?? BAKED_TOKEN_FILE;
  try {
    if (deno) return deno.readTextFileSync(path).trim();
    const fs = await import("node:fs");
    return fs.readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

function callerHeader(): string {
  return encodeURIComponent(JSON.stringify({
    cwd: env("MCPX_CALLER_CWD") ?? (deno ? deno.cwd() : g.process?.cwd?.()),
    session: env("MCPX_SESSION_ID") || undefined,
    parentSession: env("MCPX_PARENT_SESSION_ID") || undefined,
    pid: deno ? deno.pid : g.process?.pid,
  }));
}

// Under Deno: HTTP/1.1 by hand over the unix socket. Its first fetch() costs a run 15-20 ms of
// set-up (performance.now() marks in the CLI: a one-call script took 26-30 ms from start to exit
// inside the Worker, against 7 ms for one that makes no call); Deno.connect costs well under 1 ms.
async function denoPost(path: string, text: string, caller: string, key: string | undefined): Promise<{ status: number; json: Json }> {
  const conn = await deno.connect({ transport: "unix", path: socket() });
  try {
    const body = new TextEncoder().encode(text);
    const head = new TextEncoder().encode(
      \`POST \${path} HTTP/1.1\\r\\nhost: mcpx\\r\\nconnection: close\\r\\ncontent-type: application/json\\r\\nx-mcpx-caller: \${caller}\\r\\n\${key === undefined ? "" : \`x-mcpx-token: \${key}\\r\\n\`}content-length: \${body.length}\\r\\n\\r\\n\`,
    );
    const request = new Uint8Array(head.length + body.length);
    request.set(head);
    request.set(body, head.length);
    for (let sent = 0; sent < request.length;) sent += await conn.write(request.subarray(sent));
    let data = new Uint8Array(0);
    let bodyStart = -1;
    let length = -1;
    const chunk = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await conn.read(chunk);
      if (n === null) break;
      const next = new Uint8Array(data.length + n);
      next.set(data);
      next.set(chunk.subarray(0, n), data.length);
      data = next;
      if (bodyStart < 0) {
        for (let i = 0; i + 3 < data.length; i++) {
          if (data[i] === 13 && data[i + 1] === 10 && data[i + 2] === 13 && data[i + 3] === 10) {
            bodyStart = i + 4;
            break;
          }
        }
        if (bodyStart >= 0) {
          const m = /\\r\\ncontent-length:\\s*(\\d+)/i.exec(new TextDecoder().decode(data.subarray(0, bodyStart)));
          if (m) length = Number(m[1]);
        }
      }
      if (bodyStart >= 0 && length >= 0 && data.length >= bodyStart + length) break;
    }
    if (bodyStart < 0) throw new Error("the daemon closed the connection before answering");
    const headText = new TextDecoder().decode(data.subarray(0, bodyStart));
    let rest = data.subarray(bodyStart);
    if (/\\r\\ntransfer-encoding:\\s*chunked/i.test(headText)) {
      const parts: Uint8Array[] = [];
      let i = 0;
      while (i < rest.length) {
        const eol = rest.indexOf(13, i);
        const size = parseInt(new TextDecoder().decode(rest.subarray(i, eol)), 16);
        if (!size) break;
        parts.push(rest.subarray(eol + 2, eol + 2 + size));
        i = eol + 4 + size;
      }
      const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let o = 0;
      for (const p of parts) [joined.set(p, o), o += p.length];
      rest = joined;
    } else if (length >= 0) rest = rest.subarray(0, length);
    return { status: Number(headText.split(" ")[1]), json: JSON.parse(new TextDecoder().decode(rest)) };
  } finally {
    try {
      conn.close();
    } catch { /* already closed */ }
  }
}

async function post(path: string, body: unknown): Promise<{ status: number; json: Json }> {
  // In mcpx's Worker the run may start before the daemon has answered: wait for the word.
  const ready = g[Symbol.for("mcpx.daemon")];
  if (ready) {
    const problem = await ready;
    if (problem) throw new Error(problem);
  }
  const text = JSON.stringify(body);
  const key = await token();
  if (deno) return await denoPost(path, text, callerHeader(), key);
  const headers: Record<string, string> = { "content-type": "application/json", "x-mcpx-caller": callerHeader() };
  if (key !== undefined) headers["x-mcpx-token"] = key;
  const http = await import("node:http");
  return await new Promise((resolve, reject) => {
    const req = http.request({ socketPath: socket(), path, method: "POST", headers: { ...headers, connection: "close" } }, (res) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (data += chunk));
      res.on("end", () => {
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(data) });
        } catch (e) {
          reject(e);
        }
      });
    });
    req.on("error", reject);
    req.end(text);
  });
}

function withRaw(value: Json, raw: RawResult): Json {
  const boxed = typeof value === "string" ? new String(value) : value;
  if (boxed !== null && typeof boxed === "object") {
    Object.defineProperty(boxed, "raw", { value: raw, enumerable: false });
  }
  return boxed;
}

/** Calls one tool through the mcpx daemon, under this run's session. */
export async function call(server: string, tool: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  let answer: { status: number; json: Json };
  try {
    answer = await post(\`/v1/call/\${server}/\${encodeURIComponent(tool)}?raw=true\`, args);
  } catch (e) {
    throw new ToolError(server, tool, "DAEMON_UNAVAILABLE", \`Cannot reach the mcpx daemon on \${socket()}: \${(e as Error).message}\`);
  }
  // deno-lint-ignore no-explicit-any
  const out = answer.json as any;
  if (answer.status !== 200) {
    throw new ToolError(server, tool, out?.code ?? "INTERNAL", out?.detail ?? \`HTTP \${answer.status}\`, out?.data);
  }
  return withRaw(out.result, out.raw) as ToolResult;
}

/** What search() returns for one tool. */
export interface SearchHit {
  namespace: string;
  tool: string;
  fn: string;
  description: string;
  required: string[];
  score: number;
}

function words(text: string): string[] {
  return text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

/**
 * Finds tools in this client, synchronously: everything it searches is already here. A word
 * matching a tool's name scores higher than one matching its description.
 */
export function search(query: string, limit = 10): SearchHit[] {
  const terms = words(query);
  const hits: SearchHit[] = [];
  for (const t of META) {
    const name = words(t.tool);
    const desc = words(t.description);
    let score = 0;
    for (const term of terms) {
      if (t.tool === term) score += 100;
      else if (name.includes(term)) score += 40;
      else if (name.some((w) => w.startsWith(term) || term.startsWith(w) && w.length > 3)) score += 30;
      else if (t.namespace.toLowerCase().includes(term)) score += 20;
      else if (desc.some((w) => w.startsWith(term))) score += 10;
    }
    if (score > 0) hits.push({ ...t, score });
  }
  return hits.sort((a, b) => b.score - a.score || a.fn.localeCompare(b.fn)).slice(0, limit);
}

// The launcher's logger and emitter, reached lazily: this module may be imported before the
// launcher has installed them on globalThis.
const logAt = (level: string) => (msg: string, ...rest: unknown[]): void => (g.log?.[level] ?? console.error)(msg, ...rest);
/** The script logger (see the script contract): log(msg) is log.info(msg). */
export const log = Object.assign((msg: string, ...rest: unknown[]): void => logAt("info")(msg, ...rest), {
  debug: logAt("debug"),
  info: logAt("info"),
  warn: logAt("warn"),
  error: logAt("error"),
  with: (attrs: Record<string, unknown>) => g.log?.with?.(attrs) ?? log,
});
/** Streams one value as a JSON line on stdout (collected under --json). */
export const emit = (value: unknown): void => (g.emit ? g.emit(value) : console.log(JSON.stringify(value)));

/** The signature of one tool (\`"ns.tool"\`), as \`mcpx types ns.tool\` prints it. */
export function describe(fn: string): string {
  const hit = META.find((t) => t.fn === fn || \`\${t.namespace}.\${t.tool}\` === fn);
  if (!hit) throw new ToolError("", fn, "TOOL_NOT_FOUND", \`No tool "\${fn}" in this client; search() finds one\`);
  return hit.signature;
}
`;

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
    functionNames: (tools: ToolInfo[]) => Map<string, string>;
  },
): string {
  const meta: unknown[] = [];
  let api = "";
  const names: string[] = [];
  for (const n of [...namespaces].sort((a, b) => a.ns.localeCompare(b.ns))) {
    names.push(n.ns);
    api += `\n${jsdoc(n.description, "")}export const ${n.ns} = {\n`;
    for (const t of [...n.tools].sort((a, b) => a.name.localeCompare(b.name))) {
      const id = toIdentifier(t.name);
      const key = IDENT.test(id) ? id : JSON.stringify(id);
      const out = t.outputSchema ? options.typeOf(t.outputSchema) : "unknown";
      api += jsdoc(t.description, "  ");
      api += `  ${key}: (args: ${options.typeOf(t.inputSchema)}${
        Object.keys((t.inputSchema?.properties as object) ?? {}).length === 0 ? " = {}" : ""
      }): Promise<ToolResult<${out}>> =>\n    call(${JSON.stringify(n.ns)}, ${
        JSON.stringify(t.name)
      }, args) as Promise<ToolResult<${out}>>,\n`;
      meta.push({
        namespace: n.ns,
        tool: t.name,
        fn: `${n.ns}.${id}`,
        description: (t.description ?? "").split("\n")[0].slice(0, 200),
        required: (t.inputSchema?.required as string[] | undefined) ?? [],
        signature: options.signature(n.ns, t, { tools: n.tools }),
      });
    }
    api += "};\n";
  }
  const tools = `{ ${names.join(", ")} }`;
  return `// Generated by mcpx: \`mcpx client -o <path>\` writes it again. Do not edit.
// Typed functions for every tool of the selected namespaces; each call goes to the mcpx daemon
// (MCPX_SOCKET, else the socket below; the token from MCPX_TOKEN_FILE, else the file below) under
// this run's session (MCPX_SESSION_ID).
// deno-lint-ignore-file
const BAKED_SOCKET = ${JSON.stringify(options.socket)};
const BAKED_TOKEN_FILE = ${JSON.stringify(options.tokenFile)};
const META: { namespace: string; tool: string; fn: string; description: string; required: string[]; signature: string }[] = ${
    JSON.stringify(meta)
  };
${RUNTIME}${api}
/** Every namespace, by name. */
const tools = ${tools};
export default tools;

/** What a launcher installs on globalThis so a script needs no imports. */
export const __mcpxGlobals: Record<string, unknown> = { tools, ${names.join(", ")}${
    names.length ? ", " : ""
  }search, describe, ToolError };
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
  /** Structured logging to stderr: log("msg"), log.info("fetched {n} pages", { n }). */
  const log: ((msg: string, ...args: unknown[]) => void) & Record<"debug" | "info" | "warn" | "error", (msg: string, ...args: unknown[]) => void> & { with(attrs: Record<string, unknown>): typeof log };
  /** Streams one value as a JSON line on stdout (collected under --json). */
  const emit: (value: unknown) => void;
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
  options: { listUnlisted?: boolean } = {},
): Promise<string> {
  // What the module is a function of: when none of it moved since the last write, the module on
  // disk is already right, and neither the cache nor the code generator needs loading.
  if (isFresh(ctx, clientPath, socket)) return clientPath;
  const { loadNamespaces } = await load<typeof import("../discovery/load.ts")>(
    "../discovery/load.ts",
    import.meta.url,
  );
  const codegen = await load<typeof import("../codegen/declarations.ts")>(
    "../codegen/declarations.ts",
    import.meta.url,
  );
  // The stamp is taken before the cache is read: should the daemon write it in between, the stamp
  // is older than the text, and the next run writes the client again (never the other way round).
  let stamp = clientStamp(ctx, socket);
  let { namespaces } = await loadNamespaces(ctx);
  if (options.listUnlisted && namespaces.some((n) => n.state === "unlisted")) {
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
  const usable = namespaces.filter((n) => n.state !== "disabled");
  const text = renderClientModule(
    usable.map((n) => ({ ns: n.def.namespace, description: n.def.description, tools: n.tools })),
    {
      socket,
      tokenFile: (await ctx.paths()).token,
      typeOf: codegen.typeExpression,
      signature: codegen.toolSignature,
      functionNames: codegen.functionNames,
    },
  );
  const path = clientPath;
  await writeIfChanged(path, (stamp ? stamp + "\n" : "") + text);
  await writeIfChanged(
    join(dir, "mcpx-globals.d.ts"),
    renderGlobalsDeclaration(usable.map((n) => n.def.namespace)),
  );
  return path;
}

async function writeIfChanged(path: string, text: string): Promise<void> {
  try {
    if (await Deno.readTextFile(path) === text) return;
  } catch { /* absent */ }
  const tmp = `${path}.${Deno.pid}.tmp`;
  await Deno.writeTextFile(tmp, text);
  await Deno.rename(tmp, path);
}
