/** mcpx's version; a test holds it equal to deno.json's. */
export const VERSION = "0.1.0";
