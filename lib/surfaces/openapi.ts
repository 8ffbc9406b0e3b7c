// The OpenAPI document of `/v1`, from the operations table: what `mcpx openapi` prints and the
// daemon serves at /v1/openapi.json, one function of the declarations (docs/daemon.md). Upstream
// tools are templated (`/v1/call/{server}/{tool}`), never enumerated, so the document is the same
// on every machine and publishable.

import type { Operation, ParamSpec, Zod } from "../operations/define.ts";
import { ERRORS } from "../errors.ts";
import { VERSION } from "../version.ts";

type Json = Record<string, unknown>;

function paramSchema(p: ParamSpec): Json {
  const base: Json = p.type === "boolean"
    ? { type: "boolean" }
    : p.type === "integer"
    ? { type: "integer" }
    : p.type === "enum"
    ? { type: "string", enum: [...(p.values ?? [])] }
    : p.type === "list"
    ? { type: "array", items: { type: "string" } }
    : p.type === "json"
    ? { type: "object", additionalProperties: true }
    : { type: "string" };
  return { ...base, description: p.doc };
}

function outputSchema(z: Zod, op: Operation): Json {
  const json = z.toJSONSchema(op.output(z), { io: "output", unrepresentable: "any" }) as Json;
  delete json.$schema;
  return json;
}

const PROBLEM = { $ref: "#/components/responses/Problem" };

/** The error answers an operation may give: every status the error table maps codes to. */
function problemResponses(): Json {
  const statuses = [...new Set(Object.values(ERRORS).map((e) => e.http))].sort();
  return Object.fromEntries(statuses.map((s) => [String(s), PROBLEM]));
}

function operationObject(
  z: Zod,
  op: Operation,
  method: string,
  path: string,
  bodyField: string | undefined,
  suffix: string,
): Json {
  const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const byName = new Map(op.params.map((p) => [p.name, p]));
  const parameters: Json[] = inPath.map((name) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string" },
    description: byName.get(name)?.doc ?? name,
  }));
  const rest = op.params.filter((p) => !inPath.includes(p.name));
  let requestBody: Json | undefined;
  if (method === "GET") {
    for (const p of rest) {
      parameters.push({
        name: p.name,
        in: "query",
        ...(p.required ? { required: true } : {}),
        schema: paramSchema(p),
        description: p.doc,
      });
    }
  } else if (bodyField) {
    const p = byName.get(bodyField);
    requestBody = {
      description: p?.doc ?? bodyField,
      content: {
        "application/json": { schema: { type: "object", additionalProperties: true } },
      },
    };
    for (const q of rest.filter((q) => q.name !== bodyField && q.type !== "json")) {
      parameters.push({ name: q.name, in: "query", schema: paramSchema(q), description: q.doc });
    }
  } else if (rest.length > 0) {
    const required = rest.filter((p) => p.required).map((p) => p.name);
    requestBody = {
      required: required.length > 0,
      content: {
        "application/json": {
          schema: {
            type: "object",
            properties: Object.fromEntries(rest.map((p) => [p.name, paramSchema(p)])),
            ...(required.length ? { required } : {}),
            additionalProperties: false,
          },
        },
      },
    };
  }
  return {
    operationId: op.id + suffix,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.id.split(".")[0]],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: {
      "200": {
        description: `The operation's --json document (\`mcpx ${op.cli.command.join(" ")}\`)`,
        content: { "application/json": { schema: outputSchema(z, op) } },
      },
      ...problemResponses(),
    },
  };
}

/** The OpenAPI 3.1 document of every `/v1` route the operations declare. */
export function openapiDocument(operations: readonly Operation[], z: Zod): Json {
  const paths: Record<string, Json> = {};
  for (const op of operations) {
    if (!("method" in op.http)) continue;
    const routes = [
      { method: op.http.method, path: op.http.path, bodyField: undefined as string | undefined },
      ...(op.http.also ?? []),
    ];
    routes.forEach((r, i) => {
      (paths[r.path] ??= {})[r.method.toLowerCase()] = operationObject(
        z,
        op,
        r.method,
        r.path,
        r.bodyField,
        i === 0 ? "" : `.${i}`,
      );
    });
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "mcpx daemon",
      version: VERSION,
      description:
        "The mcpx daemon's HTTP API, generated from its operations table. Served on the daemon's unix socket (every request carries x-mcpx-token, the token in <state>/daemons/<fingerprint>.token) and, with `mcpx daemon --listen`, over TCP (a bearer token, the listener's). Failures are application/problem+json. The MCP surface is at /mcp on the same listeners (docs/serve.md).",
    },
    servers: [
      { url: "http://mcpx", description: "over the daemon's unix socket" },
      {
        url: "http://{listen}",
        description: "the TCP listener of `mcpx daemon --listen` (daemon.listen)",
        variables: { listen: { default: "127.0.0.1:7300" } },
      },
    ],
    security: [{ bearer: [] }, { token: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description:
            "The TCP listener's token: daemon.token, else <state>/daemons/<fingerprint>.listen-token",
        },
        token: {
          type: "apiKey",
          in: "header",
          name: "x-mcpx-token",
          description: "The daemon's token: the unix socket's, or on TCP the listener's",
        },
      },
      schemas: {
        Problem: {
          type: "object",
          required: ["type", "title", "status", "code", "detail"],
          properties: {
            type: { type: "string" },
            title: { type: "string" },
            status: { type: "integer" },
            code: { type: "string", enum: Object.keys(ERRORS) },
            detail: { type: "string" },
            hint: { type: "string" },
            data: {},
          },
        },
      },
      responses: {
        Problem: {
          description: "A failure, as a problem document (RFC 9457)",
          content: {
            "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } },
          },
        },
      },
    },
  };
}
