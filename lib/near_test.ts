import assert from "node:assert/strict";
import { didYouMean, editDistance, nearest } from "./near.ts";

Deno.test("editDistance() counts a transposition as one change", () => {
  assert.equal(editDistance("@entyr", "@entry"), 1);
  assert.equal(editDistance("status", "status"), 0);
  assert.equal(editDistance("kitten", "sitting"), 3);
});

Deno.test("nearest() offers only plausible typos", () => {
  assert.equal(nearest("stauts", ["status", "stop", "start"]), "status");
  assert.equal(nearest("completely-different", ["status", "stop"]), undefined);
  assert.equal(didYouMean("--jsn", ["--json"]), ': did you mean "--json"?');
});
