import { McpxError, toProblem } from "../errors.ts";
import type { Context } from "../context.ts";
import type { Operation, ParamSpec, Zod } from "../operations/define.ts";
import { load } from "../_load.ts";

/** A compiled route: the operation, its method, and a matcher for its path template. */
interface Route {
  op: Operation;
  method: string;
  pattern: RegExp;
  names: string[];
  bodyField?: string;
}

function compileOne(op: Operation, method: string, path: string, bodyField?: string): Route {
  const names: string[] = [];
  // Literal text is matched as itself; a parameter followed by a dot in the template (`{server}.
  // {tool}`) stops at the first dot of its segment, so a tool's own dots stay the tool's.
  const source = path.split(/(\{\w+\}\.?)/).map((part) => {
    const m = /^\{(\w+)\}(\.?)$/.exec(part);
    if (!m) return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
    names.push(m[1]);
    return m[2] ? "([^/.]+)\\." : "([^/]+)";
  }).join("");
  return { op, method, pattern: new RegExp(`^${source}$`), names, bodyField };
}

function compile(op: Operation): Route[] {
  if (!("method" in op.http)) return [];
  return [
    compileOne(op, op.http.method, op.http.path),
    ...(op.http.also ?? []).map((a) => compileOne(op, a.method, a.path, a.bodyField)),
  ];
}

function paramSchema(z: Zod, p: ParamSpec) {
  const base = p.type === "boolean"
    ? z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")])
    : p.type === "integer"
    ? z.union([z.number().int(), z.string().regex(/^-?\d+$/).transform(Number)])
    : p.type === "json"
    // Not z.record: it rebuilds the object by assignment, and a key `__proto__` is lost on
    // the way (it sets the copy's prototype). The parsed body is handed on as it is.
    ? z.custom<Record<string, unknown>>(
      (v) => v !== null && typeof v === "object" && !Array.isArray(v),
      "expected a JSON object",
    )
    : p.type === "list"
    ? z.array(z.string())
    : p.type === "enum"
    ? z.enum(p.values as [string, ...string[]])
    : z.string();
  return p.required ? base : base.optional();
}

/** The zod schema of an operation's input, derived from its parameter declarations. */
export function inputSchema(z: Zod, op: Operation) {
  return z.strictObject(Object.fromEntries(op.params.map((p) => [p.name, paramSchema(z, p)])));
}

/**
 * Percent-decodes one part of a request's URL.
 * @throws {McpxError} USAGE when it is not valid percent-encoded UTF-8.
 */
function decoded(text: string, where: "path" | "query"): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new McpxError(
      "USAGE",
      `The request's ${where} has malformed percent-encoding: "${text}"`,
    );
  }
}

/**
 * The pairs of a query string (`?a=1&b=x+y`), as `URLSearchParams` reads them, except that
 * malformed percent-encoding is refused rather than passed on as it is.
 */
function query(search: string): [string, string][] {
  return search.slice(1).split("&").filter((part) => part !== "").map((part) => {
    const at = part.indexOf("=");
    const [k, v] = at < 0 ? [part, ""] : [part.slice(0, at), part.slice(at + 1)];
    return [decoded(k.replaceAll("+", " "), "query"), decoded(v.replaceAll("+", " "), "query")];
  });
}

/**
 * Builds the `/v1` handler from the operations table: one route per declared operation, inputs
 * validated against the declaration, failures answered as `application/problem+json`.
 */
export function buildRouter(
  operations: readonly Operation[],
  context: (req: Request) => Context,
): (req: Request) => Promise<Response> {
  const routes = operations.flatMap(compile);
  let zod: Zod | undefined;
  const schemas = new Map<Operation, ReturnType<typeof inputSchema>>();
  return async (req) => {
    try {
      const url = new URL(req.url);
      const matching = routes.filter((r) => r.pattern.test(url.pathname));
      if (matching.length === 0) {
        throw new McpxError("NOT_FOUND", `No route ${url.pathname}`, {
          hint: "docs/cli.md lists every route beside its command",
        });
      }
      const route = matching.find((r) => r.method === req.method);
      if (!route) {
        throw new McpxError(
          "USAGE",
          `${req.method} is not allowed on ${url.pathname}: use ${matching[0].method}`,
        );
      }
      const raw: Record<string, unknown> = {};
      const match = route.pattern.exec(url.pathname)!;
      route.names.forEach((n, i) => (raw[n] = decoded(match[i + 1], "path")));
      for (const [k, v] of query(url.search)) raw[k] = v;
      if (req.method === "POST") {
        const text = await req.text();
        if (text.trim() !== "") {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            throw new McpxError("USAGE", "The request body is not JSON");
          }
          if (body === null || typeof body !== "object" || Array.isArray(body)) {
            throw new McpxError("USAGE", "The request body must be a JSON object");
          }
          if (route.bodyField) raw[route.bodyField] = body;
          // Own properties, never assignment: a `__proto__` key must not set raw's prototype.
          else {
            for (const [k, v] of Object.entries(body)) {
              Object.defineProperty(raw, k, {
                value: v,
                enumerable: true,
                writable: true,
                configurable: true,
              });
            }
          }
        } else if (route.bodyField) raw[route.bodyField] = {};
      }
      zod ??= (await load<typeof import("zod")>("zod", import.meta.url)).z;
      // Built once per operation: zod compiles a schema on its first parse (~0.8 ms each time).
      let schema = schemas.get(route.op);
      if (!schema) schemas.set(route.op, schema = inputSchema(zod, route.op));
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new McpxError(
          "USAGE",
          `Invalid input for ${route.op.id}: ${issue.path.join(".") || "(body)"}: ${issue.message}`,
        );
      }
      const output = await route.op.run(parsed.data, context(req));
      return Response.json(output ?? null);
    } catch (error) {
      const problem = toProblem(error);
      return new Response(JSON.stringify(problem), {
        status: problem.status,
        headers: { "content-type": "application/problem+json" },
      });
    }
  };
}
