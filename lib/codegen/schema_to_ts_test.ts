import assert from "node:assert/strict";
import { flat } from "./_ts.ts";
import { aliasDeclaration, type JsonSchema, schemaToTs, TypeScope } from "./schema_to_ts.ts";

const ts = (schema: JsonSchema) => schemaToTs(schema);

Deno.test("schemaToTs() maps primitive types; integer is number; formats are ignored", () => {
  assert.equal(ts({ type: "string" }), "string");
  assert.equal(ts({ type: "string", format: "date-time" }), "string");
  assert.equal(ts({ type: "integer" }), "number");
  assert.equal(ts({ type: "number" }), "number");
  assert.equal(ts({ type: "boolean" }), "boolean");
  assert.equal(ts({ type: "null" }), "null");
  assert.equal(ts({ type: "mystery" }), "unknown");
});

Deno.test("schemaToTs() makes unknown of true and {}, never of false", () => {
  assert.equal(ts(true), "unknown");
  assert.equal(ts({}), "unknown");
  assert.equal(ts({ description: "anything" }), "unknown");
  assert.equal(ts(false), "never");
});

Deno.test("schemaToTs() makes literal unions of enum and a literal of const", () => {
  assert.equal(ts({ type: "string", enum: ["a", "b"] }), '"a" | "b"');
  assert.equal(ts({ enum: [1, "x", true, null] }), '1 | "x" | true | null');
  assert.equal(ts({ const: "only" }), '"only"');
  assert.equal(ts({ const: 0 }), "0");
  assert.equal(ts({ enum: [] }), "never");
  assert.equal(ts({ enum: ["a", { b: 1 }] }), "unknown");
});

Deno.test("schemaToTs() quotes string literals the way deno fmt does", () => {
  assert.equal(ts({ const: 'say "hi"' }), `'say "hi"'`);
  assert.equal(ts({ const: "it's" }), `"it's"`);
  assert.equal(ts({ const: `it's "x"` }), `'it\\'s "x"'`);
  assert.equal(ts({ const: `""''` }), `"\\"\\"''"`);
  assert.equal(ts({ const: 'a\n"' }), `'a\\n"'`);
});

Deno.test("schemaToTs() spells nullable every way servers do as `| null`", () => {
  assert.equal(ts({ type: ["string", "null"] }), "string | null");
  assert.equal(ts({ type: "string", nullable: true }), "string | null");
  assert.equal(ts({ anyOf: [{ type: "null" }, { type: "number" }] }), "number | null");
  assert.equal(ts({ oneOf: [{ type: "string" }, { type: "null" }] }), "string | null");
  assert.equal(
    ts({ type: ["null", "object"], additionalProperties: false }),
    "Record<string, never> | null",
  );
});

Deno.test("schemaToTs() makes unions of oneOf/anyOf and intersections of allOf", () => {
  assert.equal(ts({ oneOf: [{ type: "string" }, { type: "number" }] }), "string | number");
  assert.equal(ts({ anyOf: [{ type: "string" }, { type: "string" }] }), "string");
  assert.equal(ts({ anyOf: [{ type: "string" }, {}] }), "unknown");
  assert.equal(
    ts({
      allOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        { type: "object", properties: { b: { type: "number" } } },
      ],
    }),
    "{ a: string } & { b?: number }",
  );
  assert.equal(ts({ allOf: [{ type: "string" }, false] }), "never");
  assert.equal(
    ts({ allOf: [{ anyOf: [{ type: "string" }, { type: "number" }] }, { type: "number" }] }),
    "(string | number) & number",
  );
});

Deno.test("schemaToTs() keeps a bare type beside applicators only when they say nothing", () => {
  // `required`-only branches say nothing a type can, so the object stands alone.
  assert.equal(
    ts({
      type: "object",
      properties: { a: { type: "string" } },
      anyOf: [{ required: ["a"] }, { required: ["b"] }],
    }),
    "{ a?: string }",
  );
  assert.equal(
    ts({
      type: "object",
      anyOf: [{ properties: { x: { type: "number" } }, required: ["x"] }, { type: "string" }],
    }),
    "{ x: number } | string",
  );
});

Deno.test("schemaToTs() writes objects with sorted, quoted-when-needed, optional members", () => {
  assert.equal(
    ts({
      type: "object",
      properties: {
        z: { type: "string" },
        class: { type: "string" },
        "a-b": { type: "number" },
        "0": { type: "boolean" },
      },
      required: ["z", "class"],
    }),
    '{ "0"?: boolean; "a-b"?: number; class: string; z: string }',
  );
  // A required name with no schema of its own is still there.
  assert.equal(ts({ type: "object", required: ["x"] }), "{ x: unknown }");
  // Listing no properties leaves the object open, unless it is a tool's arguments.
  assert.equal(ts({ type: "object", properties: {} }), "{ [key: string]: unknown }");
});

Deno.test("schemaToTs() turns additionalProperties into an index signature", () => {
  assert.equal(ts({ type: "object" }), "{ [key: string]: unknown }");
  assert.equal(ts({ type: "object", additionalProperties: true }), "{ [key: string]: unknown }");
  assert.equal(ts({ type: "object", additionalProperties: false }), "Record<string, never>");
  assert.equal(
    ts({ type: "object", additionalProperties: { type: "string" } }),
    "{ [key: string]: string }",
  );
  // Properties beside it must fit the signature, so it widens to cover them.
  assert.equal(
    ts({
      type: "object",
      properties: { n: { type: "number" } },
      additionalProperties: { type: "string" },
    }),
    "{ n?: number; [key: string]: string | number | undefined }",
  );
  assert.equal(
    ts({ type: "object", properties: { a: { type: "string" } } }),
    "{ a?: string }",
  );
  assert.equal(
    ts({ patternProperties: { "^x": { type: "string" } }, additionalProperties: false }),
    "{ [key: string]: string }",
  );
});

Deno.test("schemaToTs() writes arrays and tuples", () => {
  assert.equal(ts({ type: "array", items: { type: "string" } }), "string[]");
  assert.equal(ts({ type: "array" }), "unknown[]");
  assert.equal(
    ts({ type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } }),
    "(string | number)[]",
  );
  assert.equal(
    ts({ type: "array", prefixItems: [{ type: "string" }, { type: "number" }], minItems: 2 }),
    "[string, number]",
  );
  assert.equal(
    ts({ prefixItems: [{ type: "string" }], items: { type: "number" }, minItems: 1 }),
    "[string, ...number[]]",
  );
  assert.equal(ts({ prefixItems: [{ type: "string" }] }), "[string?]");
  assert.equal(
    ts({ items: [{ type: "integer" }], additionalItems: { type: "string" }, minItems: 1 }),
    "[number, ...string[]]",
  );
  assert.equal(ts({ type: "array", items: [] }), "[]");
});

Deno.test("schemaToTs() inlines $ref to $defs and definitions and other pointers", () => {
  const point = { type: "object", properties: { x: { type: "number" } }, required: ["x"] };
  assert.equal(
    ts({ $defs: { P: point }, type: "array", items: { $ref: "#/$defs/P" } }),
    "{ x: number }[]",
  );
  assert.equal(
    ts({ definitions: { "a/b": { type: "string" } }, $ref: "#/definitions/a~1b" }),
    "string",
  );
  assert.equal(
    ts({ properties: { a: { type: "boolean" }, b: { $ref: "#/properties/a" } } }),
    "{ a?: boolean; b?: boolean }",
  );
  assert.equal(ts({ $ref: "https://example.com/other.json" }), "unknown");
  assert.equal(ts({ $ref: "#/$defs/missing" }), "unknown");
  assert.equal(ts({ $ref: "#anchor" }), "unknown");
});

Deno.test("schemaToTs() bottoms out recursive references in unknown", () => {
  const tree = {
    $defs: {
      Node: {
        type: "object",
        properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } },
      },
    },
    $ref: "#/$defs/Node",
  };
  assert.equal(ts(tree), "{ children?: unknown[] }");
  assert.equal(ts({ $defs: { S: { $ref: "#/$defs/S" } }, $ref: "#/$defs/S" }), "unknown");
  assert.equal(
    ts({ properties: { next: { $ref: "#" } } }),
    "{ next?: { next?: unknown } }",
  );
});

Deno.test("schemaToTs() bounds references that fan out without repeating", () => {
  // Each level refers to the next twice: inlining it all would double the output per level.
  const defs: Record<string, unknown> = { L20: { type: "string" } };
  for (let i = 0; i < 20; i++) {
    defs[`L${i}`] = {
      type: "object",
      properties: { a: { $ref: `#/$defs/L${i + 1}` }, b: { $ref: `#/$defs/L${i + 1}` } },
    };
  }
  const out = ts({ $defs: defs, $ref: "#/$defs/L0" });
  assert.ok(out.includes("unknown"));
  assert.ok(out.length < 200_000, `${out.length} characters`);
});

Deno.test("schemaToTs() breaks a line that would pass 100 columns as deno fmt does", () => {
  const letters = "abcdefghijklmnopqrstuvwxyz".split("").map((c) => c.repeat(6));
  assert.equal(
    ts({ type: "object", properties: { v: { enum: letters } }, required: ["v"] }),
    `{\n  v:\n${letters.map((l) => `    | "${l}"`).join("\n")};\n}`,
  );
});

Deno.test("schemaToTs() puts descriptions and constraints in JSDoc, escaping */", () => {
  assert.equal(
    ts({
      type: "object",
      properties: {
        n: { type: "integer", description: "How many", minimum: 1, maximum: 5, default: 2 },
        g: { type: "string", description: "Like */ this\nand more" },
        i: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 },
        b: { type: "boolean", default: false, description: "Off" },
        d: { type: "string", default: "x", description: "Defaults to x" },
      },
    }),
    [
      "{",
      "  /** Off */ b?: boolean;",
      "  /** Defaults to x */ d?: string;",
      "  /**",
      "   * Like *\\/ this",
      "   * and more",
      "   */",
      "  g?: string;",
      "  i?: number;",
      "  /** How many. Default: 2. Range: 1 to 5. */ n?: number;",
      "}",
    ].join("\n"),
  );
});

Deno.test("schemaToTs() does not depend on the order of properties in the schema", () => {
  const a = { type: "object", properties: { x: { type: "string" }, y: { type: "number" } } };
  const b = { type: "object", properties: { y: { type: "number" }, x: { type: "string" } } };
  assert.equal(ts(a), ts(b));
});

Deno.test("TypeScope names $defs once, shares equal ones and suffixes clashing ones", () => {
  const p1 = { type: "object", properties: { x: { type: "number" } }, required: ["x"] };
  const p2 = { type: "object", properties: { lat: { type: "number" } }, required: ["lat"] };
  const doc1 = { $defs: { Point: p1 }, properties: { a: { $ref: "#/$defs/Point" } } };
  const doc2 = { $defs: { Point: p1 }, properties: { b: { $ref: "#/$defs/Point" } } };
  const doc3 = { definitions: { Point: p2 }, properties: { c: { $ref: "#/definitions/Point" } } };
  const scope = new TypeScope();
  for (const d of [doc1, doc2, doc3]) scope.add(d);
  assert.deepEqual(scope.allAliases().map((a) => aliasDeclaration(a, "")), [
    "type Point = { x: number };",
    "type Point_2 = { lat: number };",
  ]);
  assert.deepEqual(scope.aliasesFor([doc3]).map((a) => a.name), ["Point_2"]);
});

Deno.test("TypeScope keeps recursion TypeScript can say and cuts the rest to unknown", () => {
  const doc = {
    $defs: {
      Node: {
        type: "object",
        properties: { kids: { type: "array", items: { $ref: "#/$defs/Node" } } },
      },
      Loop: { anyOf: [{ $ref: "#/$defs/Loop" }, { type: "string" }] },
      Json: {
        anyOf: [
          { type: "string" },
          { type: "array", items: { $ref: "#/$defs/Json" } },
          { type: "object", additionalProperties: { $ref: "#/$defs/Json" } },
        ],
      },
      default: { type: "string" },
    },
    properties: {
      n: { $ref: "#/$defs/Node" },
      l: { $ref: "#/$defs/Loop" },
      j: { $ref: "#/$defs/Json" },
      d: { $ref: "#/$defs/default" },
    },
  };
  const scope = new TypeScope();
  scope.add(doc);
  assert.deepEqual(scope.allAliases().map((a) => aliasDeclaration(a, "")), [
    "type Json = string | Json[] | { [key: string]: Json };",
    "type Loop = unknown;",
    "type Node = { kids?: Node[] };",
    "type default_ = string;",
  ]);
});

Deno.test("TypeScope.args() makes an empty or unsaid argument object optional", () => {
  const scope = new TypeScope();
  const args = (s: JsonSchema) => {
    scope.add(s);
    const { type, optional } = scope.args(s);
    return [flat(type), optional];
  };
  assert.deepEqual(args({ type: "object", properties: {} }), ["Record<string, never>", true]);
  assert.deepEqual(args({ type: "object" }), ["Record<string, never>", true]);
  assert.deepEqual(args({}), ["{ [key: string]: unknown }", true]);
  assert.deepEqual(args({ type: "object", additionalProperties: true }), [
    "{ [key: string]: unknown }",
    true,
  ]);
  assert.deepEqual(args({ properties: { a: {} }, required: ["a"] }), ["{ a: unknown }", false]);
  assert.deepEqual(args({ properties: { a: { type: "string" } } }), ["{ a?: string }", true]);
});
