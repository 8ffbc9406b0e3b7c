/**
 * The stat helpers: whether something is at a path, and what. Each answers false for a path
 * that cannot be read (nothing there, a parent that is not a folder, no permission), following
 * symlinks unless told not to.
 */

import { join } from "./_path.ts";

/**
 * Whether anything is at `path`. With `followSymlinks: false` a symlink is something, wherever
 * it points (what a folder's listing shows).
 */
export function exists(path: string, options: { followSymlinks?: boolean } = {}): boolean {
  try {
    if (options.followSymlinks === false) Deno.lstatSync(path);
    else Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether `path` is a regular file (or a symlink to one). */
export function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** Whether `path` is a folder (or a symlink to one). */
export function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/**
 * The first executable called `name` in the folders of `env.PATH`, empty entries passed over;
 * with `absoluteOnly`, relative ones too (no folder is looked for from the working directory).
 */
export function findOnPath(
  name: string,
  env: { readonly PATH?: string },
  options: { absoluteOnly?: boolean } = {},
): string | undefined {
  for (const dir of (env.PATH ?? "").split(":")) {
    if (!dir || (options.absoluteOnly && !dir.startsWith("/"))) continue;
    const path = join(dir, name);
    try {
      const info = Deno.statSync(path);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return path;
    } catch { /* not here */ }
  }
  return undefined;
}

/** `path` with a leading `~` or `~/` read as the home folder in `env` (unchanged without HOME). */
export function expandHome(path: string, env: Readonly<Record<string, string>>): string {
  if (path === "~") return env.HOME ?? path;
  return path.startsWith("~/") && env.HOME ? join(env.HOME, path.slice(2)) : path;
}
