import { dirname } from "../_path.ts";
import { writeFileAtomic } from "../_atomic.ts";
import type { DaemonPaths } from "../paths.ts";
import { processToken } from "./pid.ts";
import { removeLive } from "./live.ts";

/** What `<fingerprint>.version.json` holds. */
interface VersionMark {
  config: string;
  pid: number;
  start: string | undefined;
}

/**
 * Marks the files of `paths` as a version of the configuration `config`, written by this
 * process (pid and {@linkcode processToken}, so that a reused pid is never taken for it).
 * Best effort.
 */
export function markVersion(paths: DaemonPaths, config: string): void {
  const mark: VersionMark = { config, pid: Deno.pid, start: processToken(Deno.pid) };
  try {
    writeFileAtomic(paths.version, JSON.stringify(mark) + "\n");
  } catch { /* old versions of this file are then left in place */ }
}

/** Whether the daemon a mark or record names still runs (same pid, same start). */
function running(pid: unknown, start?: unknown): boolean {
  if (typeof pid !== "number") return false;
  const now = processToken(pid);
  return now !== undefined && (start === undefined || start === now);
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(Deno.readTextFileSync(path));
    return typeof parsed === "object" && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes what older versions of the same configuration file left in the state directory (their
 * locks, start error, live state, token, record, default socket and log), except those of a
 * version whose daemon still runs. `pathsOf` gives the files of another fingerprint. Returns the
 * fingerprints cleaned.
 */
export async function removeOldVersions(
  paths: DaemonPaths,
  config: string,
  pathsOf: (short: string) => DaemonPaths,
): Promise<string[]> {
  const own = basename(paths.version);
  const cleaned: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(paths.dir)];
  } catch {
    return cleaned;
  }
  for (const e of entries) {
    const m = /^([0-9a-f]{16})\.version\.json$/.exec(e.name);
    if (!m || e.name === own || !e.isFile) continue;
    const other = pathsOf(m[1]);
    const mark = readJson(other.version);
    if (mark?.config !== config || running(mark.pid, mark.start)) continue;
    const record = readJson(other.record);
    if (record && running(record.pid)) continue;
    const files = [
      other.spawnLock,
      other.bindLock,
      other.startError,
      other.token,
      other.record,
      other.log,
      // A socket of its own (not daemon.socket, which every version shares).
      ...(dirname(other.socket) === other.dir && basename(other.socket).startsWith(m[1])
        ? [other.socket]
        : []),
      other.version,
    ];
    for (const f of files) {
      try {
        Deno.removeSync(f);
      } catch { /* never written, or already gone */ }
    }
    await removeLive(other.live);
    cleaned.push(m[1]);
  }
  return cleaned;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
