// What a JSON Schema check found wrong with one argument, as the rest of what a person reads after
// its name: `takes a number, not the string "2"` where the validator says `Instance type "string"
// is invalid. Expected "number"`. Read from the keyword that failed and its value in the schema,
// never from the validator's text (which stays the answer for a keyword not known here).

/** One failure as @cfworker/json-schema reports it. */
export interface SchemaFailure {
  keyword: string;
  keywordLocation: string;
  instanceLocation: string;
  error: string;
}

/** The value a JSON pointer (`#/properties/b/type`) names in `root`, or undefined. */
export function pointTo(root: unknown, pointer: string): unknown {
  const parts = pointer.replace(/^#?\/?/, "").split("/").filter((p) => p !== "");
  let at: unknown = root;
  for (const raw of parts) {
    const part = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
  null: "null",
};

/** A value as a sentence names it: `the string "2"`, `3.5`, `an object`. */
function describe(value: unknown): string {
  if (typeof value === "string") {
    const shown = value.length > 40 ? `${value.slice(0, 39)}…` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  if (Array.isArray(value)) return "an array";
  if (value !== null && typeof value === "object") return "an object";
  return String(value);
}

function list(values: readonly unknown[], last = "or"): string {
  const shown = values.map((v) => typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v));
  return shown.length <= 1
    ? shown.join("")
    : `${shown.slice(0, -1).join(", ")} ${last} ${shown.at(-1)}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * The words after an argument's name that say what is wrong with it, e.g. `takes a number, not
 * the string "2"`; the validator's own text when the failing keyword is not one known here.
 */
export function schemaSentence(failure: SchemaFailure, schema: unknown, args: unknown): string {
  const want = pointTo(schema, failure.keywordLocation);
  const value = pointTo(args, failure.instanceLocation);
  const fallback = failure.error.replace(/\.$/, "");
  switch (failure.keyword) {
    case "type": {
      const types = (Array.isArray(want) ? want : [want]).map((t) => TYPE_NAMES[String(t)]);
      if (types.some((t) => t === undefined)) return fallback;
      return `takes ${types.join(" or ")}, not ${describe(value)}`;
    }
    case "enum":
      return Array.isArray(want)
        ? `must be one of ${list(want)}, not ${describe(value)}`
        : fallback;
    case "const":
      return `must be ${JSON.stringify(want)}, not ${describe(value)}`;
    case "minimum":
      return `must be at least ${want}, not ${value}`;
    case "maximum":
      return `must be at most ${want}, not ${value}`;
    case "exclusiveMinimum":
      return `must be more than ${want}, not ${value}`;
    case "exclusiveMaximum":
      return `must be less than ${want}, not ${value}`;
    case "multipleOf":
      return `must be a multiple of ${want}, not ${value}`;
    case "minLength":
      return typeof want === "number" ? `takes at least ${plural(want, "character")}` : fallback;
    case "maxLength":
      return typeof want === "number" ? `takes at most ${plural(want, "character")}` : fallback;
    case "minItems":
      return typeof want === "number" ? `takes at least ${plural(want, "item")}` : fallback;
    case "maxItems":
      return typeof want === "number" ? `takes at most ${plural(want, "item")}` : fallback;
    case "uniqueItems":
      return "takes each item once";
    case "pattern":
      return `must match the pattern ${JSON.stringify(want)}, and ${describe(value)} does not`;
    case "format":
      return `must be ${/^[aeiou]/i.test(String(want)) ? "an" : "a"} ${want}, not ${
        describe(value)
      }`;
    default:
      return fallback;
  }
}
