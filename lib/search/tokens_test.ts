import assert from "node:assert/strict";
import { splitWords } from "./tokens.ts";

Deno.test("splitWords() splits on _, -, . and camelCase alike", () => {
  for (const name of ["listPages", "list_pages", "list-pages", "list.pages", "ListPages"]) {
    assert.deepEqual(splitWords(name), ["list", "pages"], name);
  }
  assert.deepEqual(splitWords("chrome_devtools.take_screenshot"), [
    "chrome",
    "devtools",
    "take",
    "screenshot",
  ]);
});

Deno.test("splitWords() keeps acronyms and digits whole", () => {
  assert.deepEqual(splitWords("getHTMLBody"), ["get", "html", "body"]);
  assert.deepEqual(splitWords("extraHttpHeaders"), ["extra", "http", "headers"]);
  assert.deepEqual(splitWords("the a11y tree (v2)"), ["the", "a11y", "tree", "v2"]);
  assert.deepEqual(splitWords("  --  "), []);
});
