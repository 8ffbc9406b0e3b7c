import assert from "node:assert/strict";
import { CODEGEN_SOURCES } from "./rendered.ts";

// The modules a module imports for their values (`import type` left out), as file URLs.
function valueImports(url: string): string[] {
  const text = Deno.readTextFileSync(new URL(url));
  const out: string[] = [];
  for (const m of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+"(\.[^"]+)";/gms)) {
    if (!m[1]) out.push(new URL(m[2], url).href);
  }
  return out;
}

Deno.test("CODEGEN_SOURCES names every module the declarations are rendered from", () => {
  // A kept `mcpx types` rendering is stamped with these files: one left out would let an edit
  // of it serve text rendered by the code before the edit.
  const codegen = new URL("../codegen/", import.meta.url).href;
  const reached = new Set<string>();
  const todo = [new URL("../codegen/declarations.ts", import.meta.url).href];
  while (todo.length > 0) {
    const url = todo.pop()!;
    if (reached.has(url)) continue;
    reached.add(url);
    // Inside lib/codegen/ every import is followed; outside it, only the module itself counts.
    if (url.startsWith(codegen)) todo.push(...valueImports(url));
  }
  assert.deepEqual([...reached].sort(), [...CODEGEN_SOURCES].sort());
});
