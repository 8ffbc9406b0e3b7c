import assert from "node:assert/strict";
import { describeFailure, userLocation } from "./failure.ts";
import { errorFrames, framesOfRendered, installStackTraces } from "./frames.ts";

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

function inner(): never {
  throw new RangeError("too big");
}

Deno.test("describeFailure() points at the innermost user frame, from frames, launcher frames out", () => {
  const restore = installStackTraces({ urls: true });
  try {
    const here = new URL(import.meta.url).pathname;
    const local = { script: here, launcherDir: "/nowhere/launcher" };
    let caught: unknown;
    try {
      inner();
    } catch (e) {
      caught = e;
    }
    const frames = errorFrames(caught);
    assert.equal(frames[0].fn, "inner");
    assert.equal(frames[0].file, here);
    const f = describeFailure(caught, local);
    assert.equal(f.kind, "uncaught");
    assert.equal(f.location?.file, here);
    assert.equal(f.location?.line, frames[0].line);
    assert.equal(f.frames?.[0].fn, "inner");
    // Both forms survive: the string names the same frame the data does.
    assert.match((caught as Error).stack!, /^RangeError: too big\n {4}at inner \(file:\/\//);
    assert.equal(describeFailure("text", ctx).message, 'threw "text"');
    const runtime = [{ file: "node:internal/a.js", line: 1, col: 1, text: "x" }];
    assert.equal(userLocation(runtime, ctx), undefined);
  } finally {
    restore();
  }
});

Deno.test("framesOfRendered() gives the frames behind a stack text just rendered, nothing else", () => {
  const restore = installStackTraces({ urls: true });
  try {
    const holder: { stack?: string } = {};
    Error.captureStackTrace(holder);
    const text = holder.stack!;
    const frames = framesOfRendered(text);
    assert.equal(frames[0].file, new URL(import.meta.url).pathname);
    assert.deepEqual(framesOfRendered(text + " "), []);
  } finally {
    restore();
  }
});
