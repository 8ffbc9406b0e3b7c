/**
 * One naming rule on every surface (docs/names.md): a server whose tools are named `delete`, `a-b`,
 * `a_b`, `class`, `2fa`, `ünïcode`, `x.y` and `__proto__`, behind a real daemon. `types`, the
 * client module, `search`, `catalog`, `schema` in its four formats, completion, `call`, the
 * `exec` globals and `/v1` must all show the same function names, and every tool must be reached
 * through each (each tool answers with its own real name, so a wrong tool shows).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { namesServer } from "../fixtures/servers.ts";
import { NAMES } from "../fixtures/servers/names.ts";
import { daemonLog, npmServer, Sandbox } from "../_helpers.ts";

/**
 * Real tool name → the function name every surface must show. A computed key, since a plain
 * `__proto__: …` in an object literal sets the prototype (the trap the rule steers clear of).
 */
const FN: Record<string, string> = {
  "delete": "delete_",
  "a-b": "a_b_2",
  "a_b": "a_b",
  "class": "class_",
  "2fa": "_2fa",
  "ünïcode": "ünïcode",
  "x.y": "x_y",
  ["__proto__"]: "__proto___",
};
const FNS = Object.values(FN).sort();
const PATHS = FNS.map((fn) => `names.${fn}`);

/** The function names a block of declarations declares, sorted. */
function declared(text: string): string[] {
  return [...text.matchAll(/^\s*function (\S+)\(/gmu)].map((m) => m[1]).sort();
}

Deno.test("names: every surface shows the same names, and every tool is reached through each", async () => {
  await using box = await Sandbox.create();
  assert.deepEqual(Object.keys(FN).sort(), [...NAMES].sort(), "FN covers the fixture's tools");
  await box.write("work/.mcpx.json", { mcpServers: { names: namesServer() } });
  const refresh = await box.mcpx(["refresh"]);
  assert.equal(refresh.code, 0, refresh.stderr);

  // Discovery, from the cache.
  const types = await box.mcpx(["types", "names"]);
  assert.equal(types.code, 0, types.stderr);
  assert.deepEqual(declared(types.stdout), FNS, "types");
  const catalog = await box.json<{ text: string }>(["catalog", "--budget", "20000"]);
  assert.deepEqual(declared(catalog.text), FNS, "catalog");
  // A hit names the wire name (`tool`) only where it is not the function's name.
  const search = await box.json<{ hits: { fn: string; tool?: string }[] }>(
    ["search", "echoes", "-n", "50"],
  );
  assert.deepEqual(search.hits.map((h) => h.fn).sort(), PATHS, "search");
  for (const hit of search.hits) {
    const wire = hit.tool ?? hit.fn.slice("names.".length);
    assert.equal(hit.fn, `names.${FN[wire]}`, wire);
  }
  const candidates = await box.mcpx(["candidates", "tools"]);
  assert.deepEqual(candidates.stdout.trim().split("\n").sort(), PATHS, "completion");

  const schema = async <T>(format: string) =>
    (await box.json<{ document: T }>(["schema", "--format", format])).document;
  assert.deepEqual(declared(await schema<string>("typescript")), FNS, "schema typescript");
  const jsonSchema = await schema<{ $defs: Record<string, unknown> }>("json-schema");
  assert.deepEqual(Object.keys(jsonSchema.$defs).sort(), PATHS, "schema json-schema");
  const mcp = await schema<{ tools: { name: string }[] }>("mcp");
  assert.deepEqual(mcp.tools.map((t) => t.name).sort(), PATHS, "schema mcp");
  const openapi = await schema<{ paths: Record<string, { post: { operationId: string } }> }>(
    "openapi",
  );
  const routes = Object.keys(openapi.paths).sort();
  assert.deepEqual(
    routes,
    FNS.map((fn) => `/v1/call/names/${encodeURIComponent(fn)}`).sort(),
    "schema openapi",
  );
  assert.deepEqual(
    Object.values(openapi.paths).map((p) => p.post.operationId).sort(),
    FNS.map((fn) => `names_${fn}`).sort(),
  );

  // `mcpx call`, by real name (the first dot splits: `names.x.y` is the tool "x.y") and by the
  // function name the surfaces above show (the mcp and json-schema names are those).
  for (const [real, fn] of Object.entries(FN)) {
    for (const target of new Set([`names.${real}`, `names.${fn}`])) {
      const r = await box.mcpx(["call", target]);
      assert.equal(r.code, 0, `${target}: ${r.stderr}`);
      assert.equal(r.stdout, `${real}\n`, target);
    }
    const one = await box.mcpx(["types", `names.${real}`]);
    assert.deepEqual(declared(one.stdout), [fn], `types names.${real}`);
  }

  // The globals of a program: each namespace, and tools.<ns>.
  const program = `({ keys: [Object.keys(names), Object.keys(tools.names)], ${
    FNS.map((fn) => `${fn}: [String(await names.${fn}()), String(await tools.names.${fn}())]`)
      .join(", ")
  } })`;
  const exec = await box.mcpx(["exec", program]);
  assert.equal(exec.code, 0, exec.stderr);
  const globals = JSON.parse(exec.stdout) as Record<string, string[]>;
  // Beside the tools, each namespace carries its `$` helpers (prompts, resources), which no tool's
  // function name can take.
  const HELPERS = ["$prompt", "$prompts", "$read", "$resources", "$task"];
  assert.deepEqual(
    globals.keys.map((k) => [...k].sort()),
    [[...HELPERS, ...FNS], [...HELPERS, ...FNS]],
    "exec globals",
  );
  for (const [real, fn] of Object.entries(FN)) assert.deepEqual(globals[fn], [real, real], fn);
  // A misspelt function, or a real name that is not the function's, is pointed at the names.
  for (const wrong of ["names.ünïcod()", "names.__proto__()"]) {
    const r = await box.mcpx(["exec", wrong]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /names has no tool ".+"; its tools are .*__proto___.*ünïcode/, wrong);
  }

  // `/v1`: the routes `schema --format openapi` printed, the real names, and /v1/tools/call.
  const health = await box.json<{ socket: string; fingerprint: string }>(["health"]);
  const token = box.daemonToken(health);
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: health.socket } });
  try {
    const v1 = async (path: string, body?: unknown) => {
      const res = await fetch(`http://mcpx${path}`, {
        client,
        method: body === undefined ? "GET" : "POST",
        headers: { "content-type": "application/json", "x-mcpx-token": token },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = await res.json();
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(json)}`);
      return json;
    };
    const real = Object.fromEntries(Object.entries(FN).map(([r, f]) => [f, r]));
    for (const route of routes) {
      const fn = decodeURIComponent(route.slice("/v1/call/names/".length));
      assert.equal((await v1(route, {})).result, real[fn], route);
    }
    for (const name of NAMES) {
      assert.equal((await v1(`/v1/call/names/${encodeURIComponent(name)}`, {})).result, name);
      assert.equal((await v1("/v1/tools/call", { server: "names", tool: FN[name] })).result, name);
    }
    const hits = (await v1("/v1/search?query=echoes&limit=50")).hits as { fn: string }[];
    assert.deepEqual(hits.map((h) => h.fn).sort(), PATHS, "/v1/search");
    assert.deepEqual(declared((await v1("/v1/types/names")).declarations), FNS, "/v1/types");
  } finally {
    client.close();
  }

  // The client module `mcpx client` writes, imported by a script that a plain `deno` type-checks
  // and runs: its keys, its search() and describe(), each tool, and a 6 MB result whole.
  const written = await box.mcpx(["client", "-o", "client/mcpx-client.ts"]);
  assert.equal(written.code, 0, written.stderr);
  await box.write(
    "work/client/use.ts",
    `import tools, { describe, search } from "./mcpx-client.ts";
const big = String(await tools.names.a_b_2({ repeat: 2_000_000 }));
console.log(JSON.stringify({
  keys: Object.keys(tools.names).sort(),
  search: search("echoes", 50).map((h) => h.fn).sort(),
  described: [describe("names.x_y"), describe("names.x.y")],
  big: big === "a-b".repeat(2_000_000) ? big.length : big.slice(0, 100),
  results: { ${FNS.map((fn) => `${fn}: String(await tools.names.${fn}())`).join(", ")} },
}));
`,
  );
  const deno = (args: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args,
      cwd: join(box.root, "work", "client"),
      env: box.env,
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
  const checked = await deno(["check", "--no-config", "--no-lock", "use.ts"]);
  assert.equal(checked.code, 0, new TextDecoder().decode(checked.stderr));
  const ran = await deno(["run", "-A", "--no-config", "--no-lock", "use.ts"]);
  assert.equal(ran.code, 0, new TextDecoder().decode(ran.stderr));
  const out = JSON.parse(new TextDecoder().decode(ran.stdout));
  assert.deepEqual(out.keys, [...HELPERS, ...FNS], "client keys");
  assert.deepEqual(out.search, PATHS, "client search()");
  assert.equal(out.described[0], out.described[1]);
  assert.deepEqual(declared(out.described[0]), ["x_y"]);
  assert.equal(out.big, 6_000_000, "a multi-megabyte result arrives whole");
  for (const [real, fn] of Object.entries(FN)) assert.equal(out.results[fn], real, fn);
});

Deno.test("names: errors, log records and stats name a tool as a user calls it, whichever spelling reached it", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { everything: npmServer("server-everything") },
  });
  // The function name, the server's own name, and a script (whose client sends its own).
  for (const args of [["everything.get_sum", "a=2", "b=3"], ["everything.get-sum", "a=1", "b=1"]]) {
    const r = await box.mcpx(["call", ...args]);
    assert.equal(r.code, 0, r.stderr);
  }
  const script = await box.mcpx(["exec", "return (await everything.get_sum({ a: 4, b: 5 }))"]);
  assert.equal(script.code, 0, script.stderr);

  // An error names the tool as `types` does, whichever spelling was typed.
  const bad = await box.mcpx(["call", "everything.get-sum", "a=two", "b=1"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Invalid arguments for everything\.get_sum: "a" takes a number/);
  assert.doesNotMatch(bad.stderr, /get-sum/);

  // Log records: the name a user calls, the server's beside it.
  const ends = (await daemonLog(box)).filter((r) => r.event === "call.end");
  assert.equal(ends.length, 4, JSON.stringify(ends));
  for (const r of ends) {
    assert.equal(r.tool, "get_sum", JSON.stringify(r));
    assert.equal(r.serverTool, "get-sum");
    assert.equal(r.msg ?? r.message, "everything.get_sum");
  }

  // Stats: one row for one tool.
  const stats = await box.json<{ rows: { server: string; tool: string; calls: number }[] }>([
    "stats",
    "calls",
  ]);
  const rows = stats.rows.filter((r) => r.server === "everything");
  assert.deepEqual(rows.map((r) => [r.tool, r.calls]), [["get_sum", 4]]);
});
