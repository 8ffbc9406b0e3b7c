/**
 * Writes `text` to `path` whole or not at all: a temporary file beside it, mode 0600 (or `mode`),
 * renamed over it, so a reader never sees half a file. The folder is made first (mode 0700).
 * @throws what the file system throws
 */
export function writeFileAtomic(path: string, text: string, options: { mode?: number } = {}): void {
  Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")) || "/", { recursive: true, mode: 0o700 });
  const tmp = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    Deno.writeTextFileSync(tmp, text, { mode: options.mode ?? 0o600 });
    Deno.renameSync(tmp, path);
  } catch (e) {
    try {
      Deno.removeSync(tmp);
    } catch { /* never written */ }
    throw e;
  }
}
