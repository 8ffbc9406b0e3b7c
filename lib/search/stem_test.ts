import assert from "node:assert/strict";
import { stem } from "./stem.ts";
import { splitWords } from "./tokens.ts";
import { randomStrings } from "./_testing.ts";

function assertSameStem(words: string[]): void {
  const stems = words.map(stem);
  assert.ok(stems.every((s) => s === stems[0]), `${words.join(", ")} → ${stems.join(", ")}`);
}

Deno.test("stem() folds plurals: s, es, ies", () => {
  assertSameStem(["screenshot", "screenshots"]);
  assertSameStem(["page", "pages"]);
  assertSameStem(["box", "boxes"]);
  assertSameStem(["match", "matches"]);
  assertSameStem(["class", "classes"]);
  assertSameStem(["query", "queries", "queried", "querying"]);
  assertSameStem(["status", "statuses"]);
});

Deno.test("stem() folds -ing, -ed and -er", () => {
  assertSameStem(["click", "clicks", "clicking", "clicked", "clicker"]);
  assertSameStem(["take", "taking", "takes"]);
  assertSameStem(["navigate", "navigating", "navigated"]);
  assertSameStem(["map", "mapping", "mapped"]);
  assertSameStem(["filter", "filters", "filtering", "filtered"]);
  assertSameStem(["grep", "grepping"]);
  assertSameStem(["fill", "filling", "filled"]);
  assertSameStem(["press", "pressing"]);
});

Deno.test("stem() leaves short words, -ss, -us, -is and non-letters alone", () => {
  for (
    const word of ["is", "us", "bus", "this", "pass", "status", "string", "user", "a11y", "v2"]
  ) {
    assert.equal(stem(word), word);
  }
});

Deno.test("a stem is found in the lowercase text of its word: as a prefix, or with i for a final y", async () => {
  // search() skips splitting a description that holds none of a term's stems this way.
  const texts = ["queries copied studies mapping taking boxes Filtering getHTMLBody a11y v2 TODO"];
  for (const dir of ["chrome_devtools", "everything", "filesystem", "memory"]) {
    const url = new URL(`../../tests/testdata/codegen/${dir}/tools.json`, import.meta.url);
    const data = JSON.parse(await Deno.readTextFile(url));
    for (const tool of data.tools ?? data) {
      texts.push(tool.name, tool.description ?? "");
      for (const p of Object.values(tool.inputSchema?.properties ?? {})) {
        texts.push((p as { description?: string }).description ?? "");
      }
    }
  }
  let checked = 0;
  for (const text of texts) {
    const lower = text.toLowerCase();
    for (const word of splitWords(text)) {
      const s = stem(word);
      const found = lower.includes(s) || (s.endsWith("y") && lower.includes(s.slice(0, -1) + "i"));
      assert.ok(found, `${word} → ${s} in ${JSON.stringify(text)}`);
      checked++;
    }
  }
  assert.ok(checked > 1000, `only ${checked} words`);
});

Deno.test("stem() gives what its rules as regular expressions give", () => {
  const vowel = /[aeiouy]/;
  const drop = (word: string, suffix: string) => {
    if (!word.endsWith(suffix)) return word;
    const rest = word.slice(0, -suffix.length);
    return rest.length >= 3 && vowel.test(rest) ? rest : word;
  };
  const reference = (word: string) => {
    if (!/^[a-z]+$/.test(word)) return word;
    let w = word;
    if (w.length >= 5 && w.endsWith("ies")) w = w.slice(0, -3) + "y";
    else if (w.endsWith("s") && !/(ss|us|is)$/.test(w) && w.length - 1 >= 3) w = w.slice(0, -1);
    if (w.length >= 6 && w.endsWith("ied")) w = w.slice(0, -3) + "y";
    else w = drop(drop(drop(w, "ing"), "ed"), "er");
    if (w.endsWith("e") && w.length - 1 >= 3) w = w.slice(0, -1);
    if (w.length - 1 >= 3 && /([^aeiouylsz])\1$/.test(w)) w = w.slice(0, -1);
    return w;
  };
  const words = [
    ...["", "queries", "copied", "mapping", "pass", "fill", "status", "buzz", "series"],
    ...randomStrings(11, 5000, "aeisdgnrtlyzuA1", 10),
  ];
  for (const w of words) assert.equal(stem(w), reference(w), JSON.stringify(w));
});
