// Whether a script's client module is still right, without loading the code that writes one: a run
// asks this every time, and writes a client rarely.

import type { Context } from "../context.ts";
import { cacheStamp, codegenStamp, readRendered, sourceStamp } from "../cache/rendered.ts";

/**
 * A one-line fingerprint of everything the client module is generated from: what
 * {@linkcode cacheStamp} covers (the client's generator included), the socket and the profile
 * selection. Undefined without a schema cache: the client is always written then.
 */
export function clientStamp(ctx: Context, socket: string): string | undefined {
  const generator = sourceStamp(
    new URL("./client_module.ts", import.meta.url).href,
    new URL("../runtime/client.ts", import.meta.url).href,
  ) + codegenStamp();
  return cacheStamp(ctx, generator)?.(socket, ctx.selection());
}

/**
 * Whether the client module at `clientPath` is the one {@linkcode writeClient} would write now
 * (its stamp line matches), so a run can start it before the daemon has answered.
 */
export function isFresh(ctx: Context, clientPath: string, socket: string): boolean {
  const stamp = clientStamp(ctx, socket);
  return stamp !== undefined && readRendered(clientPath, stamp) !== undefined;
}
