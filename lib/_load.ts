/**
 * Imports a module that `deno run` must not see ahead of time.
 *
 * Before a program's first line runs, Deno walks every import whose specifier is a string
 * literal, `import("…")` included: for the CLI that walk over every command's modules cost about
 * 2 ms of each start (`performance.now()` at the first line: 2.8 ms against 0.8 ms once the
 * specifiers were built at run time). A specifier built at run time is resolved only when it is
 * reached. The caller names the module twice, as the value and in `typeof import("…")` for its
 * type; `tests/boundaries_test.ts` holds the two equal.
 *
 * @param specifier a path relative to `base`, or a bare specifier from `deno.json`'s imports
 * @param base the caller's `import.meta.url`
 */
export function load<T>(specifier: string, base: string): Promise<T> {
  return import(specifier.startsWith(".") ? new URL(specifier, base).href : specifier);
}
