import type { Context } from "../context.ts";
import { daemonFiles, daemonsDir } from "../paths.ts";
import { stopOrphans } from "./children.ts";
import { removeLive } from "./live.ts";
import { probe, tokenHeaders } from "./client.ts";
import { wireRequest } from "./wire.ts";
import { type DaemonEntry, listDaemons, waitForExit } from "./records.ts";
import { cmdlineOf, pidAlive } from "../_proc.ts";

/** Whether `pid` still looks like an mcpx daemon (guards against a reused pid). */
function looksLikeDaemon(pid: number): boolean {
  return cmdlineOf(pid)?.includes("daemon") ?? false;
}

async function stopOne(
  entry: DaemonEntry,
  token: string,
): Promise<{ pid: number; config: string; forced: boolean }> {
  if (entry.state === "running") {
    try {
      await wireRequest(entry.socket, "POST", "/v1/stop", {
        body: {},
        timeoutMs: 5000,
        headers: tokenHeaders(token),
      });
    } catch { /* it may close the connection as it goes */ }
    if (await waitForExit(entry.pid, 5000)) {
      return { pid: entry.pid, config: entry.config, forced: false };
    }
  }
  // Still alive: its process group holds its servers, so end the whole group.
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    if (!pidAlive(entry.pid) || !looksLikeDaemon(entry.pid)) break;
    try {
      Deno.kill(-entry.pid, signal);
    } catch {
      try {
        Deno.kill(entry.pid, signal);
      } catch { /* gone */ }
    }
    if (await waitForExit(entry.pid, 2000)) break;
  }
  return { pid: entry.pid, config: entry.config, forced: true };
}

/** The files of a recorded daemon in the daemons folder `dir`. */
function filesOf(entry: DaemonEntry, dir: string) {
  return daemonFiles(dir, entry.key);
}

async function removeStale(entry: DaemonEntry, dir: string): Promise<void> {
  const { record, live, token, children } = filesOf(entry, dir);
  // What a daemon that died left running goes with its record (lib/daemon/children.ts).
  stopOrphans(children);
  await Deno.remove(record).catch(() => {});
  await removeLive(live);
  if ((await probe(entry.socket, { token }).catch(() => "foreign")) === "stale") {
    await Deno.remove(token).catch(() => {});
    await Deno.remove(entry.socket).catch(() => {});
  }
}

/** Stops this configuration's daemon, or every daemon recorded under the state directory. */
export async function stopDaemons(
  ctx: Context,
  options: { all: boolean; except?: number },
): Promise<{ stopped: { pid: number; config: string; forced: boolean }[]; stale: string[] }> {
  const dir = daemonsDir(ctx.boot, ctx.io.env);
  let entries = await listDaemons(dir);
  entries = entries.filter((e) => e.pid !== options.except);
  if (!options.all) {
    const fp = await ctx.fingerprint();
    // One daemon per configuration file, across its edits: named by its path.
    entries = entries.filter((e) => e.key === fp.key);
  }
  const stopped = [];
  const stale: string[] = [];
  for (const entry of entries) {
    if (entry.state === "stale" && !(pidAlive(entry.pid) && looksLikeDaemon(entry.pid))) {
      stale.push(entry.config);
      await removeStale(entry, dir);
      continue;
    }
    stopped.push(await stopOne(entry, filesOf(entry, dir).token));
    await removeStale(entry, dir);
  }
  return { stopped, stale };
}
