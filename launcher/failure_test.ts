import assert from "node:assert/strict";
import { describeFailure, userLocation } from "./failure.ts";

const ctx = { script: "/w/s.ts", launcherDir: "/repo/launcher", client: "/w/mcpx-client.ts" };

Deno.test("describeFailure() reads a syntax error's place as Deno, Node and Bun report it", () => {
  const deno = new TypeError(
    "SyntaxError: Expression expected\n  |\n2 | let y = ;\n  |         ~\n    at file:///w/s.ts:2:9",
  );
  assert.deepEqual(describeFailure(deno, ctx, true), {
    kind: "syntax",
    name: "SyntaxError",
    message: "Expression expected",
    location: { file: "/w/s.ts", line: 2, col: 9 },
  });
  const node = new SyntaxError("Expression expected");
  node.stack =
    "/w/s.ts:2\nconst x = 1;\nlet y = ;\n        ^\n\nSyntaxError: Expression expected\n" +
    "    at parseTypeScript (node:internal/modules/typescript:67:36)";
  assert.deepEqual(describeFailure(node, ctx, true).location, { file: "/w/s.ts", line: 2, col: 9 });
  const bun = Object.assign(Object.create({ name: "BuildMessage" }), {
    message: "Unexpected ;",
    position: { file: "/w/s.ts", line: 2, column: 9 },
  });
  const b = describeFailure(bun, ctx, true);
  assert.equal(b.kind, "syntax");
  assert.deepEqual(b.location, { file: "/w/s.ts", line: 2, col: 9 });
  const missing = new TypeError('Module not found "file:///w/x.ts".\n    at file:///w/s.ts:1:19');
  assert.deepEqual(describeFailure(missing, ctx, true), {
    kind: "load",
    name: "TypeError",
    message: 'Module not found "file:///w/x.ts".',
    location: { file: "/w/s.ts", line: 1, col: 19 },
  });
});

Deno.test("describeFailure() points at the innermost user frame and drops launcher frames", () => {
  const e = new RangeError("too big");
  e.stack = [
    "RangeError: too big",
    "    at call (file:///w/mcpx-client.ts:40:11)",
    "    at check (file:///w/helper.ts:4:9)",
    "    at main (file:///w/s.ts:9:3)",
    "    at launch (file:///repo/launcher/runtime.ts:200:20)",
    "    at ext:core/01_core.js:1:1",
  ].join("\n");
  const f = describeFailure(e, ctx);
  assert.equal(f.kind, "uncaught");
  assert.deepEqual(f.location, { file: "/w/helper.ts", line: 4, col: 9 });
  assert.doesNotMatch(f.stack!, /launcher|ext:core/);
  assert.match(f.stack!, /mcpx-client\.ts/);
  assert.equal(describeFailure("text", ctx).message, 'threw "text"');
  assert.equal(userLocation("Error\n    at x (node:internal/a.js:1:1)", ctx), undefined);
});
