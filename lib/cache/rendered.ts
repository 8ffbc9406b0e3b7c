// Text rendered from the schema cache, kept beside it so a second ask costs a file read. Each file
// starts with a stamp line naming everything its text is a function of; a file whose stamp does not
// match is rendered again and replaced. Best effort: a cache that cannot be written only costs time.

import { usableCacheFile } from "./secure.ts";
import { writeFileAtomic } from "../_atomic.ts";
import { BUILD, VERSION } from "../version.ts";
import type { Fingerprint } from "../config/fingerprint.ts";
import type { Settings } from "../settings/resolve.ts";
import { cacheDir } from "../paths.ts";
import { cacheFile } from "./schema_cache.ts";

/** What {@linkcode cacheStamp} reads of an operation's `Context` (lib/cache/ imports no Context). */
export interface StampSource {
  readonly boot: Settings;
  readonly io: { readonly env: Readonly<Record<string, string>> };
  fingerprintSync(): Fingerprint;
}

/**
 * What the code that renders is: the build (a bundle is never edited, only rebuilt), or, running
 * the sources, the size and mtime of each source file given, so an edited generator renders anew.
 */
export function sourceStamp(...urls: string[]): string {
  if (BUILD) return BUILD;
  return urls.map((url) => {
    try {
      const info = Deno.statSync(new URL(url));
      return `${info.size}:${info.mtime?.getTime()}`;
    } catch {
      return ""; // not a plain file (a compiled mcpx): the version stands for it
    }
  }).join(",");
}

/**
 * What the declarations are rendered from: the modules of lib/codegen/ that declarations.ts
 * imports, and what they import from outside it (the naming rule). A test holds the list to the
 * imports.
 */
export const CODEGEN_SOURCES: readonly string[] = [
  "codegen/declarations.ts",
  "codegen/_ts.ts",
  "codegen/schema_to_ts.ts",
  "codegen/abridge.ts",
  "names.ts",
].map((file) => new URL(`../${file}`, import.meta.url).href);

/** {@linkcode sourceStamp} of the code generator (TypeScript from JSON Schema). */
export function codegenStamp(): string {
  return sourceStamp(...CODEGEN_SOURCES);
}

/**
 * The stamp line of text rendered from the schema cache: mcpx's version and `generator`, the
 * configuration, the schema cache file's size and mtime, then `extra` (what else the text is a
 * function of). Taken before the cache is read, so that a write in between makes the text look
 * old, never new: hence the stat now and the `extra` parts later. Undefined without a cache file
 * (or a configuration).
 */
export function cacheStamp(
  ctx: StampSource,
  generator: string,
): ((...extra: unknown[]) => string) | undefined {
  try {
    const fp = ctx.fingerprintSync();
    const info = Deno.statSync(cacheFile(cacheDir(ctx.boot, ctx.io.env), fp.short));
    const parts = [VERSION, generator, fp.hash, info.size, info.mtime?.getTime()];
    return (...extra) => `// mcpx-stamp ${JSON.stringify([...parts, ...extra])}`;
  } catch {
    return undefined;
  }
}

/** The text stored at `path` under exactly `stamp`, or undefined. */
export function readRendered(path: string, stamp: string): string | undefined {
  let text: string;
  try {
    if (!usableCacheFile(path)) return undefined;
    text = Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
  const eol = text.indexOf("\n");
  return eol >= 0 && text.slice(0, eol) === stamp ? text.slice(eol + 1) : undefined;
}

/** Stores `text` at `path` under `stamp`, atomically (a temporary file renamed over the old one). */
export function writeRendered(path: string, stamp: string, text: string): void {
  try {
    writeFileAtomic(path, `${stamp}\n${text}`);
  } catch { /* an unwritable cache: the next ask renders again */ }
}
