import { BUNDLE_RUN_FLAGS } from "../lib/_self.ts";

/**
 * The `deno run` flags the npm package's `bin/mcpx` starts the built CLI with (tools/pack.ts
 * writes them into it), and so the flags the benchmarks run it with: the bundle's own
 * (lib/_self.ts) and one for V8.
 *
 * `--v8-flags=--no-lazy` has V8 compile every function of a module when the module loads, not at
 * the function's first call, so Deno's code cache holds all of them and a later start compiles
 * nothing. A short-lived command runs mostly code it has never run before in that process
 * (`deno run -A bench/discovery.ts`, before and after): `mcpx ls` went from 1.42× to 1.28× an
 * empty `deno run`, `search` from 1.65× to 1.45×, `types` from 1.45× to 1.32×. An empty script
 * takes as long with the flag as without, and the first run after a build, with nothing cached,
 * took as long either way (`time`, a fresh DENO_DIR each).
 */
export const SHIM_FLAGS: readonly string[] = [...BUNDLE_RUN_FLAGS, "--v8-flags=--no-lazy"];
