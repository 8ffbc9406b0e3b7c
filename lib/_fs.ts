/**
 * The stat helpers: whether something is at a path, and what. Each answers false for a path
 * that cannot be read (nothing there, a parent that is not a folder, no permission), following
 * symlinks unless told not to.
 */

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
