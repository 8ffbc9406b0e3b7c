import { McpxError, messageOf } from "./errors.ts";
import { resolve } from "./_path.ts";

/**
 * Reads a file a user named on the command line (`@file`), relative to their working directory.
 * @throws {McpxError} USAGE in one line, saying which file and why it could not be read.
 */
export async function readInputFile(
  cwd: string,
  file: string,
  what: string,
  hint: string,
): Promise<string> {
  try {
    return await Deno.readTextFile(resolve(cwd, file));
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound
      ? "no such file"
      : e instanceof Deno.errors.PermissionDenied
      ? "permission denied"
      : e instanceof Deno.errors.IsADirectory
      ? "it is a directory"
      : messageOf(e).replace(/\s+/g, " ");
    throw new McpxError("USAGE", `Cannot read ${what} "${file}": ${why}`, { hint });
  }
}
