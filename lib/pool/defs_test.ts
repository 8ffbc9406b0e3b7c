import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { serverDefs } from "./defs.ts";

const config = (mcpServers: Record<string, unknown>, pool: Record<string, unknown> = {}) => ({
  path: "/p/.mcpx.json",
  mcpServers: mcpServers as never,
  pool,
  data: {},
});

Deno.test("serverDefs() layers the pool block under each server's mcpx block", () => {
  const [a, b] = serverDefs(config({
    a: { command: "x", mcpx: { scope: "session", sharing: "exclusive", callTimeout: "5s" } },
    b: { url: "http://127.0.0.1:1/mcp", type: "sse" },
  }, { idleTimeout: "1m", max: 2 }));
  assert.deepEqual(
    [a.pool.scope, a.pool.sharing, a.pool.callTimeoutMs, a.pool.idleTimeoutMs, a.pool.max],
    ["session", "exclusive", 5000, 60_000, 2],
  );
  assert.equal(b.transport, "sse");
  assert.equal(b.pool.scope, "global");
  assert.notEqual(a.identity, b.identity);
});

Deno.test("serverDefs() names the server, the field and the near miss", () => {
  const rejects = (c: ReturnType<typeof config>, re: RegExp) =>
    assert.throws(
      () => serverDefs(c),
      (e: unknown) => e instanceof McpxError && e.code === "CONFIG_INVALID" && re.test(e.message),
    );
  rejects(
    config({ a: { command: "x", mcpx: { scope: "sesion" } } }),
    /Server "a".*"scope" is "sesion".*did you mean "session"\?/,
  );
  rejects(
    config({ a: { command: "x", mcpx: { max: 0 } } }),
    /"max" is 0; expected a whole number of at least 1/,
  );
  rejects(
    config({ a: { command: "x", mcpx: { idleTimout: "1m" } } }),
    /unknown mcpx field "idleTimout": did you mean "idleTimeout"\?/,
  );
  rejects(
    config({ a: { command: "x" } }, { shraing: "shared" }),
    /"pool".*unknown field "shraing": did you mean "sharing"\?/,
  );
  rejects(
    config({ "a-b": { command: "x" }, a_b: { command: "y" } }),
    /namespace "a_b" is also "a-b"'s/,
  );
});

Deno.test("serverDefs() keeps namespaces clear of reserved words and the client's own names", () => {
  const [def] = serverDefs(config({ tools: { command: "x" } }));
  assert.equal(def.namespace, "tools_");
});
