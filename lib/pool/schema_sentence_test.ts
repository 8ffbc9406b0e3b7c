import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { validateArguments } from "./validate.ts";
import { pointTo } from "./schema_sentence.ts";

const SCHEMA = {
  type: "object",
  properties: {
    n: { type: "number", minimum: 1, maximum: 10 },
    i: { type: "integer", exclusiveMinimum: 0 },
    kind: { enum: ["fast", "slow"] },
    name: { type: "string", minLength: 2, maxLength: 4, pattern: "^[a-z]+$" },
    tags: { type: "array", items: { type: "string" }, minItems: 1, uniqueItems: true },
    when: { type: ["string", "null"] },
    deep: { type: "object", properties: { on: { type: "boolean" } } },
  },
};

function message(args: Record<string, unknown>): string {
  try {
    validateArguments("fx", "tool", SCHEMA, args);
  } catch (error) {
    assert.ok(error instanceof McpxError && error.code === "INVALID_ARGUMENTS", String(error));
    return error.message.replace("Invalid arguments for fx.tool: ", "");
  }
  throw new Error(`${JSON.stringify(args)} passed`);
}

Deno.test("validateArguments() says what is wrong as a sentence, not the validator's words", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ n: "2" }, '"n" takes a number, not the string "2"'],
    [{ i: 1.5 }, '"i" takes an integer, not 1.5'],
    [{ n: 0 }, '"n" must be at least 1, not 0'],
    [{ n: 11 }, '"n" must be at most 10, not 11'],
    [{ i: 0 }, '"i" must be more than 0, not 0'],
    [{ kind: "medium" }, '"kind" must be one of "fast" or "slow", not the string "medium"'],
    [{ name: "a" }, '"name" takes at least 2 characters'],
    [{ name: "abcde" }, '"name" takes at most 4 characters'],
    [{ name: "AB" }, '"name" must match the pattern "^[a-z]+$", and the string "AB" does not'],
    [{ tags: [] }, '"tags" takes at least 1 item'],
    [{ tags: ["a", "a"] }, '"tags" takes each item once'],
    [{ tags: [1] }, '"tags[0]" takes a string, not 1'],
    [{ when: 3 }, '"when" takes a string or null, not 3'],
    [{ deep: { on: "yes" } }, '"deep.on" takes a boolean, not the string "yes"'],
  ];
  for (const [args, want] of cases) {
    const got = message(args);
    assert.equal(got, want, JSON.stringify(args));
    assert.doesNotMatch(got, /Instance type|is invalid|Expected/);
  }
});

Deno.test("pointTo() reads a JSON pointer, escapes and all, and misses softly", () => {
  const doc = { properties: { "a/b": { "t~": [5] } } };
  assert.equal(pointTo(doc, "#/properties/a~1b/t~0/0"), 5);
  assert.equal(pointTo(doc, "#/properties/none/type"), undefined);
  assert.equal(pointTo(doc, "#"), doc);
});
