// What `call` in `mcpx explore` asks for: one question per property of a tool's input schema,
// required ones first, enums as choices, defaults shown; and the typed answers as arguments.

/** How an answer is read. */
export type FieldKind = "string" | "number" | "integer" | "boolean" | "enum" | "json";

/** One property of a tool's input schema, as a question. */
export interface Field {
  name: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  /** The schema's default, as the text an answer would be. */
  default?: string;
  /** For `enum` (and `boolean`): the choices, as text. */
  choices?: string[];
}

type Schema = Record<string, unknown>;

function kindOf(prop: Schema): { kind: FieldKind; choices?: string[] } {
  const values = Array.isArray(prop.enum)
    ? prop.enum
    : prop.const !== undefined
    ? [prop.const]
    : [];
  if (values.length > 0 && values.every((v) => typeof v === "string")) {
    return { kind: "enum", choices: values as string[] };
  }
  const types = Array.isArray(prop.type) ? prop.type.filter((t) => t !== "null") : [prop.type];
  const type = types.length === 1 ? types[0] : undefined;
  if (type === "string") return { kind: "string" };
  if (type === "number") return { kind: "number" };
  if (type === "integer") return { kind: "integer" };
  if (type === "boolean") return { kind: "boolean", choices: ["true", "false"] };
  return { kind: "json" };
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The questions for a tool's input schema: required properties first, each group in order. */
export function fieldsOf(schema: unknown): Field[] {
  const s = (schema ?? {}) as Schema;
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(s.required) ? s.required as string[] : []);
  const fields = Object.entries(props).map(([name, raw]): Field => {
    const prop = raw && typeof raw === "object" ? raw : {};
    const { kind, choices } = kindOf(prop);
    return {
      name,
      kind,
      required: required.has(name),
      ...(typeof prop.description === "string" ? { description: prop.description } : {}),
      ...(prop.default !== undefined ? { default: textOf(prop.default) } : {}),
      ...(choices ? { choices } : {}),
    };
  });
  return [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required)];
}

/** Why `text` is not an answer to `field`, or undefined when it is (empty skips an optional one). */
export function answerProblem(field: Field, text: string): string | undefined {
  if (text === "") return field.required ? `${field.name} is required` : undefined;
  if (field.kind === "number" && !Number.isFinite(Number(text))) return "Type a number";
  if (field.kind === "integer" && !/^-?\d+$/.test(text.trim())) return "Type a whole number";
  if (field.kind === "json") {
    try {
      JSON.parse(text);
    } catch {
      return "Type JSON (an object, array, number, or a string in quotes)";
    }
  }
  if (field.choices && !field.choices.includes(text)) {
    return `One of ${field.choices.join(", ")}`;
  }
  return undefined;
}

/** The value of an answer: text for a string or enum, JSON for the rest; undefined when skipped. */
export function answerValue(field: Field, text: string): unknown {
  if (text === "") return undefined;
  if (field.kind === "string" || field.kind === "enum") return text;
  if (field.kind === "number" || field.kind === "integer") return Number(text);
  return JSON.parse(text);
}

/** The arguments object of a set of answers, skipped ones left out. */
export function argumentsOf(fields: readonly Field[], answers: readonly string[]): Record<
  string,
  unknown
> {
  const out: Record<string, unknown> = {};
  fields.forEach((f, i) => {
    const value = answerValue(f, answers[i] ?? "");
    if (value !== undefined) out[f.name] = value;
  });
  return out;
}
