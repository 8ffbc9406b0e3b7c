import { join } from "../_path.ts";
import { trustedCacheFile, usableCacheFile } from "./secure.ts";
import { writeFileAtomic } from "../_atomic.ts";
import { hash64 } from "../_hash.ts";
import type { ToolInfo } from "../mcp/types.ts";

/** What the cache knows of one server: its tools as last listed, or why listing failed. */
export interface CachedServer {
  /**
   * {@linkcode cacheIdentity} of the pool identity the tools were listed under: a changed
   * command invalidates them. A digest, never the identity itself, which holds the entry's
   * literal `env` and `headers` values (secrets).
   */
  identity: string;
  tools?: ToolInfo[];
  /** When the tools were listed. Absent when the last attempt failed: a failure is not "0 tools". */
  listedAt?: string;
  /** Why the last attempt to list failed, with the server's stderr. */
  error?: string;
}

/** The schema cache file, keyed to one configuration's fingerprint. */
export interface SchemaCache {
  version: 1;
  fingerprint: string;
  config: string;
  /** By configured server name. */
  servers: Record<string, CachedServer>;
}

/**
 * What the cache keeps of a server's pool identity (lib/config/servers.ts): a digest of it, so
 * a literal secret in the entry's `env` or `headers` is never written to the cache.
 */
export function cacheIdentity(identity: string): string {
  return `h1:${hash64(new TextEncoder().encode(identity))}`;
}

/** `<cache>/schemas-<fingerprint16>.json`. */
export function cacheFile(cacheDir: string, short: string): string {
  return join(cacheDir, `schemas-${short}.json`);
}

function isCache(v: unknown): v is SchemaCache {
  const c = v as SchemaCache;
  return c !== null && typeof c === "object" && c.version === 1 &&
    typeof c.fingerprint === "string" &&
    c.servers !== null && typeof c.servers === "object";
}

/**
 * Reads the cache for a configuration. A missing file is an empty cache; a corrupt one is an
 * empty cache and one warning (it is rebuilt by the next write). When there is no cache for this
 * fingerprint, entries are carried over from the newest cache of the same configuration file
 * whose server identity still matches, so editing one server does not forget the others.
 */
export async function readCache(
  cacheDir: string,
  fingerprint: string,
  config: string,
): Promise<{ cache: SchemaCache; warning?: string }> {
  return readCacheSync(cacheDir, fingerprint, config) ??
    { cache: await carryOver(cacheDir, { version: 1, fingerprint, config, servers: {} }) };
}

/**
 * {@linkcode readCache} without a turn of the event loop when this fingerprint's file exists;
 * undefined when it does not (entries are then carried over, which reads the folder).
 */
export function readCacheSync(
  cacheDir: string,
  fingerprint: string,
  config: string,
): { cache: SchemaCache; warning?: string } | undefined {
  const empty: SchemaCache = { version: 1, fingerprint, config, servers: {} };
  const path = cacheFile(cacheDir, fingerprint.slice(0, 16));
  let text: string | undefined;
  // Another user's file, or one others may write, is refused: its text would reach an agent.
  if (!trustedCacheFile(path)) return undefined;
  try {
    text = Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text);
    if (isCache(parsed) && parsed.fingerprint === fingerprint) return { cache: parsed };
  } catch { /* judged below */ }
  return {
    cache: empty,
    warning:
      `The schema cache ${path} is corrupt and will be rebuilt; run \`mcpx refresh\` to fill it now`,
  };
}

async function carryOver(cacheDir: string, empty: SchemaCache): Promise<SchemaCache> {
  let newest: { mtime: number; cache: SchemaCache } | undefined;
  try {
    for await (const e of Deno.readDir(cacheDir)) {
      if (!e.isFile || !/^schemas-[0-9a-f]{16}\.json$/.test(e.name)) continue;
      const path = join(cacheDir, e.name);
      if (!usableCacheFile(path)) continue;
      try {
        const cache = JSON.parse(await Deno.readTextFile(path));
        if (!isCache(cache) || cache.config !== empty.config) continue;
        const mtime = (await Deno.stat(path)).mtime?.getTime() ?? 0;
        if (!newest || mtime > newest.mtime) newest = { mtime, cache };
      } catch { /* unreadable: not a source */ }
    }
  } catch {
    return empty;
  }
  return newest ? { ...empty, servers: { ...newest.cache.servers } } : empty;
}

/**
 * The fingerprint and configuration a schema cache file names, read from its first 4 KB (a cache
 * is written with them first: {@linkcode writeCache}), or undefined.
 */
function cacheHead(path: string): { fingerprint: string; config: string } | undefined {
  let head: string;
  try {
    using file = Deno.openSync(path);
    const buf = new Uint8Array(4096);
    head = new TextDecoder().decode(buf.subarray(0, file.readSync(buf) ?? 0));
  } catch {
    return undefined;
  }
  const m = /^\{"version":1,"fingerprint":"([0-9a-f]+)","config":("(?:[^"\\]|\\.)*")/.exec(head);
  if (!m) return undefined;
  try {
    return { fingerprint: m[1], config: JSON.parse(m[2]) };
  } catch {
    return undefined;
  }
}

/**
 * Removes the schema cache files of other versions of `cache.config` in `cacheDir` (an edit is a
 * new fingerprint, and a new file): once this version's own file is written, the newest is this
 * one, and nothing reads the others. Returns the short fingerprints removed.
 */
export function removeOtherVersions(cacheDir: string, cache: SchemaCache): string[] {
  const own = cache.fingerprint.slice(0, 16);
  const removed: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(cacheDir)];
  } catch {
    return removed;
  }
  for (const e of entries) {
    const short = /^schemas-([0-9a-f]{16})\.json$/.exec(e.name)?.[1];
    if (!e.isFile || short === undefined || short === own) continue;
    const path = join(cacheDir, e.name);
    if (cacheHead(path)?.config !== cache.config) continue;
    try {
      Deno.removeSync(path);
      removed.push(short);
    } catch { /* gone meanwhile */ }
  }
  return removed;
}

/** Writes the cache atomically (a temporary file renamed over the old one). */
export function writeCache(cacheDir: string, cache: SchemaCache): void {
  writeFileAtomic(
    cacheFile(cacheDir, cache.fingerprint.slice(0, 16)),
    JSON.stringify(cache) + "\n",
  );
}

/**
 * The daemon's side of the cache: updates from pools, coalesced into one write per tick, and
 * flushed on stop so a stop followed by removing the directory cannot race.
 */
export class CacheWriter {
  readonly #dir: string;
  readonly #cache: SchemaCache;
  #pending?: Promise<void>;
  #dirty = false;

  /** Whether the file holds what `#cache` holds (false for a cache carried over or rebuilt). */
  #onDisk: boolean;

  /** Called after each write with what was written (the daemon writes `ls`'s summary). */
  readonly #written?: (cache: SchemaCache) => void;

  /**
   * @param onDisk whether `cache` was read from this fingerprint's own file, intact
   * @param written called after each write with what was written
   */
  constructor(
    dir: string,
    cache: SchemaCache,
    onDisk = false,
    written?: (cache: SchemaCache) => void,
  ) {
    this.#dir = dir;
    this.#cache = cache;
    this.#onDisk = onDisk;
    this.#written = written;
  }

  /** Writes the whole cache again, changed or not (`mcpx refresh`: the file is made right). */
  persist(): void {
    this.#onDisk = false;
    this.#schedule();
  }

  /** The entry of one server, if the cache has one. */
  get(name: string): CachedServer | undefined {
    return this.#cache.servers[name];
  }

  /**
   * Records a successful listing. A listing that changes nothing (every new instance lists its
   * tools) leaves the file alone, `listedAt` included: what is kept beside the cache (a script's
   * client, `mcpx types` renderings) is stamped with the file's size and mtime, and stays valid.
   */
  listed(names: string[], poolIdentity: string, tools: ToolInfo[]): void {
    const identity = cacheIdentity(poolIdentity);
    const listedAt = new Date().toISOString();
    const text = JSON.stringify(tools);
    let changed = false;
    for (const n of names) {
      const prior = this.#cache.servers[n];
      const same = prior?.identity === identity && !prior.error && prior.listedAt &&
        JSON.stringify(prior.tools) === text;
      if (same) continue;
      this.#cache.servers[n] = { identity, tools, listedAt };
      changed = true;
    }
    // Unchanged, and already in the file as it is: nothing to write. A file removed behind the
    // daemon's back is written again.
    if (changed || !this.#onDisk || !this.#fileExists()) this.#schedule();
  }

  #fileExists(): boolean {
    try {
      return Deno.statSync(cacheFile(this.#dir, this.#cache.fingerprint.slice(0, 16))).isFile;
    } catch {
      return false;
    }
  }

  /** Records a failed listing: the error, no timestamp, and the last tools known (if any). */
  failed(names: string[], poolIdentity: string, error: string): void {
    const identity = cacheIdentity(poolIdentity);
    for (const n of names) {
      const prior = this.#cache.servers[n];
      this.#cache.servers[n] = {
        identity,
        ...(prior?.identity === identity && prior.tools ? { tools: prior.tools } : {}),
        error,
      };
    }
    this.#schedule();
  }

  #schedule(): void {
    this.#dirty = true;
    // One write per turn of the event loop, however many updates it brought.
    this.#pending ??= Promise.resolve().then(() => {
      try {
        while (this.#dirty) {
          this.#dirty = false;
          writeCache(this.#dir, this.#cache);
          this.#onDisk = true;
          this.#written?.(this.#cache);
        }
      } finally {
        this.#pending = undefined;
      }
    });
  }

  /** Waits for every scheduled write. */
  async flush(): Promise<void> {
    while (this.#pending) await this.#pending;
  }
}
