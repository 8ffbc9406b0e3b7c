import assert from "node:assert/strict";
import { LineRing } from "./line_ring.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("LineRing keeps the last lines, oldest first", () => {
  const ring = new LineRing({ maxLines: 3 });
  for (let i = 1; i <= 5; i++) ring.push(bytes(`line ${i}\n`));
  assert.deepEqual(ring.lines(), ["line 3", "line 4", "line 5"]);
});

Deno.test("LineRing joins lines split across chunks and drops carriage returns", () => {
  const ring = new LineRing();
  ring.push(bytes("hel"));
  ring.push(bytes("lo\r\nwor"));
  ring.push(bytes("ld\nlast"));
  assert.deepEqual(ring.lines(), ["hello", "world", "last"]);
  ring.flush();
  assert.deepEqual(ring.lines(), ["hello", "world", "last"]);
});

Deno.test("LineRing cuts an over-long line and marks the cut", () => {
  const ring = new LineRing({ maxLineBytes: 8 });
  ring.push(bytes("0123456789abcdef\nshort\n"));
  assert.deepEqual(ring.lines(), ["01234567…", "short"]);
});

Deno.test("LineRing does not leave half a character where it cuts", () => {
  const ring = new LineRing({ maxLineBytes: 4 });
  ring.push(bytes("abcé\n")); // "é" is two bytes: the cut falls inside it.
  assert.deepEqual(ring.lines(), ["abc…"]);
});

Deno.test("LineRing stays bounded under a flood of one endless line", () => {
  const ring = new LineRing({ maxLines: 2, maxLineBytes: 16 });
  const chunk = new Uint8Array(64 * 1024).fill(0x78);
  for (let i = 0; i < 100; i++) ring.push(chunk);
  assert.deepEqual(ring.lines(), ["x".repeat(16) + "…"]);
});
