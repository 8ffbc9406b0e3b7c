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
