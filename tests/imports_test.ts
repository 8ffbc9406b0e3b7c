import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const LIB = join(ROOT, "lib");

function* sources(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) yield* sources(path);
    else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) yield path;
  }
}

/**
 * The specifiers of a module's static import and re-export declarations, `import type` included
 * (what `load()` imports is built at run time and is not a static import).
 */
export function staticImports(text: string): string[] {
  const clause = String.raw`(?:type\s+)?(?:[\w$]+\s*,?\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?)?`;
  const from = new RegExp(String.raw`^(?:import|export)\s+${clause}\s*from\s*"([^"]+)"`, "gm");
  const bare = /^import\s*"([^"]+)"/gm;
  return [...text.matchAll(from), ...text.matchAll(bare)].map((m) => m[1]);
}

/** `lib/<folder>` for a file in a folder of lib/, the file itself for one at lib/'s top. */
function nodeOf(path: string): string {
  const parts = relative(LIB, path).split("/");
  return "lib/" + parts[0];
}

/** The folder graph of lib/: an edge per pair, with one import that makes it. */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sources(LIB)) {
    for (const spec of staticImports(Deno.readTextFileSync(file))) {
      if (!spec.startsWith(".")) continue;
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(LIB + "/")) continue;
      const [a, b] = [nodeOf(file), nodeOf(target)];
      if (a === b) continue;
      if (!graph.has(a)) graph.set(a, new Map());
      if (!graph.get(a)!.has(b)) graph.get(a)!.set(b, `${relative(ROOT, file)} imports ${spec}`);
    }
  }
  return graph;
}

/**
 * The graph's cycles: each group of nodes that reach one another (a strongly connected component
 * of more than one node), as the imports inside it.
 */
function cycles(graph: Map<string, Map<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group = stack.splice(stack.indexOf(node));
    if (group.length > 1) groups.push(group);
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return groups.map((group) =>
    group.flatMap((a) =>
      [...graph.get(a)?.entries() ?? []].filter(([b]) => group.includes(b)).map(([, why]) => why)
    ).sort()
  );
}

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
