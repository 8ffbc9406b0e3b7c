import assert from "node:assert/strict";
import { cellText, columnWidths, detailLines, fit, wrapLines } from "./format.ts";

Deno.test("detailLines() writes a multi-line string as its lines, indented, and nests objects", () => {
  const lines = detailLines({
    msg: "failed",
    stack: "Error: boom\n  at one (a.ts:1)",
    attrs: { path: "/x", list: [1, "two\nlines"] },
    empty: {},
  });
  assert.deepEqual(lines, [
    "msg: failed",
    "stack:",
    "    Error: boom",
    "      at one (a.ts:1)",
    "attrs:",
    "  path: /x",
    "  list:",
    "    - [0]: 1",
    "    - [1]:",
    "        two",
    "        lines",
    "empty: {}",
  ]);
});

Deno.test("cellText() keeps a cell on one line and short, whatever the value", () => {
  assert.equal(cellText("a\nb"), "a ↵ b");
  assert.equal(cellText(null), "");
  assert.equal(cellText({ a: 1 }), '{"a":1}');
  const big = cellText({ attr: "x".repeat(1024 * 1024) });
  assert.ok(big.length <= 200, String(big.length));
  assert.ok(big.endsWith("…"));
});

Deno.test("columnWidths() fits the width, narrowing the widest first", () => {
  const w = columnWidths(["a", "bbbb"], [["x".repeat(30), "y".repeat(30)]], 41);
  assert.deepEqual(w, [20, 20]);
  assert.ok(columnWidths(["a", "b", "c"], [["xx", "yy", "zz"]], 2).every((n) => n >= 1));
  const room = columnWidths(["a", "b"], [["x", "y"]], 20);
  assert.equal(room.reduce((a, b) => a + b, 0) + 1, 20);
});

Deno.test("fit() and wrapLines() cut and break to a width", () => {
  assert.equal(fit("abcdef", 4), "abc…");
  assert.equal(fit("ab", 4), "ab  ");
  assert.equal(fit("ab", 0), "");
  assert.deepEqual(wrapLines(["abcdefg"], 3), ["abc", "def", "g"]);
});

Deno.test("wrapLines() breaks at words, under the line's own indentation", () => {
  assert.deepEqual(wrapLines(["  Read the file/directory at path"], 16), [
    "  Read the",
    "  file/directory",
    "  at path",
  ]);
  // A signature's doc comment goes on as a comment.
  assert.deepEqual(wrapLines(["  // Read a file or a directory"], 20), [
    "  // Read a file or",
    "  // a directory",
  ]);
  // A word wider than the line is cut; a line that fits is kept as it is.
  assert.deepEqual(wrapLines(["ab cdefghij", "fits"], 4), ["ab", "cdef", "ghij", "fits"]);
  for (const l of wrapLines(["    deep " + "word ".repeat(30)], 20)) assert.ok(l.length <= 20, l);
});
