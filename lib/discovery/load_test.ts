import assert from "node:assert/strict";
import { schemaProblem } from "./load.ts";

Deno.test("schemaProblem() names what makes a schema unusable, and passes good ones", () => {
  assert.equal(schemaProblem({ type: "object", properties: { a: { type: "string" } } }), undefined);
  assert.equal(schemaProblem({}), undefined);
  assert.equal(schemaProblem({ type: 5 }), '"type" is 5');
  assert.equal(schemaProblem({ type: ["object", "thing"] }), '"type" is "thing"');
  assert.equal(schemaProblem({ properties: "x" }), '"properties" is not an object');
  assert.equal(schemaProblem({ required: "a" }), '"required" is not an array');
  assert.equal(schemaProblem(null), "it is not an object");
});
