// The last rung of the ladder (docs/daemon.md, "The ladder"): the daemon's own handler hosted
// inside this command, on files of its own, for as long as the command runs. The identical
// handler, so it cannot drift from daemon mode; only the lifetime differs: every server it starts
// stops with the command.

import { Context } from "../context.ts";
import { McpxError, messageOf } from "../errors.ts";
import { inlineFilePid, inlinePaths } from "../paths.ts";
import { stopOrphans } from "../daemon/children.ts";
import { processToken } from "../_proc.ts";
import { runDaemon } from "./daemon.ts";

/**
 * Removes the files of inline daemons of `key` whose command is gone (`pid`: this one's, at its
 * end), stopping first the servers a killed one's children file still names (SIGKILL: nothing of
 * it ran).
 */
function sweep(ctx: Context, key: string, only?: number): void {
  const dir = inlinePaths(ctx.boot, ctx.io.env, key, Deno.pid).dir;
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].map((e) => e.name);
  } catch {
    return;
  }
  const gone = new Set<number>();
  for (const name of names) {
    const pid = inlineFilePid(key, name);
    if (pid === undefined) continue;
    if (only !== undefined ? pid !== only : pid === Deno.pid || processToken(pid) !== undefined) {
      continue;
    }
    if (!gone.has(pid)) {
      gone.add(pid);
      stopOrphans(inlinePaths(ctx.boot, ctx.io.env, key, pid).children);
    }
    try {
      Deno.removeSync(`${dir}/${name}`);
    } catch { /* gone */ }
  }
  for (const pid of gone) {
    const socket = inlinePaths(ctx.boot, ctx.io.env, key, pid).socket;
    try {
      Deno.removeSync(socket);
    } catch { /* gone, or in the folder swept above */ }
  }
}

/**
 * Hosts the daemon for `command`'s configuration inside this process (its context's `inline`
 * marked started first, so that its paths are the inline ones); resolves once it answers, to
 * what stops it.
 */
export async function hostInline(command: Context): Promise<() => Promise<void>> {
  await command.requireTrust();
  sweep(command, (await command.fingerprint()).key);
  command.inline!.started = true;
  // The daemon's own context: this command's settings and inline paths, and no terminal.
  const host = new Context(
    { ...command.io, err: () => {}, errIsTerminal: false },
    command.flags,
    undefined,
    {},
    command.boot,
  );
  host.inline = command.inline;
  host.host = command.host;
  let stop: ((reason: string) => void) | undefined;
  let ready!: () => void;
  const answering = new Promise<void>((r) => (ready = r));
  const done = runDaemon(host, true, undefined, {
    ready(requestStop) {
      stop = requestStop;
      ready();
    },
  });
  try {
    await Promise.race([
      answering,
      done.then(() => {
        throw new McpxError("DAEMON_START_FAILED", "The inline daemon stopped as it started");
      }),
    ]);
  } catch (e) {
    command.inline!.started = false;
    throw e instanceof McpxError
      ? e
      : new McpxError("DAEMON_START_FAILED", `Cannot host the daemon inline: ${messageOf(e)}`);
  }
  command.rung = "inline";
  return async () => {
    stop?.("the inline command ended");
    await done.catch(() => {});
    // What the daemon leaves of itself (its locks) goes too: nothing of a command outlives it.
    sweep(command, (await command.fingerprint()).key, Deno.pid);
  };
}
