import { dirname } from "../_path.ts";
import { McpxError, messageOf } from "../errors.ts";
import { Context, type DaemonHandle } from "../context.ts";
import { fingerprintConfig } from "../config/fingerprint.ts";
import { writeFileAtomic } from "../_atomic.ts";
import { loadConfig, type McpxConfig } from "../config/load.ts";
import { JsonlLog, type Level } from "../log.ts";
import { FINGERPRINT_HEADER, guardOf, probe } from "./client.ts";
import { CALLER_HEADER, decodeCaller } from "./wire.ts";
import {
  readBounded,
  refuseWithoutToken,
  secureSocketDir,
  secureStateDir,
  writeToken,
} from "./guard.ts";
import { type LiveState, Registry } from "../pool/registry.ts";
import { serverDefs } from "../config/servers.ts";
import type { Settings } from "../settings/resolve.ts";
import { resolve } from "../_path.ts";
import { cacheDir } from "../paths.ts";
import { CacheWriter, readCache, readCacheSync } from "../cache/schema_cache.ts";
import { withLock } from "./lock.ts";
import { namespacesOf } from "../discovery/load.ts";
import { summarizeCache } from "../discovery/ls_summary.ts";
import { VERSION } from "../version.ts";
import { load } from "../_load.ts";
import { removeLive, writeLive } from "./live.ts";

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
}

/** A running daemon's state: what operations see of it ({@linkcode DaemonHandle}) and more. */
interface RunningDaemon extends DaemonHandle {
  readonly config: McpxConfig;
  lastActivity: number;
  inflight: number;
  readonly log: JsonlLog;
}

/**
 * What the daemon answers on its socket: a handler built from `context`, which gives each request
 * the {@linkcode Context} it runs in (lib/surfaces/daemon.ts builds the `/v1` router).
 */
export type Serve = (context: (req: Request) => Context) => (req: Request) => Promise<Response>;

/**
 * Runs the daemon for the context's configuration until it is stopped, idles out (when
 * auto-started), or its configuration changes (when auto-started), answering requests with what
 * `serve` builds. Resolves to an exit status.
 */
export async function runDaemon(
  ctx: Context,
  autostarted: boolean,
  serve: Serve,
): Promise<number> {
  const fp = await ctx.fingerprint();
  const paths = await ctx.paths();
  let stateDirOk = false;
  const reportStart = (error: unknown) => {
    const report = error instanceof McpxError
      ? { code: error.code, message: error.message, hint: error.hint }
      : { code: "INTERNAL", message: messageOf(error) };
    // Never into a state directory that was refused as another user's.
    if (!stateDirOk) return;
    try {
      writeFileAtomic(paths.startError, JSON.stringify(report) + "\n");
    } catch { /* nowhere to say why */ }
  };
  let settings, config: McpxConfig;
  try {
    secureStateDir(dirname(paths.dir));
    secureStateDir(paths.dir);
    secureStateDir(dirname(paths.log));
    stateDirOk = true;
    settings = await ctx.settings();
    config = await loadConfig(fp.path, fp.text);
  } catch (e) {
    reportStart(e);
    throw e;
  }
  const log = await JsonlLog.open(paths.log, settings.get("logging.level") as Level, {
    pid: Deno.pid,
  });
  for (const w of settings.warnings) log.write("warn", "config.warning", w);

  let registry: Registry;
  let stopping = false;
  try {
    // Once stopping, the live state is no longer written: a successor may own the file by then.
    registry = await makeRegistry(config, ctx, settings, log, (state) => {
      if (!stopping) writeLive(paths.live, state);
    });
  } catch (e) {
    log.close();
    reportStart(e);
    throw e;
  }
  let server: Deno.HttpServer<Deno.UnixAddr> | undefined;
  let stopReason = "";
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  const state: RunningDaemon = {
    pid: Deno.pid,
    startedAt: Date.now(),
    autostarted,
    socket: paths.socket,
    configPath: fp.path,
    fingerprint: fp.hash,
    config,
    idleExitMs: settings.get("daemon.idleExit"),
    lastActivity: Date.now(),
    inflight: 0,
    log,
    registry,
    requestStop(reason: string) {
      if (stopReason) return;
      stopReason = reason;
      // From now on no call is queued and no server starts: queued callers fail at once.
      registry.beginStop(reason);
      // Let the answer that asked for the stop leave before the listener closes.
      setTimeout(resolveStopped, 0);
    },
  };
  const route = serve((req) => {
    // A garbled caller is refused (400): a call under the wrong scope could share a process it
    // must not.
    const caller = decodeCaller(req.headers.get(CALLER_HEADER));
    // A call whose client goes away is cancelled with it (notifications/cancelled to the server).
    const perRequest = new Context(ctx.io, ctx.flags, state, caller, ctx.boot, req.signal);
    return perRequest;
  });

  try {
    await withLock(paths.bindLock, async () => {
      const existing = await probe(paths.socket, guardOf(paths));
      if (typeof existing === "object") {
        throw new McpxError(
          "DAEMON_UNAVAILABLE",
          `A daemon for ${existing.config} already runs (pid ${existing.pid}) on ${paths.socket}`,
          { hint: "Use `mcpx stop` first, or just use the running one" },
        );
      }
      if (existing === "stale") {
        log.write(
          "warn",
          "daemon.stale_socket",
          "Removing a stale socket left by a daemon that died",
          {
            socket: paths.socket,
          },
        );
        await Deno.remove(paths.socket);
      }
      if (paths.socketFallback) secureSocketDir(dirname(paths.socket), { create: true });
      else {await Deno.mkdir(dirname(paths.socket), { recursive: true, mode: 0o700 }).catch(
          () => {},
        );}
      // Before the socket exists, so that whoever can connect can already read it.
      const token = writeToken(paths.token);
      const maxBytes = settings.get("daemon.maxRequestBytes");
      const memoryEvery = settings.get("plumbing.memoryLog");
      const snapshots = settings.get("plumbing.heapSnapshots");
      let requests = 0;
      try {
        server = Deno.serve({
          path: paths.socket,
          onListen() {},
          onError(error) {
            log.write("error", "http.error", String(error));
            return new Response("internal error", { status: 500 });
          },
        }, async (req) => {
          state.lastActivity = Date.now();
          state.inflight++;
          try {
            const ready = refuseWithoutToken(req, token) ?? await readBounded(req, maxBytes);
            const res = ready instanceof Response ? ready : await route(ready);
            res.headers.set(FINGERPRINT_HEADER, fp.hash);
            return res;
          } finally {
            state.inflight--;
            state.lastActivity = Date.now();
            if (memoryEvery > 0 && ++requests % memoryEvery === 0) {
              const n = requests;
              // After the answer has gone: what the request held is garbage by then.
              setTimeout(() => void logMemory(log, n, registry, snapshots), 0);
            }
          }
        });
      } catch (e) {
        throw new McpxError(
          "DAEMON_START_FAILED",
          `Cannot listen on "${paths.socket}": ${messageOf(e)}`,
          {
            hint: "Set daemon.socket (MCPX_DAEMON_SOCKET) to a path in a writable directory",
          },
        );
      }
      await Deno.chmod(paths.socket, 0o600);
      const record: DaemonRecord = {
        pid: Deno.pid,
        fingerprint: fp.hash,
        config: fp.path,
        socket: paths.socket,
        log: paths.log,
        startedAt: new Date(state.startedAt).toISOString(),
        autostarted,
        version: VERSION,
      };
      writeFileAtomic(paths.record, JSON.stringify(record, null, 2) + "\n");
    });
  } catch (e) {
    log.write("error", "daemon.start_failed", messageOf(e));
    log.close();
    reportStart(e);
    await server?.shutdown();
    await registry.close();
    throw e;
  }
  registry.start();
  writeLive(paths.live, registry.liveState());
  log.write("info", "daemon.started", "Daemon listening", {
    socket: paths.socket,
    config: fp.path,
    autostarted,
    fallbackSocket: paths.socketFallback,
  });

  const onSignal = () => state.requestStop("signal");
  Deno.addSignalListener("SIGTERM", onSignal);
  Deno.addSignalListener("SIGINT", onSignal);
  const tickMs = Math.min(
    30_000,
    Math.max(50, state.idleExitMs > 0 ? state.idleExitMs / 4 : 30_000),
  );
  const timer = setInterval(() => {
    if (!autostarted || state.inflight > 0) return;
    if (state.idleExitMs > 0 && Date.now() - state.lastActivity >= state.idleExitMs) {
      state.requestStop("idle");
      return;
    }
    try {
      if (fingerprintConfig(fp.path).hash !== fp.hash) state.requestStop("config changed");
    } catch {
      state.requestStop("config removed");
    }
  }, tickMs);

  await stopped;
  clearInterval(timer);
  Deno.removeSignalListener("SIGTERM", onSignal);
  Deno.removeSignalListener("SIGINT", onSignal);
  stopping = true;
  log.write("info", "daemon.stopping", `Daemon stopping: ${stopReason}`, { reason: stopReason });
  await registry.flushCache();
  // Servers go while the listener drains: a call in flight then fails at once (its server was
  // stopped) instead of holding the shutdown until its callTimeout.
  await Promise.all([server!.shutdown(), registry.close()]);
  await registry.flushCache();
  // Only remove files that are still ours: a successor may already have replaced them.
  try {
    const rec = JSON.parse(await Deno.readTextFile(paths.record)) as DaemonRecord;
    if (rec.pid === Deno.pid) {
      await Deno.remove(paths.record).catch(() => {});
      await Deno.remove(paths.socket).catch(() => {});
      await removeLive(paths.live);
      await Deno.remove(paths.token).catch(() => {});
    }
  } catch { /* record already gone */ }
  log.write("info", "daemon.stopped", "Daemon stopped", { reason: stopReason });
  log.close();
  return 0;
}

/** One `daemon.memory` record (`plumbing.memoryLog`); lib/daemon/memory.ts is loaded for it. */
async function logMemory(
  log: JsonlLog,
  requests: number,
  registry: Registry,
  snapshots: string,
): Promise<void> {
  try {
    const { measureMemory } = await load<typeof import("./memory.ts")>(
      "./memory.ts",
      import.meta.url,
    );
    const record = await measureMemory(requests, registry.tables(), snapshots);
    log.write("info", "daemon.memory", `Memory after ${requests} requests`, { ...record });
  } catch (e) {
    log.write("warn", "daemon.memory_failed", `Cannot measure memory: ${messageOf(e)}`);
  }
}

async function makeRegistry(
  config: McpxConfig,
  ctx: Context,
  settings: Settings,
  log: JsonlLog,
  live: (state: LiveState) => void,
): Promise<Registry> {
  const warnings: string[] = [];
  const defs = serverDefs(config, {
    warnings,
    queueTimeoutMs: settings.get("pool.queueTimeout"),
  });
  for (const w of warnings) log.write("warn", "config.warning", w);
  const fp = await ctx.fingerprint();
  const dir = cacheDir(ctx.boot, ctx.io.env);
  // This fingerprint's own file, intact, is what the writer starts from; else the cache carried
  // over from an earlier one, or an empty one, which the first listing writes out.
  const own = readCacheSync(dir, fp.hash, fp.path);
  const { cache: initial, warning } = own ?? await readCache(dir, fp.hash, fp.path);
  if (warning) log.write("warn", "cache.corrupt", warning);
  // Each write of the cache writes the summary `mcpx ls` reads instead (of every server).
  const cache = new CacheWriter(
    dir,
    initial,
    own !== undefined && !own.warning,
    (written) => summarizeCache(dir, written, (c) => namespacesOf(defs, c)),
  );
  const { resolveAuth } = await load<typeof import("../mcp/auth.ts")>(
    "../mcp/auth.ts",
    import.meta.url,
  );
  const { discoverRepository } = await load<typeof import("../git/discover.ts")>(
    "../git/discover.ts",
    import.meta.url,
  );
  const { pidAlive } = await load<typeof import("./records.ts")>("./records.ts", import.meta.url);
  const configDir = dirname(config.path);
  const maxMessageBytes = settings.get("daemon.maxMessageBytes");
  return new Registry(defs, {
    // The SDK is loaded when the first server starts, not with the daemon (~100 ms of start-up).
    connect: async (spec, startTimeoutMs, signal) =>
      (await load<typeof import("../mcp/connect.ts")>("../mcp/connect.ts", import.meta.url))
        .connectServer(spec, {
          startTimeoutMs,
          signal,
          maxMessageBytes,
          log: (level, event, msg, attrs) => log.write(level, event, msg, attrs),
        }),
    spec(def) {
      const auth = resolveAuth(def.name, def.entry, { env: { ...ctx.io.env } });
      return {
        name: def.name,
        transport: def.transport,
        command: def.entry.command,
        args: auth.args,
        env: auth.env,
        cwd: resolve(configDir, def.entry.cwd ?? "."),
        url: auth.url,
        headers: auth.headers,
        protocol: def.protocol,
      };
    },
    discover: (cwd) => discoverRepository(cwd),
    log: (level, event, msg, attrs) => log.write(level, event, msg, attrs),
    trace: settings.get("logging.trace"),
    reapIntervalMs: settings.get("plumbing.reapInterval"),
    alive: pidAlive,
    cache,
    live,
  });
}
