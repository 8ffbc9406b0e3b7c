import { McpxError, messageOf } from "../errors.ts";
import { load } from "../_load.ts";
import { resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";

/** Methods that only read: the default. `methods: "all"` adds the rest. */
const READS = ["get", "head"];
const ALL = ["get", "head", "options", "post", "put", "patch", "delete"];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** One operation of a document, as a tool. */
export interface ApiTool {
  name: string;
  method: string;
  path: string;
  description?: string;
  deprecated?: boolean;
  inputSchema: Obj;
  outputSchema?: Obj;
  /** Where each input property goes. */
  params: { name: string; in: "path" | "query" | "header" | "body" }[];
}

/** A parsed document: its operations and the base URL requests go to. */
export interface Api {
  title: string;
  base: string;
  tools: ApiTool[];
}

/** Where a spec lives, as a URL: `http(s)://…` as given, a path against `cwd` as `file://`. */
function locationOf(spec: string, cwd: string): URL {
  if (/^https?:\/\//i.test(spec)) return new URL(spec);
  return pathToFileURL(resolvePath(cwd, spec));
}

/** The base URL: the first server (variables at their defaults) resolved against the document. */
function baseOf(doc: Obj, at: URL): string {
  let raw: string | undefined;
  if (typeof doc.swagger === "string") {
    const host = typeof doc.host === "string" ? doc.host : undefined;
    const schemes = Array.isArray(doc.schemes) ? doc.schemes as string[] : [];
    const scheme = schemes.includes("https") ? "https" : schemes[0] ?? at.protocol.slice(0, -1);
    const basePath = typeof doc.basePath === "string" ? doc.basePath : "";
    raw = host ? `${scheme}://${host}${basePath}` : basePath || "/";
  } else {
    const server = Array.isArray(doc.servers) && isObj(doc.servers[0]) ? doc.servers[0] : {};
    raw = typeof server.url === "string" ? server.url : "/";
    const vars = isObj(server.variables) ? server.variables : {};
    raw = raw.replace(/\{(\w+)\}/g, (m, n) => {
      const v = vars[n];
      return isObj(v) && v.default !== undefined ? String(v.default) : m;
    });
  }
  const base = new URL(raw, at);
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new McpxError(
      "CONFIG_INVALID",
      `The API document ${at.href} names server "${raw}", which resolves to ${base.href}, not an http URL`,
      {
        hint:
          "Give the document's URL (relative servers resolve against it), or an absolute server",
      },
    );
  }
  return base.href.replace(/\/$/, "");
}

/** A tool name: the operationId, else the method and the path, in identifier form. */
function nameOf(op: Obj, method: string, path: string): string {
  const raw = typeof op.operationId === "string" && op.operationId
    ? op.operationId
    : `${method}_${path}`;
  return raw.replace(/[^A-Za-z0-9_]+/g, "_").replace(/__+/g, "_").replace(/^_+|_+$/g, "") || method;
}

function jsonSchemaOf(content: unknown): Obj | undefined {
  if (!isObj(content)) return undefined;
  const type = Object.keys(content).find((k) => /json/i.test(k)) ?? Object.keys(content)[0];
  const media = type ? content[type] : undefined;
  return isObj(media) && isObj(media.schema) ? media.schema : undefined;
}

/** The operations of a dereferenced document as tools. */
function toolsOf(doc: Obj, methods: readonly string[], deprecated: boolean): ApiTool[] {
  const out: ApiTool[] = [];
  const seen = new Set<string>();
  for (const [path, item] of Object.entries(isObj(doc.paths) ? doc.paths : {})) {
    if (!isObj(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of methods) {
      const op = item[method];
      if (!isObj(op)) continue;
      if (op.deprecated === true && !deprecated) continue;
      const properties: Obj = {};
      const required: string[] = [];
      const params: ApiTool["params"] = [];
      const own = Array.isArray(op.parameters) ? op.parameters : [];
      const all = [...shared, ...own].filter(isObj);
      // An operation's own parameter overrides the path item's of the same name and place.
      const byKey = new Map(all.map((p) => [`${p.in}:${p.name}`, p]));
      for (const p of byKey.values()) {
        const where = p.in;
        if (typeof p.name !== "string") continue;
        if (where === "body") {
          properties.body = isObj(p.schema) ? p.schema : {};
          if (p.required) required.push("body");
          params.push({ name: "body", in: "body" });
          continue;
        }
        if (where !== "path" && where !== "query" && where !== "header") continue;
        const schema = isObj(p.schema) ? { ...p.schema } : Object.fromEntries(
          Object.entries(p).filter(([k]) =>
            ["type", "format", "enum", "items", "default", "minimum", "maximum"].includes(k)
          ),
        );
        if (typeof p.description === "string") schema.description = p.description;
        properties[p.name] = schema;
        if (p.required || where === "path") required.push(p.name);
        params.push({ name: p.name, in: where });
      }
      if (isObj(op.requestBody)) {
        properties.body = jsonSchemaOf(op.requestBody.content) ?? {};
        if (op.requestBody.required) required.push("body");
        params.push({ name: "body", in: "body" });
      }
      const responses = isObj(op.responses) ? op.responses : {};
      const ok = Object.keys(responses).find((c) => /^2\d\d$/.test(c)) ??
        (responses.default ? "default" : undefined);
      const res = ok ? responses[ok] : undefined;
      const outputSchema = isObj(res)
        ? (isObj(res.schema) ? res.schema : jsonSchemaOf(res.content))
        : undefined;
      let name = nameOf(op, method, path);
      for (let i = 2; seen.has(name); i++) name = `${nameOf(op, method, path)}_${i}`;
      seen.add(name);
      const summary = [op.summary, op.description].filter((s) => typeof s === "string").join(
        "\n\n",
      );
      out.push({
        name,
        method: method.toUpperCase(),
        path,
        ...(summary || op.deprecated
          ? { description: `${op.deprecated ? "(deprecated) " : ""}${summary}`.trim() }
          : {}),
        ...(op.deprecated === true ? { deprecated: true } : {}),
        inputSchema: { type: "object", properties, ...(required.length ? { required } : {}) },
        ...(outputSchema ? { outputSchema } : {}),
        params,
      });
    }
  }
  return out;
}

/**
 * Reads an OpenAPI 3.0/3.1 or Swagger 2.0 document (a path or an http URL; JSON or YAML) with
 * swagger-parser, `$ref`s resolved (a cycle is left as its `$ref`), and turns its operations into
 * tools: reads only unless `methods` is "all", deprecated ones only with `deprecated`.
 * @throws {McpxError} CONFIG_INVALID naming the document, for one that cannot be read or parsed.
 */
export async function loadApi(
  spec: string,
  cwd: string,
  options: { methods?: "reads" | "all"; deprecated?: boolean } = {},
): Promise<Api> {
  const at = locationOf(spec, cwd);
  const parser = await load<typeof import("@apidevtools/swagger-parser")>(
    "@apidevtools/swagger-parser",
    import.meta.url,
  );
  // A CommonJS module: its class is the namespace's default export.
  const SwaggerParser = (parser as unknown as { default: typeof parser }).default;
  let doc: Obj;
  // The servers as written: the parser rewrites relative ones (and loses the port doing so).
  let written: Obj = {};
  try {
    const options = { dereference: { circular: "ignore" } } as never;
    if (at.protocol === "file:") {
      const path = decodeURIComponent(at.pathname);
      const parsed = await SwaggerParser.parse(path) as unknown as Obj;
      written = structuredClone({ ...parsed, paths: {} });
      doc = await SwaggerParser.dereference(path, parsed as never, options) as never;
    } else {
      // Fetched here: the parser's own HTTP resolver does not run under Deno.
      const res = await fetch(at, { headers: { accept: "application/json, application/yaml" } });
      const text = await res.text();
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const { parse } = await load<typeof import("jsonc-parser")>("jsonc-parser", import.meta.url);
      const data = parse(text);
      if (!isObj(data)) throw new Error("not a JSON document (YAML is read from files only)");
      written = structuredClone({ ...data, paths: {} });
      doc = await SwaggerParser.dereference(at.href, data as never, options) as never;
    }
  } catch (e) {
    throw new McpxError(
      "CONFIG_INVALID",
      `Cannot read the API document ${spec}: ${messageOf(e).split("\n")[0]}`,
      { hint: "Give an OpenAPI 3.x or Swagger 2.0 document, as a file or an http(s) URL" },
    );
  }
  const info = isObj(doc.info) ? doc.info : {};
  return {
    title: typeof info.title === "string" ? info.title : spec,
    base: baseOf(written, at),
    tools: toolsOf(doc, options.methods === "all" ? ALL : READS, options.deprecated === true),
  };
}

/** Credentials for an API: never read from the document, always from the configuration. */
export interface ApiAuth {
  bearer?: string;
  apiKey?: { in: "header" | "query"; name: string; value: string };
}

/** What one call answered. */
export interface ApiResult {
  status: number;
  ok: boolean;
  body: unknown;
}

/**
 * Calls one operation: path parameters escaped (a `/` in one cannot change the endpoint), query
 * and header parameters placed as declared, `body` sent as JSON.
 * @throws {McpxError} TOOL_NOT_FOUND, or USAGE for a missing path parameter.
 */
export async function callApi(
  api: Api,
  name: string,
  args: Obj,
  auth: ApiAuth = {},
  fetcher: typeof fetch = fetch,
): Promise<ApiResult> {
  const tool = api.tools.find((t) => t.name === name);
  if (!tool) {
    throw new McpxError("TOOL_NOT_FOUND", `No operation "${name}" in ${api.title}`, {
      hint: "Run `mcpx api tools --spec <document>` for its operations",
    });
  }
  let path = tool.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: "application/json" };
  let body: string | undefined;
  for (const p of tool.params) {
    const v = args[p.name];
    if (v === undefined) {
      if (p.in === "path") {
        throw new McpxError("USAGE", `${tool.name} needs its path parameter "${p.name}"`);
      }
      continue;
    }
    const text = typeof v === "string" ? v : JSON.stringify(v);
    if (p.in === "path") path = path.replaceAll(`{${p.name}}`, encodeURIComponent(text));
    else if (p.in === "query") {
      for (const one of Array.isArray(v) ? v : [v]) {
        query.append(p.name, typeof one === "string" ? one : JSON.stringify(one));
      }
    } else if (p.in === "header") headers[p.name] = text;
    else {
      body = JSON.stringify(v);
      headers["content-type"] = "application/json";
    }
  }
  if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
  if (auth.apiKey?.in === "header") headers[auth.apiKey.name] = auth.apiKey.value;
  if (auth.apiKey?.in === "query") query.set(auth.apiKey.name, auth.apiKey.value);
  const qs = query.size ? `?${query}` : "";
  let res: Response;
  try {
    res = await fetcher(api.base + path + qs, { method: tool.method, headers, body });
  } catch (e) {
    throw new McpxError("SERVER_START_FAILED", `Cannot reach ${api.base}: ${messageOf(e)}`);
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch { /* not JSON: the text */ }
  return { status: res.status, ok: res.ok, body: parsed };
}
