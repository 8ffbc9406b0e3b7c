import assert from "node:assert/strict";
import { join } from "../_path.ts";
import { boundDocument, BoundedStream, boundText, cutAt, jsonHead } from "./bound.ts";
import { SPILL_MAX_AGE_MS, SpillFile } from "./spill.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const bytesOf = (v: unknown) => enc(JSON.stringify(v)).length;

function withDir(fn: (dir: string) => void) {
  const dir = Deno.makeTempDirSync();
  try {
    fn(join(dir, "output"));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("cutAt() ends after the last newline that fits, else never inside a character", () => {
  assert.equal(cutAt(enc("ab\ncd\nef"), 7), 6);
  assert.equal(cutAt(enc("ab"), 7), 2);
  const e = enc("aé"); // a, then two bytes
  assert.equal(cutAt(e, 2), 1);
});

Deno.test("cutAt() shows a long line up to the room, not only the short lines before it", () => {
  // The pretty JSON of one long string: `{`, a newline, then one line longer than the room.
  const pretty = enc(JSON.stringify({ content: "word ".repeat(1000) }, null, 2));
  assert.equal(cutAt(pretty, 1000), 1000);
  assert.equal(cutAt(enc("{\n" + "é".repeat(600)), 1000), 1000, "a character boundary");
  assert.equal(cutAt(enc("{\n" + "é".repeat(600)), 999), 998);
  // A newline in the second half of the room is still where it cuts.
  assert.equal(cutAt(enc("x".repeat(700) + "\n" + "y".repeat(700)), 1000), 701);
});

Deno.test("jsonHead() keeps the shape and the start, and fits the budget", () => {
  const value = { a: "x".repeat(100), b: [1, 2, 3], c: { d: "y".repeat(50) } };
  assert.equal(jsonHead(value, 1000), value);
  assert.equal(jsonHead(value, bytesOf(value)), value, "exactly its size fits");
  assert.notEqual(jsonHead(value, bytesOf(value) - 1), value, "one byte less does not");
  const odd = [null, true, 1.5, 'é\n"', { k: [undefined, {}] }];
  assert.equal(jsonHead(odd, bytesOf(odd)), odd);
  assert.notEqual(jsonHead(odd, bytesOf(odd) - 1), odd);
  for (const budget of [2, 10, 30, 60, 120, 170]) {
    const head = jsonHead(value, budget);
    assert.ok(bytesOf(head) <= budget, `${budget}: ${JSON.stringify(head)}`);
  }
  const head = jsonHead(value, 60) as { a: string; b?: number[] };
  assert.match(head.a, /^x+$/);
  assert.equal(head.b, undefined, "keys after a cut one are left out");
  assert.deepEqual(jsonHead(["ab", "cd", "ef"], 11), ["ab", "cd"]);
  assert.equal(jsonHead("😀😀", 5), "😀".slice(0, 0), "no half of a surrogate pair");
});

Deno.test("boundText() prints the head and a line naming the file that holds all of it", () => {
  withDir((dir) => {
    const text = "line\n".repeat(100);
    assert.deepEqual(boundText(text, { maxBytes: 0, dir, stem: "s" }), { text });
    assert.deepEqual(boundText(text, { maxBytes: 500, dir, stem: "s" }), { text });
    const cut = boundText(text, { maxBytes: 52, dir, stem: "s" });
    assert.equal(
      cut.text,
      `${"line\n".repeat(10)}[mcpx: output cut at 50 of 500 bytes; all 500 B are in ${
        cut.spilled!.path
      }]\n`,
    );
    assert.equal(Deno.readTextFileSync(cut.spilled!.path), text);
    assert.equal(Deno.statSync(cut.spilled!.path).mode! & 0o777, 0o600);
    assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
  });
});

Deno.test("boundDocument() keeps the named fields whole, cuts the rest to fit and marks it", () => {
  withDir((dir) => {
    const doc = {
      content: [{ type: "text", text: "z".repeat(5000) }],
      isError: false,
      mcpx: { a: 1 },
    };
    assert.equal(boundDocument(doc, { maxBytes: 0, dir, stem: "d" }, ["mcpx"]), doc);
    const out = boundDocument(doc, { maxBytes: 1000, dir, stem: "d" }, ["isError", "mcpx"]) as
      & typeof doc
      & {
        truncated: true;
        spilledTo: string;
        bytes: number;
      };
    assert.ok(enc(JSON.stringify(out, null, 2) + "\n").length <= 1000);
    assert.equal(out.truncated, true);
    assert.deepEqual(out.mcpx, { a: 1 });
    assert.equal(out.isError, false);
    assert.match(out.content[0].text, /^z{500,}$/);
    const whole = Deno.readTextFileSync(out.spilledTo);
    assert.deepEqual(JSON.parse(whole), doc);
    assert.equal(out.bytes, enc(whole).length);
  });
});

Deno.test("BoundedStream writes through, then spills everything from the first byte", () => {
  withDir((dir) => {
    let seen = "";
    const stream = new BoundedStream({ maxBytes: 8, dir, stem: "r" }, (t) => (seen += t));
    stream.write("abc\n");
    stream.write("defgh");
    stream.write("ijk");
    const spilled = stream.end()!;
    assert.equal(
      seen,
      `abc\ndefg\n[mcpx: output cut at 8 of 12 bytes; all 12 B are in ${spilled.path}]\n`,
    );
    assert.equal(Deno.readTextFileSync(spilled.path), "abc\ndefghijk");
    let small = "";
    const quiet = new BoundedStream({ maxBytes: 8, dir, stem: "r" }, (t) => (small += t));
    quiet.write("12345678");
    assert.equal(quiet.end(), undefined);
    assert.equal(small, "12345678");
  });
});

Deno.test("SpillFile removes what is more than a day old when it writes the first file", () => {
  withDir((dir) => {
    Deno.mkdirSync(dir, { recursive: true });
    const old = join(dir, "call-old.txt");
    const recent = join(dir, "call-recent.txt");
    Deno.writeTextFileSync(old, "old");
    Deno.writeTextFileSync(recent, "recent");
    const past = new Date(Date.now() - SPILL_MAX_AGE_MS - 60_000);
    Deno.utimeSync(old, past, past);
    const file = new SpillFile(dir, "call-x.y", "txt");
    file.write("new");
    const spilled = file.close();
    assert.throws(() => Deno.statSync(old), Deno.errors.NotFound);
    assert.equal(Deno.readTextFileSync(recent), "recent");
    assert.equal(Deno.readTextFileSync(spilled.path), "new");
    assert.match(spilled.path, /\/call-x\.y-\d{8}T\d{6}Z-[0-9a-f]{6}\.txt$/);
  });
});
