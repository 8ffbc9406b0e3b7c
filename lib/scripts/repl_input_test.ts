import { strict as assert } from "node:assert";
import { incomplete, lastWord } from "./repl_input.ts";

Deno.test("incomplete() asks for more while a bracket, template or comment is open", () => {
  for (
    const code of [
      "function f(a: string) {",
      "const x = {",
      "memory.create_entities({ entities: [",
      "`abc",
      "`a ${ {",
      "/* note",
      "if (x) {\n  y();",
    ]
  ) assert.equal(incomplete(code), true, code);
});

Deno.test("incomplete() takes whole statements and mistakes as they are", () => {
  for (
    const code of [
      "1 + 1",
      "const x = { a: [1, 2] }",
      "'a (string' + \"with } brackets\"",
      "`template ${1 + 1} done`",
      "f() // a comment (",
      "/* closed */ x",
      "x)",
      "'cut off\n",
      "",
    ]
  ) assert.equal(incomplete(code), false, code);
});

Deno.test("lastWord() is the identifier chain Tab completes", () => {
  assert.equal(lastWord("await memory.cre"), "memory.cre");
  assert.equal(lastWord("f(mem"), "mem");
  assert.equal(lastWord("x "), "");
});
