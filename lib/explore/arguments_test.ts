import { strict as assert } from "node:assert";
import { answerProblem, argumentsOf, fieldsOf } from "./arguments.ts";

const SCHEMA = {
  type: "object",
  properties: {
    count: { type: "integer", default: 3, description: "How many" },
    mode: { type: "string", enum: ["fast", "slow"], default: "fast" },
    name: { type: "string" },
    tags: { type: "array", items: { type: "string" } },
    ratio: { type: ["number", "null"] },
  },
  required: ["name", "tags"],
};

Deno.test("fieldsOf() puts required properties first, with choices and defaults", () => {
  const fields = fieldsOf(SCHEMA);
  assert.deepEqual(fields.map((f) => [f.name, f.kind, f.required]), [
    ["name", "string", true],
    ["tags", "json", true],
    ["count", "integer", false],
    ["mode", "enum", false],
    ["ratio", "number", false],
  ]);
  assert.equal(fields[2].default, "3");
  assert.deepEqual(fields[3].choices, ["fast", "slow"]);
  assert.equal(fields[3].default, "fast");
  assert.deepEqual(fieldsOf(undefined), []);
});

Deno.test("answerProblem() refuses what the schema cannot take", () => {
  const [name, tags, count] = fieldsOf(SCHEMA);
  assert.equal(answerProblem(name, ""), "name is required");
  assert.equal(answerProblem(count, ""), undefined);
  assert.equal(answerProblem(count, "1.5"), "Type a whole number");
  assert.match(answerProblem(tags, "[oops")!, /JSON/);
  assert.equal(answerProblem(tags, '["a"]'), undefined);
});

Deno.test("argumentsOf() types each answer and leaves skipped ones out", () => {
  const fields = fieldsOf(SCHEMA);
  assert.deepEqual(argumentsOf(fields, ["Ada", '["x"]', "4", "", "0.5"]), {
    name: "Ada",
    tags: ["x"],
    count: 4,
    ratio: 0.5,
  });
});
