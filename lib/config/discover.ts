import { expandHome, isFile } from "../_fs.ts";
import { dirname, join, resolve } from "../_path.ts";
import { McpxError, messageOf } from "../errors.ts";

/** Names searched in each directory from the working directory upward, in order. */
export const PROJECT_NAMES = [".mcpx.json", ".mcpx/config.json", ".mcp.json"] as const;

/** Where configuration lives, found without parsing any of it. */
export interface ConfigLocation {
  /** The file that defines the servers (and keys the daemon), or undefined when none exists. */
  primary?: string;
  /** Every configuration file found, farthest first and nearest last: the settings layers. */
  layers: string[];
  /** Every path looked at, in search order, for error messages. */
  searched: string[];
  /** Whether the primary file was named explicitly (MCPX_CONFIG or --config). */
  explicit: boolean;
  /** Entries of `paths.config` that name nothing: each is one warning. */
  missing?: string[];
  /** Set when the `paths.config` list, not the built-in locations, said where to look. */
  listed?: true;
}

/** Names a folder listed in `paths.config` is searched for (itself only, not upward). */
const LISTED_NAMES = [...PROJECT_NAMES, "config.json"];

/** The user and system locations searched after the project ones. */
export function globalCandidates(env: Readonly<Record<string, string>>): string[] {
  const home = env.HOME ?? "";
  const out: string[] = [];
  if (env.XDG_CONFIG_HOME) out.push(join(env.XDG_CONFIG_HOME, "mcpx", "config.json"));
  if (home) out.push(join(home, ".config", "mcpx", "config.json"), join(home, ".mcpx.json"));
  out.push("/etc/mcpx/config.json");
  return [...new Set(out)];
}

/**
 * Whether a configuration candidate is there: false when nothing is at `path`, true for a file
 * (or a symlink to one).
 * @throws {McpxError} CONFIG_INVALID for a directory, a dangling symlink or a symlink loop: a
 * broken file of the project's own is said, never passed over for one further up.
 */
function candidateExists(path: string): boolean {
  let link: Deno.FileInfo;
  try {
    link = Deno.lstatSync(path);
  } catch {
    return false; // nothing there (or a parent that is not a folder)
  }
  if (link.isFile) return true;
  const broken = (why: string) =>
    new McpxError("CONFIG_INVALID", `Configuration ${path} ${why}`, {
      hint:
        "Fix or remove it: mcpx does not fall back to a configuration further up while it is there",
    });
  if (link.isDirectory) throw broken("is a directory, not a file");
  if (!link.isSymlink) throw broken("is not a regular file");
  let target: Deno.FileInfo;
  try {
    target = Deno.statSync(path);
  } catch (e) {
    let to = "";
    try {
      to = ` to "${Deno.readLinkSync(path)}"`;
    } catch { /* unreadable link */ }
    if (e instanceof Deno.errors.NotFound) throw broken(`is a dangling symlink${to}`);
    if (e instanceof Deno.errors.FilesystemLoop) throw broken("is a symlink loop");
    throw broken(`cannot be read: ${messageOf(e)}`);
  }
  if (target.isDirectory) throw broken("is a symlink to a directory, not a file");
  if (!target.isFile) throw broken("is a symlink to something other than a regular file");
  return true;
}

/**
 * Finds the configuration: `explicit` (from MCPX_CONFIG or --config) wins outright; otherwise the
 * `paths.config` list (`options.paths`: files and folders, `-` for the built-in locations), or
 * when it is empty the built-in locations: `.mcpx.json`, `.mcpx/config.json`, `.mcp.json` upward
 * from `cwd`, then the user and system files.
 * @throws {McpxError} CONFIG_NOT_FOUND when an explicitly named file does not exist;
 * CONFIG_INVALID when a candidate is a directory, a dangling symlink or a symlink loop.
 */
export function discoverConfig(
  cwd: string,
  env: Readonly<Record<string, string>>,
  explicit?: string,
  options: { firstOnly?: boolean; paths?: string } = {},
): ConfigLocation {
  if (explicit) {
    const path = resolve(cwd, explicit);
    let isDir = false;
    try {
      isDir = Deno.statSync(path).isDirectory;
    } catch { /* absent */ }
    if (isDir) {
      throw new McpxError(
        "CONFIG_NOT_FOUND",
        `Configuration "${path}" is a directory, not a file`,
        {
          hint: `Name the file itself, e.g. ${join(path, ".mcpx.json")}`,
        },
      );
    }
    if (!isFile(path)) {
      throw new McpxError("CONFIG_NOT_FOUND", `Configuration file "${path}" does not exist`, {
        hint: "Fix the path given by MCPX_CONFIG or --config, or unset it to search",
      });
    }
    return { primary: path, layers: [path], searched: [path], explicit: true };
  }
  const searched: string[] = [];
  const found: string[] = [];
  const missing: string[] = [];
  const seen = new Set<string>();
  const consider = (path: string) => {
    searched.push(path);
    if (!candidateExists(path)) return;
    let real = path;
    try {
      real = Deno.realPathSync(path);
    } catch { /* keep the path as given */ }
    if (seen.has(real)) return;
    seen.add(real);
    found.push(path);
  };
  // With firstOnly the search stops at the primary file: what keys the daemon and the cache.
  // The settings layers above it are only read when settings are (about 3 ms of stat calls).
  const done = () => options.firstOnly === true && found.length > 0;
  const builtin = () => {
    for (let dir = resolve(cwd, "."); !done(); dir = dirname(dir)) {
      for (const name of PROJECT_NAMES) if (!done()) consider(join(dir, name));
      if (dirname(dir) === dir) break;
    }
    for (const path of globalCandidates(env)) if (!done()) consider(path);
  };
  const entries = (options.paths ?? "").split(",").map((e) => e.trim()).filter(Boolean);
  if (entries.length === 0) builtin();
  for (const entry of entries) {
    if (done()) break;
    if (entry === "-") {
      builtin();
      continue;
    }
    const path = resolve(
      cwd,
      expandHome(entry, env),
    );
    let isDir: boolean;
    try {
      isDir = Deno.statSync(path).isDirectory;
    } catch {
      missing.push(path);
      searched.push(path);
      continue;
    }
    if (!isDir) consider(path);
    else for (const name of LISTED_NAMES) if (!done()) consider(join(path, name));
  }
  return {
    primary: found[0],
    layers: found.reverse(),
    searched,
    explicit: false,
    ...(missing.length ? { missing } : {}),
    ...(entries.length ? { listed: true as const } : {}),
  };
}

/** The error for a command that needs a configuration when none was found. */
export function noConfigError(location: ConfigLocation): McpxError {
  if (location.listed) {
    return new McpxError(
      "CONFIG_NOT_FOUND",
      `No configuration found where paths.config says: looked at ${location.searched.join(", ")}`,
      { hint: "Fix MCPX_PATHS_CONFIG (or --paths-config), or add - to it for the usual places" },
    );
  }
  return new McpxError(
    "CONFIG_NOT_FOUND",
    `No configuration found: looked for ${
      PROJECT_NAMES.join(", ")
    } from the working directory up, then ${location.searched.slice(-4).join(", ")}`,
    { hint: "Create .mcpx.json with an mcpServers object, or set MCPX_CONFIG to a file" },
  );
}
