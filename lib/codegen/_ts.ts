// TypeScript syntax for the code generators: a small type tree and a printer whose output
// `deno fmt` leaves as it is. The printer keeps a construct on one line when that line fits in
// LINE_WIDTH columns and otherwise breaks it the way dprint would, so a generated file can be
// checked in next to formatted code.

import { isIdentifier } from "../names.ts";

/** The column limit `deno fmt` uses in this project, and so the printer's. */
export const LINE_WIDTH = 100;

/** A TypeScript type, before layout. */
export type TypeNode =
  /** A keyword, a literal or a name: printed as is. */
  | { kind: "name"; text: string }
  /** An object type; no members and no index signature prints as `Record<string, never>`. */
  | { kind: "object"; members: Member[]; index?: TypeNode }
  | { kind: "array"; element: TypeNode }
  | { kind: "tuple"; elements: TupleElement[]; rest?: TypeNode }
  | { kind: "union"; members: TypeNode[] }
  | { kind: "intersection"; members: TypeNode[] };

/** One property of an object type. */
export interface Member {
  name: string;
  optional: boolean;
  /** JSDoc text; a member with one keeps its object on several lines. */
  doc?: string;
  type: TypeNode;
}

/** One element of a tuple type. */
export interface TupleElement {
  type: TypeNode;
  optional: boolean;
}

/** `unknown`, which absorbs unions and vanishes from intersections. */
export const UNKNOWN: TypeNode = { kind: "name", text: "unknown" };
/** `never`, which vanishes from unions. */
export const NEVER: TypeNode = { kind: "name", text: "never" };
/** `null`. */
export const NULL: TypeNode = { kind: "name", text: "null" };

/** A name or keyword as a type node. */
export function named(text: string): TypeNode {
  return { kind: "name", text };
}

/** Whether `node` is the bare keyword `text`. */
export function isName(node: TypeNode, text: string): boolean {
  return node.kind === "name" && node.text === text;
}

/**
 * A union of `members`: nested unions are flattened, duplicates (by printed form) and `never`
 * dropped, `null` moved last; `unknown` anywhere makes the whole union `unknown`.
 */
export function union(members: TypeNode[]): TypeNode {
  if (members.length === 1 && members[0].kind !== "union") return members[0];
  const out: TypeNode[] = [];
  const seen = new Set<string>();
  let hasNull = false;
  for (const m of members.flatMap((m) => (m.kind === "union" ? m.members : [m]))) {
    if (isName(m, "unknown")) return UNKNOWN;
    if (isName(m, "never")) continue;
    if (isName(m, "null")) {
      hasNull = true;
      continue;
    }
    const key = identity(m);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(m);
  }
  if (hasNull) out.push(NULL);
  if (out.length === 0) return NEVER;
  return out.length === 1 ? out[0] : { kind: "union", members: out };
}

/** An intersection of `members`: `unknown` and duplicates dropped, `never` anywhere wins. */
export function intersection(members: TypeNode[]): TypeNode {
  if (members.length === 1 && members[0].kind !== "intersection") return members[0];
  const out: TypeNode[] = [];
  const seen = new Set<string>();
  for (const m of members.flatMap((m) => (m.kind === "intersection" ? m.members : [m]))) {
    if (isName(m, "never")) return NEVER;
    if (isName(m, "unknown")) continue;
    const key = identity(m);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(m);
  }
  if (out.length === 0) return UNKNOWN;
  return out.length === 1 ? out[0] : { kind: "intersection", members: out };
}

function identity(node: TypeNode): string {
  return node.kind === "name" ? node.text : JSON.stringify(node);
}

/** A property key: bare when it is an identifier, else a string literal. */
export function propertyKey(name: string): string {
  return isIdentifier(name) ? name : stringLiteral(name);
}

/**
 * A string literal as `deno fmt` writes it: double quotes unless the text holds more double
 * quotes than single ones.
 */
export function stringLiteral(text: string): string {
  const json = JSON.stringify(text);
  let double = 0, single = 0;
  for (const c of text) {
    if (c === '"') double++;
    else if (c === "'") single++;
  }
  if (double <= single) return json;
  return "'" + json.slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'") + "'";
}

/** A JSON value as a literal type, or undefined when it has none (objects, arrays). */
export function literalType(value: unknown): TypeNode | undefined {
  if (value === null) return NULL;
  if (typeof value === "string") return named(stringLiteral(value));
  if (typeof value === "boolean") return named(String(value));
  if (typeof value === "number" && Number.isFinite(value)) return named(JSON.stringify(value));
  return undefined;
}

/**
 * A JSDoc comment at `indent`: one line when the text is one line, else the ` * ` form. `*\/` in
 * the text is escaped so it cannot close the comment.
 */
export function jsDoc(text: string, indent: string): string {
  const lines = text.replaceAll("*/", "*\\/").split(/\r\n|\r|\n/).map((l) => l.trimEnd());
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length === 0) return "";
  if (lines.length === 1) return `${indent}/** ${lines[0]} */`;
  const body = lines.map((l) => (l === "" ? `${indent} *` : `${indent} * ${l}`));
  return [`${indent}/**`, ...body, `${indent} */`].join("\n");
}

// Printing asks for the one-line form of the same nodes at every level of nesting.
const flatCache = new WeakMap<TypeNode, string | undefined>();

/** A type on one line, or undefined when it cannot be (a member carries JSDoc). */
export function flat(node: TypeNode): string | undefined {
  if (flatCache.has(node)) return flatCache.get(node);
  const text = flatUncached(node);
  flatCache.set(node, text);
  return text;
}

function flatUncached(node: TypeNode): string | undefined {
  switch (node.kind) {
    case "name":
      return node.text;
    case "object": {
      if (node.members.length === 0 && !node.index) return "Record<string, never>";
      const parts: string[] = [];
      for (const m of node.members) {
        if (m.doc !== undefined) return undefined;
        const t = flat(m.type);
        if (t === undefined) return undefined;
        parts.push(`${propertyKey(m.name)}${m.optional ? "?" : ""}: ${t}`);
      }
      if (node.index) {
        const t = flat(node.index);
        if (t === undefined) return undefined;
        parts.push(`[key: string]: ${t}`);
      }
      return `{ ${parts.join("; ")} }`;
    }
    case "array": {
      const t = flat(node.element);
      return t === undefined ? undefined : `${grouped(node.element, t)}[]`;
    }
    case "tuple": {
      const parts: string[] = [];
      for (const e of node.elements) {
        const t = flat(e.type);
        if (t === undefined) return undefined;
        parts.push(e.optional ? `${grouped(e.type, t)}?` : t);
      }
      if (node.rest) {
        const t = flat(node.rest);
        if (t === undefined) return undefined;
        parts.push(`...${grouped(node.rest, t)}[]`);
      }
      return `[${parts.join(", ")}]`;
    }
    case "union":
    case "intersection": {
      const parts: string[] = [];
      for (const m of node.members) {
        const t = flat(m);
        if (t === undefined) return undefined;
        parts.push(m.kind === "union" || m.kind === "intersection" ? `(${t})` : t);
      }
      return parts.join(node.kind === "union" ? " | " : " & ");
    }
  }
}

function grouped(node: TypeNode, text: string): string {
  return node.kind === "union" || node.kind === "intersection" ? `(${text})` : text;
}

/** Display width as `deno fmt` counts it, near enough: code points. */
export function width(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * `node` starting at column `col` of a line indented `indent`, with `tail` more characters to
 * follow on its last line: on one line when that fits, else broken over several.
 */
export function printAt(node: TypeNode, indent: string, col: number, tail: number): string {
  const f = flat(node);
  if (f !== undefined && col + width(f) + tail <= LINE_WIDTH) return f;
  return broken(node, indent, col, tail);
}

function broken(node: TypeNode, indent: string, col: number, tail: number): string {
  const inner = indent + "  ";
  switch (node.kind) {
    case "name":
      return node.text;
    case "object": {
      if (node.members.length === 0 && !node.index) return "Record<string, never>";
      const lines: string[] = [];
      for (const m of node.members) {
        const line = member(`${propertyKey(m.name)}${m.optional ? "?" : ""}:`, m.type, inner);
        const doc = m.doc === undefined ? "" : jsDoc(m.doc, inner);
        // A one-line JSDoc shares its member's line where both fit in one line as `deno fmt`
        // leaves it: the same documentation, in fewer tokens.
        const joined = `${doc} ${line.slice(inner.length)}`;
        if (doc === "") lines.push(line);
        else if (!joined.includes("\n") && width(joined) <= LINE_WIDTH) lines.push(joined);
        else lines.push(doc, line);
      }
      if (node.index) lines.push(member("[key: string]:", node.index, inner));
      return `{\n${lines.join("\n")}\n${indent}}`;
    }
    case "array": {
      const e = node.element;
      if (e.kind === "union" || e.kind === "intersection") {
        return `(\n${operands(e, inner, 0)}\n${indent})[]`;
      }
      return printAt(e, indent, col, tail + 2) + "[]";
    }
    case "tuple": {
      const lines: string[] = [];
      for (const e of node.elements) {
        lines.push(`${inner}${element(e.type, e.optional, inner)},`);
      }
      if (node.rest) {
        lines.push(`${inner}...${element(node.rest, false, inner, "[]")},`);
      }
      return `[\n${lines.join("\n")}\n${indent}]`;
    }
    case "union":
    case "intersection":
      return `(\n${operands(node, inner, 0)}\n${indent})`;
  }
}

function element(type: TypeNode, optional: boolean, indent: string, suffix = ""): string {
  const after = (optional ? "?" : "") + suffix;
  const grouping = type.kind === "union" || type.kind === "intersection";
  if (grouping && after !== "") {
    const f = flat(type);
    if (f !== undefined && indent.length + width(f) + after.length + 3 <= LINE_WIDTH) {
      return `(${f})${after}`;
    }
    return `(\n${operands(type, indent + "  ", 0)}\n${indent})${after}`;
  }
  return printAt(type, indent, indent.length, after.length + 1) + after;
}

// The members of a union or intersection one per line, each led by its operator, as dprint
// breaks a long one.
function operands(node: TypeNode & { members: TypeNode[] }, indent: string, tail: number): string {
  const op = node.kind === "union" ? "| " : "& ";
  return node.members.map((m, i) => {
    const last = i === node.members.length - 1 ? tail : 0;
    if (m.kind === "union" || m.kind === "intersection") {
      const f = flat(m);
      return `${indent}${op}${f !== undefined ? `(${f})` : broken(m, indent, 0, last)}`;
    }
    return `${indent}${op}${printAt(m, indent, indent.length + 2, last)}`;
  }).join("\n");
}

/**
 * One declaration line `${indent}${prefix} ${type};` (a property, an index signature, a type
 * alias), broken as dprint would when it does not fit.
 */
export function member(prefix: string, type: TypeNode, indent: string): string {
  const col = indent.length + width(prefix) + 1;
  const f = flat(type);
  if (f !== undefined && col + width(f) + 1 <= LINE_WIDTH) return `${indent}${prefix} ${f};`;
  if (type.kind === "union" || type.kind === "intersection") {
    return `${indent}${prefix}\n${operands(type, indent + "  ", 1)};`;
  }
  return `${indent}${prefix} ${broken(type, indent, col, 1)};`;
}

/**
 * A function declaration `function name(args: A): Promise<ToolResult<R>>;` at `indent`, laid out
 * the way `deno fmt` leaves it: on one line if it fits, else the argument object opened across
 * lines, else the parameter on its own line; the result type breaks inside `Promise<…>`. With
 * `args` undefined the function takes no parameter: `function name(): …`.
 */
export function functionDeclaration(
  name: string,
  args: { type: TypeNode; optional: boolean } | undefined,
  result: TypeNode | undefined,
  indent: string,
): string {
  const head = `${indent}function ${name}(`;
  if (args === undefined) return `${head}): ${returns(result, indent, width(head) + 3)}`;
  const param = `args${args.optional ? "?" : ""}: `;
  const fArgs = flat(args.type);
  const fResult = result === undefined ? undefined : flat(result);
  if (fArgs !== undefined && (result === undefined || fResult !== undefined)) {
    const line = `${head}${param}${fArgs}): ${promise(fResult)};`;
    if (width(line) <= LINE_WIDTH) return line;
  }
  const start = `${head}${param}${fArgs}): `;
  const argsFit = fArgs !== undefined && width(start) + "Promise<".length <= LINE_WIDTH;
  // The arguments stay on the first line when the result needs lines of its own anyway.
  if (argsFit && result !== undefined && fResult === undefined) {
    return start + returns(result, indent, width(start));
  }
  const opensAcrossLines = args.type.kind === "object" &&
    (args.type.members.length > 0 || args.type.index !== undefined);
  if (opensAcrossLines) {
    const body = broken(args.type, indent, 0, 0);
    return `${head}${param}${body}): ${returns(result, indent, indent.length + 4)}`;
  }
  if (argsFit) return start + returns(result, indent, width(start));
  const inner = indent + "  ";
  const p = printAt(args.type, inner, inner.length + param.length, 1);
  return `${head}\n${inner}${param}${p},\n${indent}): ${
    returns(result, indent, indent.length + 3)
  }`;
}

function promise(result: string | undefined): string {
  return result === undefined ? "Promise<ToolResult>" : `Promise<ToolResult<${result}>>`;
}

// The result type and the closing `;`, starting at column `col` of a line indented `indent`.
function returns(result: TypeNode | undefined, indent: string, col: number): string {
  if (result === undefined) return "Promise<ToolResult>;";
  const f = flat(result);
  if (f !== undefined && col + width(promise(f)) + 1 <= LINE_WIDTH) return `${promise(f)};`;
  const inner = indent + "  ";
  const open = `${inner}ToolResult<`;
  let body: string;
  if (f !== undefined && width(open) + width(f) + 1 <= LINE_WIDTH) body = f;
  else if (result.kind === "union" || result.kind === "intersection") {
    body = `\n${operands(result, inner + "  ", 0)}\n${inner}`;
  } else body = broken(result, inner, width(open), 1);
  return `Promise<\n${open}${body}>\n${indent}>;`;
}

// The brief layout (`mcpx types <ns>`): written for reading in few bytes rather than as `deno fmt`
// leaves it. A type stays on one line whatever its length unless a member carries a doc; then
// each documented member takes a line of its own with its doc as a `//` comment after it, and the
// members between documented ones share lines of up to LINE_WIDTH columns.

/** A doc as the text of one `//` comment: its lines joined by a space. */
export function lineComment(text: string): string {
  return text.split(/\r\n|\r|\n/).map((l) => l.trim()).filter((l) => l !== "").join(" ");
}

/** `node` in the brief layout, on a line indented `indent`. */
export function briefType(node: TypeNode, indent: string): string {
  const f = flat(node);
  if (f !== undefined) return f;
  const inner = indent + "  ";
  switch (node.kind) {
    case "name":
      return node.text;
    case "object": {
      const lines: string[] = [];
      let run: string[] = [];
      const flush = () => {
        if (run.length > 0) lines.push(inner + run.join(" "));
        run = [];
      };
      for (const m of node.members) {
        const head = `${propertyKey(m.name)}${m.optional ? "?" : ""}: `;
        const t = flat(m.type);
        const doc = m.doc === undefined ? "" : lineComment(m.doc);
        if (t !== undefined && doc === "") {
          const next = `${head}${t};`;
          if (run.length > 0 && width(inner + [...run, next].join(" ")) > LINE_WIDTH) flush();
          run.push(next);
        } else {
          flush();
          if (t !== undefined) lines.push(`${inner}${head}${t}; // ${doc}`);
          else {
            if (doc !== "") lines.push(`${inner}// ${doc}`);
            lines.push(`${inner}${head}${briefType(m.type, inner)};`);
          }
        }
      }
      if (node.index) {
        const t = flat(node.index);
        if (t !== undefined) run.push(`[key: string]: ${t};`);
        else {
          flush();
          lines.push(`${inner}[key: string]: ${briefType(node.index, inner)};`);
        }
      }
      flush();
      return `{\n${lines.join("\n")}\n${indent}}`;
    }
    case "array":
      return `${briefGrouped(node.element, indent)}[]`;
    case "tuple": {
      const parts = node.elements.map((e) =>
        `${inner}${briefGrouped(e.type, inner)}${e.optional ? "?" : ""},`
      );
      if (node.rest) parts.push(`${inner}...${briefGrouped(node.rest, inner)}[],`);
      return `[\n${parts.join("\n")}\n${indent}]`;
    }
    case "union":
    case "intersection": {
      const op = node.kind === "union" ? "| " : "& ";
      const parts = node.members.map((m) => `${inner}${op}${briefGrouped(m, inner)}`);
      return `(\n${parts.join("\n")}\n${indent})`;
    }
  }
}

// Unions and intersections inside an array, a tuple or another operand take parentheses (the
// broken form has its own).
function briefGrouped(node: TypeNode, indent: string): string {
  const f = flat(node);
  return f !== undefined ? grouped(node, f) : briefType(node, indent);
}

/**
 * `function name(args: A): Promise<ToolResult<R>>;` in the brief layout; `args` undefined: the
 * function takes no parameter.
 */
export function briefFunction(
  name: string,
  args: { type: TypeNode; optional: boolean } | undefined,
  result: TypeNode | undefined,
): string {
  const param = args === undefined
    ? ""
    : `args${args.optional ? "?" : ""}: ${briefType(args.type, "")}`;
  const returns = result === undefined
    ? "Promise<ToolResult>"
    : `Promise<ToolResult<${briefType(result, "")}>>`;
  return `function ${name}(${param}): ${returns};`;
}
