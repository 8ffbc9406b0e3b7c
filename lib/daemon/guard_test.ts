import assert from "node:assert/strict";
import { join } from "../_path.ts";
import { checkSocket, readBounded, readToken, refuseWithoutToken, TOKEN_HEADER } from "./guard.ts";

function streamOf(chunks: number, size: number, pulled: { n: number }): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull(controller) {
      if (pulled.n === chunks) return controller.close();
      pulled.n++;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
}

Deno.test("readBounded() stops reading a streamed body once it passes the bound, and answers 413", async () => {
  const pulled = { n: 0 };
  const req = new Request("http://mcpx/v1/x", {
    method: "POST",
    body: streamOf(100, 1024, pulled),
  });
  const out = await readBounded(req, 10 * 1024);
  assert.ok(out instanceof Response);
  assert.equal(out.status, 413);
  const problem = await out.json();
  assert.equal(problem.code, "REQUEST_TOO_LARGE");
  assert.match(problem.hint, /daemon\.maxRequestBytes/);
  assert.ok(pulled.n <= 12, `read ${pulled.n} chunks of 100`);
});

Deno.test("readBounded() refuses a declared length over the bound before reading any of it", async () => {
  const pulled = { n: 0 };
  const req = new Request("http://mcpx/v1/x", {
    method: "POST",
    body: streamOf(100, 1024, pulled),
    headers: { "content-length": String(100 * 1024) },
  });
  const out = await readBounded(req, 10 * 1024);
  assert.ok(out instanceof Response);
  assert.equal(out.status, 413);
  assert.ok(pulled.n <= 1, `read ${pulled.n} chunks`);
});

Deno.test("readBounded() hands on a body within the bound whole", async () => {
  const req = new Request("http://mcpx/v1/x", { method: "POST", body: '{"a":1}' });
  const out = await readBounded(req, 7);
  assert.ok(out instanceof Request);
  assert.equal(await out.text(), '{"a":1}');
  const get = new Request("http://mcpx/v1/x");
  assert.equal(await readBounded(get, 0), get);
});

Deno.test("refuseWithoutToken() answers 401 unless the header holds the token", async () => {
  const token = "ab".repeat(32);
  const ask = (headers: Record<string, string>) =>
    refuseWithoutToken(new Request("http://mcpx/v1/health", { headers }), token);
  assert.equal(ask({ [TOKEN_HEADER]: token }), undefined);
  for (
    const headers of [{} as Record<string, string>, { [TOKEN_HEADER]: "ab".repeat(31) + "ac" }, {
      [TOKEN_HEADER]: "",
    }]
  ) {
    const res = ask(headers);
    assert.equal(res?.status, 401);
    assert.equal((await res!.json()).code, "UNAUTHORIZED");
  }
});

Deno.test("checkSocket() refuses a directory others may write, unless it is sticky", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const socket = join(dir, "d.sock");
    assert.equal(checkSocket(socket, { fallback: false }), "absent");
    Deno.chmodSync(dir, 0o777);
    assert.throws(
      () => checkSocket(socket, { fallback: false }),
      /^McpxError: Refusing socket directory .*: others may write to it \(mode 0777\)/,
    );
    Deno.chmodSync(dir, 0o1777);
    assert.equal(checkSocket(socket, { fallback: false }), "absent");
    // The fallback directory must be exactly 0700.
    assert.throws(
      () => checkSocket(socket, { fallback: true }),
      /its mode is 1777, not 0700/,
    );
    Deno.chmodSync(dir, 0o700);
    assert.equal(checkSocket(socket, { fallback: true }), "absent");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("readToken() reads a private token file and refuses one others may read", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const file = join(dir, "x.token");
    assert.equal(readToken(file), undefined);
    Deno.writeTextFileSync(file, "secret\n", { mode: 0o600 });
    assert.equal(readToken(file), "secret");
    Deno.chmodSync(file, 0o640);
    assert.throws(() => readToken(file), /others may read or write it \(mode 0640\)/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("checkSocket() refuses a socket below a directory others may write: they could swap the path", () => {
  const top = Deno.makeTempDirSync();
  try {
    const dir = join(top, "daemons");
    Deno.mkdirSync(dir, { mode: 0o700 });
    const socket = join(dir, "d.sock");
    assert.equal(checkSocket(socket, { fallback: false }), "absent");
    Deno.chmodSync(top, 0o777);
    assert.throws(
      () => checkSocket(socket, { fallback: false }),
      new RegExp(`^McpxError: Refusing directory above the socket ${top}: others may write to it`),
    );
    Deno.chmodSync(top, 0o1777);
    assert.equal(checkSocket(socket, { fallback: false }), "absent");
  } finally {
    Deno.removeSync(top, { recursive: true });
  }
});
