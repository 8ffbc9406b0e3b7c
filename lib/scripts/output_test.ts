import assert from "node:assert/strict";
import { captureIo } from "../io.ts";
import { RunOutput } from "./output.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const RS = "\x1e";
const record = (r: unknown) => `${RS}${JSON.stringify(r)}\n`;

Deno.test("RunOutput renders records, passes other stderr through, and keeps split records whole", () => {
  const io = captureIo();
  const out = new RunOutput({ json: false, io, maxOutput: 0, source: (s) => `<${s}>` });
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
  const out = new RunOutput({ json: true, io, maxOutput: 0, source: (s) => s });
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

Deno.test("RunOutput caps each stream with a marker and describes binary stdout", () => {
  const io = captureIo();
  const out = new RunOutput({ json: false, io, maxOutput: 10, source: (s) => s });
  out.stdout(enc("0123456789abcdef"));
  out.stdout(enc("more"));
  out.finish();
  assert.match(io.stdout(), /^0123456789\n\[mcpx: stdout truncated at 10 bytes/);
  assert.deepEqual(out.truncated, { stdout: 10 });
  assert.match(io.stderr(), /dropped 10 bytes of stdout/);

  const bin = captureIo();
  const b = new RunOutput({ json: false, io: bin, maxOutput: 0, source: (s) => s });
  b.stdout(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 1]));
  b.stdout(new Uint8Array(10));
  b.finish();
  assert.match(bin.stdout(), /^\[mcpx: 16 bytes of JPEG image on stdout, not shown/);
});
