import assert from "node:assert/strict";
import { join } from "../_path.ts";
import { JsonlWriter, MAX_LINE_BYTES, segments } from "./jsonl.ts";
import type { LogRecord } from "../../launcher/protocol.ts";

const WRITER = new URL("../../tests/fixtures/log_writer.ts", import.meta.url).pathname;

function rec(i: number, fill = ""): LogRecord {
  return { ts: new Date(0).toISOString(), level: "info", msg: `m${i}`, i, fill };
}

function lines(path: string): Record<string, unknown>[] {
  return Deno.readTextFileSync(path).split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

Deno.test("JsonlWriter appends one line per record, 0600, to <stem>.jsonl", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const problems: string[] = [];
    const w = new JsonlWriter(join(dir, "logs"), "runs", {
      maxBytes: 0,
      problem: (l) => problems.push(l),
    });
    for (let i = 0; i < 3; i++) w.append(rec(i));
    w.close();
    w.append(rec(3));
    w.close();
    const path = join(dir, "logs", "runs.jsonl");
    assert.deepEqual(lines(path).map((r) => r.i), [0, 1, 2, 3]);
    assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
    assert.equal(Deno.statSync(join(dir, "logs")).mode! & 0o777, 0o700);
    assert.deepEqual(problems, []);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("JsonlWriter starts <stem>.1.jsonl, .2… past maxBytes and never rewrites a file", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const w = new JsonlWriter(dir, "daemon-x", { maxBytes: 1000, problem: () => {} });
    const sizes: Map<string, number> = new Map();
    for (let i = 0; i < 40; i++) {
      w.append(rec(i, "y".repeat(90)));
      for (const p of segments(dir, "daemon-x")) {
        const size = Deno.statSync(p).size;
        assert.ok(size >= (sizes.get(p) ?? 0), `${p} only grows`);
        sizes.set(p, size);
      }
    }
    w.close();
    const files = segments(dir, "daemon-x");
    assert.ok(files.length >= 4, files.join(" "));
    assert.deepEqual(
      files.map((p) => p.split("/").pop()),
      ["daemon-x.jsonl", ...files.slice(1).map((_, k) => `daemon-x.${k + 1}.jsonl`)],
    );
    for (const p of files.slice(0, -1)) {
      const size = Deno.statSync(p).size;
      assert.ok(size >= 1000 && size < 1200, `${p}: ${size}`);
    }
    assert.deepEqual(
      files.flatMap(lines).map((r) => r.i),
      Array.from({ length: 40 }, (_, i) => i),
      "in order, none lost",
    );
    // A new writer carries on in the newest segment.
    const again = new JsonlWriter(dir, "daemon-x", { maxBytes: 1000, problem: () => {} });
    again.append(rec(40));
    again.close();
    assert.equal(lines(segments(dir, "daemon-x").at(-1)!).at(-1)!.i, 40);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("JsonlWriter ends a half-written last line before its first record, and says so once", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = join(dir, "runs.jsonl");
    Deno.writeTextFileSync(path, JSON.stringify(rec(0)) + '\n{"ts": "cut');
    const problems: string[] = [];
    const w = new JsonlWriter(dir, "runs", { maxBytes: 0, problem: (l) => problems.push(l) });
    w.append(rec(1));
    w.append(rec(2));
    w.close();
    assert.equal(problems.length, 1);
    assert.match(problems[0], /^mcpx: the last line of .*runs\.jsonl is not a whole JSON record/);
    const text = Deno.readTextFileSync(path).split("\n");
    assert.deepEqual(text.slice(0, 2), [JSON.stringify(rec(0)), '{"ts": "cut']);
    assert.deepEqual(text.slice(2, 4).map((l) => JSON.parse(l).i), [1, 2]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("JsonlWriter that cannot open its folder says so once and drops records without throwing", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const file = join(dir, "logs");
    Deno.writeTextFileSync(file, "a file where the folder should be");
    const problems: string[] = [];
    const w = new JsonlWriter(file, "runs", { maxBytes: 0, problem: (l) => problems.push(l) });
    for (let i = 0; i < 5; i++) w.append(rec(i));
    w.close();
    assert.equal(problems.length, 1, problems.join("\n"));
    assert.match(
      problems[0],
      /^mcpx: cannot store log records in .*logs: .*records from here on are not kept$/,
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("JsonlWriter cuts a record past MAX_LINE_BYTES down to one whole line, marked truncated", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const w = new JsonlWriter(dir, "runs", { maxBytes: 0, problem: () => {} });
    w.append(rec(0, "z".repeat(MAX_LINE_BYTES * 2)));
    w.append(rec(1));
    w.close();
    const text = Deno.readTextFileSync(join(dir, "runs.jsonl"));
    const [big, small] = text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    assert.ok(text.indexOf("\n") <= MAX_LINE_BYTES);
    assert.equal(big.truncated, true);
    assert.equal(big.i, 0);
    assert.match(big.fill, /^z+…\[cut \d+\]$/);
    assert.equal(small.i, 1);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("JsonlWriter in four processes at once, rotating, loses and interleaves no line", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const count = 400;
    const writers = ["a", "b", "c", "d"].map((tag) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", WRITER, dir, "runs", tag, String(count), String(512 * 1024)],
        stdout: "null",
        stderr: "piped",
      }).output()
    );
    const done = await Promise.all(writers);
    for (const d of done) assert.equal(d.code, 0, new TextDecoder().decode(d.stderr));
    const files = segments(dir, "runs");
    assert.ok(files.length >= 2, "the writers rotated while they wrote");
    const seen = new Map<string, number[]>();
    for (const p of files) {
      const text = Deno.readTextFileSync(p);
      assert.ok(text.endsWith("\n"));
      for (const line of text.split("\n").filter(Boolean)) {
        const r = JSON.parse(line); // an interleaved line would not parse
        assert.equal(r.fill.length, [1, 100, 3000, 5000, 20000][r.seq % 5]);
        const list = seen.get(r.tag) ?? [];
        list.push(r.seq);
        seen.set(r.tag, list);
      }
    }
    for (const tag of ["a", "b", "c", "d"]) {
      assert.deepEqual(seen.get(tag), Array.from({ length: count }, (_, i) => i), tag);
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
