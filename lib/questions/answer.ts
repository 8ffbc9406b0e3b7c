// An elicitation answer, checked against the requested schema: the flat object of primitive
// properties (string, number, integer, boolean, enums) the specification allows. Defaults fill
// what is missing; `key=value` words are typed by each property's type.

import { McpxError } from "../errors.ts";

/** One property of a requested schema. */
export interface FormProperty {
  type?: string;
  enum?: unknown[];
  oneOf?: { const: unknown; title?: string }[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  items?: { enum?: unknown[]; anyOf?: { const: unknown }[] };
}

/** The requested schema of a form elicitation. */
export interface FormSchema {
  type?: string;
  properties?: Record<string, FormProperty>;
  required?: string[];
}

/** `key=value` words into an object, each value typed by its property. */
export function answerFromWords(
  schema: FormSchema,
  words: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const word of words) {
    const at = word.indexOf("=");
    if (at <= 0) throw new McpxError("ANSWER_INVALID", `Expected key=value, got "${word}"`);
    const key = word.slice(0, at);
    const text = word.slice(at + 1);
    const prop = schema.properties?.[key];
    if (!prop) {
      throw new McpxError("ANSWER_INVALID", `The question asks for no "${key}"`, {
        hint: `It asks for: ${Object.keys(schema.properties ?? {}).join(", ") || "nothing"}`,
      });
    }
    out[key] = typed(prop, text, key);
  }
  return out;
}

function typed(prop: FormProperty, text: string, key: string): unknown {
  switch (prop.type) {
    case "number":
    case "integer": {
      const n = Number(text);
      if (text.trim() === "" || !Number.isFinite(n)) {
        throw new McpxError("ANSWER_INVALID", `"${key}" takes a number, got "${text}"`);
      }
      return n;
    }
    case "boolean":
      if (/^(true|yes|y|1)$/i.test(text)) return true;
      if (/^(false|no|n|0)$/i.test(text)) return false;
      throw new McpxError("ANSWER_INVALID", `"${key}" takes true or false, got "${text}"`);
    case "array":
      return text === "" ? [] : text.split(",");
    default:
      return text;
  }
}

function allowed(prop: FormProperty): unknown[] | undefined {
  return prop.enum ?? prop.oneOf?.map((o) => o.const);
}

/**
 * The answer's content: defaults applied, then every property checked (type, enum, bounds,
 * required).
 *
 * @throws {McpxError} ANSWER_INVALID naming the first property that fails
 */
export function checkAnswer(schema: FormSchema, raw: unknown, id: string): Record<string, unknown> {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new McpxError("ANSWER_INVALID", `The answer to "${id}" must be an object`);
  }
  const props = schema.properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!props[key]) throw new McpxError("ANSWER_INVALID", `The question asks for no "${key}"`);
    out[key] = value;
  }
  for (const [key, prop] of Object.entries(props)) {
    if (out[key] === undefined && prop.default !== undefined) out[key] = prop.default;
    const value = out[key];
    if (value === undefined) {
      if (schema.required?.includes(key)) {
        throw new McpxError("ANSWER_INVALID", `The answer to "${id}" needs "${key}"`);
      }
      continue;
    }
    const fail = (why: string) =>
      new McpxError("ANSWER_INVALID", `"${key}" ${why}, got ${JSON.stringify(value)}`);
    switch (prop.type) {
      case "string":
        if (typeof value !== "string") throw fail("must be a string");
        if (prop.minLength !== undefined && value.length < prop.minLength) {
          throw fail(`must be at least ${prop.minLength} characters`);
        }
        if (prop.maxLength !== undefined && value.length > prop.maxLength) {
          throw fail(`must be at most ${prop.maxLength} characters`);
        }
        if (prop.format === "email" && !/^[^@\s]+@[^@\s]+$/.test(value)) {
          throw fail("must be an email address");
        }
        break;
      case "number":
      case "integer":
        if (typeof value !== "number" || !Number.isFinite(value)) throw fail("must be a number");
        if (prop.type === "integer" && !Number.isInteger(value)) throw fail("must be an integer");
        if (prop.minimum !== undefined && value < prop.minimum) {
          throw fail(`must be at least ${prop.minimum}`);
        }
        if (prop.maximum !== undefined && value > prop.maximum) {
          throw fail(`must be at most ${prop.maximum}`);
        }
        break;
      case "boolean":
        if (typeof value !== "boolean") throw fail("must be true or false");
        break;
      case "array": {
        if (!Array.isArray(value)) throw fail("must be a list");
        const items = prop.items?.enum ?? prop.items?.anyOf?.map((o) => o.const);
        const bad = items ? value.find((v) => !items.includes(v)) : undefined;
        if (bad !== undefined) {
          throw fail(`takes only ${items!.map((v) => JSON.stringify(v)).join(", ")}`);
        }
        break;
      }
    }
    const choices = allowed(prop);
    if (choices && !choices.includes(value)) {
      throw fail(`must be one of ${choices.map((v) => JSON.stringify(v)).join(", ")}`);
    }
  }
  // In the schema's order of properties.
  return Object.fromEntries(
    Object.keys(props).filter((k) => out[k] !== undefined).map((k) => [k, out[k]]),
  );
}
