import { dirname } from "../_path.ts";
import { McpxError, messageOf } from "../errors.ts";
import type { Context, DaemonHandle, UpgradeRequest, UpgradeResult } from "../context.ts";
import type { Fingerprint } from "../config/fingerprint.ts";
import { writeFileAtomic } from "../_atomic.ts";
import { loadConfig, type McpxConfig } from "../config/load.ts";
import { DaemonLog, type Level } from "../log/daemon.ts";
import type { Format } from "../../launcher/log.ts";
import { wantsColor } from "../log/run_log.ts";
import type { DaemonPaths } from "../paths.ts";
import type { Settings } from "../settings/resolve.ts";
import { daemonFlagArgs, guardOf, probe } from "./client.ts";
import { readToken, secureSocketDir, secureStateDir, writeToken } from "./guard.ts";
import type { Registry } from "../pool/registry.ts";
import { withLock } from "./lock.ts";
import { runningVersion } from "../version.ts";
import { processToken } from "../_proc.ts";
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
import {
  type Predecessor,
  predecessorOf,
  Successor,
  upgrade,
  type UpgradeSetup,
} from "./upgrade.ts";
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

/** What the daemon's host may ask of it. */
interface Hooks {
  /** Called once it answers on its socket, with how to stop it (a daemon hosted inline). */
  ready?: (stop: (reason: string) => void) => void;
}

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
  hooks: Hooks = {},
): Promise<number> {
  const daemon = new Daemon(ctx, autostarted, serve, hooks);
  await daemon.start(listenFlag);
  await daemon.bind();
  await daemon.watch();
  return await daemon.stop();
}

/**
 * One daemon, from its start to its stop: {@linkcode start} (state folders, settings, log,
 * sessions, registry), {@linkcode bind} (lock, probe, orphans, token, listeners, record),
 * {@linkcode watch} (the idle and configuration timer, signals, until a stop is asked for),
 * {@linkcode stop} (drain, and the files that are still its own). A successor started by
 * `mcpx daemon upgrade` serves once it has taken over ({@linkcode takeOver}).
 *
 * Its public members are what lib/daemon/reload.ts, handler.ts and upgrade.ts read of it.
 */
class Daemon {
  readonly #ctx: Context;
  readonly #autostarted: boolean;
  readonly #serve: Serve;
  readonly #hooks: Hooks;
  /** Started by `mcpx daemon upgrade`: it takes over from the daemon named here (upgrade.ts). */
  readonly from: Predecessor | undefined;
  readonly #version: string;
  // Set by start():
  #paths!: DaemonPaths;
  #settings!: Settings;
  #listen: TcpAddress | undefined;
  #log!: DaemonLog;
  #started!: number;
  #events!: EventBus;
  half!: ClientHalf;
  registry!: Registry;
  state!: RunningDaemon;
  follower!: ConfigFollower;
  // Set by bind():
  #handler!: Handler;
  #listeners: Listeners | undefined;
  #stateDirOk = false;
  #stopping = false;
  // Whether the shared files (live state, children, sessions) are this daemon's to write: not
  // while stopping, nor for a successor before it takes over, nor during an upgrade's handoff.
  #owner: boolean;
  #quiet = false;
  // Made once the registry is: the registry asks it about each call of a session.
  #sessions: NamedSessions | undefined;
  readonly #gate = new UiGate();
  #stopReason = "";
  readonly #stopped = Promise.withResolvers<void>();
  // Upgrades (upgrade.ts): the listeners a predecessor gives back or a successor binds late, the
  // requests a successor holds until it owns the processes, and whether this one has retired.
  #successor: Successor | undefined;
  readonly #takenOver = Promise.withResolvers<void>();
  #retiredFor: number | undefined;
  #upgrading: Promise<UpgradeResult> | undefined;
  // From the handoff on, a request this daemon still receives (a connection made just before its
  // socket was replaced) goes to the successor, which holds it until it owns the processes.
  #forwardTo: Deno.HttpClient | undefined;

  constructor(ctx: Context, autostarted: boolean, serve: Serve, hooks: Hooks) {
    this.#ctx = ctx;
    this.#autostarted = autostarted;
    this.#serve = serve;
    this.#hooks = hooks;
    this.from = predecessorOf(ctx.io.env);
    this.#version = runningVersion(ctx.io.env);
    this.#owner = !this.from;
    if (!this.from) this.#takenOver.resolve();
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  get stopReason(): string {
    return this.#stopReason;
  }

  get successor(): Successor | undefined {
    return this.#successor;
  }

  get takenOver(): Promise<void> {
    return this.#takenOver.promise;
  }

  get forwardTo(): Deno.HttpClient | undefined {
    return this.#forwardTo;
  }

  log(level: Level, event: string, msg: string, attrs?: Record<string, unknown>): void {
    this.#log.write(level, event, msg, attrs);
  }

  /** Says why the daemon did not start, where the command that started it looks. */
  #reportStart(error: unknown): void {
    const report = error instanceof McpxError
      ? { code: error.code, message: error.message, hint: error.hint }
      : { code: "INTERNAL", message: messageOf(error) };
    // Never into a state directory that was refused as another user's.
    if (!this.#stateDirOk) return;
    const paths = this.#paths;
    try {
      writeFileAtomic(
        this.from ? this.#ctx.io.env.MCPX_UPGRADE_ERROR || paths.startError : paths.startError,
        JSON.stringify(report) + "\n",
      );
    } catch { /* nowhere to say why */ }
  }

  /** The state folders, settings, log, named sessions and registry. */
  async start(listenFlag: string | undefined): Promise<void> {
    const ctx = this.#ctx;
    const fp = await ctx.fingerprint();
    this.#paths = await ctx.paths();
    const paths = this.#paths;
    let config: McpxConfig;
    try {
      secureStateDir(dirname(paths.dir));
      secureStateDir(paths.dir);
      secureStateDir(dirname(paths.log));
      this.#stateDirOk = true;
      this.#settings = await ctx.settings();
      const text = listenFlag ?? ctx.boot.get("daemon.listen");
      this.#listen = text ? parseHostPort(text, "--listen") : undefined;
      config = await loadConfig(fp.path, fp.text);
    } catch (e) {
      this.#reportStart(e);
      throw e;
    }
    const log = this.#log = this.#openLog();
    log.write("info", "daemon.start", "Daemon starting", {
      config: fp.path,
      fingerprint: fp.hash,
      version: this.#version,
      autostarted: this.#autostarted,
    });
    for (const w of this.#settings.warnings) log.write("warn", "config.warning", w);
    this.#started = Date.now();
    this.#events = new EventBus();
    try {
      await this.#wire(config);
    } catch (e) {
      log.close();
      this.#reportStart(e);
      throw e;
    }
    this.state = this.#handle(fp, config);
    this.follower = new ConfigFollower(ctx, this.#settings, log, fp, this);
  }

  /** A log that cannot be written never stops the daemon: it says so once on its stderr. */
  #openLog(): DaemonLog {
    const { io } = this.#ctx;
    const settings = this.#settings;
    return new DaemonLog({
      dir: this.#paths.logs,
      stem: this.#paths.logStem,
      level: settings.get("logging.level") as Level,
      maxBytes: settings.get("logging.maxBytes"),
      problem: (line) => io.err(line + "\n"),
      // In the foreground on a terminal, the daemon shows its records as a run shows a script's.
      ...(io.errIsTerminal && !this.#autostarted
        ? {
          render: {
            write: (line: string) => io.err(line),
            format: settings.get("logging.format") as Format,
            color: wantsColor(io),
          },
        }
        : {}),
    }, { pid: Deno.pid });
  }

  /** The client half, the registry and (for a daemon that succeeds nobody) the named sessions. */
  async #wire(config: McpxConfig): Promise<void> {
    const settings = this.#settings;
    const log = this.#log;
    const paths = this.#paths;
    this.half = new ClientHalf(defsOf(config, settings, log, this.#ctx.io.cwd), {
      configDir: dirname(config.path),
      roots: settings.get("servers.roots"),
      logLevel: settings.get("servers.logLevel"),
      log: (level, event, msg, attrs) => log.write(level, event, msg, attrs),
      bus: this.#events,
    });
    // Once stopping, the live state is no longer written: a successor may own the file by then.
    this.registry = await makeRegistry(
      config,
      this.#ctx,
      settings,
      log,
      this.half,
      this.#events,
      {
        live: (state) => {
          if (this.#owning()) writeLive(paths.live, state);
        },
        children: (list) => {
          if (!this.#owning()) return;
          recordChildren(paths.children, list);
          this.#sessions?.refresh();
        },
        sessions: {
          enter: (caller) => this.#sessions?.enter(caller),
          leave: (caller) => this.#sessions?.leave(caller),
          keeps: (scope) => this.#sessions?.keeps(scope) ?? false,
        },
      },
    );
    // A successor reads them once it has taken over: until then they are its predecessor's.
    if (!this.from) this.#sessions = this.#makeSessions();
  }

  #owning(): boolean {
    return this.#owner && !this.#stopping && !this.#quiet;
  }

  #makeSessions(
    carried?: ConstructorParameters<typeof NamedSessions>[0]["carried"],
  ): NamedSessions {
    const log = this.#log;
    return new NamedSessions({
      path: this.#paths.sessions,
      daemon: { pid: Deno.pid, startedAt: new Date(this.#started).toISOString() },
      ...(carried ? { carried } : {}),
      user: this.#ctx.io.env.USER || undefined,
      uid: Deno.uid() ?? undefined,
      log: (level, event, msg, attrs) => log.write(level, event, msg, attrs),
      publish: (type, data) => void this.#events.publish(type, data),
      stop: (name) => this.registry.endSession(name),
      instances: () => this.registry.sessionInstances(),
    });
  }

  /** What operations see of the daemon (lib/context.ts `DaemonHandle`), and more. */
  #handle(fp: Fingerprint, config: McpxConfig): RunningDaemon {
    const sessions = () => this.#sessions;
    return {
      pid: Deno.pid,
      startedAt: this.#started,
      autostarted: this.#autostarted,
      socket: this.#paths.socket,
      configPath: fp.path,
      fingerprint: fp.hash,
      logId: this.#log.id,
      config,
      idleExitMs: this.#settings.get("daemon.idleExit"),
      lastActivity: Date.now(),
      inflight: 0,
      log: this.#log,
      registry: this.registry,
      events: this.#events,
      // Read once this daemon serves: a successor makes them when it takes over (upgrade.ts).
      get sessions() {
        return sessions();
      },
      version: this.#version,
      inline: this.#hooks.ready !== undefined,
      ui: {
        open: () => this.#openUi(),
        exchange: (code) => this.#gate.exchange(code),
      },
      requestStop: (reason: string) => this.requestStop(reason),
    };
  }

  #openUi(): Promise<{ listen: string; code: string; expiresInMs: number }> {
    // Hosted inline, the daemon ends with the command that prints the address.
    if (this.#hooks.ready) {
      throw new McpxError("USAGE", "The web page needs a daemon that outlives this command", {
        hint: "Run `mcpx start` first, or drop --inline (daemon.inline)",
      });
    }
    if (!this.#listeners) {
      throw new McpxError("DAEMON_UNAVAILABLE", "The daemon is not listening yet");
    }
    return Promise.resolve({ listen: this.#listeners.openUi(), ...this.#gate.issue() });
  }

  /** Stops the daemon after the current answer is sent. */
  requestStop(reason: string): void {
    if (this.#stopReason) return;
    this.#stopReason = reason;
    // From now on no call is queued and no server starts: queued callers fail at once.
    this.registry.beginStop(reason);
    // Let the answer that asked for the stop leave before the listener closes.
    setTimeout(this.#stopped.resolve, 0);
  }

  /** The daemon's record file (lib/daemon/records.ts). */
  writeRecord(): void {
    const state = this.state;
    const paths = this.#paths;
    const record: DaemonRecord = {
      pid: Deno.pid,
      fingerprint: state.fingerprint,
      config: this.follower.fp.path,
      socket: paths.socket,
      log: paths.log,
      startedAt: new Date(state.startedAt).toISOString(),
      autostarted: this.#autostarted,
      version: this.#version,
      ...(state.listen ? { listen: state.listen } : {}),
    };
    writeFileAtomic(paths.record, JSON.stringify(record, null, 2) + "\n");
  }

  /**
   * Listens: under the bind lock, makes sure no other daemon serves this configuration, stops
   * what one that died left running, opens the listeners and writes the record.
   */
  async bind(): Promise<void> {
    const log = this.#log;
    this.#handler = new Handler(this.#ctx, this, this.#serve, {
      settings: this.#settings,
      log,
      version: this.#version,
    });
    try {
      await withLock(this.#paths.bindLock, () => this.#bindLocked());
    } catch (e) {
      log.write("error", "daemon.start_failed", messageOf(e));
      log.close();
      this.#reportStart(e);
      await this.#listeners?.abort();
      this.#sessions?.close();
      await this.registry.close();
      throw e;
    }
    this.registry.start();
    this.#sessions?.start();
    if (!this.from) writeLive(this.#paths.live, this.registry.liveState());
    if (this.from) this.#succeed(this.from);
    this.state.upgrade = (request: UpgradeRequest) => this.#upgrade(request);
    const paths = this.#paths;
    const state = this.state;
    const listen = this.#listen;
    log.write("info", "daemon.listening", "Daemon listening", {
      socket: paths.socket,
      ...(state.listen && listen
        ? { listen: state.listen, loopback: isLoopback(listen.hostname) }
        : {}),
      config: this.follower.fp.path,
      autostarted: this.#autostarted,
      fallbackSocket: paths.socketFallback,
    });
    this.#hooks.ready?.((reason) => this.requestStop(reason));
  }

  async #bindLocked(): Promise<void> {
    const paths = this.#paths;
    const log = this.#log;
    const from = this.from;
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
    if (!from && this.#stopOrphans() && !this.#autostarted) {
      this.#ctx.io.err(`mcpx: ${this.state.recovered}\n`);
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
    const listeners = this.#listeners = new Listeners({
      handler: this.#handler,
      log,
      settings: this.#settings,
      paths,
      gate: this.#gate,
      token,
      listen: this.#listen,
      state: this.state,
      announce: !this.#autostarted && !from,
      err: (text) => this.#ctx.io.err(text),
    });
    // The TCP listener first: once the socket answers, a command may already ask for it. A
    // successor binds it once its predecessor has let go of the port.
    if (!from) listeners.bindTcp();
    listeners.listenUnix(from ? from.socket : paths.socket);
    if (!from) this.writeRecord();
  }

  /**
   * Stops what a daemon that died left running (lib/daemon/children.ts); says so in the log and
   * the state. Returns whether it stopped anything.
   */
  #stopOrphans(): boolean {
    const orphans = stopOrphans(this.#paths.children);
    if (!orphans || orphans.stopped.length === 0) return false;
    this.state.recovered = describeOrphans(orphans);
    this.#log.write("warn", "daemon.orphans_stopped", this.state.recovered, {
      predecessor: orphans.daemon,
      stopped: orphans.stopped,
    });
    return true;
  }

  /** A successor's side of the upgrade: answers the handoff, or takes over alone. */
  #succeed(from: Predecessor): void {
    this.#successor = new Successor(from, {
      registry: this.registry,
      env: this.#ctx.io.env,
      stateDir: this.#paths.dir,
      socket: this.#paths.socket,
      log: (level, event, msg, attrs) => this.#log.write(level, event, msg, attrs),
      stopOrphans: () => void this.#stopOrphans(),
      takeOver: (carried) => this.takeOver(carried),
    });
    this.#successor.watch();
  }

  /**
   * Makes this successor the daemon: its record, live state and children written, the TCP
   * listener bound, the named sessions read (`carried`: the predecessor whose sessions'
   * processes were handed over), and the requests held so far let through.
   */
  takeOver(carried?: ConstructorParameters<typeof NamedSessions>[0]["carried"]): void {
    this.#owner = true;
    this.#sessions = this.#makeSessions(carried);
    this.#sessions.start();
    this.writeRecord();
    this.#writeProcesses();
    // The predecessor closed its TCP listener before the handoff; its port may take a moment.
    const bind = (left: number) => {
      try {
        this.#listeners!.bindTcp();
        if (this.state.listen) this.writeRecord();
      } catch (e) {
        if (left > 0) setTimeout(() => bind(left - 1), 50);
        else this.#log.write("error", "daemon.listen_failed", messageOf(e));
      }
    };
    bind(40);
    this.#takenOver.resolve();
    this.#log.write("info", "daemon.took_over", "This daemon serves from now on", {
      predecessor: this.from!.pid,
      servers: this.registry.children().length,
    });
  }

  /** The live state and the children's records, written as this daemon's. */
  #writeProcesses(): void {
    writeLive(this.#paths.live, this.registry.liveState());
    recordChildren(this.#paths.children, this.registry.children());
  }

  /** `mcpx daemon upgrade` (lib/daemon/upgrade.ts): one at a time. */
  #upgrade(request: UpgradeRequest): Promise<UpgradeResult> {
    if (this.#hooks.ready) {
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
    if (!this.#ctx.io.env.MCPX_DAEMON_CHILD) {
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
    if (this.#stopReason) {
      return Promise.reject(new McpxError("DAEMON_STOPPING", `Daemon ${Deno.pid} is stopping`));
    }
    if (this.#upgrading) return this.#upgrading;
    this.#upgrading = upgrade(this, this.#upgradeSetup(), request)
      .finally(() => (this.#upgrading = undefined));
    return this.#upgrading;
  }

  #upgradeSetup(): UpgradeSetup {
    const paths = this.#paths;
    const settings = this.#settings;
    return {
      socket: paths.socket,
      tokenFile: paths.token,
      stateDir: paths.dir,
      config: this.follower.fp.path,
      version: this.#version,
      startedAt: new Date(this.#started).toISOString(),
      env: this.#ctx.io.env as Record<string, string>,
      flagArgs: daemonFlagArgs(this.#ctx),
      autostarted: this.#autostarted,
      startTimeoutMs: settings.get("daemon.startTimeout"),
      drainMs: settings.get("daemon.upgradeDrain"),
    };
  }

  // What an upgrade asks of the daemon (lib/daemon/upgrade.ts `Upgradable`).

  /** Requests being answered now, the upgrade's own included. */
  inflight(): number {
    return this.state.inflight;
  }

  /** Stops accepting on the TCP listeners (without waiting for their connections to end). */
  closeListeners(): void {
    this.#listeners!.closeTcp();
  }

  /** Listens on the daemon's socket again, once the successor has failed. */
  relisten(): void {
    this.#listeners!.listenUnix(this.#paths.socket);
    this.#listeners!.bindTcp();
    this.writeRecord();
  }

  /** Stops writing the shared files (live state, children, sessions): the successor will. */
  quiesce(): void {
    this.#quiet = true;
    this.#forwardTo = Deno.createHttpClient({
      proxy: { transport: "unix", path: this.#paths.socket },
    });
    this.#sessions?.close();
    void this.registry.flushCache();
  }

  /** Writes the shared files again: the successor failed. */
  resume(): void {
    this.#quiet = false;
    this.#forwardTo?.close();
    this.#forwardTo = undefined;
    this.#sessions = this.#makeSessions();
    this.#sessions.start();
    this.#writeProcesses();
  }

  /** Ends this daemon once the answer has left: the successor serves. */
  retire(to: number): void {
    this.#retiredFor = to;
    this.state.requestStop(`upgraded: daemon ${to} serves from now on`);
  }

  /**
   * Until a stop is asked for: signals, and for an auto-started daemon, its idle time and an
   * edited (or removed) configuration file.
   */
  async watch(): Promise<void> {
    const state = this.state;
    const onSignal = () => state.requestStop("signal");
    Deno.addSignalListener("SIGTERM", onSignal);
    Deno.addSignalListener("SIGINT", onSignal);
    const tickMs = Math.min(
      30_000,
      Math.max(50, state.idleExitMs > 0 ? state.idleExitMs / 4 : 30_000),
    );
    const timer = setInterval(() => this.#tick(), tickMs);
    await this.#stopped.promise;
    clearInterval(timer);
    Deno.removeSignalListener("SIGTERM", onSignal);
    Deno.removeSignalListener("SIGINT", onSignal);
  }

  #tick(): void {
    const state = this.state;
    if (!this.#autostarted || state.inflight > 0) return;
    if (
      state.idleExitMs > 0 && Date.now() - state.lastActivity >= state.idleExitMs &&
      // A named session's processes are kept until its TTL runs out (docs/sessions.md).
      !this.#sessions?.holding()
    ) {
      state.requestStop("idle");
      return;
    }
    try {
      if (this.follower.edited()) void this.follower.current();
    } catch {
      state.requestStop("config removed");
    }
  }

  /** Drains, stops the servers, removes the files that are still its own: resolves to 0. */
  async stop(): Promise<number> {
    const registry = this.registry;
    const log = this.#log;
    const paths = this.#paths;
    const reason = this.#stopReason;
    this.#stopping = true;
    // Before the servers go: the records keep listing them, so a successor can say they were lost.
    // After an upgrade they are the successor's: this daemon wrote them before it let go.
    if (!this.#retiredFor) this.#sessions?.close();
    log.write("info", "daemon.stopping", `Daemon stopping: ${reason}`, { reason });
    await registry.flushCache();
    // Event streams end first: the listener's drain would otherwise wait on every follower.
    this.#events.publish("daemon.stopping", { reason });
    this.#events.close();
    // Servers go while the listener drains: a call in flight then fails at once (its server was
    // stopped) instead of holding the shutdown until its callTimeout.
    await Promise.all([this.#listeners!.shutdown(), registry.close()]);
    await registry.flushCache();
    this.#forwardTo?.close();
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
    log.write("info", "daemon.stop", "Daemon stopped", { reason: this.#stopReason });
    log.close();
    return 0;
  }
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
