import { schemaSentence } from "./schema_sentence.ts";
import { Validator } from "@cfworker/json-schema";
import { McpxError } from "../errors.ts";
import { editDistance, nearest } from "../near.ts";

const cache = new WeakMap<object, Validator>();

/** `#/a/0/b` → `a[0].b`; the root is `(arguments)`. */
function fieldName(location: string): string {
  const parts = location.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts.length === 0) return "(arguments)";
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}

/**
 * A copy of a JSON value whose objects have no prototype: the validator asks `key in instance`,
 * which an ordinary object answers true for `constructor` (Object.prototype's), so a required
 * `constructor` would pass unsent and an optional one would be checked against a function.
 */
function bare(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(bare);
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, {
      value: bare((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Checks arguments against a tool's input schema before they are sent.
 * @throws {McpxError} INVALID_ARGUMENTS naming the field and what is wrong with it.
 */
export function validateArguments(
  server: string,
  tool: string,
  schema: Record<string, unknown>,
  args: Record<string, unknown>,
): void {
  let validator = cache.get(schema);
  if (!validator) {
    try {
      validator = new Validator(schema as never, "2020-12", false);
    } catch {
      return; // A schema we cannot compile is the server's problem; let the server judge.
    }
    cache.set(schema, validator);
  }
  const result = validator.validate(bare(args));
  if (result.valid) return;
  // The wrapper keywords only say "a property failed"; report the leaf that says why.
  const leaves = result.errors.filter((e) =>
    !["properties", "false", "allOf", "items", "$ref"].includes(e.keyword)
  );
  const best =
    (leaves.length ? leaves : result.errors).sort((a, b) =>
      b.instanceLocation.length - a.instanceLocation.length
    )[0];
  let detail = best.error.replace(/\.$/, "");
  const required = /required property "([^"]+)"/.exec(detail);
  const field = required ? required[1] : fieldName(best.instanceLocation);
  if (required) detail = "is required";
  else if (best.keyword === "additionalProperties") {
    const extra = /Property "([^"]+)"/.exec(best.error)?.[1];
    throw new McpxError(
      "INVALID_ARGUMENTS",
      `Invalid arguments for ${server}.${tool}: unknown field "${extra}"`,
      { hint: `\`mcpx types ${server}.${tool}\` shows the accepted fields` },
    );
  } else detail = schemaSentence(best, schema, args);
  throw new McpxError(
    "INVALID_ARGUMENTS",
    `Invalid arguments for ${server}.${tool}: "${field}" ${detail}`,
    { hint: `\`mcpx types ${server}.${tool}\` shows the accepted fields` },
  );
}

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The property names an object schema declares (its own `properties`, and those of the branches
 * of `allOf`, `anyOf` and `oneOf`), or undefined when it takes keys it does not name: no
 * `properties` at all, `additionalProperties` (or `unevaluatedProperties`) true or a schema,
 * `patternProperties`, a `$ref`, or a branch that takes any key.
 */
export function declaredKeys(schema: unknown): Set<string> | undefined {
  if (!isSchema(schema)) return undefined;
  const open = (s: Schema) =>
    s.$ref !== undefined || s.patternProperties !== undefined ||
    (s.additionalProperties !== undefined && s.additionalProperties !== false) ||
    (s.unevaluatedProperties !== undefined && s.unevaluatedProperties !== false);
  if (open(schema)) return undefined;
  const keys = new Set<string>();
  let named = false;
  if (isSchema(schema.properties)) {
    named = true;
    for (const k of Object.keys(schema.properties)) keys.add(k);
  }
  for (const word of ["allOf", "anyOf", "oneOf"]) {
    const branches = schema[word];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (!isSchema(branch)) continue;
      // A branch with no properties of its own (a `required` list, a `not`) adds none.
      if (branch.properties === undefined && !open(branch)) continue;
      const more = declaredKeys(branch);
      if (!more) return undefined;
      named = true;
      for (const k of more) keys.add(k);
    }
  }
  return named ? keys : undefined;
}

/**
 * The declared name a misspelt key most likely meant: the nearest by edit distance, else the
 * only one it abbreviates (its letters in order, the first the same: `msg` for `message`).
 */
export function nearestKey(key: string, declared: Iterable<string>): string | undefined {
  const names = [...declared];
  const near = nearest(key, names);
  if (near !== undefined) return near;
  const k = key.toLowerCase();
  const abbreviates = (name: string) => {
    const n = name.toLowerCase();
    if (k.length < 2 || n[0] !== k[0]) return false;
    let i = 0;
    for (const c of n) if (c === k[i]) i++;
    return i === k.length;
  };
  const found = names.filter(abbreviates);
  if (found.length === 1) return found[0];
  // Several: the shortest one, when it is alone in being nearest.
  const ranked = found.map((n) => [n, editDistance(k, n.toLowerCase())] as const).sort((a, b) =>
    a[1] - b[1]
  );
  return ranked.length > 1 && ranked[0][1] < ranked[1][1] ? ranked[0][0] : undefined;
}

/**
 * Refuses a key the tool's input schema does not declare (unless the schema takes keys it does
 * not name), naming the nearest declared one: `msg=x` is a misspelt `message`, not a field the
 * server will quietly ignore.
 * @throws {McpxError} INVALID_ARGUMENTS naming the key and, when one is near, the declared name.
 */
export function checkKeys(
  server: string,
  tool: string,
  schema: Record<string, unknown>,
  args: Record<string, unknown>,
): void {
  const declared = declaredKeys(schema);
  if (!declared) return;
  const unknown = Object.keys(args).filter((k) => !declared.has(k));
  if (unknown.length === 0) return;
  const key = unknown[0];
  const near = nearestKey(key, declared);
  const fields = [...declared];
  throw new McpxError(
    "INVALID_ARGUMENTS",
    `Invalid arguments for ${server}.${tool}: ${
      unknown.length > 1
        ? `unknown fields ${unknown.map((k) => `"${k}"`).join(", ")}`
        : `unknown field "${key}"`
    }${near === undefined ? "" : `: did you mean "${near}"?`}`,
    {
      hint: fields.length
        ? `Its fields: ${fields.slice(0, 12).join(", ")}${
          fields.length > 12 ? ", …" : ""
        } (\`mcpx types ${server}.${tool}\`)`
        : `It takes no arguments (\`mcpx types ${server}.${tool}\`)`,
    },
  );
}
