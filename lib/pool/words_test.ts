import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { typeWords } from "./words.ts";

const SCHEMA = {
  type: "object",
  properties: {
    s: { type: "string" },
    n: { type: "number" },
    i: { type: "integer" },
    b: { type: "boolean" },
    z: { type: "null" },
    o: { type: "object" },
    a: { type: "array" },
    sn: { type: ["string", "null"] },
    ni: { type: ["integer", "string"] },
    e: { enum: ["x", "y"] },
    en: { enum: [1, 2] },
    u: { anyOf: [{ type: "integer" }, { type: "boolean" }] },
    constructor: { type: "string" },
    // Computed: a literal `__proto__:` would set the prototype instead of a property.
    ["__proto__"]: { type: "string" },
  },
};

const typed = (...words: string[]) => typeWords(SCHEMA, words, "fx.tool");

function fails(words: string[], pattern: RegExp): void {
  assert.throws(() => typeWords(SCHEMA, words, "fx.tool"), (e: unknown) => {
    assert.ok(e instanceof McpxError);
    assert.equal(e.code, "INVALID_ARGUMENTS");
    assert.match(e.message, pattern);
    assert.ok(!e.message.includes("\n"));
    return true;
  });
}

Deno.test("typeWords() gives a string property the text exactly as typed", () => {
  for (
    const text of [
      "12345678901234567890",
      "1.50",
      "-0",
      '"quoted"',
      "null",
      "true",
      "{}",
      "",
      "a=b",
    ]
  ) {
    assert.equal(typed(`s=${text}`).s, text);
  }
});

Deno.test("typeWords() reads number, integer, boolean, null, object and array properties as JSON", () => {
  const out = typed("n=1.50", "i=-7", "b=false", "z=null", 'o={"k":[1]}', 'a=[1,"2"]');
  assert.equal(out.n, 1.5);
  assert.equal(out.i, -7);
  assert.equal(out.b, false);
  assert.equal(out.z, null);
  assert.deepEqual(out.o, { k: [1] });
  assert.deepEqual(out.a, [1, "2"]);
  assert.equal(typed("n=3").n, 3);
  assert.equal(typed("i=2.0").i, 2);
});

Deno.test("typeWords() names the argument and the type when a value does not read as it", () => {
  fails(["n=abc"], /"n" takes a number, not "abc"/);
  fails(["i=1.5"], /"i" takes an integer, not "1\.5"/);
  fails(["b=yes"], /"b" takes a boolean, not "yes"/);
  fails(["z=nil"], /"z" takes a null, not "nil"/);
  fails(["o=[1]"], /"o" takes an object, not "\[1\]"/);
  fails(["a={}"], /"a" takes an array, not "\{\}"/);
  fails(["u=x"], /"u" takes an integer or a boolean, not "x"/);
  fails(["i=12345678901234567890"], /"i" takes an integer, and 12345678901234567890 is beyond/);
  fails(["n=1e400"], /"n" takes a number, and 1e400 is out of range/);
  assert.match(
    (() => {
      try {
        typed("n=");
      } catch (e) {
        return (e as Error).message;
      }
      return "";
    })(),
    /^Invalid arguments for fx\.tool: "n" takes a number, not ""$/,
  );
});

Deno.test("typeWords() lets a union take a non-string type the JSON fits, else the text", () => {
  assert.equal(typed("sn=null").sn, null);
  assert.equal(typed("sn=1.50").sn, "1.50");
  assert.equal(typed("ni=12").ni, 12);
  assert.equal(typed("ni=1.5").ni, "1.5");
  // Past what a JSON number holds exactly, a string is the exact choice.
  assert.equal(typed("ni=12345678901234567890").ni, "12345678901234567890");
  assert.equal(typed("e=x").e, "x");
  assert.equal(typed("en=2").en, 2);
  assert.equal(typed("u=true").u, true);
});

Deno.test("typeWords() keeps the JSON-else-text rule for a property the schema does not describe", () => {
  const out = typed("extra=3", "text=hello", "list=[1]", 'q="x"');
  assert.equal(out.extra, 3);
  assert.equal(out.text, "hello");
  assert.deepEqual(out.list, [1]);
  assert.equal(out.q, "x");
  const schemaless = typeWords(undefined, ["k=1.50"], "fx.tool");
  assert.equal(schemaless.k, 1.5);
  const open = typeWords(
    { type: "object", additionalProperties: { type: "string" } },
    ["k=1.50"],
    "fx.tool",
  );
  assert.equal(open.k, "1.50");
});

Deno.test("typeWords() keeps constructor and __proto__ as plain arguments", () => {
  const out = typed("constructor=c", "__proto__=p", "toString=t");
  assert.equal(Object.getPrototypeOf(out), null);
  assert.deepEqual(Object.keys(out), ["constructor", "__proto__", "toString"]);
  assert.equal(JSON.stringify(out), '{"constructor":"c","__proto__":"p","toString":"t"}');
  // Nothing leaked onto Object.prototype or into ordinary objects.
  assert.equal(({} as Record<string, unknown>).toString === Object.prototype.toString, true);
  // An undescribed `__proto__` holding JSON is still just a property.
  const plain = typeWords({ type: "object" }, ['__proto__={"polluted":1}'], "fx.tool");
  assert.equal(JSON.stringify(plain), '{"__proto__":{"polluted":1}}');
  assert.equal((plain as { polluted?: unknown }).polluted, undefined);
  assert.equal(({} as { polluted?: unknown }).polluted, undefined);
});

Deno.test("typeWords() layers words over JSON arguments, the last word of a key winning", () => {
  const base = JSON.parse('{"s":"from json","__proto__":"kept","n":1}');
  const out = typeWords(SCHEMA, ["n=2", "n=3"], "fx.tool", base);
  assert.equal(JSON.stringify(out), '{"s":"from json","__proto__":"kept","n":3}');
});

Deno.test("typeWords() refuses a word that is not key=value", () => {
  assert.throws(
    () => typed("novalue"),
    (e: unknown) => e instanceof McpxError && e.code === "USAGE",
  );
  assert.throws(() => typed("=v"), (e: unknown) => e instanceof McpxError && e.code === "USAGE");
});
