/**
 * The import graphs of the repository's sources, read from their text: what tests/imports_test.ts
 * holds free of cycles and of arrows that run back up, and what a structure script can draw.
 *
 * A graph maps a node to the nodes it imports, each with one import that makes the arrow
 * (`lib/a.ts imports ./b.ts`). The folder graph of lib/ reads static imports (`import type`
 * included); the file graph reads the lazy `load()` specifiers too (lib/_load.ts), which are how
 * the CLI keeps `mcpx ls` cheap and which a static walk never sees.
 */

import { dirname, join, relative, resolve } from "node:path";

/** An arrow per pair of nodes, with one import that makes it. */
export type Graph = Map<string, Map<string, string>>;

/** The repository's root folder. */
export const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");

/** The sources under `dir`: its TypeScript files, tests left out. */
export function* sources(dir: string): Generator<string> {
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

/** The one form of `load()` there is, as tools/build.ts rewrites it: the type and the value. */
const LOAD = /\bload<\s*typeof import\("([^"]+)"\)\s*>\(\s*"([^"]+)",\s*import\.meta\.url,?\s*\)/g;

/**
 * The specifiers a module loads lazily: `load<typeof import("x")>("x", import.meta.url)`.
 * @throws {Error} for a use of `load` in any other form, whose specifier cannot be read.
 */
export function lazyImports(text: string, name = "a module"): string[] {
  const found = [...text.matchAll(LOAD)].map((m) => m[2]);
  const uses = text.match(/\bload</g)?.length ?? 0;
  if (uses !== found.length) {
    throw new Error(`${name}: ${uses - found.length} load() whose specifier cannot be read`);
  }
  return found;
}

/** Adds the arrow `a` → `b`, keeping the first reason given for the pair. */
function addArrow(graph: Graph, a: string, b: string, why: string): void {
  if (!graph.has(a)) graph.set(a, new Map());
  if (!graph.get(a)!.has(b)) graph.get(a)!.set(b, why);
}

/** What `file` imports of the repository, statically and lazily, as paths with how. */
function arrowsOf(file: string): { target: string; why: string }[] {
  const text = Deno.readTextFileSync(file);
  const name = relative(ROOT, file);
  // lib/_load.ts is the loader itself: its `load<T>` is the declaration, not a use.
  const lazy = name === join("lib", "_load.ts") ? [] : lazyImports(text, name);
  return [
    ...staticImports(text).map((spec) => ({ spec, how: "imports" })),
    ...lazy.map((spec) => ({ spec, how: "loads" })),
  ].filter(({ spec }) => spec.startsWith("."))
    .map(({ spec, how }) => ({
      target: resolve(dirname(file), spec),
      why: `${name} ${how} ${spec}`,
    }));
}

/**
 * The file graph of the sources under `dirs` (relative to the repository): static imports,
 * `import type`, re-exports and `load()` specifiers, arrows to files outside `dirs` left out.
 * Nodes are paths relative to the repository (`lib/context.ts`).
 */
export function fileGraph(dirs: readonly string[] = ["lib", "launcher"]): Graph {
  const graph: Graph = new Map();
  const roots = dirs.map((d) => join(ROOT, d) + "/");
  for (const dir of dirs) {
    for (const file of sources(join(ROOT, dir))) {
      const a = relative(ROOT, file);
      graph.set(a, graph.get(a) ?? new Map());
      for (const { target, why } of arrowsOf(file)) {
        if (roots.some((r) => target.startsWith(r))) {
          addArrow(graph, a, relative(ROOT, target), why);
        }
      }
    }
  }
  return graph;
}

/**
 * The folder graph of lib/ from static imports alone (`import type` included): `lib/<folder>`
 * for a file in a folder, the file itself for one at lib/'s top.
 */
export function folderGraph(): Graph {
  const lib = join(ROOT, "lib");
  const nodeOf = (path: string) => "lib/" + relative(lib, path).split("/")[0];
  const graph: Graph = new Map();
  for (const file of sources(lib)) {
    for (const spec of staticImports(Deno.readTextFileSync(file))) {
      if (!spec.startsWith(".")) continue;
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(lib + "/")) continue;
      const [a, b] = [nodeOf(file), nodeOf(target)];
      if (a !== b) addArrow(graph, a, b, `${relative(ROOT, file)} imports ${spec}`);
    }
  }
  return graph;
}

/**
 * The graph's cycles: each group of nodes that reach one another (a strongly connected component
 * of more than one node), as the imports inside it.
 */
export function cycles(graph: Graph): string[][] {
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

/** A floor that must not import another: nothing under `from` imports anything under `to`. */
export interface Downward {
  from: readonly string[];
  to: readonly string[];
}

/**
 * The floors of the house that run one way: the operations and the scripts sit under the
 * surfaces and the browser, which hand themselves down (`Context.host`), and the scripts under
 * the operations.
 */
export const DOWNWARD: readonly Downward[] = [
  { from: ["lib/operations/", "lib/scripts/"], to: ["lib/surfaces/", "lib/tui/"] },
  { from: ["lib/scripts/"], to: ["lib/operations/"] },
];

/** The arrows of a file graph that run back up a floor: each as the import that makes it. */
export function upwardArrows(graph: Graph, rules: readonly Downward[] = DOWNWARD): string[] {
  const under = (path: string, folders: readonly string[]) =>
    folders.some((f) => path.startsWith(f));
  const found: string[] = [];
  for (const [a, targets] of graph) {
    for (const [b, why] of targets) {
      if (rules.some((r) => under(a, r.from) && under(b, r.to))) found.push(why);
    }
  }
  return found.sort();
}
