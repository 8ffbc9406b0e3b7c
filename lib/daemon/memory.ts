/**
 * The daemon's memory, for finding growth (`plumbing.memoryLog`, `plumbing.heapSnapshots`): what
 * the process holds after a full collection when V8 allows one (DENO_V8_FLAGS=--expose-gc), and
 * the sizes of the tables that grow with sessions and processes.
 */
import { join } from "../_path.ts";

/** One `daemon.memory` record. */
export interface MemoryRecord {
  requests: number;
  /** Whether a full collection ran first (the daemon was started with --expose-gc). */
  collected: boolean;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  /**
   * Linux: resident KiB of the C heap (`[heap]`, glibc's main arena), of other anonymous maps
   * (V8's heap among them) and of mapped files (the deno binary's pages as they are touched).
   */
  cHeapKiB?: number;
  anonKiB?: number;
  fileKiB?: number;
  /** The pools' tables and the registry's own, by name: entries held now. */
  tables: Record<string, number>;
  /** Where the heap snapshot went, when one was asked for. */
  snapshot?: string;
}

/**
 * Measures the daemon: collects garbage fully when it can, then reads `Deno.memoryUsage()`, and
 * writes a heap snapshot into `snapshots` when that is a folder's path.
 */
export async function measureMemory(
  requests: number,
  tables: Record<string, number>,
  snapshots: string,
): Promise<MemoryRecord> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const usage = Deno.memoryUsage();
  const record: MemoryRecord = {
    requests,
    collected: gc !== undefined,
    ...usage,
    ...residentMaps(),
    tables,
  };
  if (snapshots) {
    // Not a literal import: node:v8 is loaded only when a snapshot is asked for.
    const v8Module = "node:v8";
    const v8 = await import(v8Module) as { writeHeapSnapshot(path: string): string };
    await Deno.mkdir(snapshots, { recursive: true });
    record.snapshot = v8.writeHeapSnapshot(
      join(snapshots, `daemon-${Deno.pid}-${String(requests).padStart(7, "0")}.heapsnapshot`),
    );
  }
  return record;
}

/** From /proc/self/smaps (Linux): the resident C heap, other anonymous memory and files, in KiB. */
function residentMaps(): { cHeapKiB?: number; anonKiB?: number; fileKiB?: number } {
  let text: string;
  try {
    text = Deno.readTextFileSync("/proc/self/smaps");
  } catch {
    return {};
  }
  let cHeapKiB = 0;
  let anonKiB = 0;
  let fileKiB = 0;
  let name = "";
  for (const line of text.split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      name = head[1];
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    if (name === "[heap]") cHeapKiB += Number(rss[1]);
    else if (name === "") anonKiB += Number(rss[1]);
    else if (name.startsWith("/")) fileKiB += Number(rss[1]);
  }
  return { cHeapKiB, anonKiB, fileKiB };
}
