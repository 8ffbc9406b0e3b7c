import assert from "node:assert/strict";
import { ArgumentProblem, buildArgv, inputSchema } from "./argv.ts";
import { checkAdapter, parseAdapters } from "./declare.ts";

const adapter = checkAdapter({
  name: "t",
  command: "prog",
  tools: [{
    name: "go",
    args: ["sub", "--label={label}", "{extra}"],
    params: {
      label: { type: "string", default: "none" },
      extra: { type: "string", repeatable: true },
      n: { type: "integer", flag: "-n", default: "10" },
      verbose: { type: "boolean", flag: "--verbose" },
      tag: { type: "string", flag: "--tag", repeatable: true },
      second: { type: "string", positional: 1 },
      first: { type: "string", positional: 0, enum: ["a", "b"] },
    },
  }],
}, "/x/t.json");
const tool = adapter.tools[0];

Deno.test("argv: holes, flags, booleans as presence, repeats, positionals in order", () => {
  assert.deepEqual(buildArgv(tool, {}), ["sub", "--label=none", "-n", "10"]);
  assert.deepEqual(
    buildArgv(tool, {
      verbose: true,
      tag: ["x", "y"],
      second: "2nd",
      first: "a",
      extra: ["e1", "e 2"],
      n: 3,
    }),
    [
      "sub",
      "--label=none",
      "e1",
      "e 2",
      "-n",
      "3",
      "--verbose",
      "--tag",
      "x",
      "--tag",
      "y",
      "a",
      "2nd",
    ],
  );
  assert.deepEqual(buildArgv(tool, { verbose: false }), ["sub", "--label=none", "-n", "10"]);
});

Deno.test("argv: values are words, verbatim; what was not declared is refused", () => {
  for (const v of ["; rm -rf ~", "$(id)", "`id`", "a\nb"]) {
    assert.deepEqual(buildArgv(tool, { label: v }).slice(0, 2), ["sub", `--label=${v}`]);
    assert.deepEqual(buildArgv(tool, { tag: v }).slice(-2), ["--tag", v]);
  }
  const refused = (args: Record<string, unknown>, message: RegExp) =>
    assert.throws(
      () => buildArgv(tool, args),
      (e: Error) => e instanceof ArgumentProblem && message.test(e.message),
    );
  refused({ output: "/tmp/x" }, /has no parameter "output"/);
  refused({ n: "many" }, /"n" must be an integer/);
  refused({ n: 1.5 }, /"n" must be an integer/);
  refused({ first: "c" }, /"first" must be one of "a", "b"/);
  refused({ second: "--exec=x" }, /would read as an option/);
  refused(
    { extra: ["ok", "--output=/x"] },
    /"extra" is "--output=\/x", which the program would read/,
  );
  refused({ label: ["a", "b"] }, /takes one string, not a list/);
});

Deno.test("argv: the input schema is exactly the params", () => {
  const schema = inputSchema(tool) as {
    properties: Record<string, Record<string, unknown>>;
    additionalProperties: boolean;
  };
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual(Object.keys(schema.properties).sort(), [
    "extra",
    "first",
    "label",
    "n",
    "second",
    "tag",
    "verbose",
  ]);
  assert.deepEqual(schema.properties.n, { type: "integer", default: 10 });
  assert.deepEqual(schema.properties.first, { type: "string", enum: ["a", "b"] });
});

Deno.test("declare: malformed declarations are refused with the field named", () => {
  const bad = (raw: unknown, message: RegExp) =>
    assert.throws(() => checkAdapter(raw, "/x/a.json"), (e: Error) => message.test(e.message));
  bad({ name: "a", tools: [{ name: "x" }] }, /needs "command"/);
  bad({ name: "a", command: "p", tools: [] }, /needs "tools"/);
  bad({ name: "a", command: "p", tools: [{ name: "x", args: ["{y}"] }] }, /the hole \{y\}/);
  bad(
    { name: "a", command: "p", tools: [{ name: "x", params: { b: { type: "boolean" } } }] },
    /a boolean needs a "flag"/,
  );
  bad(
    { name: "a", command: "p", tools: [{ name: "x", params: { b: { type: "float" } } }] },
    /"type" must be one of/,
  );
  bad({
    name: "a",
    command: "p",
    tools: [{ name: "x", params: { b: { flag: "--b", positional: 0 } } }],
  }, /both "flag" and "positional"/);
  bad({ name: "a b", command: "p", tools: [{ name: "x" }] }, /"name" must be a word/);
  // The reference's array form of params reads the same.
  const list = parseAdapters(
    `{ "adapters": [{ "name": "gitx", "command": "git", // comment
       "tools": [{ "name": "log", "args": ["log"], "params": [{ "name": "limit", "flag": "-n", "type": "integer", "default": "10" }] }] }] }`,
    "/x/g.jsonc",
  );
  assert.deepEqual(buildArgv(list[0].tools[0], { limit: 5 }), ["log", "-n", "5"]);
});
