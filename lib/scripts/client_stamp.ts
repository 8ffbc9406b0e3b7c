// Whether a script's client module is still right, without loading the code that writes one: a run
// asks this every time, and writes a client rarely.

import type { Context } from "../context.ts";
import { cacheDir } from "../paths.ts";
import { cacheFile } from "../cache/schema_cache.ts";
import { codegenStamp, sourceStamp } from "../cache/rendered.ts";
import { VERSION } from "../version.ts";

/**
 * A one-line fingerprint of everything the client module is generated from: mcpx's version, the
 * generator, the configuration, the schema cache file (size and mtime), the socket and the
 * profile selection.
 */
export async function clientStamp(ctx: Context, socket: string): Promise<string | undefined> {
  try {
    const fp = await ctx.fingerprint();
    const info = Deno.statSync(cacheFile(cacheDir(ctx.boot, ctx.io.env), fp.short));
    const parts = [
      VERSION,
      sourceStamp(new URL("./client_module.ts", import.meta.url).href),
      codegenStamp(),
      fp.hash,
      info.size,
      info.mtime?.getTime(),
      socket,
      ctx.selection(),
    ];
    return `// mcpx-stamp ${JSON.stringify(parts)}`;
  } catch {
    return undefined; // no cache yet: always generate
  }
}

function firstLine(path: string): string | undefined {
  try {
    const file = Deno.openSync(path);
    try {
      const buf = new Uint8Array(1024);
      const n = file.readSync(buf);
      return n === null ? undefined : new TextDecoder().decode(buf.subarray(0, n)).split("\n")[0];
    } finally {
      file.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * Whether the client module at `clientPath` is the one {@linkcode writeClient} would write now
 * (its stamp line matches), so a run can start it before the daemon has answered.
 */
export async function isFresh(ctx: Context, clientPath: string, socket: string): Promise<boolean> {
  const stamp = await clientStamp(ctx, socket);
  return stamp !== undefined && firstLine(clientPath) === stamp;
}
