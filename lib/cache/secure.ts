// The cache folder holds what `ls`, `search`, `types` and `catalog` put in front of an agent
// without starting anything, so it is held to the state folder's rule (lib/daemon/guard.ts): a
// folder or file of another user, or one others may write, is refused; our own loose ones are
// tightened (0700 / 0600). docs/security.md.

import { McpxError } from "../errors.ts";

const me = (): number => Deno.uid() ?? -1;
const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0");
const checked = new Set<string>();

/**
 * Checks the cache folder `dir` (once per process) and returns it: absent is fine (it is made
 * 0700 when first written); another user's is refused; ours with bits for others is made 0700.
 * @throws {McpxError} UNSAFE_PATH
 */
export function secureCacheDir(dir: string): string {
  if (checked.has(dir)) return dir;
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(dir);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return dir;
    throw e;
  }
  const fix = "Remove it, or set paths.cache (MCPX_PATHS_CACHE) to a directory of your own";
  if (!info.isDirectory) {
    throw new McpxError("UNSAFE_PATH", `Refusing cache directory ${dir}: it is not a directory`, {
      hint: fix,
    });
  }
  if (info.uid !== me()) {
    throw new McpxError(
      "UNSAFE_PATH",
      `Refusing cache directory ${dir}: owned by uid ${info.uid}, not you (${me()})`,
      { hint: fix },
    );
  }
  if ((info.mode! & 0o077) !== 0) Deno.chmodSync(dir, 0o700);
  checked.add(dir);
  return dir;
}

/**
 * Whether a file read from the cache folder may be trusted: false when absent; ours with bits
 * for others is made 0600; another user's, or one others may write, is refused.
 * @throws {McpxError} UNSAFE_PATH
 */
export function trustedCacheFile(path: string): boolean {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
  const refuse = (why: string) =>
    new McpxError("UNSAFE_PATH", `Refusing schema cache file ${path}: ${why}`, {
      hint: "Remove it; `mcpx refresh` writes it again",
    });
  if (!info.isFile) throw refuse("it is not a plain file");
  if (info.uid !== me()) throw refuse(`owned by uid ${info.uid}, not you (${me()})`);
  if ((info.mode! & 0o022) !== 0) {
    throw refuse(`others may write to it (mode ${octal(info.mode!)})`);
  }
  if ((info.mode! & 0o077) !== 0) Deno.chmodSync(path, 0o600);
  return true;
}

/** Like {@linkcode trustedCacheFile}, but a file not to be trusted is only passed over (false). */
export function usableCacheFile(path: string): boolean {
  try {
    return trustedCacheFile(path);
  } catch {
    return false;
  }
}
