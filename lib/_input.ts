import { McpxError, messageOf } from "./errors.ts";
import { resolve } from "./_path.ts";

/**
 * Reads a file a user named on the command line (`@file`), relative to their working directory,
 * reading at most `maxBytes` (`daemon.maxRequestBytes`: the daemon would refuse more anyway), so
 * `@/dev/zero` costs one line rather than the machine's memory.
 * @throws {McpxError} USAGE in one line, saying which file and why it could not be read.
 */
export async function readInputFile(
  cwd: string,
  file: string,
  what: string,
  hint: string,
  options: { maxBytes: number },
): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await readAtMost(resolve(cwd, file), options.maxBytes);
  } catch (e) {
    if (e instanceof TooLarge) {
      throw new McpxError(
        "USAGE",
        `Cannot read ${what} "${file}": it is larger than daemon.maxRequestBytes (${options.maxBytes} bytes)`,
        {
          hint:
            "Name a smaller file, or raise daemon.maxRequestBytes (MCPX_DAEMON_MAX_REQUEST_BYTES)",
        },
      );
    }
    const why = e instanceof Deno.errors.NotFound
      ? "no such file"
      : e instanceof Deno.errors.PermissionDenied
      ? "permission denied"
      : e instanceof Deno.errors.IsADirectory
      ? "it is a directory"
      : messageOf(e).replace(/\s+/g, " ");
    throw new McpxError("USAGE", `Cannot read ${what} "${file}": ${why}`, { hint });
  }
  return new TextDecoder().decode(bytes);
}

class TooLarge extends Error {}

/** The bytes of `path`, or TooLarge as soon as more than `max` have been read. */
async function readAtMost(path: string, max: number): Promise<Uint8Array> {
  using file = await Deno.open(path);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const buf = new Uint8Array(64 * 1024);
  for (;;) {
    const n = await file.read(buf);
    if (n === null) break;
    total += n;
    if (total > max) throw new TooLarge();
    chunks.push(buf.slice(0, n));
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) out.set(c, at), at += c.length;
  return out;
}
