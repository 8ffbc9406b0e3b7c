import { expandHome, isFile } from "../_fs.ts";
import { dirname, join, resolve } from "../_path.ts";
import { McpxError } from "../errors.ts";
import { nearest } from "../near.ts";

/** The extensions a named script may have, in the order a permitted overlap prefers them. */
export const SCRIPT_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"] as const;
/** Endings that make an argument a path rather than a name. */
const PATH_ENDINGS = /\.(ts|mts|cts|tsx|js|mjs|cjs|jsx)$/;
/** Files in a scripts folder that are not scripts. */
const NOT_SCRIPTS = /^(mcpx-client\.ts|.*\.d\.ts|.*_test\.\w+|[._].*)$/;

/** One place a named script is looked for. */
export interface SearchLocation {
  path: string;
  /** A folder holding `<name>.ts` files, or one file naming one script. */
  kind: "dir" | "file";
  /** Where the location comes from: `project`, `XDG_CONFIG_HOME`, `home`, or `paths.scripts`. */
  from: string;
}

/** A location as it was found on disk. */
export interface ProbedLocation extends SearchLocation {
  state: "missing" | "file" | "dir";
}

/** What the search needs: the caller's folder and variables, and the `paths.scripts` setting. */
export interface SearchOptions {
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** The `paths.scripts` text: comma-separated entries, `-` splicing in the built-in locations. */
  paths: string;
  /** The folder relative entries of `paths` are read against (the config file's, or the cwd). */
  pathsBase: string;
  /** plumbing.allowTsJsOverlap: permit foo.ts beside foo.js (then the order above decides). */
  allowOverlap: boolean;
}

/** A script found for a name or path. */
export interface ResolvedScript {
  path: string;
  name: string;
  /** Found through the search locations (a named script), rather than given as a path. */
  named: boolean;
  /** The search location it was found in, for a named script. */
  location?: SearchLocation;
}

/** One script `mcpx scripts` lists. */
export interface ListedScript {
  name: string;
  path: string;
  description: string;
  /** The nearer script of the same name that wins over this one. */
  shadowedBy?: string;
}

/**
 * The built-in locations: `.mcpx/scripts` in the cwd and each parent up to the root, then
 * `$XDG_CONFIG_HOME/mcpx/scripts`, then `~/.config/mcpx/scripts`.
 */
export function builtinLocations(
  cwd: string,
  env: Readonly<Record<string, string>>,
): SearchLocation[] {
  const out: SearchLocation[] = [];
  for (let dir = cwd;; dir = dirname(dir)) {
    out.push({ path: join(dir, ".mcpx", "scripts"), kind: "dir", from: "project" });
    if (dir === "/" || dir === dirname(dir)) break;
  }
  if (env.XDG_CONFIG_HOME) {
    out.push({
      path: join(env.XDG_CONFIG_HOME, "mcpx", "scripts"),
      kind: "dir",
      from: "XDG_CONFIG_HOME",
    });
  }
  if (env.HOME) {
    out.push({ path: join(env.HOME, ".config", "mcpx", "scripts"), kind: "dir", from: "home" });
  }
  const seen = new Set<string>();
  return out.filter((l) => !seen.has(l.path) && seen.add(l.path));
}

/**
 * The search list: `paths.scripts` when set (a `-` entry splices in the built-in locations; a list
 * without one replaces them), else the built-in locations. Entries ending in a script extension
 * name one file.
 */
export function searchLocations(options: SearchOptions): SearchLocation[] {
  const entries = options.paths.split(",").map((e) => e.trim()).filter(Boolean);
  if (entries.length === 0) return builtinLocations(options.cwd, options.env);
  const out: SearchLocation[] = [];
  for (const entry of entries) {
    if (entry === "-") out.push(...builtinLocations(options.cwd, options.env));
    else {
      const path = resolve(options.pathsBase, expandHome(entry, options.env));
      out.push({ path, kind: PATH_ENDINGS.test(path) ? "file" : "dir", from: "paths.scripts" });
    }
  }
  const seen = new Set<string>();
  return out.filter((l) => !seen.has(l.path) && seen.add(l.path));
}

/**
 * The `paths.scripts` entries that name nothing on disk, each as one warning line: an optional
 * path that is missing is said, not passed over in silence nor made an error.
 */
export function missingEntryWarnings(options: SearchOptions): string[] {
  return searchLocations(options)
    .filter((l) => l.from === "paths.scripts" && stateOf(l.path) === "missing")
    .map((l) => `paths.scripts names "${l.path}", which does not exist: it was skipped`);
}

function stateOf(path: string): ProbedLocation["state"] {
  try {
    return Deno.statSync(path).isDirectory ? "dir" : "file";
  } catch {
    return "missing";
  }
}

/** Whether an argument is a path (has a separator or a script extension) rather than a name. */
export function isPathShaped(word: string): boolean {
  return word.includes("/") || PATH_ENDINGS.test(word);
}

function scriptName(file: string): string {
  const base = file.slice(file.lastIndexOf("/") + 1);
  return base.replace(/\.[^.]+$/, "");
}

/** The script files for `name` in one folder, refusing an overlap unless permitted. */
function candidatesIn(dir: string, name: string, allowOverlap: boolean): string | undefined {
  const found = SCRIPT_EXTENSIONS.map((ext) => join(dir, name + ext)).filter(isFile);
  if (found.length > 1 && !allowOverlap) {
    throw new McpxError(
      "USAGE",
      `Script "${name}" is ambiguous: ${found.join(" and ")} both exist`,
      {
        hint:
          "Remove one (usually the compiled copy), or set plumbing.allowTsJsOverlap to run the .ts one",
      },
    );
  }
  return found[0];
}

function pad(text: string, width: number): string {
  return text.padEnd(width);
}

/** The not-found error: every location searched, marked missing, file or dir. */
function notFound(name: string, probed: ProbedLocation[], known: string[]): McpxError {
  const width = Math.max(...probed.map((p) => p.path.length), 0);
  const rows = probed.map((p) => `  ${pad(p.path, width)}  ${p.state}`).join("\n");
  const near = nearest(name, known);
  return new McpxError(
    "NOT_FOUND",
    `No script named "${name}"${near ? ` (did you mean "${near}"?)` : ""}`,
    {
      hint:
        `Searched, nearest first (missing, file, or dir without it):\n${rows}\nCreate .mcpx/scripts/${name}.ts, pass a path such as ./${name}.ts, or run \`mcpx scripts\``,
      data: { searched: probed },
    },
  );
}

/**
 * Finds the script a `mcpx run` argument means: a path is used verbatim (relative to the
 * caller's folder); a name is looked up in the search locations, nearest first.
 * @throws {McpxError} NOT_FOUND listing what was searched; USAGE for a foo.ts/foo.js overlap.
 */
export function resolveScript(word: string, options: SearchOptions): ResolvedScript {
  if (isPathShaped(word)) {
    const path = resolve(options.cwd, expandHome(word, options.env));
    const state = stateOf(path);
    if (state !== "file") {
      throw new McpxError(
        "NOT_FOUND",
        state === "dir"
          ? `Script "${word}" is a directory (${path}), not a file`
          : `Script file "${word}" does not exist (looked for ${path})`,
        { hint: "Check the path; a bare name (no / and no extension) is searched for instead" },
      );
    }
    return { path, name: scriptName(path), named: false };
  }
  const probed: ProbedLocation[] = [];
  for (const location of searchLocations(options)) {
    const state = stateOf(location.path);
    probed.push({ ...location, state });
    if (location.kind === "file") {
      if (state === "file" && scriptName(location.path) === word) {
        return { path: location.path, name: word, named: true, location };
      }
      continue;
    }
    if (state !== "dir") continue;
    const hit = candidatesIn(location.path, word, options.allowOverlap);
    if (hit) return { path: hit, name: word, named: true, location };
  }
  throw notFound(word, probed, listScripts(options).scripts.map((s) => s.name));
}

/** The first comment line of a script, for `mcpx scripts`; directives are skipped. */
export function description(text: string): string {
  const lines = text.split("\n");
  let inBlock = false;
  for (const raw of lines) {
    const line = raw.trim();
    if (inBlock) {
      const body = line.replace(/\*\/.*$/, "").replace(/^\*+\s?/, "").trim();
      if (body) return body;
      if (line.includes("*/")) inBlock = false;
      continue;
    }
    if (line === "" || line.startsWith("#!")) continue;
    if (line.startsWith("//")) {
      const body = line.replace(/^\/\/+\s?/, "").trim();
      if (body && !/^mcpx:/.test(body)) return body;
      continue;
    }
    if (line.startsWith("/*")) {
      const body = line.replace(/^\/\*+\s?/, "").replace(/\*\/.*$/, "").trim();
      if (body) return body;
      inBlock = !line.includes("*/");
      continue;
    }
    return "";
  }
  return "";
}

/** Every reachable script, nearest first; a later one of the same name is marked shadowed. */
export function listScripts(
  options: SearchOptions,
): { scripts: ListedScript[]; searched: ProbedLocation[] } {
  const scripts: ListedScript[] = [];
  const winner = new Map<string, string>();
  const searched: ProbedLocation[] = [];
  const add = (path: string) => {
    const name = scriptName(path);
    let text = "";
    try {
      text = Deno.readTextFileSync(path).slice(0, 4096);
    } catch { /* unreadable: listed without a description */ }
    const shadowedBy = winner.get(name);
    if (!shadowedBy) winner.set(name, path);
    scripts.push({
      name,
      path,
      description: description(text),
      ...(shadowedBy ? { shadowedBy } : {}),
    });
  };
  for (const location of searchLocations(options)) {
    const state = stateOf(location.path);
    searched.push({ ...location, state });
    if (location.kind === "file") {
      if (state === "file") add(location.path);
      continue;
    }
    if (state !== "dir") continue;
    const files: string[] = [];
    try {
      for (const e of Deno.readDirSync(location.path)) {
        if (!e.isFile && !e.isSymlink) continue;
        if (NOT_SCRIPTS.test(e.name)) continue;
        if (!SCRIPT_EXTENSIONS.some((ext) => e.name.endsWith(ext))) continue;
        files.push(e.name);
      }
    } catch { /* unreadable folder: nothing listed from it */ }
    const rank = (f: string) => SCRIPT_EXTENSIONS.findIndex((ext) => f.endsWith(ext));
    files.sort((a, b) => scriptName(a).localeCompare(scriptName(b)) || rank(a) - rank(b));
    for (const f of files) add(join(location.path, f));
  }
  return { scripts, searched };
}
