import { dirname, fromFileUrl } from "./_path.ts";

/**
 * `deno run`'s flags for the built CLI (`dist/cli/main.js`, what the npm package carries): every
 * permission, no configuration file (a user's `deno.json` or lock file in the working directory
 * must not reach a bundle that imports nothing but itself and `node:`), and the one unstable
 * behaviour deno.json turns on for the sources. The package's `bin/mcpx` starts the CLI with
 * these too (tools/pack.ts writes them into it).
 */
export const BUNDLE_RUN_FLAGS: readonly string[] = [
  "-A",
  "--no-config",
  "--unstable-no-legacy-abort",
];

/**
 * tools/build.ts turns this into the URL of the built CLI's `main.js`, so that a bundle starts
 * its daemon, adapters and servers of its own from itself, never from a source tree.
 */
const BUNDLED_MAIN: string = "__MCPX_BUNDLED_MAIN__";

/** How this program is being run: what {@linkcode selfCommandFor} needs to start it again. */
export type SelfForm =
  /** `deno run main.ts` from a checkout: `root` holds main.ts and deno.json. */
  | { kind: "source"; exec: string; root: string }
  /** `deno run <dist>/main.js`: the built CLI (`deno task build`, the npm package). */
  | { kind: "bundle"; exec: string; main: string }
  /** `deno compile`: the binary is the program, and keeps the flags it was compiled with. */
  | { kind: "compiled"; exec: string };

/** How this process is running (decided from where this module was loaded). */
export function selfForm(): SelfForm {
  const exec = Deno.execPath();
  if (BUNDLED_MAIN.startsWith("file:")) return { kind: "bundle", exec, main: BUNDLED_MAIN };
  const main = new URL("../main.ts", import.meta.url);
  if (main.protocol !== "file:" || main.pathname.includes("/deno-compile-")) {
    return { kind: "compiled", exec };
  }
  return { kind: "source", exec, root: dirname(fromFileUrl(main)) };
}

/** The command that runs the program of `form` with `args` (and `v8Flags` where it can). */
export function selfCommandFor(
  form: SelfForm,
  args: string[],
  v8Flags: readonly string[] = [],
): { command: string; args: string[] } {
  const flags = v8Flags.length ? [`--v8-flags=${v8Flags.join(",")}`] : [];
  switch (form.kind) {
    case "compiled":
      return { command: form.exec, args };
    case "bundle":
      return {
        command: form.exec,
        args: ["run", ...BUNDLE_RUN_FLAGS, ...flags, fromFileUrl(new URL(form.main)), ...args],
      };
    case "source":
      return {
        command: form.exec,
        args: [
          "run",
          "-A",
          ...flags,
          "--config",
          `${form.root}/deno.json`,
          `${form.root}/main.ts`,
          ...args,
        ],
      };
  }
}

/**
 * The command that re-runs this program with other arguments (under `deno run`, built or
 * compiled), with `v8Flags` under `deno run` (a compiled binary keeps the flags it was compiled
 * with).
 */
export function selfCommand(
  args: string[],
  v8Flags: readonly string[] = [],
): { command: string; args: string[] } {
  return selfCommandFor(selfForm(), args, v8Flags);
}
