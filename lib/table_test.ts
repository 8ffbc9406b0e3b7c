import assert from "node:assert/strict";
import { clip, renderTable } from "./table.ts";

Deno.test("clip() puts text on one line, each run of whitespace one space, as \\s+ does", () => {
  const samples = [
    "  drive a\theadless\n\nChrome  ",
    "a\u00a0b\u2028c\u3000d\ufeffe\r\nf",
    "",
    "   ",
    "one",
  ];
  for (const text of samples) {
    assert.equal(clip(text, 100), text.replace(/\s+/g, " ").trim(), JSON.stringify(text));
  }
  assert.equal(clip("abcdefgh", 5), "abcd…");
  assert.equal(clip("abcde", 5), "abcde");
});

Deno.test("renderTable() pads every column but the last, two spaces apart", () => {
  assert.equal(
    renderTable(["A", "BB"], [["xyz", "1"], ["", "22 "]]),
    "A    BB\nxyz  1\n     22\n",
  );
});
