import assert from "node:assert/strict";
import { EventBus, sseFrame } from "./bus.ts";
import { parseSse, readSse, sseLines } from "./sse.ts";

/** The text of function `name` in `text`, its first line to its closing brace, dedented. */
function functionText(text: string, name: string): string {
  const lines = text.split("\n");
  const start = lines.findIndex((l) =>
    new RegExp(`^\\s*(export )?(async )?function ${name}\\(`).test(l)
  );
  assert.ok(start >= 0, `function ${name} is declared`);
  const indent = /^\s*/.exec(lines[start])![0];
  const end = lines.findIndex((l, i) => i > start && l === `${indent}}`);
  assert.ok(end > start, `function ${name} ends`);
  return lines.slice(start, end + 1).map((l) => l.slice(indent.length)).join("\n")
    .replace(/^export /, "");
}

Deno.test("the client runtime's copy of the /v1/events reader is lib/events/sse.ts's, letter for letter", () => {
  const mine = Deno.readTextFileSync(new URL("./sse.ts", import.meta.url));
  const runtime = Deno.readTextFileSync(new URL("../runtime/client.ts", import.meta.url));
  for (const name of ["sseLines", "readSse"]) {
    assert.equal(functionText(runtime, name), functionText(mine, name), name);
  }
});

/** A connection that hands out `pieces` one read at a time, then closes. */
function fakeConn(pieces: string[]) {
  const encoded = pieces.map((p) => new TextEncoder().encode(p));
  return {
    read(into: Uint8Array): Promise<number | null> {
      const next = encoded.shift();
      if (next === undefined) return Promise.resolve(null);
      into.set(next);
      return Promise.resolve(next.length);
    },
  };
}

Deno.test("readSse() waits for the head, then hands over each data line, split across reads or not", async () => {
  const bus = new EventBus();
  const events = [
    bus.publish("server.started", { server: "a" }),
    bus.publish("server.stopped", { server: "a" }),
  ];
  const frames = events.map(sseFrame).join("");
  const seen: string[] = [];
  const read = await readSse(
    fakeConn([
      "HTTP/1.1 200 OK\r\n",
      "content-type: text/event-stream\r\n\r\n: open\n",
      ...frames.match(/.{1,7}/gs)!,
    ]),
    (data) => seen.push(data),
  );
  assert.ok(read);
  await read.reading;
  assert.deepEqual(seen.map((d) => JSON.parse(d).type), ["server.started", "server.stopped"]);
  assert.deepEqual(parseSse(frames).map((d) => d.type), ["server.started", "server.stopped"]);
  assert.equal(await readSse(fakeConn(["HTTP/1.1 200 OK\r\n"]), () => {}), undefined);
});

Deno.test("sseLines() keeps a line's start for the next piece", () => {
  const seen: string[] = [];
  const push = sseLines((d) => seen.push(d));
  push("id: 1\nda");
  push('ta: {"a"');
  assert.deepEqual(seen, []);
  push(":1}\n\n: ping\n");
  assert.deepEqual(seen, ['{"a":1}']);
});
