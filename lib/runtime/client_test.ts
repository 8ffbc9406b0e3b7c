import assert from "node:assert/strict";
import { join } from "node:path";
import { readResponse } from "./client.ts";
import { wireRequest } from "../daemon/wire.ts";

const encoder = new TextEncoder();

/** A connection that hands out `bytes` in pieces of the given sizes (cycled), then ends. */
function pieces(bytes: Uint8Array, sizes: number[]) {
  let at = 0;
  let i = 0;
  return {
    read(buffer: Uint8Array): Promise<number | null> {
      if (at >= bytes.length) return Promise.resolve(null);
      const n = Math.min(sizes[i++ % sizes.length], buffer.length, bytes.length - at);
      buffer.set(bytes.subarray(at, at + n));
      at += n;
      return Promise.resolve(n);
    },
  };
}

// A body of `size` bytes that is not one byte repeated, so a piece out of place shows.
function body(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = 97 + (i * 7919 + (i >> 11)) % 26;
  return out;
}

function join2(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

Deno.test("readResponse() reads a multi-megabyte body whole, in whatever pieces it comes", async () => {
  const payload = body(5 * 1024 * 1024 + 17);
  const head = encoder.encode(
    `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`,
  );
  // The head split across reads, then pieces of odd sizes; bytes after the body are not read.
  const conn = pieces(join2(join2(head, payload), encoder.encode("junk")), [5, 3, 65536, 777]);
  const answer = await readResponse(conn);
  assert.ok(answer);
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get("content-type"), "application/json");
  assert.equal(answer.body.length, payload.length);
  assert.deepEqual(answer.body, payload);
});

Deno.test("readResponse() joins a chunked body, and says when no head arrived", async () => {
  const payload = body(3 * 1024 * 1024);
  let chunked = "";
  const text = new TextDecoder().decode(payload);
  for (let i = 0; i < text.length; i += 100_003) {
    const part = text.slice(i, i + 100_003);
    chunked += `${part.length.toString(16)}\r\n${part}\r\n`;
  }
  chunked += "0\r\n\r\n";
  const bytes = encoder.encode(
    `HTTP/1.1 404 Not Found\r\ntransfer-encoding: chunked\r\n\r\n${chunked}`,
  );
  const answer = await readResponse(pieces(bytes, [4096, 1]));
  assert.ok(answer);
  assert.equal(answer.status, 404);
  assert.deepEqual(answer.body, payload);

  assert.equal(
    await readResponse(pieces(encoder.encode("HTTP/1.1 200 OK\r\nA: b\r\n"), [3])),
    undefined,
  );
});

Deno.test("wireRequest() and the client runtime read a 20 MB answer from a real socket intact", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "s");
  const big = "x".repeat(20 * 1024 * 1024 - 40) + "end";
  const server = Deno.serve(
    { path, onListen: () => {} },
    () => Response.json({ result: big }),
  );
  try {
    const answer = await wireRequest(path, "GET", "/big");
    assert.equal(answer.status, 200);
    const parsed = JSON.parse(answer.text) as { result: string };
    assert.equal(parsed.result.length, big.length);
    assert.ok(parsed.result === big);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
