/** mcpx's version; a test holds it equal to deno.json's. */
export const VERSION = "0.1.0";

/**
 * Which build of the sources this is: `tools/build.ts` writes its stamp of the sources here in
 * the bundle it makes; empty when the sources run as they are.
 */
export const BUILD = "";
