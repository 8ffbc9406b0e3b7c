import assert from "node:assert/strict";
import { splitWords } from "./tokens.ts";
import { randomStrings } from "./_testing.ts";

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

Deno.test("splitWords() splits ASCII text as the Unicode rules do", () => {
  const unicode = (text: string) =>
    text.replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2").replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
      .toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w !== "");
  const alphabet = "aBcXyZ09_-. \tQqHTMLbody";
  for (let n = 0; n < 2000; n++) {
    let text = "";
    for (let i = 0; i < 1 + (n % 17); i++) {
      text += alphabet[(n * 7 + i * 13 + i * i) % alphabet.length];
    }
    assert.deepEqual(splitWords(text), unicode(text), JSON.stringify(text));
  }
  for (const dir of Deno.readDirSync(new URL("../../tests/testdata/codegen", import.meta.url))) {
    if (!dir.isDirectory) continue;
    const file = new URL(`../../tests/testdata/codegen/${dir.name}/tools.json`, import.meta.url);
    const { tools } = JSON.parse(Deno.readTextFileSync(file));
    for (const t of tools as { name: string; description?: string }[]) {
      for (const text of [t.name, t.description ?? ""]) {
        assert.deepEqual(splitWords(text), unicode(text), text);
      }
    }
  }
});

Deno.test("splitWords() keeps non-ASCII letters in their words", () => {
  assert.deepEqual(splitWords("résuméParser"), ["résumé", "parser"]);
  assert.deepEqual(splitWords("größeÄndern"), ["größe", "ändern"]);
});

Deno.test("splitWords() on ASCII splits as the regular expressions it stands for would", () => {
  // The rules as regular expressions: the reference the hand-written pass is held to.
  const reference = (text: string) =>
    text
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replace(/([A-Z])([A-Z][a-z])/g, "$1 $2")
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word !== "");
  const samples = [
    ...["getHTMLBody", "ABCDef", "aBCd", "a1B2C", "AABb", "XAaBb", "v2Api", "__x__"],
    ...randomStrings(7, 3000, "aAbBzZ09_- .:/xXyY", 12),
  ];
  for (const s of samples) assert.deepEqual(splitWords(s), reference(s), JSON.stringify(s));
});
