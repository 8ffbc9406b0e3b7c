import { strict as assert } from "node:assert";
import { completeLine, sharedPrefix } from "./prompt.ts";

const WORDS = ["memory", "memory.create_entities", "memory.create_relations", "mcpx"];
const complete = (line: string) => WORDS.map((w) => w).filter((w) => w.startsWith(line));

Deno.test("completeLine() fills in what the candidates share and lists them", () => {
  assert.deepEqual(completeLine("memory.cr", complete), {
    line: "memory.create_",
    shown: ["memory.create_entities", "memory.create_relations"],
  });
  assert.deepEqual(completeLine("memory.create_e", complete), {
    line: "memory.create_entities ",
    shown: [],
  });
  assert.deepEqual(completeLine("xyz", complete), { line: "xyz", shown: [] });
  // Nothing shared beyond what was typed: the line stays, the candidates are listed.
  assert.deepEqual(completeLine("m", complete).line, "m");
  assert.equal(completeLine("m", complete).shown.length, 4);
});

Deno.test("sharedPrefix() is the longest common start", () => {
  assert.equal(sharedPrefix(["abc", "abd", "ab"]), "ab");
  assert.equal(sharedPrefix([]), "");
  assert.equal(sharedPrefix(["same"]), "same");
});
