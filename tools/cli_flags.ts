import { BUNDLE_RUN_FLAGS } from "../lib/_self.ts";

/**
 * The `deno run` flags the npm package's `bin/mcpx` starts the built CLI with (tools/pack.ts
 * writes them into it), and so the flags the benchmarks run it with: the bundle's own
 * (lib/_self.ts), and nothing for V8.
 *
 * `--v8-flags=--no-lazy` (V8 compiles every function of a module as it loads, so the code cache
 * holds them all) was once a gain: `mcpx ls` 1.42× → 1.28× an empty `deno run`, when the built
 * CLI's first modules still started Deno's Node layer and compiled much at every start. Once the
 * first modules import no `node:` module (tools/build.ts), it costs more than it saves: 25 rounds
 * interleaved on 2026-12-07 (the built CLI, one warm daemon), `mcpx ls` 34.7 ms with it against
 * 27.2 ms without, `--version` 36.2 against 33.8, a warm `call` 60.5 against 54.9 (an empty
 * `deno run` 17.1; the machine was loaded, so read the differences, not the absolute figures).
 */
export const SHIM_FLAGS: readonly string[] = [...BUNDLE_RUN_FLAGS];
