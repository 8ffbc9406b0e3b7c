import assert from "node:assert/strict";
import { hash64 } from "./_hash.ts";

Deno.test("hash64 is 16 hex digits and deterministic", () => {
  const data = new TextEncoder().encode('{ "mcpServers": {} }');
  assert.match(hash64(data), /^[0-9a-f]{16}$/);
  assert.equal(hash64(data), hash64(data.slice()));
});

Deno.test("hash64 changes with every single-bit flip, in every position", () => {
  const data = crypto.getRandomValues(new Uint8Array(301));
  const seen = new Set([hash64(data)]);
  for (let i = 0; i < data.length; i++) {
    for (let bit = 0; bit < 8; bit++) {
      const copy = data.slice();
      copy[i] ^= 1 << bit;
      seen.add(hash64(copy));
    }
  }
  assert.equal(seen.size, 1 + data.length * 8);
});

Deno.test("hash64 tells apart lengths that pad to the same words", () => {
  const seen = new Set<string>();
  for (let n = 0; n <= 16; n++) seen.add(hash64(new Uint8Array(n)));
  assert.equal(seen.size, 17);
});
