// The client a run is given: the mcpx daemon it calls, and the `mcpx-client.ts` module its
// globals (and an `import tools from "./mcpx-client.ts"`) come from, written only when stale.

import { dirname, join } from "../_path.ts";
import type { Context } from "../context.ts";
import { callDaemon, ensureDaemon, type Health } from "../daemon/client.ts";
import { load } from "../_load.ts";
import { isFresh } from "./client_stamp.ts";
import { hash64 } from "../_hash.ts";
import type { ResolvedScript } from "./resolve.ts";

/** The daemon and client of a run that has a configuration. */
export interface Provision {
  /** The daemon's answer, once it has been asked (it may be later, see {@linkcode askDaemon}). */
  daemon?: Promise<Health>;
  socket: string;
  /** The client module the launcher imports. */
  clientPath: string;
}

function writable(dir: string): boolean {
  try {
    const probe = join(dir, `.mcpx-probe-${crypto.randomUUID()}`);
    Deno.writeTextFileSync(probe, "");
    Deno.removeSync(probe);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds or writes the client of a run. A client module that is already right lets a Worker run
 * start before the daemon is asked (its first tool call waits for the daemon's word); otherwise
 * the daemon is asked first and the client written from what it serves.
 */
export async function provisionClient(
  ctx: Context,
  options: {
    script?: ResolvedScript;
    /** The script's text: whether it imports the client. */
    text: string;
    /** The run's own folder in the cache, where a client not beside the script goes. */
    scratch: string;
    /** Whether the run is in a Worker, which can start before the daemon answers. */
    worker: boolean;
    /** An ad-hoc server the run gets as one more namespace (`mcpx run --stdio …`). */
    adHoc?: { stdio?: string; url?: string; name?: string };
  },
): Promise<Provision> {
  const { script, text, scratch, worker } = options;
  if (options.adHoc) return await provisionAdHoc(ctx, options.adHoc, scratch);
  // A daemon elsewhere (daemon.endpoint): its configuration's client, whatever this folder has;
  // the script reaches it by the endpoint it is handed (lib/daemon/client.ts remoteScriptEnv).
  if (ctx.boot.get("daemon.endpoint") !== "") return await provisionRemote(ctx, options);
  const known = (await ctx.paths()).socket;
  // Beside the script when it is a named one or imports the client (the reference's
  // `import tools from "./mcpx-client.ts"`); otherwise out of the way, in the cache.
  const beside = script && (script.named || text.includes("mcpx-client"))
    ? dirname(script.path)
    : undefined;
  const besidePath = beside && join(beside, "mcpx-client.ts");
  if (besidePath && worker && isFresh(ctx, besidePath, known)) {
    return { socket: known, clientPath: besidePath };
  }
  if (!besidePath && worker && isFresh(ctx, join(scratch, "mcpx-client.ts"), known)) {
    return { socket: known, clientPath: join(scratch, "mcpx-client.ts") };
  }
  const daemon = ensureDaemon(ctx);
  await daemon;
  // A daemon this command hosts inline answers on a socket of its own.
  const socket = (await ctx.paths()).socket;
  let dir = scratch;
  if (beside) {
    if (writable(beside)) dir = beside;
    else {
      ctx.io.err(
        `mcpx: warning: cannot write mcpx-client.ts beside ${
          script!.path
        }; the globals work, an import of ./mcpx-client.ts will not\n`,
      );
    }
  }
  const { writeClient } = await load<typeof import("./client_module.ts")>(
    "./client_module.ts",
    import.meta.url,
  );
  const clientPath = await writeClient(ctx, dir, socket, undefined, { listUnlisted: true });
  return { daemon, socket, clientPath };
}

/**
 * The client of a run against the daemon `daemon.endpoint` names, written from the namespaces
 * that daemon lists: beside the script as for a local daemon, else in the run's scratch folder.
 * No socket of this machine is named in it.
 */
async function provisionRemote(
  ctx: Context,
  options: { script?: ResolvedScript; text: string; scratch: string },
): Promise<Provision> {
  const { script, text, scratch } = options;
  const daemon = ensureDaemon(ctx);
  await daemon;
  const beside = script && (script.named || text.includes("mcpx-client"))
    ? dirname(script.path)
    : undefined;
  const dir = beside && writable(beside) ? beside : scratch;
  const { writeClient } = await load<typeof import("./client_module.ts")>(
    "./client_module.ts",
    import.meta.url,
  );
  const clientPath = await writeClient(ctx, dir, "", undefined, { listUnlisted: true });
  return { daemon, socket: "", clientPath };
}

/**
 * The client of a run with an ad-hoc server: the daemon lists the server's tools live (the same
 * pool `mcpx call --stdio` uses), and the client, written to a folder of its own in the cache,
 * has its namespace beside the configured ones, each of its calls naming the command line (or
 * URL) again. A client beside a named script is left as the configuration makes it.
 */
async function provisionAdHoc(
  ctx: Context,
  adHoc: { stdio?: string; url?: string; name?: string },
  scratch: string,
): Promise<Provision> {
  const daemon = ensureDaemon(ctx);
  await daemon;
  // A daemon this command hosts inline answers on a socket of its own.
  const socket = (await ctx.paths()).socket;
  const [{ adHocTools }, { writeClient }] = await Promise.all([
    load<typeof import("../daemon/adhoc.ts")>("../daemon/adhoc.ts", import.meta.url),
    load<typeof import("./client_module.ts")>("./client_module.ts", import.meta.url),
  ]);
  const listed = await adHocTools(adHoc, ctx);
  const which = { stdio: adHoc.stdio, url: adHoc.url, name: listed.namespace };
  const dir = join(
    scratch,
    `adhoc-${hash64(new TextEncoder().encode(JSON.stringify(which)))}`,
  );
  const clientPath = await writeClient(ctx, dir, socket, undefined, {
    listUnlisted: true,
    adHoc: {
      ns: listed.namespace,
      description: `ad hoc: ${adHoc.stdio ?? adHoc.url}`,
      tools: listed.tools,
      adHoc: {
        ...(adHoc.stdio !== undefined ? { stdio: adHoc.stdio } : {}),
        ...(adHoc.url !== undefined ? { url: adHoc.url } : {}),
        name: listed.namespace,
      },
    },
  });
  return { daemon, socket, clientPath };
}

/** The daemon's answer, asking it now if it has not been asked yet. */
export function askDaemon(ctx: Context, provision: Provision): Promise<Health> {
  return provision.daemon ??= ensureDaemon(ctx);
}

/**
 * Ends the session a run minted, whenever a daemon answered the run: the daemon then refuses any
 * call of it still on its way (one the script did not await), which what it keeps (lib/daemon/
 * live.ts) could not tell is coming.
 */
export async function endSession(
  ctx: Context,
  daemon: Promise<Health> | undefined,
  session: string,
): Promise<void> {
  const health = await daemon?.catch(() => undefined);
  if (!health) return;
  await callDaemon(ctx, {
    method: "POST",
    path: `/v1/sessions/${encodeURIComponent(session)}/end`,
    start: false,
  }).catch(() => undefined);
}
