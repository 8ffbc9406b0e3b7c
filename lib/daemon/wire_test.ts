import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { CALLER_HEADER, decodeCaller, encodeCaller } from "./wire.ts";

Deno.test("decodeCaller() reads what encodeCaller() writes; no header is an unknown caller", () => {
  const caller = {
    cwd: "/w/ünï code",
    pid: 42,
    session: "s 1&2",
    parentSession: "p",
    selection: { profiles: ["web"], strict: true },
    env: { CALLER_TOKEN: "t=1; x" },
  };
  assert.deepEqual(decodeCaller(encodeCaller(caller)), caller);
  assert.deepEqual(decodeCaller(null), {});
});

Deno.test("decodeCaller() refuses a garbled or mistyped header as a usage error", () => {
  for (
    const [header, message] of [
      ["%E0%A4%A", /not URI-encoded JSON/],
      ["%7Bnot", /not URI-encoded JSON/],
      ["null", /not a JSON object/],
      [encodeURIComponent('"s"'), /not a JSON object/],
      [encodeCaller({ session: 7 } as never), /"session" is not a string/],
      [encodeCaller({ selection: [] } as never), /"selection" is not an object/],
      [encodeCaller({ env: ["A"] } as never), /"env" is not an object/],
      [encodeCaller({ env: { A: 1 } } as never), /"env" holds a value that is not text/],
    ] as const
  ) {
    assert.throws(
      () => decodeCaller(header),
      (e) => e instanceof McpxError && e.code === "USAGE" && message.test(e.message),
      header,
    );
  }
});

Deno.test("the client runtime sends the caller under the same header, encoded the same way", () => {
  // lib/runtime/client.ts imports nothing (it is read in as text), so it writes the header itself.
  const runtime = Deno.readTextFileSync(new URL("../runtime/client.ts", import.meta.url));
  const sent = [...runtime.matchAll(/x-mcpx-[a-z]+(?=: \$\{caller\}|": caller)/g)].map((m) => m[0]);
  assert.deepEqual(sent, [CALLER_HEADER, CALLER_HEADER], "the Deno and the Node request");
  assert.match(
    runtime,
    /function callerHeader\((progress\?: string)?\): string \{\n\s*return encodeURIComponent\(JSON\.stringify\(/,
  );
});
