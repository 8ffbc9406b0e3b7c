import { join } from "../_path.ts";
import { daemonFiles, recordShort } from "../paths.ts";
import { sleep } from "../_timer.ts";
import { probe } from "./client.ts";
import { pidAlive } from "../_proc.ts";

/** The daemon's record file: what `mcpx daemons` and `mcpx stop --all` read. */
export interface DaemonRecord {
  pid: number;
  fingerprint: string;
  config: string;
  socket: string;
  log: string;
  startedAt: string;
  autostarted: boolean;
  version: string;
  /** The TCP address it also serves on (`daemon.listen`), as host:port with the port bound. */
  listen?: string;
}

/** A daemon record and whether its daemon answers. */
export interface DaemonEntry extends DaemonRecord {
  /** `running` answers on its socket; `stale` is a record whose daemon is gone. */
  state: "running" | "stale";
  uptimeMs: number | null;
  /** What its files are named by (lib/config/fingerprint.ts `key`): the record's file name. */
  key: string;
}

/** Every daemon record under `<state>/daemons`, each checked against its socket. */
export async function listDaemons(daemonsDir: string): Promise<DaemonEntry[]> {
  const out: DaemonEntry[] = [];
  let entries: Deno.DirEntry[] = [];
  try {
    entries = await Array.fromAsync(Deno.readDir(daemonsDir));
  } catch {
    return out;
  }
  for (const e of entries) {
    // Records only (not the live state or anything else beside them).
    const short = recordShort(e.name);
    if (!e.isFile || short === undefined) continue;
    let rec: DaemonRecord;
    try {
      rec = JSON.parse(await Deno.readTextFile(join(daemonsDir, e.name)));
    } catch {
      continue; // being written, or not ours
    }
    let state: DaemonEntry["state"] = "stale";
    try {
      const h = await probe(rec.socket, { token: daemonFiles(daemonsDir, short).token });
      if (typeof h === "object" && h.pid === rec.pid) state = "running";
    } catch { /* foreign or unreadable: not a running daemon of this record */ }
    out.push({
      ...rec,
      key: short,
      state,
      uptimeMs: state === "running" ? Date.now() - Date.parse(rec.startedAt) : null,
    });
  }
  return out.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

/** Waits until `pid` has exited, up to `ms`; returns whether it did. */
export async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (!pidAlive(pid)) return true;
    await sleep(10);
  }
  return !pidAlive(pid);
}
