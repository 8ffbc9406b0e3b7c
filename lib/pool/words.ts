import { McpxError } from "../errors.ts";

/** The JSON types a schema can ask of a value. */
type Kind = "string" | "number" | "integer" | "boolean" | "null" | "object" | "array";

const KINDS: readonly Kind[] = [
  "string",
  "number",
  "integer",
  "boolean",
  "null",
  "object",
  "array",
];

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The kind of a JSON value; a whole number is an integer (and so also a number). */
function kindOf(value: unknown): Kind {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as Kind;
}

/**
 * What a property's schema accepts, from `type`, `enum`, `const` and the branches of
 * `anyOf`/`oneOf`; empty when it says nothing we can use (`{}`, a `$ref`).
 */
function kinds(schema: unknown, depth = 0): Set<Kind> {
  const out = new Set<Kind>();
  if (!isSchema(schema) || depth > 8) return out;
  const type = schema.type;
  for (const t of Array.isArray(type) ? type : [type]) {
    if (KINDS.includes(t as Kind)) out.add(t as Kind);
  }
  const values = Array.isArray(schema.enum) ? schema.enum : "const" in schema ? [schema.const] : [];
  if (out.size === 0) { for (const v of values) out.add(kindOf(v)); }
  if (out.size === 0) {
    for (const key of ["anyOf", "oneOf"]) {
      const branches = schema[key];
      if (!Array.isArray(branches)) continue;
      for (const branch of branches) for (const k of kinds(branch, depth + 1)) out.add(k);
    }
  }
  return out;
}

function article(kind: Kind): string {
  return kind === "integer" || kind === "object" || kind === "array" ? `an ${kind}` : `a ${kind}`;
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** The schema of property `key`: its own, else `additionalProperties` when that is a schema. */
function propertySchema(schema: Schema | undefined, key: string): Schema | undefined {
  if (!schema) return undefined;
  const props = schema.properties;
  // Object.hasOwn: `constructor` or `__proto__` must not find Object.prototype's.
  if (isSchema(props) && Object.hasOwn(props, key) && isSchema(props[key])) return props[key];
  return isSchema(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

/**
 * Types the text of one `key=value` word by the schema of its property. A string property gets
 * the text exactly as typed; a number, integer, boolean, null, object or array property gets the
 * text read as JSON, which must be of that type; a union takes the first non-string type the
 * JSON reading fits, else the text if it allows a string. A property the schema does not
 * describe keeps the old rule: JSON when the text parses, the text otherwise.
 * @throws {McpxError} INVALID_ARGUMENTS naming the argument and the type it wants.
 */
export function typeWord(
  schema: Schema | undefined,
  key: string,
  text: string,
  tool: string,
): unknown {
  const want = kinds(schema);
  if (want.size === 0) {
    const parsed = parseJson(text);
    return parsed ? parsed.value : text;
  }
  const parsed = parseJson(text);
  if (parsed) {
    const got = kindOf(parsed.value);
    const fits = (got === "integer" && (want.has("integer") || want.has("number"))) ||
      (got === "number" && want.has("number")) ||
      (got !== "string" && got !== "integer" && got !== "number" && want.has(got));
    if (fits) {
      if (got === "integer" && !Number.isSafeInteger(parsed.value)) {
        if (want.has("string")) return text;
        throw new McpxError(
          "INVALID_ARGUMENTS",
          `Invalid arguments for ${tool}: "${key}" takes ${
            want.has("integer") ? "an integer" : "a number"
          }, and ${text} is beyond what a JSON number holds exactly`,
          { hint: `Keep it within ±${Number.MAX_SAFE_INTEGER}` },
        );
      }
      if (typeof parsed.value === "number" && !Number.isFinite(parsed.value)) {
        throw new McpxError(
          "INVALID_ARGUMENTS",
          `Invalid arguments for ${tool}: "${key}" takes a number, and ${text} is out of range`,
        );
      }
      return parsed.value;
    }
  }
  if (want.has("string")) return text;
  const list = [...want].filter((k) => !(k === "integer" && want.has("number"))).map(article);
  const expected = list.length > 1 ? `${list.slice(0, -1).join(", ")} or ${list.at(-1)}` : list[0];
  const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  throw new McpxError(
    "INVALID_ARGUMENTS",
    `Invalid arguments for ${tool}: "${key}" takes ${expected}, not ${JSON.stringify(shown)}`,
    { hint: `\`mcpx types ${tool}\` shows the accepted fields` },
  );
}

/** Sets `key` on `target` as an own, enumerable data property, whatever its name. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * Types `key=value` words (as they were typed on a command line) by a tool's input schema, once,
 * over `base` (the arguments given as JSON, if any). The answer has no prototype, so arguments
 * named `constructor` or `__proto__` are plain properties. A key given twice takes the last.
 * @throws {McpxError} USAGE for a word that is not key=value; INVALID_ARGUMENTS when a value
 *   does not read as its property's type.
 */
export function typeWords(
  schema: Schema | undefined,
  words: readonly string[],
  tool: string,
  base: Record<string, unknown> = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(base)) setOwn(out, key, base[key]);
  for (const word of words) {
    const eq = word.indexOf("=");
    if (eq <= 0) {
      throw new McpxError("USAGE", `"${word}" is not key=value`, {
        hint: "Run `mcpx call --help`",
      });
    }
    const key = word.slice(0, eq);
    setOwn(out, key, typeWord(propertySchema(schema, key), key, word.slice(eq + 1), tool));
  }
  return out;
}
