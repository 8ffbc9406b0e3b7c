/**
 * Validates MCP frames against the official JSON Schema of each revision mcpx speaks
 * (tests/testdata/mcp-schema, pinned; its README names the commit), strictly: every object
 * definition that names its properties and says nothing of others is closed, so a key the revision
 * does not define is a failure ("send conservatively" is the rule a lenient check cannot see).
 *
 * Both directions: a request or notification is checked against its method's own definition, and
 * that method must be one the sending side has in that revision (`ClientRequest`,
 * `ServerNotification`, …); a result against the result definition of the method it answers.
 *
 * One reading is the schema's own: up to 2025-06-18 the schemas are generated from TypeScript
 * interfaces whose `params` redeclare the base `Request`'s (`Notification`'s), which drops the
 * `_meta` every request and notification may carry (the base's `params._meta`, the revisions'
 * "General fields"); a closed `params` there is given the base's `_meta` back. And from 2026-07-28
 * a `_meta` object (`RequestMetaObject`, `ResultMetaObject`, …) "extends MetaObject", whose rule is
 * that any key may be added outside the prefixes MCP reserves (a second label `modelcontextprotocol`
 * or `mcp`): closed, it still admits such keys (`io.mcpx/restarted`), and a reserved key only where
 * the definition names it.
 */
import { Validator } from "@cfworker/json-schema";

/** The revisions mcpx speaks that have a published schema (2024-10-07 has none), oldest first. */
export const REVISIONS = [
  "2024-11-05",
  "2025-03-26",
  "2025-06-18",
  "2025-11-25",
  "2026-07-28",
] as const;
export type Revision = typeof REVISIONS[number];

/** Who sent a frame. */
export type Side = "client" | "server";

type Json = Record<string, unknown>;

/**
 * Closes every object schema with `properties` and no word on additional ones, recursively;
 * except the JSON Schemas a message carries (a tool's input and output schema, an elicitation's
 * requested schema), whose keys are JSON Schema's vocabulary, not a revision's.
 */
function strict(node: unknown, name?: string): unknown {
  if (Array.isArray(node)) return node.map((n) => strict(n));
  if (node === null || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    // Inside a property map the keys are names, not keywords.
    out[k] = k === "properties" || k === "$defs" || k === "definitions"
      ? Object.fromEntries(
        Object.entries(v as Json).map((
          [n, s],
        ) => [
          n,
          k === "properties" && CARRIED.has(n) ? s : strict(s, k === "properties" ? undefined : n),
        ]),
      )
      : strict(v);
  }
  if ("properties" in out && !("additionalProperties" in out) && out.type === "object") {
    out.additionalProperties = false;
    if (name?.endsWith("MetaObject")) out.patternProperties = { [UNRESERVED]: {} };
  }
  return out;
}

/** A `_meta` key outside the prefixes MCP reserves (MetaObject, 2026-07-28). */
const UNRESERVED = "^(?![A-Za-z][A-Za-z0-9-]*\\.(modelcontextprotocol|mcp)[./])";

const CARRIED = new Set(["inputSchema", "outputSchema", "requestedSchema"]);

/** One revision's schema, made strict, and what each side may send in it. */
interface Loaded {
  /** Where the definitions are: `$defs` (2020-12) from 2025-11-25, `definitions` (draft-07) before. */
  key: "$defs" | "definitions";
  draft: "2020-12" | "7";
  defs: Json;
  /** Each method the revision defines: its definition, and the sides that may send it. */
  methods: Map<string, { def: string; sides: Set<Side> }>;
}

const cache = new Map<Revision, Loaded>();

/** Gives a request's or notification's closed inline `params` the base's `_meta` (see above). */
function inheritMeta(defs: Json): void {
  const baseMeta = (name: string) =>
    ((((defs[name] as Json)?.properties as Json)?.params as Json)?.properties as Json)?._meta;
  for (const [name, def] of Object.entries(defs)) {
    const props = (def as Json).properties as Json | undefined;
    const params = props?.params as Json | undefined;
    if (!props?.method || !params?.properties || params.additionalProperties !== undefined) {
      continue;
    }
    const meta = baseMeta(name.endsWith("Notification") ? "Notification" : "Request");
    const own = params.properties as Json;
    if (meta && !("_meta" in own)) own._meta = meta;
  }
}

function load(rev: Revision): Loaded {
  let l = cache.get(rev);
  if (l) return l;
  const url = new URL(`./testdata/mcp-schema/${rev}/schema.json`, import.meta.url);
  const schema = JSON.parse(Deno.readTextFileSync(url)) as Json;
  const key = "$defs" in schema ? "$defs" : "definitions";
  const raw = structuredClone(schema[key]) as Json;
  inheritMeta(raw);
  const defs = Object.fromEntries(Object.entries(raw).map(([n, s]) => [n, strict(s, n)]));
  const methods = new Map<string, { def: string; sides: Set<Side> }>();
  for (const side of ["client", "server"] as const) {
    for (const kind of ["Request", "Notification"]) {
      const union = raw[`${side === "client" ? "Client" : "Server"}${kind}`] as Json | undefined;
      if (!union) continue;
      const members = Array.isArray(union.anyOf)
        ? (union.anyOf as Json[]).map((m) => String(m.$ref).split("/").at(-1)!)
        : [`${side === "client" ? "Client" : "Server"}${kind}`];
      for (const def of members) {
        const method = (((raw[def] as Json).properties as Json)?.method as Json)?.const;
        if (typeof method !== "string") continue;
        const known = methods.get(method);
        // A union that is one definition (2026-07-28's ClientNotification) names the same method
        // as its own definition does: the latter is kept.
        if (known) known.sides.add(side);
        else methods.set(method, { def, sides: new Set([side]) });
      }
    }
  }
  l = { key, draft: key === "$defs" ? "2020-12" : "7", defs, methods };
  cache.set(rev, l);
  return l;
}

const validators = new Map<string, Validator>();

/** Whether revision `rev` has definition `def`. */
export function defines(rev: Revision, def: string): boolean {
  return def in load(rev).defs;
}

/** The problems of `value` against definition `def` of revision `rev`; empty when it conforms. */
export function problems(rev: Revision, def: string, value: unknown): string[] {
  const key = `${rev}#${def}`;
  let v = validators.get(key);
  if (!v) {
    const l = load(rev);
    if (!(def in l.defs)) throw new Error(`${rev} defines no ${def}`);
    v = new Validator({ [l.key]: l.defs, $ref: `#/${l.key}/${def}` }, l.draft, false);
    validators.set(key, v);
  }
  const result = v.validate(value);
  if (result.valid) return [];
  // The deepest errors say it: those of an enclosing object or a `false` schema repeat them.
  const errors = result.errors.filter((e) =>
    e.keyword !== "$ref" && e.keyword !== "properties" && e.keyword !== "false"
  );
  const deepest = errors.filter((e) =>
    !errors.some((d) => d.instanceLocation.startsWith(`${e.instanceLocation}/`))
  );
  return [...new Set(deepest.map((e) => `${e.instanceLocation}: ${e.error}`))].slice(0, 8);
}

/** The result definition of each method, whichever side answers it. */
const RESULTS: Record<string, string> = {
  initialize: "InitializeResult",
  ping: "EmptyResult",
  "logging/setLevel": "EmptyResult",
  "tools/list": "ListToolsResult",
  "tools/call": "CallToolResult",
  "prompts/list": "ListPromptsResult",
  "prompts/get": "GetPromptResult",
  "resources/list": "ListResourcesResult",
  "resources/read": "ReadResourceResult",
  "resources/templates/list": "ListResourceTemplatesResult",
  "completion/complete": "CompleteResult",
  "server/discover": "DiscoverResult",
  "roots/list": "ListRootsResult",
  "sampling/createMessage": "CreateMessageResult",
  "elicitation/create": "ElicitResult",
};

/** The names the JSON-RPC envelopes have in `rev` (renamed in 2025-11-25). */
function envelope(rev: Revision, kind: "result" | "error"): string {
  const modern = defines(rev, "JSONRPCResultResponse");
  return kind === "result"
    ? (modern ? "JSONRPCResultResponse" : "JSONRPCResponse")
    : (modern ? "JSONRPCErrorResponse" : "JSONRPCError");
}

/**
 * The problems of one frame `from` sent (the server unless said), in answer to `method` when it
 * is a result: the JSON-RPC envelope; a request or notification against its method's definition
 * (a method the revision does not give the sender is a problem); a result against its method's.
 */
export function frameProblems(
  rev: Revision,
  frame: unknown,
  method?: string,
  from: Side = "server",
): string[] {
  const f = frame as Json;
  if ("error" in f) return problems(rev, envelope(rev, "error"), frame);
  if ("method" in f) {
    const request = "id" in f;
    const out = problems(rev, request ? "JSONRPCRequest" : "JSONRPCNotification", frame);
    const m = load(rev).methods.get(String(f.method));
    const kind = request ? "request" : "notification";
    if (!m || !m.def.endsWith(request ? "Request" : "Notification") || !m.sides.has(from)) {
      out.push(`${f.method}: not a ${from} ${kind} of ${rev}`);
      return out;
    }
    // Up to 2025-06-18 a method's definition is the message without its envelope.
    const own = ((load(rev).defs[m.def] as Json).properties as Json).jsonrpc !== undefined;
    const value = own ? frame : Object.fromEntries(
      Object.entries(f).filter(([k]) => k === "method" || k === "params"),
    );
    out.push(...problems(rev, m.def, value));
    return out;
  }
  const out = problems(rev, envelope(rev, "result"), frame);
  if (method === undefined) return out;
  const result = f.result as Json | undefined;
  const def = result?.resultType === "input_required" ? "InputRequiredResult" : RESULTS[method];
  if (!def) return out;
  if (!defines(rev, def)) out.push(`${method}: ${rev} defines no ${def}`);
  else out.push(...problems(rev, def, result));
  return out;
}
