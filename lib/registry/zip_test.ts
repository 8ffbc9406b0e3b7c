import assert from "node:assert/strict";
import { deflateRawSync } from "node:zlib";
import { readZip } from "./zip.ts";

/** One archive of `entries`, each stored (method 0) or deflated (8); CRCs left 0 (not read). */
function archive(entries: { name: string; data: Uint8Array; method: 0 | 8 }[]): Uint8Array {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = enc.encode(e.name);
    const body = e.method === 8 ? new Uint8Array(deflateRawSync(e.data)) : e.data;
    const local = new Uint8Array(30 + name.length + body.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(8, e.method, true);
    lv.setUint32(18, body.length, true);
    lv.setUint32(22, e.data.length, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    local.set(body, 30 + name.length);
    const c = new Uint8Array(46 + name.length);
    const cv = new DataView(c.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(10, e.method, true);
    cv.setUint32(20, body.length, true);
    cv.setUint32(24, e.data.length, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(38, (0o100755 << 16) >>> 0, true);
    cv.setUint32(42, offset, true);
    c.set(name, 46);
    parts.push(local);
    central.push(c);
    offset += local.length;
  }
  const size = central.reduce((a, c) => a + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, central.length, true);
  ev.setUint16(10, central.length, true);
  ev.setUint32(12, size, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + size + 22);
  let at = 0;
  for (const p of [...parts, ...central, end]) [out.set(p, at), at += p.length];
  return out;
}

Deno.test("readZip() reads stored and deflated files, and their modes", () => {
  const text = new TextEncoder().encode("x".repeat(1000) + "the end");
  const files = readZip(archive([
    { name: "manifest.json", data: new TextEncoder().encode("{}"), method: 0 },
    { name: "dir/", data: new Uint8Array(), method: 0 },
    { name: "server/run", data: text, method: 8 },
  ]));
  assert.deepEqual(files.map((f) => f.name), ["manifest.json", "server/run"]);
  assert.equal(new TextDecoder().decode(files[0].bytes()), "{}");
  assert.deepEqual(files[1].bytes(), text);
  assert.equal(files[1].mode & 0o777, 0o755);
});

Deno.test("readZip() refuses what is not an archive it reads, saying why", () => {
  assert.throws(() => readZip(new TextEncoder().encode("<html>not a zip</html>")), /not a zip/);
  const cut = archive([{ name: "a", data: new TextEncoder().encode("abc"), method: 0 }]);
  new DataView(cut.buffer).setUint16(8, 12, true); // the local header's method
  const central = cut.length - 22 - 47;
  new DataView(cut.buffer).setUint16(central + 10, 12, true);
  assert.throws(() => readZip(cut), /compressed with method 12/);
});

Deno.test("readZip() stops a file that inflates past the size its directory says (a zip bomb)", () => {
  const zeros = new Uint8Array(64 * 1024 * 1024);
  const bomb = archive([{ name: "bomb", data: zeros, method: 8 }]);
  const central = bomb.length - 22 - 46 - 4;
  new DataView(bomb.buffer).setUint32(central + 24, 10, true); // says 10 bytes unpacked
  const [file] = readZip(bomb);
  assert.throws(() => file.bytes(), /inflates to more than the 10 bytes/);
  const big = archive([{ name: "big", data: new Uint8Array(10), method: 8 }]);
  new DataView(big.buffer).setUint32(big.length - 22 - 46 - 3 + 24, 0xfffffff0, true);
  assert.throws(() => readZip(big), /more than the 1073741824 bytes unpacked/);
});
