// The daemon's live state (`<state>/daemons/<fingerprint>.live.json`): the one module that writes,
// reads and removes it. The daemon writes what it holds whenever that changes; `mcpx ls` and
// `mcpx run` read it instead of asking the daemon, and trust it only while its writer runs.

import { writeFileAtomic } from "../_atomic.ts";
import type { LiveState } from "../pool/registry.ts";
import { scopeOf, sessionKey } from "../pool/scope.ts";
import { processToken } from "../_proc.ts";

/** What the file holds: the live state, and the process that wrote it. */
export interface KeptLive extends LiveState {
  pid: number;
  /**
   * The writer's {@linkcode processToken} (on Linux its start time): a pid can be reused, a pid
   * and its start time cannot.
   */
  start: string;
}

/** This daemon's {@linkcode processToken}, read at its first {@linkcode writeLive}. */
let selfToken: string | undefined;

/** Writes this process's live state to `path` (mode 0600, whole or not at all). Best effort. */
export function writeLive(path: string, state: LiveState): void {
  try {
    const start = selfToken ??= processToken(Deno.pid);
    if (start === undefined) return;
    const kept: KeptLive = { pid: Deno.pid, start, ...state };
    writeFileAtomic(path, JSON.stringify(kept) + "\n");
  } catch { /* readers ask the daemon instead */ }
}

/**
 * The live state kept at `path`, while the daemon that wrote it runs: undefined when there is
 * none, it is unreadable, or its pid now names another process (or none).
 */
export function readLive(path: string): KeptLive | undefined {
  let kept: Partial<KeptLive>;
  try {
    kept = JSON.parse(Deno.readTextFileSync(path));
  } catch {
    return undefined;
  }
  if (
    typeof kept?.pid !== "number" || typeof kept.start !== "string" ||
    kept.live === null || typeof kept.live !== "object" || !Array.isArray(kept.keys)
  ) return undefined;
  return processToken(kept.pid) === kept.start ? kept as KeptLive : undefined;
}

/** Removes the live state at `path`, if any. */
export async function removeLive(path: string): Promise<void> {
  await Deno.remove(path).catch(() => {});
}

/**
 * Whether the daemon `pid` may hold a process keyed to `session`: false only when the live state
 * at `path` is that daemon's own and lists no key of the session.
 */
export function mayHoldSession(path: string, pid: number, session: string): boolean {
  const kept = readLive(path);
  return kept?.pid !== pid || kept.keys.some((k) => scopeOf(k) === sessionKey(session));
}
