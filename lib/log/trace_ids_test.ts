import assert from "node:assert/strict";
import { firstId, parseTraceIds, traceAttrs, traceIdsJson } from "./trace_ids.ts";

Deno.test("both spellings give the same ids", () => {
  const json = parseTraceIds('[["session","s-1"],["parent","s-0"],["ticket","T-1","T-2"]]');
  const text = parseTraceIds("session=s-1; parent=s-0\nticket=T-1,T-2");
  assert.deepEqual(json, { session: "s-1", parent: "s-0", ticket: ["T-1", "T-2"] });
  assert.deepEqual(text, json);
  assert.equal(firstId(json, "ticket"), "T-1");
  assert.deepEqual(traceAttrs(json), {
    "id.session": "s-1",
    "id.parent": "s-0",
    "id.ticket": ["T-1", "T-2"],
  });
  assert.deepEqual(parseTraceIds(traceIdsJson(json)), json, "JSON pairs round-trip");
  assert.deepEqual(parseTraceIds(undefined), {});
  assert.deepEqual(parseTraceIds("  "), {});
});

Deno.test("an id may hold = and paths with colons in the JSON spelling", () => {
  assert.deepEqual(parseTraceIds('[["worktree","C:\\\\src=x"]]'), { worktree: "C:\\src=x" });
  assert.deepEqual(parseTraceIds("worktree=/a=b"), { worktree: "/a=b" });
});

Deno.test("malformed lists are refused with the reason", () => {
  for (
    const [bad, why] of [
      ["[1]", /entry 1 is not a list of strings/],
      ['{"a":1}', /is not key=id/],
      ['[["a"]]', /key "a" has no id/],
      ["a=", /key "a" has no id/],
      ["=x", /is not key=id/],
      [`[["k","${"x".repeat(600)}"]]`, /longer than 512/],
      [`[["${"k".repeat(40)}","x"]]`, /is not a lowercase name/],
    ] as const
  ) {
    assert.throws(() => parseTraceIds(bad), (e: Error) => why.test(e.message), bad);
  }
});
