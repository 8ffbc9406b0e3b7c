/** mcpx's version; a test holds it equal to deno.json's. */
export const VERSION = "0.1.0";

/**
 * Which build of the sources this is: `tools/build.ts` writes its stamp of the sources here in
 * the bundle it makes; empty when the sources run as they are.
 */
export const BUILD = "";

/**
 * The version a process reports: MCPX_TEST_VERSION stands in for mcpx's in the upgrade tests, so
 * that a daemon of "another version" can be started from these very sources.
 */
export function runningVersion(env: Record<string, string | undefined>): string {
  return env.MCPX_TEST_VERSION || VERSION;
}
