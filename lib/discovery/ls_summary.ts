// What `mcpx ls` shows, kept beside the schema cache: a small file written with the cache, so that
// `ls` parses neither the cache (every tool's schema) nor, while the configuration's fingerprint
// holds, the configuration. A summary that does not match both is not used: `ls` takes the long
// way (lib/discovery/load.ts), and writes the summary again for the next one.

import { secureCacheDir, usableCacheFile } from "../cache/secure.ts";
import { join } from "../_path.ts";
import { writeFileAtomic } from "../_atomic.ts";
import { VERSION } from "../version.ts";
import { cacheFile, type SchemaCache } from "../cache/schema_cache.ts";
import type { Namespace } from "./types.ts";

/** One row of `mcpx ls`, all but the live process count (which the daemon knows). */
export interface LsRow {
  namespace: string;
  name: string;
  tools: number | null;
  sharing: string;
  scope: string;
  /**
   * Set when sharing and scope are the default for a server that keeps per-caller state (no
   * block chose them): why, in one line (lib/config/stateful.ts).
   */
  leasingDefault?: string;
  state: string;
  description: string;
  error?: string;
  listedAt?: string;
  aliasOf?: string;
}

/** A row of the summary: the row and what selects its server (`selectServers`). */
export interface SummaryRow extends LsRow {
  profiles: string[];
  isDefault: boolean;
}

/**
 * The summary file. `format` and `version` name the code that wrote it; `fingerprint` the
 * configuration; `cache` the schema cache file's size and mtime, taken before it was read.
 */
interface LsSummary {
  format: 2;
  version: string;
  fingerprint: string;
  cache: string;
  /**
   * The adapter files the rows came from, and their folders, each with its size and mtime: an
   * edited declaration (or one added beside it) does not change the configuration's fingerprint.
   */
  adapters?: Record<string, string>;
  rows: SummaryRow[];
}

function fileStat(path: string): string {
  try {
    const info = Deno.statSync(path);
    return `${info.size}:${info.mtime?.getTime()}:${info.ino}`;
  } catch {
    return "absent";
  }
}

/** `<cache>/ls-<fingerprint16>.json`. */
export function summaryFile(cacheDir: string, short: string): string {
  return join(cacheDir, `ls-${short}.json`);
}

/** The `ls` row of a namespace (lib/discovery/load.ts). */
export function lsRow({ def, cached, tools, state }: Namespace): LsRow {
  return {
    namespace: def.namespace,
    name: def.name,
    tools: state === "unlisted" || (state === "error" && !cached?.tools) ? null : tools.length,
    sharing: def.pool.sharing,
    scope: def.pool.scope,
    ...(def.leasing === "stateful" && def.stateful ? { leasingDefault: def.stateful } : {}),
    state,
    description: state === "error"
      ? `server "${def.name}": ${cached?.error ?? "failed"}`
      : def.description ?? (def.aliasOf ? `alias of ${def.aliasOf}` : ""),
    ...(cached?.error ? { error: cached.error } : {}),
    ...(cached?.listedAt ? { listedAt: cached.listedAt } : {}),
    ...(def.aliasOf ? { aliasOf: def.aliasOf } : {}),
  };
}

/** Size and mtime of the schema cache file, or undefined without one. */
function cacheStat(cacheDir: string, short: string): string | undefined {
  try {
    const info = Deno.statSync(cacheFile(cacheDir, short));
    return `${info.size}:${info.mtime?.getTime()}:${info.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * The summary's rows, or undefined when there is no summary for this configuration (by its
 * fingerprint), for this mcpx, and for the schema cache file as it is now.
 */
export function readSummary(cacheDir: string, fingerprint: string): SummaryRow[] | undefined {
  const short = fingerprint.slice(0, 16);
  secureCacheDir(cacheDir);
  let summary: LsSummary;
  try {
    if (!usableCacheFile(summaryFile(cacheDir, short))) return undefined;
    summary = JSON.parse(Deno.readTextFileSync(summaryFile(cacheDir, short)));
  } catch {
    return undefined;
  }
  if (
    summary?.format !== 2 || summary.version !== VERSION || summary.fingerprint !== fingerprint ||
    !Array.isArray(summary.rows)
  ) return undefined;
  for (const [path, stamp] of Object.entries(summary.adapters ?? {})) {
    if (fileStat(path) !== stamp) return undefined;
  }
  const stat = cacheStat(cacheDir, short);
  return stat !== undefined && summary.cache === stat ? summary.rows : undefined;
}

/**
 * The stamp of the schema cache file before it is read, for {@linkcode writeSummary}: taken first,
 * so that a write in between makes the summary look old, never new.
 */
export function summaryStamp(cacheDir: string, fingerprint: string): string | undefined {
  return cacheStat(cacheDir, fingerprint.slice(0, 16));
}

/**
 * Writes the summary of `namespaces` (every configured server, unselected ones included) for the
 * schema cache stamped `stamp`, atomically. Best effort: without it `ls` only takes longer.
 */
export function writeSummary(
  cacheDir: string,
  fingerprint: string,
  stamp: string | undefined,
  namespaces: readonly Namespace[],
): void {
  if (stamp === undefined) return;
  const adapters: Record<string, string> = {};
  for (const { def } of namespaces) {
    if (!def.adapter) continue;
    const file = def.adapter.file;
    adapters[file] = fileStat(file);
    const dir = file.slice(0, file.lastIndexOf("/")) || "/";
    adapters[dir] = fileStat(dir);
  }
  const summary: LsSummary = {
    format: 2,
    version: VERSION,
    fingerprint,
    cache: stamp,
    ...(Object.keys(adapters).length ? { adapters } : {}),
    rows: namespaces.map((ns) => ({
      ...lsRow(ns),
      profiles: ns.def.profiles,
      isDefault: ns.def.isDefault,
    })),
  };
  try {
    writeFileAtomic(
      summaryFile(cacheDir, fingerprint.slice(0, 16)),
      JSON.stringify(summary) + "\n",
    );
  } catch { /* an unwritable cache: ls takes the long way */ }
}

/** {@linkcode writeSummary} for the daemon, right after it wrote `cache`. */
export function summarizeCache(
  cacheDir: string,
  cache: SchemaCache,
  namespaces: (cache: SchemaCache) => Namespace[],
): void {
  writeSummary(
    cacheDir,
    cache.fingerprint,
    summaryStamp(cacheDir, cache.fingerprint),
    namespaces(cache),
  );
}
