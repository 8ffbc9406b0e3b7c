import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import {
  cycles,
  fileGraph,
  folderGraph,
  type Graph,
  lazyImports,
  ROOT,
  sources,
  staticImports,
  upwardArrows,
} from "../tools/import_graph.ts";

const LIB = join(ROOT, "lib");

Deno.test("staticImports() reads import and re-export declarations, type-only ones too", () => {
  const text = [
    'import { a, type B } from "./a.ts";',
    'import type { C } from "../c/c.ts";',
    "import {",
    "  d,",
    "  e,",
    '} from "./de.ts";',
    'import * as f from "./f.ts";',
    'import g, { h } from "./gh.ts";',
    'export { i } from "./i.ts";',
    'export * from "./j.ts";',
    'import "./k.ts";',
    'const l = await load<typeof import("./l.ts")>("./l.ts", import.meta.url);',
    '  // import { m } from "./m.ts";',
  ].join("\n");
  assert.deepEqual(staticImports(text).sort(), [
    "../c/c.ts",
    "./a.ts",
    "./de.ts",
    "./f.ts",
    "./gh.ts",
    "./i.ts",
    "./j.ts",
    "./k.ts",
  ]);
});

Deno.test("cycles() names the imports of each cycle, and finds none in a tree", () => {
  const edge = (a: string, b: string) => [b, `${a} imports ${b}`] as const;
  const graph = new Map([
    ["a", new Map([edge("a", "b"), edge("a", "c")])],
    ["b", new Map([edge("b", "c")])],
    ["d", new Map([edge("d", "a")])],
  ]);
  assert.deepEqual(cycles(graph), []);
  graph.set("c", new Map([edge("c", "a")]));
  graph.set("e", new Map([edge("e", "f")]));
  graph.set("f", new Map([edge("f", "e"), edge("f", "a")]));
  assert.deepEqual(cycles(graph), [
    ["a imports b", "a imports c", "b imports c", "c imports a"],
    ["e imports f", "f imports e"],
  ]);
});

Deno.test("the folders of lib/ import each other without a cycle", () => {
  const found = cycles(folderGraph());
  assert.deepEqual(found, [], found.map((c) => `a cycle:\n  ${c.join("\n  ")}`).join("\n"));
});

Deno.test("lazyImports() reads load() specifiers on one line or several, and no other form", () => {
  const text = [
    'const a = await load<typeof import("./a.ts")>("./a.ts", import.meta.url);',
    "const { b } = await load<",
    '  typeof import("../b/b.ts")',
    '>("../b/b.ts", import.meta.url);',
    'const c = () => load<typeof import("zod")>(',
    '  "zod",',
    "  import.meta.url,",
    ");",
    'import { d } from "./d.ts";',
  ].join("\n");
  assert.deepEqual(lazyImports(text), ["./a.ts", "../b/b.ts", "zod"]);
  assert.throws(
    () => lazyImports("const e = await load<E>(name, import.meta.url);", "lib/e.ts"),
    /lib\/e\.ts: 1 load\(\) whose specifier cannot be read/,
  );
});

Deno.test("upwardArrows() names the imports from a lower floor to a higher one", () => {
  const graph: Graph = new Map([
    ["lib/operations/a.ts", new Map([["lib/surfaces/cli.ts", "a loads cli"]])],
    ["lib/operations/b.ts", new Map([["lib/daemon/client.ts", "b loads client"]])],
    ["lib/scripts/c.ts", new Map([["lib/operations/a.ts", "c loads a"]])],
    ["lib/surfaces/cli.ts", new Map([["lib/operations/a.ts", "cli imports a"]])],
    ["lib/tui/run.ts", new Map([["lib/surfaces/cli.ts", "run loads cli"]])],
  ]);
  assert.deepEqual(upwardArrows(graph), ["a loads cli", "c loads a"]);
});

/** A graph's cycles as one message that counts them and their imports, then lists each. */
function cycleReport(found: string[][], what: string): string {
  const imports = found.reduce((n, c) => n + c.length, 0);
  return `${found.length} cycle(s) of ${what}, ${imports} imports in them:\n` +
    found.map((c) => `a cycle:\n  ${c.join("\n  ")}`).join("\n");
}

Deno.test("the files of lib/ and launcher/ import each other without a cycle, load() included", () => {
  const found = cycles(fileGraph());
  assert.deepEqual(found, [], cycleReport(found, "files"));
});

Deno.test("nothing under lib/operations/ or lib/scripts/ reaches lib/surfaces/ or lib/tui/", () => {
  // The surfaces hand themselves down (Context.host); the scripts sit under the operations too.
  const found = upwardArrows(fileGraph());
  assert.deepEqual(
    found,
    [],
    `${found.length} import(s) run back up a floor:\n  ${found.join("\n  ")}`,
  );
});

Deno.test("nothing under launcher/ imports from lib/: it is what another runtime loads", () => {
  const launcher = join(ROOT, "launcher");
  const offenders: string[] = [];
  for (const file of sources(launcher)) {
    for (const spec of staticImports(Deno.readTextFileSync(file))) {
      const target = spec.startsWith(".") ? resolve(dirname(file), spec) : spec;
      if (!target.startsWith(launcher + "/")) offenders.push(`${relative(ROOT, file)}: ${spec}`);
    }
  }
  assert.deepEqual(offenders, []);
});

/** What importing `path` loads, `import type` left out: repository files and bare specifiers. */
function runtimeGraph(path: string, seen = new Set<string>()): Set<string> {
  if (seen.has(path)) return seen;
  seen.add(path);
  const text = Deno.readTextFileSync(path);
  // Every declaration's text up to its specifier, so that `import type` ones can be told apart.
  const declarations = text.match(/^(?:import|export)\s[^;]*?"[^"]+"/gm) ?? [];
  const loaded = declarations.filter((d) => !/^(?:import|export)\s+type\s/.test(d));
  for (const spec of loaded.flatMap((d) => staticImports(d))) {
    if (spec.startsWith(".")) runtimeGraph(resolve(dirname(path), spec), seen);
    else seen.add(spec);
  }
  return seen;
}

Deno.test("the daemon starts without the MCP surface: /mcp loads it on its first request", () => {
  const graph = runtimeGraph(join(LIB, "surfaces", "daemon.ts"));
  assert.ok(graph.has(join(LIB, "surfaces", "http.ts")), "the walk follows the daemon's imports");
  assert.ok(
    !graph.has(join(LIB, "surfaces", "mcp", "http.ts")),
    "lib/surfaces/mcp/http.ts is loaded lazily",
  );
  assert.ok(!graph.has("@modelcontextprotocol/server"), "so is the SDK's server");
});

Deno.test("connecting to a stdio server loads nothing of the MCP SDK; the SDK path does", () => {
  const mcp = join(LIB, "mcp");
  for (const entry of ["connect.ts", "stdio_connection.ts"]) {
    const sdk = [...runtimeGraph(join(mcp, entry))].filter((m) => m.startsWith("@modelcontext"));
    assert.deepEqual(sdk, [], `lib/mcp/${entry}`);
  }
  assert.ok(runtimeGraph(join(mcp, "stdio_connection.ts")).has(join(mcp, "stdio_transport.ts")));
  assert.ok(runtimeGraph(join(mcp, "sdk_connection.ts")).has("@modelcontextprotocol/client"));
});
