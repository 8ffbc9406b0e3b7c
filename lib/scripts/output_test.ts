import assert from "node:assert/strict";
import { captureIo } from "../io.ts";
import { RunOutput } from "./output.ts";

const enc = (s: string) => new TextEncoder().encode(s);
/** No bound, and a folder nothing is written to unless a test makes it. */
const OFF = { maxBytes: 0, dir: "/nonexistent/mcpx-output", stem: "t" };
const RS = "\x1e";
const record = (r: unknown) => `${RS}${JSON.stringify(r)}\n`;

Deno.test("RunOutput renders records, passes other stderr through, and keeps split records whole", () => {
  const io = captureIo();
  const out = new RunOutput({ json: false, io, bound: OFF, source: (s) => `<${s}>` });
  const line = record({
    ts: new Date().toISOString(),
    level: "warn",
    msg: "careful",
    source: "/a.ts:1:2",
  });
  out.stderr(enc("plain text " + line.slice(0, 10)));
  out.stderr(enc(line.slice(10) + "after\n"));
  out.stderr(
    enc(record({ mcpx: "error", failure: { kind: "uncaught", name: "E", message: "m" } })),
  );
  out.stdout(enc("result\n"));
  out.finish();
  assert.equal(io.stdout(), "result\n");
  assert.match(
    io.stderr(),
    /^plain text \d\d:\d\d:\d\d\.\d{3} WARN {2}careful source=<\/a\.ts:1:2>\nafter\n$/,
  );
  assert.equal(out.failure?.message, "m");
});

Deno.test("RunOutput under --json collects logs, emitted values and the result", () => {
  const io = captureIo();
  const out = new RunOutput({ json: true, io, bound: OFF, source: (s) => s });
  out.stderr(
    enc(record({ ts: "t", level: "info", msg: "hi" }) + record({ mcpx: "emit", value: 1 })),
  );
  out.stderr(enc(record({ mcpx: "result", value: { a: 1 } }) + "raw\n"));
  out.stdout(enc("printed\n"));
  out.finish();
  assert.equal(io.stdout() + io.stderr(), "", "nothing reaches the terminal");
  assert.deepEqual(out.logs, [{ ts: "t", level: "info", msg: "hi" }]);
  assert.deepEqual(out.results, [1]);
  assert.deepEqual([out.hasResult, out.result], [true, { a: 1 }]);
  assert.equal(out.stdoutText, "printed\n");
  assert.equal(out.stderrText, "raw\n");
});

Deno.test("RunOutput holds each stream to the bound, the whole in a file, and saves binary stdout", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const io = captureIo();
    const out = new RunOutput({
      json: false,
      io,
      bound: { maxBytes: 10, dir, stem: "run-t" },
      source: (s) => s,
    });
    out.stdout(enc("0123\n456789abcdef"));
    out.stdout(enc("more"));
    out.stderr(enc("short\n"));
    out.finish();
    const spilled = out.spilled.stdout!;
    assert.equal(
      io.stdout(),
      `0123\n[mcpx: output cut at 5 of 21 bytes; all 21 B are in ${spilled.path}]\n`,
    );
    assert.equal(Deno.readTextFileSync(spilled.path), "0123\n456789abcdefmore");
    assert.equal(Deno.statSync(spilled.path).mode! & 0o777, 0o600);
    assert.equal(io.stderr(), "short\n");
    assert.equal(out.spilled.stderr, undefined);

    const bin = captureIo();
    const b = new RunOutput({
      json: false,
      io: bin,
      bound: { maxBytes: 0, dir, stem: "run-b" },
      source: (s) => s,
    });
    b.stdout(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 1]));
    b.stdout(new Uint8Array(10));
    b.finish();
    const m = /^\[mcpx: 16 bytes of JPEG image on stdout, not shown; saved in (\S+\.jpg)\]\n$/.exec(
      bin.stdout(),
    );
    assert.ok(m, bin.stdout());
    assert.equal(Deno.readFileSync(m[1]).length, 16);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
