/**
 * Validates MCP frames against the official JSON Schema of a revision (tests/testdata/mcp-schema,
 * pinned), strictly: every object definition that names its properties and says nothing of
 * others is closed, so a key the revision does not define is a failure ("send conservatively" is
 * the rule a lenient check cannot see).
 */
import { Validator } from "@cfworker/json-schema";

export type Revision = "2025-11-25" | "2026-07-28";

type Json = Record<string, unknown>;

/**
 * Closes every object schema with `properties` and no word on additional ones, recursively;
 * except the JSON Schemas a message carries (a tool's input and output schema, an elicitation's
 * requested schema), whose keys are JSON Schema's vocabulary, not a revision's.
 */
function strict(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strict);
  if (node === null || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    // Inside a property map the keys are names, not keywords.
    out[k] = k === "properties" || k === "$defs"
      ? Object.fromEntries(
        Object.entries(v as Json).map((
          [n, s],
        ) => [n, k === "properties" && CARRIED.has(n) ? s : strict(s)]),
      )
      : strict(v);
  }
  if ("properties" in out && !("additionalProperties" in out) && out.type === "object") {
    out.additionalProperties = false;
  }
  return out;
}

const CARRIED = new Set(["inputSchema", "outputSchema", "requestedSchema"]);

const cache = new Map<string, Json>();

function defs(rev: Revision): Json {
  let d = cache.get(rev);
  if (!d) {
    const url = new URL(`./testdata/mcp-schema/${rev}/schema.json`, import.meta.url);
    const schema = JSON.parse(Deno.readTextFileSync(url)) as Json;
    d = strict(schema.$defs) as Json;
    cache.set(rev, d);
  }
  return d;
}

const validators = new Map<string, Validator>();

/** The problems of `value` against definition `def` of revision `rev`; empty when it conforms. */
export function problems(rev: Revision, def: string, value: unknown): string[] {
  const key = `${rev}#${def}`;
  let v = validators.get(key);
  if (!v) {
    const all = defs(rev);
    if (!(def in all)) throw new Error(`${rev} defines no ${def}`);
    v = new Validator({ $defs: all, $ref: `#/$defs/${def}` }, "2020-12", false);
    validators.set(key, v);
  }
  const result = v.validate(value);
  return result.valid
    ? []
    : result.errors.filter((e) => e.keyword !== "$ref" && e.keyword !== "properties").map((e) =>
      `${e.instanceLocation}: ${e.error}`
    ).slice(0, 8);
}

/** The result definition of each method mcpx answers as a server. */
const RESULTS: Record<string, string> = {
  initialize: "InitializeResult",
  ping: "EmptyResult",
  "logging/setLevel": "EmptyResult",
  "tools/list": "ListToolsResult",
  "tools/call": "CallToolResult",
  "prompts/list": "ListPromptsResult",
  "resources/list": "ListResourcesResult",
  "resources/templates/list": "ListResourceTemplatesResult",
  "server/discover": "DiscoverResult",
};

/**
 * The problems of one frame a server sent, in answer to `method` (undefined for a notification
 * or an error): the JSON-RPC envelope, and the result against its method's definition.
 */
export function frameProblems(rev: Revision, frame: unknown, method?: string): string[] {
  const f = frame as Json;
  if ("error" in f) return problems(rev, "JSONRPCErrorResponse", frame);
  if ("method" in f) {
    return "id" in f
      ? problems(rev, "JSONRPCRequest", frame)
      : problems(rev, "JSONRPCNotification", frame);
  }
  const out = problems(rev, "JSONRPCResultResponse", frame);
  const def = method === undefined ? undefined : RESULTS[method];
  if (def) out.push(...problems(rev, def, f.result));
  return out;
}
