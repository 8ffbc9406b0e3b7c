import { dirname } from "../_path.ts";
import { McpxError, messageOf } from "../errors.ts";
import type { Context, DaemonHandle, UpgradeRequest, UpgradeResult } from "../context.ts";
import { writeFileAtomic } from "../_atomic.ts";
import { loadConfig, type McpxConfig } from "../config/load.ts";
import { DaemonLog, type Level } from "../log/daemon.ts";
import type { Format } from "../../launcher/log.ts";
import { wantsColor } from "../log/run_log.ts";
import { daemonFlagArgs, guardOf, probe } from "./client.ts";
import { readToken, secureSocketDir, secureStateDir, writeToken } from "./guard.ts";
import type { Registry } from "../pool/registry.ts";
import { withLock } from "./lock.ts";
import { runningVersion } from "../version.ts";
import { processToken } from "./pid.ts";
import type { DaemonRecord } from "./records.ts";
import {
  type ChildRecord,
  childRecord,
  describeOrphans,
  stopOrphans,
  writeChildren,
} from "./children.ts";
import { removeLive, writeLive } from "./live.ts";
import { EventBus } from "../events/bus.ts";
import { NamedSessions } from "../sessions/named.ts";
import { ClientHalf } from "./client_half.ts";
import { isLoopback, parseHostPort, type TcpAddress } from "./listen.ts";
import { UiGate } from "./ui_gate.ts";
import { predecessorOf, Successor, upgrade } from "./upgrade.ts";
import { defsOf, makeRegistry } from "./wiring.ts";
import { ConfigFollower } from "./reload.ts";
import { Handler, type Serve } from "./handler.ts";
import { Listeners } from "./listeners.ts";

/** A running daemon's state: what operations see of it ({@linkcode DaemonHandle}) and more. */
interface RunningDaemon extends DaemonHandle {
  /** Replaced, with the fingerprint, when an edit of the file is taken up. */
  config: McpxConfig;
  fingerprint: string;
  lastActivity: number;
  inflight: number;
  readonly log: DaemonLog;
  /** What this daemon stopped at its start that a predecessor which died had left running. */
  recovered?: string;
  listen?: string;
}

export type { Serve };

/**
 * Runs the daemon for the context's configuration until it is stopped, idles out (when
 * auto-started), or its configuration changes (when auto-started), answering requests with what
 * `serve` builds. Resolves to an exit status.
 */
export async function runDaemon(
  ctx: Context,
  autostarted: boolean,
  listenFlag: string | undefined,
  serve: Serve,
  hooks: {
    /** Called once it answers on its socket, with how to stop it (a daemon hosted inline). */
    ready?: (stop: (reason: string) => void) => void;
  } = {},
): Promise<number> {
  const fp = await ctx.fingerprint();
  const paths = await ctx.paths();
  // Started by `mcpx daemon upgrade`: it takes over from the daemon named here (upgrade.ts).
  const from = predecessorOf(ctx.io.env);
  const version = runningVersion(ctx.io.env);
  let stateDirOk = false;
  const reportStart = (error: unknown) => {
    const report = error instanceof McpxError
      ? { code: error.code, message: error.message, hint: error.hint }
      : { code: "INTERNAL", message: messageOf(error) };
    // Never into a state directory that was refused as another user's.
    if (!stateDirOk) return;
    try {
      writeFileAtomic(
        from ? ctx.io.env.MCPX_UPGRADE_ERROR || paths.startError : paths.startError,
        JSON.stringify(report) + "\n",
      );
    } catch { /* nowhere to say why */ }
  };
  let settings, config: McpxConfig, listen: TcpAddress | undefined;
  try {
    secureStateDir(dirname(paths.dir));
    secureStateDir(paths.dir);
    secureStateDir(dirname(paths.log));
    stateDirOk = true;
    settings = await ctx.settings();
    const text = listenFlag ?? ctx.boot.get("daemon.listen");
    listen = text ? parseHostPort(text, "--listen") : undefined;
    config = await loadConfig(fp.path, fp.text);
  } catch (e) {
    reportStart(e);
    throw e;
  }
  // A log that cannot be written never stops the daemon: it says so once on its stderr.
  const log = new DaemonLog({
    dir: paths.logs,
    stem: paths.logStem,
    level: settings.get("logging.level") as Level,
    maxBytes: settings.get("logging.maxBytes"),
    problem: (line) => ctx.io.err(line + "\n"),
    // In the foreground on a terminal, the daemon shows its records as a run shows a script's.
    ...(ctx.io.errIsTerminal && !autostarted
      ? {
        render: {
          write: (line: string) => ctx.io.err(line),
          format: settings.get("logging.format") as Format,
          color: wantsColor(ctx.io),
        },
      }
      : {}),
  }, { pid: Deno.pid });
  log.write("info", "daemon.start", "Daemon starting", {
    config: fp.path,
    fingerprint: fp.hash,
    version,
    autostarted,
  });
  for (const w of settings.warnings) log.write("warn", "config.warning", w);

  const daemonStarted = Date.now();
  let registry!: Registry;
  let stopping = false;
  // Whether the shared files (live state, children, sessions) are this daemon's to write: not
  // while stopping, nor for a successor before it takes over, nor during an upgrade's handoff.
  let owner = !from;
  let quiet = false;
  const owning = () => owner && !stopping && !quiet;
  const events = new EventBus();
  // Made once the registry is: the registry asks it about each call of a session.
  let sessions: NamedSessions | undefined;
  const makeSessions = (
    carried?: ConstructorParameters<typeof NamedSessions>[0]["carried"],
  ): NamedSessions =>
    new NamedSessions({
      path: paths.sessions,
      daemon: { pid: Deno.pid, startedAt: new Date(daemonStarted).toISOString() },
      ...(carried ? { carried } : {}),
      user: ctx.io.env.USER || undefined,
      uid: Deno.uid() ?? undefined,
      log: (level, event, msg, attrs) => log.write(level, event, msg, attrs),
      publish: (type, data) => void events.publish(type, data),
      stop: (name) => registry.endSession(name),
      instances: () => registry.sessionInstances(),
    });
  let half: ClientHalf;
  try {
    half = new ClientHalf(defsOf(config, settings, log, ctx.io.cwd), {
      configDir: dirname(config.path),
      roots: settings.get("servers.roots"),
      logLevel: settings.get("servers.logLevel"),
      log: (level, event, msg, attrs) => log.write(level, event, msg, attrs),
      bus: events,
    });
    // Once stopping, the live state is no longer written: a successor may own the file by then.
    registry = await makeRegistry(config, ctx, settings, log, half, events, {
      live: (state) => {
        if (owning()) writeLive(paths.live, state);
      },
      children: (list) => {
        if (!owning()) return;
        recordChildren(paths.children, list);
        sessions?.refresh();
      },
      sessions: {
        enter: (caller) => sessions?.enter(caller),
        leave: (caller) => sessions?.leave(caller),
        keeps: (scope) => sessions?.keeps(scope) ?? false,
      },
    });
    // A successor reads them once it has taken over: until then they are its predecessor's.
    if (!from) sessions = makeSessions();
  } catch (e) {
    log.close();
    reportStart(e);
    throw e;
  }
  let listeners: Listeners | undefined;
  const gate = new UiGate();
  let stopReason = "";
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  const state: RunningDaemon = {
    pid: Deno.pid,
    startedAt: daemonStarted,
    autostarted,
    socket: paths.socket,
    configPath: fp.path,
    fingerprint: fp.hash,
    logId: log.id,
    config,
    idleExitMs: settings.get("daemon.idleExit"),
    lastActivity: Date.now(),
    inflight: 0,
    log,
    registry,
    events,
    // Read once this daemon serves: a successor makes them when it takes over (upgrade.ts).
    get sessions() {
      return sessions;
    },
    version,
    inline: hooks.ready !== undefined,
    ui: {
      open() {
        // Hosted inline, the daemon ends with the command that prints the address.
        if (hooks.ready) {
          throw new McpxError("USAGE", "The web page needs a daemon that outlives this command", {
            hint: "Run `mcpx start` first, or drop --inline (daemon.inline)",
          });
        }
        if (!listeners) {
          throw new McpxError("DAEMON_UNAVAILABLE", "The daemon is not listening yet");
        }
        return Promise.resolve({ listen: listeners.openUi(), ...gate.issue() });
      },
      exchange: (code) => gate.exchange(code),
    },
    requestStop(reason: string) {
      if (stopReason) return;
      stopReason = reason;
      // From now on no call is queued and no server starts: queued callers fail at once.
      registry.beginStop(reason);
      // Let the answer that asked for the stop leave before the listener closes.
      setTimeout(resolveStopped, 0);
    },
  };
  const writeRecord = () => {
    const record: DaemonRecord = {
      pid: Deno.pid,
      fingerprint: state.fingerprint,
      config: follower.fp.path,
      socket: paths.socket,
      log: paths.log,
      startedAt: new Date(state.startedAt).toISOString(),
      autostarted,
      version,
      ...(state.listen ? { listen: state.listen } : {}),
    };
    writeFileAtomic(paths.record, JSON.stringify(record, null, 2) + "\n");
  };

  const follower = new ConfigFollower(ctx, settings, log, fp, {
    state,
    registry,
    half,
    get stopReason() {
      return stopReason;
    },
    get stopping() {
      return stopping;
    },
    writeRecord: () => writeRecord(),
  });
  const current = (vouched?: string) => follower.current(vouched);

  // Upgrades (upgrade.ts): the listeners a predecessor gives back or a successor binds late, the
  // requests a successor holds until it owns the processes, and whether this one has retired.
  let successor: Successor | undefined;
  const takenOver = Promise.withResolvers<void>();
  if (!from) takenOver.resolve();
  let retiredFor: number | undefined;
  let upgrading: Promise<UpgradeResult> | undefined;
  // From the handoff on, a request this daemon still receives (a connection made just before its
  // socket was replaced) goes to the successor, which holds it until it owns the processes.
  let forwardTo: Deno.HttpClient | undefined;
  const handler = new Handler(
    ctx,
    {
      state,
      registry,
      follower,
      get forwardTo() {
        return forwardTo;
      },
      from,
      get successor() {
        return successor;
      },
      takenOver: takenOver.promise,
    },
    serve,
    { settings, log, version },
  );
  try {
    await withLock(paths.bindLock, async () => {
      // A successor's predecessor answers on the socket, and its servers are not orphans.
      const existing = from ? "absent" : await probe(paths.socket, guardOf(paths));
      if (typeof existing === "object") {
        throw new McpxError(
          "DAEMON_UNAVAILABLE",
          `A daemon for ${existing.config} already runs (pid ${existing.pid}) on ${paths.socket}`,
          { hint: "Use `mcpx stop` first, or just use the running one" },
        );
      }
      // No daemon answers: one that died may have left its servers running (they may ignore a
      // closed stdin). They are stopped before this daemon starts its own.
      const orphans = from ? undefined : stopOrphans(paths.children);
      if (orphans && orphans.stopped.length > 0) {
        state.recovered = describeOrphans(orphans);
        log.write("warn", "daemon.orphans_stopped", state.recovered, {
          predecessor: orphans.daemon,
          stopped: orphans.stopped,
        });
        if (!autostarted) ctx.io.err(`mcpx: ${state.recovered}\n`);
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
      // Before the socket exists, so that whoever can connect can already read it. A successor
      // keeps its predecessor's: scripts running hold it.
      const token = (from ? readToken(paths.token) : undefined) ?? writeToken(paths.token);
      listeners = new Listeners({
        handler,
        log,
        settings,
        paths,
        gate,
        token,
        listen,
        state,
        announce: !autostarted && !from,
        err: (text) => ctx.io.err(text),
      });
      // The TCP listener first: once the socket answers, a command may already ask for it. A
      // successor binds it once its predecessor has let go of the port.
      if (!from) listeners.bindTcp();
      listeners.listenUnix(from ? from.socket : paths.socket);
      if (!from) writeRecord();
    });
  } catch (e) {
    log.write("error", "daemon.start_failed", messageOf(e));
    log.close();
    reportStart(e);
    await listeners?.abort();
    sessions?.close();
    await registry.close();
    throw e;
  }
  registry.start();
  sessions?.start();
  if (!from) writeLive(paths.live, registry.liveState());
  if (from) {
    successor = new Successor(from, {
      registry,
      env: ctx.io.env,
      stateDir: paths.dir,
      socket: paths.socket,
      log: (level, event, msg, attrs) => log.write(level, event, msg, attrs),
      stopOrphans: () => {
        const orphans = stopOrphans(paths.children);
        if (orphans && orphans.stopped.length > 0) {
          state.recovered = describeOrphans(orphans);
          log.write("warn", "daemon.orphans_stopped", state.recovered, {
            predecessor: orphans.daemon,
            stopped: orphans.stopped,
          });
        }
      },
      takeOver: (carried) => {
        owner = true;
        sessions = makeSessions(carried);
        sessions.start();
        writeRecord();
        writeLive(paths.live, registry.liveState());
        recordChildren(paths.children, registry.children());
        // The predecessor closed its TCP listener before the handoff; its port may take a moment.
        const bind = (left: number) => {
          try {
            listeners!.bindTcp();
            if (state.listen) writeRecord();
          } catch (e) {
            if (left > 0) setTimeout(() => bind(left - 1), 50);
            else log.write("error", "daemon.listen_failed", messageOf(e));
          }
        };
        bind(40);
        takenOver.resolve();
        log.write("info", "daemon.took_over", "This daemon serves from now on", {
          predecessor: from.pid,
          servers: registry.children().length,
        });
      },
    });
    successor.watch();
  }
  state.upgrade = (request: UpgradeRequest) => {
    if (hooks.ready) {
      return Promise.reject(
        new McpxError(
          "USAGE",
          "A daemon hosted inline ends with its command: there is nothing to upgrade",
          {
            hint:
              "Drop --inline (daemon.inline): the next command then uses a daemon of its own version",
          },
        ),
      );
    }
    if (!ctx.io.env.MCPX_DAEMON_CHILD) {
      return Promise.reject(
        new McpxError(
          "USAGE",
          `Daemon ${Deno.pid} runs in the foreground or under a supervisor (mcpx service): it is not upgraded in place`,
          {
            hint:
              "Restart it where it runs (Ctrl-C and `mcpx daemon` again, or `systemctl --user restart` its unit)",
          },
        ),
      );
    }
    if (stopReason) {
      return Promise.reject(new McpxError("DAEMON_STOPPING", `Daemon ${Deno.pid} is stopping`));
    }
    if (upgrading) return upgrading;
    upgrading = upgrade({
      socket: paths.socket,
      tokenFile: paths.token,
      stateDir: paths.dir,
      config: follower.fp.path,
      version,
      startedAt: new Date(daemonStarted).toISOString(),
      env: ctx.io.env as Record<string, string>,
      flagArgs: daemonFlagArgs(ctx),
      autostarted,
      startTimeoutMs: settings.get("daemon.startTimeout"),
      drainMs: settings.get("daemon.upgradeDrain"),
      registry,
      inflight: () => state.inflight,
      closeListeners: () => listeners!.closeTcp(),
      relisten: () => {
        listeners!.listenUnix(paths.socket);
        listeners!.bindTcp();
        writeRecord();
      },
      quiesce: () => {
        quiet = true;
        forwardTo = Deno.createHttpClient({ proxy: { transport: "unix", path: paths.socket } });
        sessions?.close();
        void registry.flushCache();
      },
      resume: () => {
        quiet = false;
        forwardTo?.close();
        forwardTo = undefined;
        sessions = makeSessions();
        sessions.start();
        writeLive(paths.live, registry.liveState());
        recordChildren(paths.children, registry.children());
      },
      log: (level, event, msg, attrs) => log.write(level, event, msg, attrs),
      retire: (to) => {
        retiredFor = to;
        state.requestStop(`upgraded: daemon ${to} serves from now on`);
      },
    }, request).finally(() => (upgrading = undefined));
    return upgrading;
  };
  log.write("info", "daemon.listening", "Daemon listening", {
    socket: paths.socket,
    ...(state.listen && listen
      ? { listen: state.listen, loopback: isLoopback(listen.hostname) }
      : {}),
    config: follower.fp.path,
    autostarted,
    fallbackSocket: paths.socketFallback,
  });

  hooks.ready?.((reason) => state.requestStop(reason));
  const onSignal = () => state.requestStop("signal");
  Deno.addSignalListener("SIGTERM", onSignal);
  Deno.addSignalListener("SIGINT", onSignal);
  const tickMs = Math.min(
    30_000,
    Math.max(50, state.idleExitMs > 0 ? state.idleExitMs / 4 : 30_000),
  );
  const timer = setInterval(() => {
    if (!autostarted || state.inflight > 0) return;
    if (
      state.idleExitMs > 0 && Date.now() - state.lastActivity >= state.idleExitMs &&
      // A named session's processes are kept until its TTL runs out (docs/sessions.md).
      !sessions?.holding()
    ) {
      state.requestStop("idle");
      return;
    }
    try {
      if (follower.edited()) void current();
    } catch {
      state.requestStop("config removed");
    }
  }, tickMs);

  await stopped;
  clearInterval(timer);
  Deno.removeSignalListener("SIGTERM", onSignal);
  Deno.removeSignalListener("SIGINT", onSignal);
  stopping = true;
  // Before the servers go: the records keep listing them, so a successor can say they were lost.
  // After an upgrade they are the successor's: this daemon wrote them before it let go.
  if (!retiredFor) sessions?.close();
  log.write("info", "daemon.stopping", `Daemon stopping: ${stopReason}`, { reason: stopReason });
  await registry.flushCache();
  // Event streams end first: the listener's drain would otherwise wait on every follower.
  events.publish("daemon.stopping", { reason: stopReason });
  events.close();
  // Servers go while the listener drains: a call in flight then fails at once (its server was
  // stopped) instead of holding the shutdown until its callTimeout.
  await Promise.all([listeners!.shutdown(), registry.close()]);
  await registry.flushCache();
  forwardTo?.close();
  // Only remove files that are still ours: a successor may already have replaced them.
  try {
    const rec = JSON.parse(await Deno.readTextFile(paths.record)) as DaemonRecord;
    if (rec.pid === Deno.pid) {
      await Deno.remove(paths.record).catch(() => {});
      await Deno.remove(paths.socket).catch(() => {});
      await removeLive(paths.live);
      await Deno.remove(paths.token).catch(() => {});
      await Deno.remove(paths.children).catch(() => {});
    }
  } catch { /* record already gone */ }
  log.write("info", "daemon.stop", "Daemon stopped", { reason: stopReason });
  log.close();
  return 0;
}

/** Child records already read, by pid and instance: a start time is read from /proc once. */
const knownChildren = new Map<string, ChildRecord>();

/**
 * Records the daemon's server processes (pid, group, start time) for a successor, should this
 * daemon die without stopping them (lib/daemon/children.ts). Best effort.
 */
function recordChildren(
  path: string,
  list: { pid: number; server: string; instance: string }[],
): void {
  const seen = new Set<string>();
  const out: ChildRecord[] = [];
  for (const c of list) {
    const key = `${c.pid} ${c.instance}`;
    seen.add(key);
    let rec = knownChildren.get(key);
    if (!rec) {
      rec = childRecord(c.pid, c.server, c.instance);
      if (!rec) continue;
      knownChildren.set(key, rec);
    }
    out.push(rec);
  }
  for (const key of knownChildren.keys()) if (!seen.has(key)) knownChildren.delete(key);
  const start = processToken(Deno.pid);
  if (start === undefined) return;
  writeChildren(path, { pid: Deno.pid, start }, out);
}
