import assert from "node:assert/strict";
import { formatArgs, jsonProblem, jsonSafe } from "./values.ts";

Deno.test("jsonProblem() names the first value JSON cannot hold, by path", () => {
  assert.equal(jsonProblem({ a: [1, "x", null, { b: true }], c: undefined }, "result"), undefined);
  assert.equal(jsonProblem(new String("boxed"), "result"), undefined);
  assert.equal(jsonProblem(new Date(0), "result"), undefined);
  assert.match(jsonProblem({ a: new Map() }, "result")!, /^result\.a is a Map: convert it/);
  assert.match(jsonProblem([1, 2n], "result")!, /^result\[1\] is a bigint/);
  assert.match(jsonProblem({ "a-b": NaN }, "result")!, /^result\["a-b"\] is NaN/);
  assert.match(jsonProblem(Promise.resolve(1), "result")!, /forget an await/);
  assert.match(jsonProblem(new Uint8Array(2), "result")!, /binary/);
  assert.match(jsonProblem({ f() {} }, "result")!, /^result\.f is a function \(f\)/);
  const loop: Record<string, unknown> = {};
  loop.self = loop;
  assert.match(jsonProblem(loop, "result")!, /^result\.self refers back to itself/);
});

Deno.test("jsonSafe() keeps what JSON would lose", () => {
  const loop: Record<string, unknown> = { n: 1n };
  loop.self = loop;
  assert.deepEqual(jsonSafe(loop), { n: "1n", self: "[Circular]" });
  assert.deepEqual(jsonSafe(new Map([["a", new Set([1])]])), { a: [1] });
  assert.equal((jsonSafe(new TypeError("x")) as { name: string }).name, "TypeError");
});

Deno.test("formatArgs() substitutes console format specifiers", () => {
  const inspect = (v: unknown) => Deno.inspect(v);
  assert.equal(formatArgs(["%s scored %d", "ana", 7.5], inspect), "ana scored 7.5");
  assert.equal(formatArgs(["%i%% %j", 7.9, { a: 1 }], inspect), '7% {"a":1}');
  assert.equal(formatArgs(["%c styled", "color: red"], inspect), " styled");
  assert.equal(formatArgs(["a", { b: 1 }, 2], inspect), "a { b: 1 } 2");
  assert.equal(formatArgs(["left %s"], inspect), "left %s");
});
