import assert from "node:assert/strict";
import { stem } from "./stem.ts";

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
