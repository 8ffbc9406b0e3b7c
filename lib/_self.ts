import { dirname, fromFileUrl } from "./_path.ts";

/**
 * The command that re-runs this program with other arguments (under `deno run` or compiled),
 * with `v8Flags` under `deno run` (a compiled binary keeps the flags it was compiled with).
 */
export function selfCommand(
  args: string[],
  v8Flags: readonly string[] = [],
): { command: string; args: string[] } {
  const main = new URL("../main.ts", import.meta.url);
  if (main.protocol !== "file:" || main.pathname.includes("/deno-compile-")) {
    return { command: Deno.execPath(), args };
  }
  const root = dirname(fromFileUrl(main));
  const flags = v8Flags.length ? [`--v8-flags=${v8Flags.join(",")}`] : [];
  return {
    command: Deno.execPath(),
    args: ["run", "-A", ...flags, "--config", `${root}/deno.json`, fromFileUrl(main), ...args],
  };
}
