import assert from "node:assert/strict";
import { readZip } from "./zip.ts";
import { archive } from "../../tests/fixtures/zip.ts";

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
