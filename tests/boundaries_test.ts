import assert from "node:assert/strict";
import { join } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;

function* sources(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory && e.name !== "testdata") yield* sources(path);
    else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) yield path;
  }
}

Deno.test("only lib/io.ts reads the process environment; everything else is handed it", () => {
  const readers = [...sources(join(ROOT, "lib"))]
    .filter((f) => /Deno\.env\b/.test(Deno.readTextFileSync(f)))
    .map((f) => f.slice(ROOT.length));
  assert.deepEqual(readers, ["lib/io.ts"]);
});

Deno.test("operation modules import nothing heavy at the top, so cheap commands stay cheap", () => {
  const heavy =
    /^import\s+(?!type\b)[^;]*from\s+"(zod|jsonc-parser|npm:[^"]+|\.\.\/daemon\/server\.ts)"/m;
  const offenders = [...sources(join(ROOT, "lib/operations")), join(ROOT, "lib/surfaces/cli.ts")]
    .filter((f) => heavy.test(Deno.readTextFileSync(f)))
    .map((f) => f.slice(ROOT.length));
  assert.deepEqual(offenders, []);
});

Deno.test("lib/ imports lazily by built specifiers, each typed as the module it loads", () => {
  // A string literal in import("…") is walked by `deno run` before the first line runs.
  const literal = /(?<!typeof )(?<![\w.])import\(\s*"(?!node:)[^"]+"\s*\)/;
  const pair = /load<\s*typeof import\("([^"]+)"\)\s*>\(\s*"([^"]+)"/g;
  const problems: string[] = [];
  for (const f of sources(join(ROOT, "lib"))) {
    const text = Deno.readTextFileSync(f);
    const name = f.slice(ROOT.length);
    if (name !== "lib/_load.ts" && literal.test(text)) problems.push(`${name}: literal import()`);
    for (const [, typed, loaded] of text.matchAll(pair)) {
      if (typed !== loaded) problems.push(`${name}: typed as ${typed}, loads ${loaded}`);
    }
  }
  assert.deepEqual(problems, []);
});
