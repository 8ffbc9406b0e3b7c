// JSON Schema (draft-07 and 2020-12, as MCP servers emit them) to TypeScript types. The rules
// are listed in docs/codegen.md; the short version: structure becomes types, descriptions and
// the few constraints a type cannot say become JSDoc, and everything else is dropped.

import { compare, isReservedTypeName, toIdentifier } from "../names.ts";
import {
  intersection,
  isName,
  jsDoc,
  literalType,
  type Member,
  member,
  named,
  NEVER,
  NULL,
  printAt,
  type TupleElement,
  type TypeNode,
  union,
  UNKNOWN,
} from "./_ts.ts";

/** A JSON Schema: an object, or `true` (anything) / `false` (nothing). */
export type JsonSchema = boolean | { readonly [key: string]: unknown };

type Obj = { readonly [key: string]: unknown };

// How deep `$ref`s that are inlined may nest before the rest is `unknown`; it bounds the output
// of schemas whose references fan out without ever repeating.
const MAX_INLINE_DEPTH = 8;

// An index signature type made of the property types is kept only while it stays this short.
const MAX_INDEX_UNION = 50;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One schema document: the root `$ref`s resolve against, and how its `$defs` are named. */
interface Doc {
  root: JsonSchema;
  /** The pointer key of a `$defs`/`definitions` entry → its alias name (alias mode only). */
  aliases?: Map<string, string>;
  /** `<from>\0<to>` reference edges printed as `unknown` because TypeScript cannot say them. */
  cut?: Set<string>;
  /** What a description becomes in JSDoc (see {@linkcode TypeScope}'s `shorten`). */
  shorten?: (description: string) => string;
}

interface Walk {
  doc: Doc;
  /** Pointers being inlined, outermost first; meeting one again is a cycle. */
  stack: string[];
  /** The def whose alias body is being converted. */
  owner?: string;
  /** Whether the current position is inside an object member or an array element. */
  guarded: boolean;
}

/**
 * A JSON Schema as a TypeScript type expression, with every `$ref` inlined: a reference met
 * again inside itself (a cycle) or nested deeper than 8 becomes `unknown`. `indent` is the
 * indentation of the line the expression starts on, for the lines of a type that needs several.
 *
 * @example
 * ```ts
 * schemaToTs({ type: ["string", "null"] }); // "string | null"
 * ```
 */
export function schemaToTs(schema: JsonSchema, options: { indent?: string } = {}): string {
  const indent = options.indent ?? "";
  const node = convert(schema, { doc: { root: schema }, stack: [], guarded: false });
  return printAt(node, indent, indent.length, 0);
}

/** A named type a namespace declares once, for a `$defs` entry. */
export interface TypeAlias {
  name: string;
  description?: string;
  type: TypeNode;
}

/**
 * The types of several schema documents (a namespace's input and output schemas) sharing one set
 * of named aliases for their `$defs`. Register every document with `add` before asking for
 * types, always in the same order: alias names are handed out first come, first served.
 */
export class TypeScope {
  #shorten: ((description: string) => string) | undefined;
  #docs = new Map<Obj, Doc & { reach: string[] }>();
  #aliases = new Map<string, TypeAlias>();
  #byContent = new Map<string, string>();
  #pending: { name: string; doc: Doc; key: string; schema: unknown }[] = [];

  /**
   * @param options.shorten what each schema description becomes before the notes on what its type
   * cannot say (default, bounds…) are added: `mcpx types <ns>` abridges them this way
   */
  constructor(options: { shorten?: (description: string) => string } = {}) {
    this.#shorten = options.shorten;
  }

  /** Registers a document: each `$defs` entry it reaches gets an alias name. */
  add(root: JsonSchema): void {
    if (!isObj(root) || this.#docs.has(root)) return;
    const doc = {
      root,
      shorten: this.#shorten,
      aliases: new Map<string, string>(),
      cut: new Set<string>(),
      reach: [] as string[],
    };
    this.#docs.set(root, doc);
    const graph = new Map<string, Map<string, boolean>>();
    const edgesOf = (key: string, schema: unknown) => {
      if (graph.has(key)) return;
      const edges = new Map<string, boolean>();
      graph.set(key, edges);
      collectRefs(root, schema, false, edges, new Set());
      for (const to of edges.keys()) edgesOf(to, resolveKey(root, to));
    };
    const rootKey = pointerKey([]);
    edgesOf(rootKey, root);
    const reached = [...graph.keys()]
      .filter((k) => k !== rootKey && resolveKey(root, k) !== undefined)
      .sort(compare);
    for (const key of reached) {
      const schema = resolveKey(root, key);
      const closure = [...reachableFrom(graph, key)].sort(compare);
      const defName = (JSON.parse(key) as string[])[1];
      const content = stableJson([defName, closure.map((k) => [k, resolveKey(root, k)])]);
      let name = this.#byContent.get(content);
      if (name === undefined) {
        name = this.#freshName(defName);
        this.#byContent.set(content, name);
        this.#pending.push({ name, doc, key, schema });
      }
      doc.aliases.set(key, name);
    }
    // An edge outside any object member or array element that closes a loop would make a type
    // alias refer to itself directly, which TypeScript rejects: such edges print as `unknown`.
    const bare = (k: string) => [...(graph.get(k) ?? [])].filter(([, g]) => !g).map(([t]) => t);
    for (const from of reached) {
      for (const to of bare(from)) {
        if (to === from || reachable(bare, to).has(from)) doc.cut.add(`${from}\0${to}`);
      }
    }
    doc.reach = [...new Set(reached.map((k) => doc.aliases.get(k)!))].sort(compare);
  }

  /** The type of a registered document (or of a schema inside one, given its `root`). */
  type(schema: JsonSchema, root: JsonSchema = schema): TypeNode {
    return convert(schema, { doc: this.#doc(root), stack: [], guarded: false });
  }

  /**
   * The type of a tool's `inputSchema` as the `args` parameter, and whether it may be left out
   * (nothing in it is required). Arguments are always an object: a schema that says nothing is
   * `{ [key: string]: unknown }`, and one with no properties (and none allowed beyond them, or
   * nothing said about that) is `Record<string, never>`.
   */
  args(schema: JsonSchema): { type: TypeNode; optional: boolean } {
    const walk = { doc: this.#doc(schema), stack: [], guarded: false };
    let type = convert(schema, walk, true);
    if (isName(type, "unknown")) type = { kind: "object", members: [], index: UNKNOWN };
    const optional = type.kind === "object" && type.members.every((m) => m.optional);
    return { type, optional };
  }

  /** The aliases the given registered documents use, directly or through other aliases, by name. */
  aliasesFor(roots: JsonSchema[]): TypeAlias[] {
    this.#settle();
    const names = new Set<string>();
    for (const root of roots) {
      if (isObj(root)) { for (const n of this.#docs.get(root)?.reach ?? []) names.add(n); }
    }
    return [...names].sort(compare).map((n) => this.#aliases.get(n)!);
  }

  /** Every alias, by name. */
  allAliases(): TypeAlias[] {
    this.#settle();
    return [...this.#aliases.values()].sort((a, b) => compare(a.name, b.name));
  }

  #doc(root: JsonSchema): Doc {
    return (isObj(root) ? this.#docs.get(root) : undefined) ?? { root, shorten: this.#shorten };
  }

  #freshName(defName: string): string {
    let base = toIdentifier(defName);
    if (isReservedTypeName(base)) base += "_";
    let name = base;
    for (let n = 2; this.#aliases.has(name); n++) name = `${base}_${n}`;
    this.#aliases.set(name, { name, type: UNKNOWN });
    return name;
  }

  #settle(): void {
    for (const { name, doc, key, schema } of this.#pending.splice(0)) {
      const walk = { doc, stack: [key], owner: key, guarded: false };
      const description = describe(schema, doc.shorten);
      this.#aliases.set(name, { name, description, type: convert(schema, walk) });
    }
  }
}

/** A type alias declaration (with its JSDoc) at `indent`. */
export function aliasDeclaration(alias: TypeAlias, indent: string): string {
  const doc = alias.description ? jsDoc(alias.description, indent) + "\n" : "";
  return doc + member(`type ${alias.name} =`, alias.type, indent);
}

/**
 * The JSDoc text for a schema: its `description` (through `shorten` when given), then notes for
 * what its type cannot say (default, bounds, length, pattern, format, item counts), then
 * `@deprecated`. Undefined when there is nothing to say.
 */
export function describe(
  schema: unknown,
  shorten?: (description: string) => string,
): string | undefined {
  if (!isObj(schema)) return undefined;
  let description = typeof schema.description === "string" ? schema.description.trim() : "";
  if (shorten && description !== "") description = shorten(description);
  // Checked against the text that is printed: a default a cut sentence stated is noted again.
  const notes = constraintNotes(schema, description);
  let text = description;
  if (notes.length > 0) {
    const sep = text === "" ? "" : /[.!?:…]$/.test(text) ? " " : ". ";
    text += sep + notes.join(" ");
  }
  if (schema.deprecated === true) text += (text === "" ? "" : "\n") + "@deprecated";
  return text === "" ? undefined : text;
}

function constraintNotes(s: Obj, description: string): string[] {
  const notes: string[] = [];
  // zod writes `.int()` as bounds of ±(2^53 - 1): they say "integer", not a range worth reading.
  const num = (k: string) => {
    const v = s[k];
    return typeof v === "number" && Math.abs(v) < Number.MAX_SAFE_INTEGER ? v : undefined;
  };
  // A description that already talks about the default usually states it; `false` and empty
  // lists or objects are what leaving a value out means anyway.
  const d = s.default;
  const plain = d === false || (Array.isArray(d) && d.length === 0) ||
    (isObj(d) && Object.keys(d).length === 0);
  if (d !== undefined && !plain && !/default/i.test(description)) {
    notes.push(`Default: ${JSON.stringify(d)}.`);
  }
  let min = num("minimum"), max = num("maximum");
  let gt = num("exclusiveMinimum"), lt = num("exclusiveMaximum");
  // draft-04 spelled exclusive bounds as booleans beside minimum/maximum
  if (s.exclusiveMinimum === true && min !== undefined) [gt, min] = [min, undefined];
  if (s.exclusiveMaximum === true && max !== undefined) [lt, max] = [max, undefined];
  if (min !== undefined && max !== undefined) notes.push(`Range: ${min} to ${max}.`);
  else if (min !== undefined) notes.push(`Minimum: ${min}.`);
  else if (max !== undefined) notes.push(`Maximum: ${max}.`);
  if (gt !== undefined) notes.push(`Greater than ${gt}.`);
  if (lt !== undefined) notes.push(`Less than ${lt}.`);
  if (num("multipleOf") !== undefined) notes.push(`Multiple of ${s.multipleOf}.`);
  const counted = (lo: number | undefined, hi: number | undefined, what: string) => {
    const unit = (n: number) => `${n} ${what}${n === 1 ? "" : "s"}`;
    if (lo !== undefined && hi !== undefined) {
      notes.push(lo === hi ? `Exactly ${unit(lo)}.` : `${lo} to ${unit(hi)}.`);
    } else if (lo !== undefined) notes.push(`At least ${unit(lo)}.`);
    else if (hi !== undefined) notes.push(`At most ${unit(hi)}.`);
  };
  counted(num("minLength"), num("maxLength"), "character");
  if (typeof s.pattern === "string") notes.push(`Pattern: \`${s.pattern}\`.`);
  if (typeof s.format === "string") notes.push(`Format: ${s.format}.`);
  counted(num("minItems"), num("maxItems"), "item");
  if (s.uniqueItems === true) notes.push("Items are unique.");
  return notes;
}

function convert(schema: unknown, w: Walk, isArgs = false): TypeNode {
  if (schema === false) return NEVER;
  if (!isObj(schema)) return UNKNOWN;
  const s = schema;
  const parts: TypeNode[] = [];
  if (typeof s.$ref === "string") parts.push(refType(s.$ref, w));
  for (const m of list(s.allOf)) parts.push(convert(m, w));
  if (Array.isArray(s.anyOf)) parts.push(union(s.anyOf.map((m) => convert(m, w))));
  if (Array.isArray(s.oneOf)) parts.push(union(s.oneOf.map((m) => convert(m, w))));
  const informative = parts.filter((p) => !isName(p, "unknown"));
  const base = baseType(s, w, isArgs);
  let type: TypeNode;
  if (base && (!base.trivial || informative.length === 0)) {
    type = intersection([base.type, ...informative]);
  } else {
    type = intersection(informative);
    // `type: ["object", "null"]` beside a `oneOf` still allows null.
    if (base && typeList(s)?.includes("null")) type = union([type, NULL]);
  }
  if (s.nullable === true) type = union([type, NULL]);
  return type;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function typeList(s: Obj): string[] | undefined {
  if (typeof s.type === "string") return [s.type];
  if (Array.isArray(s.type)) return s.type.filter((t): t is string => typeof t === "string");
  return undefined;
}

const OBJECT_WORDS = ["properties", "additionalProperties", "patternProperties"];
const ARRAY_WORDS = ["items", "prefixItems", "additionalItems"];

// The type the schema's own keywords give, and whether it is only a bare `type` that the
// applicators beside it (`$ref`, `anyOf`…) say better.
function baseType(s: Obj, w: Walk, isArgs: boolean): { type: TypeNode; trivial: boolean } | void {
  if ("const" in s) return { type: literalType(s.const) ?? UNKNOWN, trivial: false };
  if (Array.isArray(s.enum)) {
    return { type: union(s.enum.map((v) => literalType(v) ?? UNKNOWN)), trivial: false };
  }
  const structural = [...OBJECT_WORDS, ...ARRAY_WORDS].some((k) => s[k] !== undefined);
  let types = typeList(s);
  if (types === undefined) {
    if (OBJECT_WORDS.some((k) => s[k] !== undefined)) types = ["object"];
    else if (ARRAY_WORDS.some((k) => s[k] !== undefined)) types = ["array"];
    else return;
  }
  const type = union(types.map((t): TypeNode => {
    switch (t) {
      case "string":
        return named("string");
      case "number":
      case "integer":
        return named("number");
      case "boolean":
        return named("boolean");
      case "null":
        return NULL;
      case "array":
        return arrayType(s, w);
      case "object":
        return objectType(s, w, isArgs);
      default:
        return UNKNOWN;
    }
  }));
  return { type, trivial: !structural };
}

function arrayType(s: Obj, w: Walk): TypeNode {
  const inner = { ...w, guarded: true };
  // 2020-12 spells a tuple `prefixItems` (+ `items` for the rest); draft-07 `items: [...]`
  // (+ `additionalItems`). Unless the rest is given as a schema, a tuple is printed closed.
  const prefix = Array.isArray(s.prefixItems)
    ? s.prefixItems
    : Array.isArray(s.items)
    ? s.items
    : undefined;
  if (prefix) {
    const restSchema = Array.isArray(s.prefixItems) ? s.items : s.additionalItems;
    const minItems = typeof s.minItems === "number" ? s.minItems : 0;
    const elements: TupleElement[] = prefix.map((item, i) => ({
      type: convert(item, inner),
      optional: i >= minItems,
    }));
    const rest = isObj(restSchema) || restSchema === true ? convert(restSchema, inner) : undefined;
    return { kind: "tuple", elements, rest };
  }
  return { kind: "array", element: s.items === undefined ? UNKNOWN : convert(s.items, inner) };
}

function objectType(s: Obj, w: Walk, isArgs: boolean): TypeNode {
  const inner = { ...w, guarded: true };
  const props = isObj(s.properties) ? s.properties : {};
  const required = new Set(list(s.required).filter((r): r is string => typeof r === "string"));
  const members: Member[] = Object.keys(props).map((name) => ({
    name,
    optional: !required.has(name),
    doc: describe(props[name], w.doc.shorten),
    type: convert(props[name], inner),
  }));
  const extra = s.additionalProperties;
  const patterns = isObj(s.patternProperties) ? Object.values(s.patternProperties) : [];
  for (const name of required) {
    if (!Object.hasOwn(props, name)) {
      members.push({ name, optional: false, type: isObj(extra) ? convert(extra, inner) : UNKNOWN });
    }
  }
  members.sort((a, b) => compare(a.name, b.name));
  let index: TypeNode | undefined;
  if (extra === undefined) {
    // Unsaid means allowed, but a schema that lists properties rarely means "and anything else";
    // arguments with nothing listed are taken to mean "no arguments".
    if (members.length === 0 && patterns.length === 0 && !isArgs) index = UNKNOWN;
  } else if (extra !== false) index = convert(extra, inner);
  if (patterns.length > 0) {
    index = union([
      ...(index ? [index] : []),
      ...patterns.map((p) => convert(p, inner)),
    ]);
  }
  if (index && members.length > 0 && !isName(index, "unknown")) {
    // Every member must fit the index signature, so it widens to cover them, or gives up.
    const optional = members.some((m) => m.optional) ? [named("undefined")] : [];
    const widened = union([index, ...members.map((m) => m.type), ...optional]);
    const text = printAt(widened, "", 0, 0);
    index = text.length <= MAX_INDEX_UNION && !text.includes("\n") ? widened : UNKNOWN;
  }
  return { kind: "object", members, index };
}

function refType(ref: string, w: Walk): TypeNode {
  const path = parsePointer(ref);
  if (path === undefined) return UNKNOWN; // not a pointer into this document
  const { aliases, cut } = w.doc;
  if (aliases && path.length === 2 && (path[0] === "$defs" || path[0] === "definitions")) {
    const key = pointerKey(path);
    const name = aliases.get(key);
    if (name === undefined) return UNKNOWN;
    if (!w.guarded && w.owner && cut?.has(`${w.owner}\0${key}`)) return UNKNOWN;
    return named(name);
  }
  const target = resolve(w.doc.root, path);
  const key = pointerKey(path);
  if (target === undefined || w.stack.includes(key) || w.stack.length > MAX_INLINE_DEPTH) {
    return UNKNOWN;
  }
  return convert(target, { ...w, stack: [...w.stack, key] });
}

function pointerKey(path: string[]): string {
  return JSON.stringify(path);
}

/** `#/a/b~1c` → `["a", "b/c"]`; undefined for anything but a pointer into the same document. */
function parsePointer(ref: string): string[] | undefined {
  if (!ref.startsWith("#")) return undefined;
  let fragment = ref.slice(1);
  try {
    fragment = decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
  if (fragment === "") return [];
  if (!fragment.startsWith("/")) return undefined; // a plain-name anchor
  return fragment.slice(1).split("/").map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function resolve(root: unknown, path: string[]): unknown {
  let at = root;
  for (const p of path) {
    if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(p)) at = at[Number(p)];
    else if (isObj(at) && Object.hasOwn(at, p)) at = at[p];
    else return undefined;
  }
  return at;
}

function resolveKey(root: unknown, key: string): unknown {
  return resolve(root, JSON.parse(key));
}

// The `$defs`/`definitions` entries `schema` refers to, each with whether every reference to it
// sits inside an object member or array element (`true`) or some does not (`false`). Refs to
// other places are followed, once each.
function collectRefs(
  root: unknown,
  schema: unknown,
  guarded: boolean,
  out: Map<string, boolean>,
  seen: Set<string>,
): void {
  if (!isObj(schema)) return;
  if (typeof schema.$ref === "string") {
    const path = parsePointer(schema.$ref);
    if (path && path.length === 2 && (path[0] === "$defs" || path[0] === "definitions")) {
      const key = pointerKey(path);
      out.set(key, (out.get(key) ?? true) && guarded);
    } else if (path && !seen.has(pointerKey(path))) {
      seen.add(pointerKey(path));
      collectRefs(root, resolve(root, path), guarded, out, seen);
    }
  }
  for (const k of ["allOf", "anyOf", "oneOf"]) {
    for (const m of list(schema[k])) collectRefs(root, m, guarded, out, seen);
  }
  const inside = (v: unknown) => collectRefs(root, v, true, out, seen);
  for (const k of ["properties", "patternProperties"]) {
    if (isObj(schema[k])) Object.values(schema[k] as Obj).forEach(inside);
  }
  for (const k of ["additionalProperties", "items", "prefixItems", "additionalItems"]) {
    const v = schema[k];
    if (Array.isArray(v)) v.forEach(inside);
    else inside(v);
  }
}

function reachableFrom(graph: Map<string, Map<string, boolean>>, from: string): Set<string> {
  return reachable((k) => [...(graph.get(k)?.keys() ?? [])], from, true);
}

function reachable(next: (k: string) => string[], from: string, self = false): Set<string> {
  const seen = new Set<string>(self ? [from] : []);
  const todo = [...next(from)];
  while (todo.length > 0) {
    const k = todo.pop()!;
    if (seen.has(k)) continue;
    seen.add(k);
    todo.push(...next(k));
  }
  return seen;
}

/** JSON with object keys sorted, so equal schemas give equal text. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (isObj(value)) {
    const keys = Object.keys(value).sort(compare);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
