import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import {
  FIELD_POINTS,
  type Hit,
  renderExplain,
  renderHits,
  search,
  type SearchDoc,
} from "./search.ts";

function doc(fn: string, description = "", tags: string[] = []): SearchDoc {
  const [namespace, tool] = fn.split(".");
  return { namespace, tool, fn, description, tags };
}

const DOCS: SearchDoc[] = [
  doc("chrome_devtools.click", "Clicks on the provided element"),
  doc("chrome_devtools.take_screenshot", "Take a screenshot of the page or element."),
  doc("chrome_devtools.take_snapshot", "Take a text snapshot. Prefer it over a screenshot."),
  doc("chrome_devtools.list_pages", "Get a list of pages open in the browser.", ["readOnly"]),
  doc("fff.grep", "Search file contents by regular expression", ["readOnly"]),
  doc("fff.find_files", "Fuzzy file finder; faster than grepping names", ["readOnly"]),
  doc("notes.listPages", "Lists notebook pages", ["readOnly"]),
  doc("notes.delete_page", "Deletes a notebook page", ["destructive"]),
];

const fns = (hits: Hit[]) => hits.map((hit) => hit.fn);

Deno.test("search() finds take_screenshot for screenshot, screenshots and take", () => {
  for (const query of ["screenshot", "screenshots", "take_screenshot", "takeScreenshot"]) {
    assert.equal(search(DOCS, query).hits[0].fn, "chrome_devtools.take_screenshot", query);
  }
  assert.deepEqual(search(DOCS, "clicking").hits.map((h) => h.fn), ["chrome_devtools.click"]);
});

Deno.test("search() scores each field as the reference says", () => {
  const field = (query: string, fn: string) =>
    search(DOCS, query, { explain: true, limit: 100 }).hits.find((hit) => hit.fn === fn)
      ?.explain?.[0];
  assert.deepEqual(field("click", "chrome_devtools.click"), {
    term: "click",
    field: "exact",
    points: 100,
  });
  assert.equal(field("chrome_devtools.click", "chrome_devtools.click")?.field, "exact");
  assert.equal(field("take", "chrome_devtools.take_screenshot")?.field, "prefix");
  assert.equal(field("readonly", "fff.grep")?.field, "tag");
  assert.equal(field("shot", "chrome_devtools.take_screenshot")?.field, "substring");
  assert.equal(field("screenshots", "chrome_devtools.take_screenshot")?.field, "word");
  assert.equal(field("devtools.click", "chrome_devtools.click")?.field, "path");
  assert.equal(field("devtools", "chrome_devtools.click")?.field, "namespace");
  assert.equal(field("element", "chrome_devtools.click")?.field, "description");
  assert.deepEqual(
    Object.values(FIELD_POINTS),
    [100, 60, 50, 40, 40, 30, 20, 10],
  );
});

Deno.test("search() ranks a tool named grep above one whose description mentions grepping", () => {
  const { hits } = search(DOCS, "grep");
  assert.deepEqual(fns(hits), ["fff.grep", "fff.find_files"]);
  assert.deepEqual(hits.map((h) => h.score), [100, 10]);
});

Deno.test("search() returns only tools matching every term when some do", () => {
  const result = search(DOCS, "take screenshot");
  assert.equal(result.mode, "all");
  // take_snapshot has "screenshot" only in its description, so it matches both terms too.
  assert.deepEqual(fns(result.hits), [
    "chrome_devtools.take_screenshot",
    "chrome_devtools.take_snapshot",
  ]);
  assert.equal(result.total, 2);
});

Deno.test("search() falls back to any term when no tool matches them all", () => {
  const result = search(DOCS, "screenshot click");
  assert.equal(result.mode, "any");
  assert.deepEqual(fns(result.hits), [
    "chrome_devtools.click",
    "chrome_devtools.take_screenshot",
    "chrome_devtools.take_snapshot",
  ]);
  assert.deepEqual(result.hits.map((h) => h.score), [100, 40, 10]);
});

Deno.test("search() reports any mode and no hits when nothing matches", () => {
  assert.deepEqual(search(DOCS, "kubernetes"), { hits: [], mode: "any", total: 0 });
});

Deno.test("search() matches camelCase and snake_case names in both directions", () => {
  const both = ["notes.listPages", "chrome_devtools.list_pages"];
  for (const query of ["listPages", "list_pages", "list-pages", "listpages"]) {
    const { hits } = search(DOCS, query, { explain: true });
    assert.deepEqual(new Set(fns(hits).slice(0, 2)), new Set(both), query);
    assert.equal(hits[0].explain?.[0].field, "exact", query);
  }
  const result = search(DOCS, "list pages");
  assert.equal(result.mode, "all");
  assert.deepEqual(fns(result.hits), ["notes.listPages", "chrome_devtools.list_pages"]);
});

Deno.test("search() keeps only tools carrying every --tag, in any case", () => {
  assert.deepEqual(fns(search(DOCS, "page", { tags: ["readOnly"] }).hits), [
    "notes.listPages",
    "chrome_devtools.list_pages",
  ]);
  assert.deepEqual(fns(search(DOCS, "page", { tags: ["DESTRUCTIVE"] }).hits), [
    "notes.delete_page",
  ]);
  assert.deepEqual(search(DOCS, "page", { tags: ["readOnly", "destructive"] }).hits, []);
  // A tag filters exactly: no prefix or stem.
  assert.deepEqual(search(DOCS, "page", { tags: ["read"] }).hits, []);
});

Deno.test("search() caps hits at limit, default 8, and counts them all in total", () => {
  const many = Array.from({ length: 30 }, (_, i) => doc(`ns.tool_${String(i).padStart(2, "0")}`));
  const result = search(many, "tool");
  assert.equal(result.hits.length, 8);
  assert.equal(result.total, 30);
  const two = search(many, "tool", { limit: 2 });
  assert.deepEqual(fns(two.hits), ["ns.tool_00", "ns.tool_01"]);
  assert.equal(two.total, 30);
  for (const limit of [0, -1, 1.5]) {
    assert.throws(
      () => search(many, "tool", { limit }),
      (e) => e instanceof McpxError && e.code === "USAGE",
    );
  }
});

Deno.test("search() explain has one entry per term that sums to the score", () => {
  for (const query of ["screenshot click", "take screenshot", "list pages readonly", "grep"]) {
    for (const hit of search(DOCS, query, { explain: true }).hits) {
      assert.equal(hit.explain?.reduce((sum, p) => sum + p.points, 0), hit.score, hit.fn);
      assert.equal(hit.explain?.length, query.split(" ").length);
    }
  }
  assert.equal(search(DOCS, "click").hits[0].explain, undefined);
});

Deno.test("search() rejects an empty query as a usage error", () => {
  for (const query of ["", "   ", "\t\n", "- ."]) {
    assert.throws(
      () => search(DOCS, query),
      (e) =>
        e instanceof McpxError && e.code === "USAGE" &&
        e.message === "Search needs at least one word" && e.hint !== "",
    );
  }
});

Deno.test("search() ignores case and repeated terms", () => {
  assert.deepEqual(search(DOCS, "CLICK click Click"), search(DOCS, "click"));
});

Deno.test("search() is deterministic whatever the order of its input", () => {
  const expected = search(DOCS, "page", { explain: true });
  // Equal scores: shorter name first, then code-unit order.
  assert.deepEqual(fns(search(DOCS, "notebook").hits), ["notes.listPages", "notes.delete_page"]);
  let seed = 7;
  for (let round = 0; round < 20; round++) {
    const shuffled = [...DOCS].sort(() => (seed = (seed * 48271) % 2147483647) % 3 - 1);
    assert.deepEqual(search(shuffled, "page", { explain: true }), expected);
  }
});

Deno.test("renderHits() clips descriptions so no line passes the width", () => {
  const long = doc("ns.tool", "word ".repeat(60) + "end");
  const out = renderHits(search([long], "tool").hits, { width: 40 });
  assert.equal(out, "FUNCTION  DESCRIPTION\nns.tool   word word word word word word…\n");
  assert.ok(out.split("\n").every((line) => [...line].length <= 40));
  assert.equal(renderHits([]), "");
  const multiline = { ...long, description: "two\n  lines" };
  assert.equal(
    renderHits(search([multiline], "tool").hits),
    "FUNCTION  DESCRIPTION\nns.tool   two lines\n",
  );
});

Deno.test("renderExplain() prints the per-term breakdown", () => {
  const { hits } = search(DOCS, "screenshot click", { explain: true, limit: 2 });
  assert.equal(
    renderExplain(hits),
    [
      "SCORE  FUNCTION                         BREAKDOWN",
      "100    chrome_devtools.click            screenshot no match, click exact 100",
      "40     chrome_devtools.take_screenshot  screenshot substring 40, click no match",
      "",
    ].join("\n"),
  );
});
