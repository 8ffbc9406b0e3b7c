import assert from "node:assert/strict";
import * as node from "node:path";
import { dirname, join, normalize, resolve } from "./_path.ts";

Deno.test("_path agrees with node:path on the cases mcpx uses", () => {
  const cases = ["/a/b/../c", "a/./b//c/", "/", "/..", "../x/..", "", "/a/b/", "a/../.."];
  for (const c of cases) assert.equal(normalize(c), node.normalize(c).replace(/(.)\/$/, "$1"), c);
  for (const c of ["/a/b", "/a", "a", "/", "a/b/", "/a/b/c.json"]) {
    assert.equal(dirname(c), node.dirname(c), c);
  }
  assert.equal(join("/a", "b", "../c.sock"), node.join("/a", "b", "../c.sock"));
  assert.equal(resolve("/w/d", "x/../y.json"), node.resolve("/w/d", "x/../y.json"));
  assert.equal(resolve("/w/d", "/abs"), "/abs");
});
