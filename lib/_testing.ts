// Helpers for unit tests across lib/ (each folder's own _testing.ts holds what only it needs).

import { join } from "./_path.ts";

/**
 * Makes a temporary folder holding `files` (path relative to it → text), parent folders made as
 * needed, and returns its real path. The caller removes it.
 */
export async function tempTree(files: Record<string, string>, prefix = "mcpx-"): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  for (const [rel, text] of Object.entries(files)) {
    const path = join(root, rel);
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  return root;
}
