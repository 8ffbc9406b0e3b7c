import { schemaSentence } from "./schema_sentence.ts";
import { Validator } from "@cfworker/json-schema";
import { McpxError } from "../errors.ts";

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
