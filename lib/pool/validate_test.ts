import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { checkKeys, declaredKeys, nearestKey } from "./validate.ts";

const schema = {
  type: "object",
  properties: { message: { type: "string" }, count: { type: "integer" } },
  required: ["message"],
};

Deno.test("checkKeys() refuses an undeclared key, naming the nearest declared one", () => {
  const refused = (args: Record<string, unknown>) => {
    try {
      checkKeys("everything", "echo", schema, args);
    } catch (e) {
      assert.ok(e instanceof McpxError);
      assert.equal(e.code, "INVALID_ARGUMENTS");
      return e.message;
    }
    return undefined;
  };
  assert.equal(
    refused({ msg: "x" }),
    'Invalid arguments for everything.echo: unknown field "msg": did you mean "message"?',
  );
  assert.equal(
    refused({ mesage: "x" }),
    'Invalid arguments for everything.echo: unknown field "mesage": did you mean "message"?',
  );
  assert.equal(
    refused({ message: "x", zzz: 4 }),
    'Invalid arguments for everything.echo: unknown field "zzz"',
  );
  assert.equal(refused({ message: "x", count: 1 }), undefined);
  assert.equal(refused({}), undefined, "a missing field is the validator's to name");
});

Deno.test("declaredKeys() is undefined for a schema that takes keys it does not name", () => {
  assert.deepEqual(declaredKeys(schema), new Set(["message", "count"]));
  assert.equal(declaredKeys({ type: "object" }), undefined, "no properties at all");
  assert.equal(declaredKeys({ ...schema, additionalProperties: true }), undefined);
  assert.equal(declaredKeys({ ...schema, additionalProperties: { type: "string" } }), undefined);
  assert.deepEqual(
    declaredKeys({ ...schema, additionalProperties: false }),
    new Set(["message", "count"]),
  );
  assert.equal(declaredKeys({ ...schema, patternProperties: { "^x": {} } }), undefined);
  assert.equal(declaredKeys({ $ref: "#/$defs/a" }), undefined);
  assert.deepEqual(
    declaredKeys({ anyOf: [{ properties: { a: {} } }, { properties: { b: {} } }] }),
    new Set(["a", "b"]),
  );
  assert.equal(
    declaredKeys({
      properties: { a: {} },
      allOf: [{ properties: { b: {} }, additionalProperties: {} }],
    }),
    undefined,
    "a branch that takes any key",
  );
  assert.deepEqual(
    declaredKeys({ properties: { a: {} }, anyOf: [{ required: ["a"] }] }),
    new Set(["a"]),
  );
});

Deno.test("nearestKey() takes an edit or an abbreviation, never a guess between several", () => {
  assert.equal(nearestKey("mesage", ["message", "count"]), "message");
  assert.equal(nearestKey("msg", ["message", "count"]), "message");
  assert.equal(nearestKey("cnt", ["message", "count"]), "count");
  assert.equal(nearestKey("zzz", ["message", "count"]), undefined);
  assert.equal(nearestKey("p", ["path", "page"]), undefined);
});
