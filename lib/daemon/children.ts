import { writeFileAtomic } from "../_atomic.ts";
import { groupMembers, processToken, procStat } from "../_proc.ts";

/** One server process a daemon started, as it records it for a successor. */
export interface ChildRecord {
  pid: number;
  /** Its process group: servers lead their own (lib/mcp/stdio_transport.ts starts them so). */
  pgid: number;
  /** Its {@linkcode processToken}: the start time that tells it from a later process of its pid. */
  start: string;
  server: string;
  instance: string;
}

/** The children file (`DaemonPaths.children`): whose they are, and what they are. */
export interface ChildrenFile {
  daemon: { pid: number; start: string };
  children: ChildRecord[];
}

/** What a dead predecessor left, and was stopped. */
export interface Orphans {
  /** The predecessor's pid. */
  daemon: number;
  stopped: ChildRecord[];
}

/**
 * The record of a child this process started (`pid`), read now: its process group and start
 * time. Undefined when it is already gone.
 */
export function childRecord(
  pid: number,
  server: string,
  instance: string,
): ChildRecord | undefined {
  const start = processToken(pid);
  if (start === undefined) return undefined;
  const pgid = Number(procStat(pid)?.[2] ?? pid);
  return { pid, pgid: Number.isInteger(pgid) && pgid > 0 ? pgid : pid, start, server, instance };
}

/** Writes this daemon's children file (mode 0600), whole or not at all. Best effort. */
export function writeChildren(path: string, self: ChildrenFile["daemon"], list: ChildRecord[]) {
  try {
    writeFileAtomic(path, JSON.stringify({ daemon: self, children: list }) + "\n");
  } catch { /* a successor then finds an older list, or none */ }
}

function kill(target: number, signal: Deno.Signal): void {
  try {
    Deno.kill(target, signal);
  } catch { /* already gone */ }
}

/**
 * Stops what a dead predecessor left: reads the children file at `path` and, when the daemon it
 * names no longer runs (its pid is gone, or now names a process with another start time), kills
 * each recorded server's process group, but only where the server still runs with its recorded
 * start time, so a pid reused since is never signalled. A server that is itself gone may have
 * left processes in its group: those still in it are stopped too (a group id is not reused while
 * any process is in the group), if they started no earlier than the server did. The file is then
 * removed. Undefined when there was nothing to stop (no file, or its daemon still runs).
 */
export function stopOrphans(path: string): Orphans | undefined {
  let file: ChildrenFile;
  try {
    file = JSON.parse(Deno.readTextFileSync(path));
  } catch {
    return undefined;
  }
  const owner = file?.daemon;
  if (!owner || typeof owner.pid !== "number" || !Array.isArray(file.children)) return undefined;
  // Only where start times can be read (Linux): elsewhere a reused pid could not be told apart.
  if (Deno.build.os !== "linux") return undefined;
  if (owner.pid === Deno.pid || processToken(owner.pid) === owner.start) return undefined;
  const stopped: ChildRecord[] = [];
  for (const c of file.children) {
    if (!Number.isInteger(c?.pid) || !Number.isInteger(c?.pgid) || !/^\d+$/.test(c?.start)) {
      continue;
    }
    const now = processToken(c.pid);
    if (now === c.start) {
      // It leads its group: the group goes with it (its own children included).
      if (c.pgid === c.pid) kill(-c.pgid, "SIGKILL");
      else kill(c.pid, "SIGKILL");
      stopped.push(c);
    } else if (now === undefined && c.pgid === c.pid) {
      const left = groupMembers(c.pgid, Number(c.start));
      if (left.length > 0) {
        kill(-c.pgid, "SIGKILL");
        stopped.push(c);
      }
    }
  }
  try {
    Deno.removeSync(path);
  } catch { /* already gone */ }
  return { daemon: owner.pid, stopped };
}

/** Says what {@linkcode stopOrphans} did, for the log and the starting command's stderr. */
export function describeOrphans(o: Orphans): string {
  const names = [...new Set(o.stopped.map((c) => c.server))];
  return `Stopped ${o.stopped.length} server process(es) left by daemon ${o.daemon}, which died: ${
    names.map((n) => `"${n}"`).join(", ")
  } (pids ${o.stopped.map((c) => c.pid).join(", ")})`;
}
