// What an adapter tool looks like over MCP (its input schema) and the argument vector a call
// becomes. No shell is involved anywhere: each value is one word of the vector, verbatim.

import type { AdapterParam, AdapterTool } from "./declare.ts";

/** The JSON Schema of one parameter. */
function paramSchema(p: AdapterParam): Record<string, unknown> {
  const one: Record<string, unknown> = { type: p.type };
  if (p.enum) one.enum = p.enum;
  if (p.description) one.description = p.description;
  if (p.default !== undefined) one.default = coerce(p, p.default) ?? p.default;
  if (!p.repeatable) return one;
  const { description, default: d, ...item } = one;
  return {
    anyOf: [item, { type: "array", items: item }],
    ...(description ? { description } : {}),
    ...(d !== undefined ? { default: d } : {}),
  };
}

/** The tool's input schema: exactly its params, nothing else accepted. */
export function inputSchema(tool: AdapterTool): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const p of tool.params) properties[p.name] = paramSchema(p);
  const required = tool.params.filter((p) => p.required && p.default === undefined).map((p) =>
    p.name
  );
  return {
    type: "object",
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/** `value` as the param's type, or undefined when it is not one (`"10"` is an integer). */
function coerce(p: AdapterParam, value: unknown): string | number | boolean | undefined {
  switch (p.type) {
    case "boolean":
      if (typeof value === "boolean") return value;
      if (value === "true" || value === "false") return value === "true";
      return undefined;
    case "integer":
    case "number": {
      const n = typeof value === "number"
        ? value
        : typeof value === "string" && value.trim() !== ""
        ? Number(value)
        : NaN;
      if (!Number.isFinite(n) || (p.type === "integer" && !Number.isInteger(n))) return undefined;
      return n;
    }
    default:
      return typeof value === "string" ? value : undefined;
  }
}

/** A call's arguments that do not fit the tool: one line each. */
export class ArgumentProblem extends Error {}

/**
 * The words after the command for one call: the tool's fixed `args` with `{param}` holes filled,
 * then each flag param given (or defaulted) in declaration order, then the positionals by their
 * `positional` index. A param the tool does not declare is refused.
 * @throws {ArgumentProblem} naming the parameter and what it expects.
 */
export function buildArgv(tool: AdapterTool, args: Record<string, unknown>): string[] {
  const declared = new Map(tool.params.map((p) => [p.name, p]));
  const unknown = Object.keys(args).filter((k) => !declared.has(k));
  if (unknown.length) {
    const known = tool.params.map((p) => p.name);
    throw new ArgumentProblem(
      `"${tool.name}" has no parameter ${unknown.map((u) => `"${u}"`).join(", ")}` +
        (known.length ? `; it takes ${known.join(", ")}` : "; it takes none"),
    );
  }
  const values = new Map<string, (string | number | boolean)[]>();
  for (const p of tool.params) {
    let raw = Object.hasOwn(args, p.name) ? args[p.name] : undefined;
    if (raw === null) raw = undefined;
    if (raw === undefined) raw = p.default;
    if (raw === undefined) {
      if (p.required) throw new ArgumentProblem(`"${p.name}" is required`);
      continue;
    }
    const list = Array.isArray(raw) ? raw : [raw];
    if (Array.isArray(raw) && !p.repeatable) {
      throw new ArgumentProblem(`"${p.name}" takes one ${p.type}, not a list`);
    }
    const typed = list.map((v) => {
      const c = coerce(p, v);
      if (c === undefined) {
        throw new ArgumentProblem(
          `"${p.name}" must be ${article(p.type)} (got ${JSON.stringify(v)})`,
        );
      }
      if (p.enum && !p.enum.some((e) => String(e) === String(c))) {
        throw new ArgumentProblem(
          `"${p.name}" must be one of ${p.enum.map((e) => JSON.stringify(e)).join(", ")} (got ${
            JSON.stringify(v)
          })`,
        );
      }
      return c;
    });
    values.set(p.name, typed);
  }
  const holes = new Set<string>();
  const words: string[] = [];
  for (const a of tool.args) {
    const m = /^\{([^{}]*)\}$/.exec(a);
    if (m) {
      // A whole-word hole: the value's words (none when absent), each one word.
      holes.add(m[1]);
      const own = (values.get(m[1]) ?? []).map(String);
      refuseOptions(m[1], own);
      words.push(...own);
      continue;
    }
    let missing = false;
    const filled = a.replace(/\{([^{}]*)\}/g, (_, n: string) => {
      holes.add(n);
      const v = values.get(n);
      if (!v) missing = true;
      return (v ?? []).map(String).join(",");
    });
    if (!missing) words.push(filled);
  }
  const positionals: { at: number; order: number; words: string[] }[] = [];
  tool.params.forEach((p, order) => {
    const v = values.get(p.name);
    if (!v || holes.has(p.name)) return;
    if (p.flag !== undefined) {
      for (const one of v) {
        if (p.type === "boolean") {
          if (one === true) words.push(p.flag);
        } else words.push(p.flag, String(one));
      }
    } else positionals.push({ at: p.positional ?? Infinity, order, words: v.map(String) });
  });
  positionals.sort((a, b) => a.at - b.at || a.order - b.order);
  for (const p of positionals) {
    refuseOptions(tool.params[p.order].name, p.words);
    words.push(...p.words);
  }
  return words;
}

/** A word standing alone that starts with a dash would reach the program as an undeclared option. */
function refuseOptions(name: string, words: readonly string[]): void {
  const dash = words.find((w) => w.startsWith("-") && !/^-\d/.test(w));
  if (dash !== undefined) {
    throw new ArgumentProblem(
      `"${name}" is ${JSON.stringify(dash)}, which the program would read as an option`,
    );
  }
}

function article(type: string): string {
  return type === "integer" ? "an integer" : `a ${type}`;
}
