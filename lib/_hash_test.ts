import assert from "node:assert/strict";
import { hash64 } from "./_hash.ts";

Deno.test("hash64 is 16 hex digits and deterministic", () => {
  const text = '{ "mcpServers": {} }';
  assert.match(hash64(text), /^[0-9a-f]{16}$/);
  assert.equal(hash64(text), hash64(text.slice()));
});

Deno.test("hash64 changes with every single-bit flip of every character", () => {
  const codes = Array.from({ length: 151 }, (_, i) => 32 + ((i * 7919) % 20000));
  const text = String.fromCharCode(...codes);
  const seen = new Set([hash64(text)]);
  for (let i = 0; i < codes.length; i++) {
    for (let bit = 0; bit < 16; bit++) {
      const copy = codes.slice();
      copy[i] ^= 1 << bit;
      seen.add(hash64(String.fromCharCode(...copy)));
    }
  }
  assert.equal(seen.size, 1 + codes.length * 16);
});

Deno.test("hash64 tells apart texts that differ only in length", () => {
  const seen = new Set<string>();
  for (let n = 0; n <= 16; n++) seen.add(hash64("\0".repeat(n)));
  assert.equal(seen.size, 17);
});
