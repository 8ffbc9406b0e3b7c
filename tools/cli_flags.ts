/**
 * The `deno run` flags the installed `mcpx` shim starts the built CLI with (tools/build.ts
 * `--install`), and so the flags the benchmarks run it with.
 *
 * `--v8-flags=--no-lazy` has V8 compile every function of a module when the module loads, not at
 * the function's first call, so Deno's code cache holds all of them and a later start compiles
 * nothing. A short-lived command runs mostly code it has never run before in that process: `mcpx
 * ls` went from 1.43× to 1.27× an empty `deno run`, `search` from 1.64× to 1.44×, `types` from
 * 1.44× to 1.30× (30 interleaved runs each, warm code cache; the empty script's time is the same
 * with the flag). The first run after a build, with nothing cached, took as long either way.
 */
export const SHIM_FLAGS: readonly string[] = ["-A", "--v8-flags=--no-lazy"];
