import assert from "node:assert/strict";
import { join } from "node:path";
import { Context } from "../context.ts";
import { McpxError } from "../errors.ts";
import { captureIo } from "../io.ts";
import { parseCallWords, toolsCall } from "./tool_ops.ts";

const usage = (words: string[], re: RegExp) =>
  assert.throws(
    () => parseCallWords(words),
    (e: unknown) => e instanceof McpxError && e.code === "USAGE" && re.test(e.message),
  );

Deno.test("parseCallWords() sends key=value words as typed, for the daemon to type", () => {
  assert.deepEqual(parseCallWords(["fx.echo", "s=1.50", 'q="x"', "n=null", "e="]), {
    server: "fx",
    tool: "echo",
    words: ["s=1.50", 'q="x"', "n=null", "e="],
  });
  assert.deepEqual(parseCallWords(["fx.echo", '{"constructor":1}']), {
    server: "fx",
    tool: "echo",
    arguments: { constructor: 1 },
  });
  assert.deepEqual(parseCallWords(["fx.echo"]), { server: "fx", tool: "echo" });
  usage(["fx.echo", "word"], /"word" is neither a JSON object, - \(JSON on stdin\), @file nor/);
  usage(["fx.echo", "{bad"], /^The arguments are not valid JSON/);
  usage(["fx.echo", "[1]"], /neither/);
  // A bare tool name is for an ad-hoc server (--stdio, --url): the request refuses it otherwise
  // (tests/e2e/adhoc_test.ts).
  assert.deepEqual(parseCallWords(["echo"]), { server: "", tool: "echo" });
  usage(["fx."], /is not <namespace\.tool>/);
  usage([".echo"], /is not <namespace\.tool>/);
});

Deno.test("toolsCall's command reads - from stdin and @file from the working directory", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mcpx-tool-ops-" });
  try {
    await Deno.writeTextFile(join(dir, "a.json"), '{"__proto__":"p","n":1}');
    const request = toolsCall.cli.request!;
    const fromFile = await request(
      parseCallWords(["fx.echo", "@a.json"]),
      new Context(captureIo({ cwd: dir })),
    );
    assert.equal(JSON.stringify(fromFile.arguments), '{"__proto__":"p","n":1}');
    assert.equal(fromFile.raw, true);
    const fromStdin = await request(
      parseCallWords(["fx.echo", "-"]),
      new Context(captureIo({ cwd: dir, stdin: '{"k":"v"}' })),
    );
    assert.deepEqual(fromStdin.arguments, { k: "v" });
    assert.deepEqual(Object.keys(fromStdin), ["server", "tool", "arguments", "raw"]);
    const fails = async (words: string[], stdin: string, re: RegExp) =>
      await assert.rejects(
        async () =>
          await request(parseCallWords(words), new Context(captureIo({ cwd: dir, stdin }))),
        (e: unknown) => e instanceof McpxError && e.code === "USAGE" && re.test(e.message),
      );
    await fails(["fx.echo", "@none.json"], "", /the arguments file "none\.json": no such file/);
    await fails(["fx.echo", "-"], "", /arguments on stdin are not valid JSON/);
    await fails(["fx.echo", "-"], '"text"', /arguments on stdin must be one JSON object/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
