import assert from "node:assert/strict";
import { Context } from "../context.ts";
import { captureIo } from "../io.ts";
import { defineOperation } from "../operations/define.ts";
import { buildRouter } from "./http.ts";

const echo = defineOperation<Record<string, unknown>, unknown>({
  id: "test.echo",
  summary: "Answers with its input",
  params: [
    { name: "server", type: "string", required: true, doc: "A name" },
    { name: "arguments", type: "json", doc: "An object" },
    { name: "words", type: "list", doc: "Words" },
  ],
  cli: { command: ["echo"] },
  http: {
    method: "POST",
    path: "/v1/echo",
    also: [{ method: "POST", path: "/v1/echo/{server}", bodyField: "arguments" }],
  },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.unknown(),
  run: (input) => Promise.resolve(input),
});

const router = buildRouter([echo], () => new Context(captureIo()));
const post = async (path: string, body: string) => {
  const res = await router(new Request(`http://x${path}`, { method: "POST", body }));
  return { status: res.status, text: await res.text() };
};

Deno.test("buildRouter() hands JSON arguments on whole, __proto__ and constructor included", async () => {
  const body = '{"server":"s","arguments":{"__proto__":{"a":1},"constructor":"c"},"words":["k=1"]}';
  assert.deepEqual(await post("/v1/echo", body), { status: 200, text: body });
  assert.deepEqual(await post("/v1/echo/s", '{"__proto__":"p"}'), {
    status: 200,
    text: '{"server":"s","arguments":{"__proto__":"p"}}',
  });
});

Deno.test("buildRouter() refuses a top-level __proto__ and a list that is not of strings", async () => {
  const proto = await post("/v1/echo", '{"server":"s","__proto__":{"server":1}}');
  assert.equal(proto.status, 400);
  assert.match(proto.text, /__proto__/);
  const words = await post("/v1/echo", '{"server":"s","words":[1]}');
  assert.equal(words.status, 400);
  const args = await post("/v1/echo", '{"server":"s","arguments":[1]}');
  assert.equal(args.status, 400);
  assert.match(args.text, /expected a JSON object/);
});
