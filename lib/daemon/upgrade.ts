// A daemon that survives its own upgrade (docs/daemon.md, "Upgrading without a restart").
//
// The running daemon starts its successor (the new version's command) on a socket of its own,
// renames that socket over its own path, so that every new connection reaches the successor,
// waits for its own calls in flight, then hands over each idle stdio server: the successor opens
// the server's pipes through /proc/<pid>/fd (the same pipes, new ends of them) before the old one
// stops reading, and goes on speaking to it with the state handed over (protocol version,
// capabilities, the next request id). Why /proc and not descriptors passed over the socket or a
// keeper process: Deno cannot send descriptors (no SCM_RIGHTS), and a keeper would sit between
// every byte of every call; /proc costs nothing after the handoff and needs only that both
// daemons be the same user, which they are.
//
// Either daemon dying mid-way leaves one owner: the successor that finds its predecessor gone
// before the handoff stops what the predecessor left (lib/daemon/children.ts) and serves; the
// predecessor that finds its successor gone takes its socket back and, for a server it had
// already let go of, opens its pipes again the same way.

import { dirname, join } from "../_path.ts";
import { McpxError, messageOf } from "../errors.ts";
import { sleep } from "../_timer.ts";
import { type AdoptedPipes, openPipes, processToken } from "../_proc.ts";
import type { HandedInstance, NotHanded, Registry, RegistryCarry } from "../pool/registry.ts";
import { TOKEN_HEADER } from "./guard.ts";
import { wireRequest } from "./wire.ts";
import { spawnDaemon } from "./client.ts";
import type { UpgradeRequest, UpgradeResult } from "../context.ts";
import type { LogSink } from "../log/daemon.ts";

/** The environment a successor is started with: whom it succeeds, and its socket until then. */
export const UPGRADE_FROM = "MCPX_UPGRADE_FROM";
export const UPGRADE_SOCKET = "MCPX_UPGRADE_SOCKET";

/** A successor's view of its predecessor, from {@linkcode UPGRADE_FROM}: `pid:start`. */
export interface Predecessor {
  pid: number;
  start: string;
  /** The socket the successor binds until it takes over the daemon's own. */
  socket: string;
}

/** The predecessor the environment names, or undefined for a daemon that succeeds nobody. */
export function predecessorOf(env: Record<string, string | undefined>): Predecessor | undefined {
  const from = env[UPGRADE_FROM];
  const socket = env[UPGRADE_SOCKET];
  const m = from ? /^(\d+):(\d+)$/.exec(from) : null;
  if (!m || !socket) return undefined;
  return { pid: Number(m[1]), start: m[2], socket };
}

/**
 * MCPX_TEST_UPGRADE_STALL=<phase>: the tests' hook to kill a daemon at a given point of the
 * handoff. At that point the daemon writes `<dir>/upgrade-stall` (its pid and the phase) and
 * waits a minute.
 */
export async function stall(
  env: Record<string, string | undefined>,
  phase: "renamed" | "detached" | "adopting",
  dir: string,
): Promise<void> {
  if (env.MCPX_TEST_UPGRADE_STALL !== phase) return;
  Deno.writeTextFileSync(join(dir, "upgrade-stall"), `${Deno.pid} ${phase}\n`);
  await sleep(60_000);
}

/** What a successor is started with, and what the old daemon's side of an upgrade reads. */
export interface UpgradeSetup {
  socket: string;
  tokenFile: string;
  stateDir: string;
  config: string;
  version: string;
  /** When this daemon started (ISO): the named sessions' records name their daemon by it. */
  startedAt: string;
  env: Record<string, string>;
  /** The daemon's settings flags, as the command that started it passed them. */
  flagArgs: string[];
  autostarted: boolean;
  startTimeoutMs: number;
  drainMs: number;
}

/** What the old daemon's side of an upgrade asks of the daemon (lib/daemon/server.ts). */
export interface Upgradable {
  /** The server pools, handed over. */
  readonly registry: Registry;
  /** Requests being answered now, the upgrade's own included. */
  inflight(): number;
  /** Stops accepting on the TCP listeners (without waiting for their connections to end). */
  closeListeners(): void;
  /** Listens on the daemon's socket again, once the successor has failed. */
  relisten(): void;
  /** Stops writing the shared files (live state, children, sessions) from now on, or again. */
  quiesce(): void;
  resume(): void;
  /** Ends this daemon once the answer has left: the successor serves. */
  retire(successor: number): void;
  log: LogSink;
}

function headersFor(tokenFile: string): Record<string, string> {
  try {
    return { [TOKEN_HEADER]: Deno.readTextFileSync(tokenFile).trim() };
  } catch {
    return {};
  }
}

async function handoffRequest(
  socket: string,
  tokenFile: string,
  body: unknown,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const res = await wireRequest(socket, "POST", "/v1/daemon/handoff", {
    body,
    timeoutMs,
    headers: headersFor(tokenFile),
  });
  const parsed = JSON.parse(res.text || "null");
  if (res.status !== 200) {
    throw new Error(parsed?.detail ?? parsed?.title ?? `HTTP ${res.status}`);
  }
  return parsed;
}

function killGroup(pid: number): void {
  try {
    Deno.kill(-pid, "SIGKILL");
  } catch {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
}

/** Whether the process `pid` that started at `start` still runs. */
function runs(pid: number, start: string | undefined): boolean {
  return start !== undefined && processToken(pid) === start;
}

/**
 * The old daemon's side: starts the successor, gives it the socket, drains, hands over, and
 * retires. On any failure before the successor owns the processes, this daemon keeps serving
 * with every process it had.
 * @throws {McpxError} DAEMON_START_FAILED when the successor does not start or fails mid-way.
 */
export async function upgrade(
  daemon: Upgradable,
  setup: UpgradeSetup,
  request: UpgradeRequest,
): Promise<UpgradeResult> {
  const attempt = new Attempt(daemon, setup);
  await attempt.start(request);
  const version = await attempt.answered();
  const drainMs = await attempt.takePlace();
  return await attempt.handOver(version, drainMs);
}

/** One upgrade, from the successor's start to its taking over (or this daemon's taking back). */
class Attempt {
  readonly #daemon: Upgradable;
  readonly #setup: UpgradeSetup;
  readonly #began = performance.now();
  readonly #myStart = processToken(Deno.pid) ?? "0";
  /** The successor's socket until it takes this one's place. */
  readonly #tmp: string;
  /** Where the successor says why it could not start. */
  readonly #startError: string;
  #child!: Deno.ChildProcess;
  #exited = false;
  #successor = 0;

  constructor(daemon: Upgradable, setup: UpgradeSetup) {
    this.#daemon = daemon;
    this.#setup = setup;
    this.#tmp = join(dirname(setup.socket), `.up-${Deno.pid}-${Date.now() % 100000}.sock`);
    this.#startError = join(setup.stateDir, `upgrade-${Deno.pid}.error`);
  }

  /** Starts the successor from `request.command`, on a socket of its own. */
  async start(request: UpgradeRequest): Promise<void> {
    const d = this.#setup;
    await Deno.remove(this.#tmp).catch(() => {});
    const env: Record<string, string> = { ...d.env };
    // The stand-in version of the tests is the old daemon's, not the new one's.
    delete env.MCPX_TEST_VERSION;
    try {
      this.#child = spawnDaemon({
        ...env,
        MCPX_DAEMON_CHILD: d.autostarted ? "auto" : "hand",
        MCPX_CONFIG: d.config,
        [UPGRADE_FROM]: `${Deno.pid}:${this.#myStart}`,
        [UPGRADE_SOCKET]: this.#tmp,
        MCPX_UPGRADE_ERROR: this.#startError,
      }, [request.command, ...request.args, ...d.flagArgs]);
    } catch (e) {
      throw this.#cannot(`"${request.command}" could not be started (${messageOf(e)})`);
    }
    this.#child.status.then(() => (this.#exited = true));
    this.#successor = this.#child.pid;
    this.#daemon.log("info", "daemon.upgrade_start", "Starting the daemon that succeeds this one", {
      successor: this.#successor,
      command: request.command,
    });
  }

  #cannot(why: string): McpxError {
    return new McpxError(
      "DAEMON_START_FAILED",
      `The new daemon did not take over: ${why}; daemon ${Deno.pid} keeps serving with every server it had`,
      { hint: "Fix what the new version needs, then run `mcpx daemon upgrade` again" },
    );
  }

  /** The successor goes, before it had anything: this daemon serves on as it was. */
  async #refuse(why: string): Promise<never> {
    const successor = this.#successor;
    killGroup(successor);
    await Deno.remove(this.#tmp).catch(() => {});
    this.#daemon.log("error", "daemon.upgrade_failed", `Upgrade failed: ${why}; still serving`, {
      successor,
    });
    throw this.#cannot(why);
  }

  /** 1. The successor answers on its own socket: resolves to the version it reports. */
  async answered(): Promise<string> {
    const d = this.#setup;
    const deadline = performance.now() + d.startTimeoutMs;
    for (;;) {
      if (this.#exited) {
        let why = "it exited before it answered";
        try {
          const report = JSON.parse(Deno.readTextFileSync(this.#startError));
          if (report.message) why = `it exited: ${report.message}`;
        } catch { /* no report */ }
        await Deno.remove(this.#startError).catch(() => {});
        return await this.#refuse(why);
      }
      try {
        const res = await wireRequest(this.#tmp, "GET", "/v1/health", {
          timeoutMs: 1000,
          headers: headersFor(d.tokenFile),
        });
        if (res.status === 200) return JSON.parse(res.text).version ?? "";
      } catch { /* not yet */ }
      if (performance.now() > deadline) {
        return await this.#refuse(`it did not answer within ${d.startTimeoutMs} ms`);
      }
      await sleep(5);
    }
  }

  /**
   * 2. Every new connection reaches the successor from now on; it holds them until it owns
   * the processes. This daemon finishes what it has: resolves to how long that took (ms).
   */
  async takePlace(): Promise<number> {
    const d = this.#setup;
    try {
      Deno.renameSync(this.#tmp, d.socket);
    } catch (e) {
      return await this.#refuse(`its socket could not take this one's place (${messageOf(e)})`);
    }
    // The unix listener stays open until this daemon ends: nothing new reaches it by its path,
    // and closing it now would reset a connection still in its backlog. The TCP ones close now,
    // so that the successor can bind their ports.
    this.#daemon.closeListeners();
    await stall(d.env, "renamed", d.stateDir);
    const drainStart = performance.now();
    while (this.#daemon.inflight() > 1 && performance.now() - drainStart < d.drainMs) {
      await sleep(2);
    }
    return performance.now() - drainStart;
  }

  /** 3. The handoff: the successor adopts the idle servers, and this daemon retires. */
  async handOver(version: string, drainMs: number): Promise<UpgradeResult> {
    const d = this.#setup;
    const daemon = this.#daemon;
    const successor = this.#successor;
    const successorStart = processToken(successor);
    daemon.quiesce();
    daemon.registry.beginStop("the daemon is being upgraded");
    let handed: HandedInstance[] = [];
    let notHanded: NotHanded[] = [];
    let carry: RegistryCarry | undefined;
    try {
      const pids = daemon.registry.children().map((c) => c.pid);
      const prepared = await handoffRequest(
        d.socket,
        d.tokenFile,
        { phase: "prepare", pids },
        10_000,
      );
      const opened = new Set((prepared.opened as number[]) ?? []);
      ({ handed, notHanded, carry } = await daemon.registry.handOff((pid) => opened.has(pid)));
      await stall(d.env, "detached", d.stateDir);
      const answer = await handoffRequest(d.socket, d.tokenFile, {
        phase: "adopt",
        from: { pid: Deno.pid, start: this.#myStart, startedAt: d.startedAt },
        handed,
        notHanded,
        carry,
      }, 30_000);
      const adopted = (answer.adopted ?? []) as { server: string; key: string; pid: number }[];
      const failed = (answer.failed ?? []) as {
        server: string;
        key: string;
        pid: number;
        why: string;
      }[];
      const result: UpgradeResult = {
        from: { pid: Deno.pid, version: d.version },
        to: { pid: successor, version },
        handedOver: adopted,
        stopped: [
          ...notHanded.map((n) => ({ server: n.server, key: n.key, pid: n.pid, why: n.why })),
          ...failed,
        ],
        durationMs: Math.round(performance.now() - this.#began),
        drainMs: Math.round(drainMs),
      };
      daemon.log("info", "daemon.upgraded", `Upgraded: daemon ${successor} serves from now on`, {
        successor,
        handedOver: adopted.length,
        stopped: result.stopped.length,
        durationMs: result.durationMs,
      });
      daemon.retire(successor);
      return result;
    } catch (e) {
      return await this.#takeBack(e, successorStart, handed);
    }
  }

  /**
   * The successor failed mid-way: it goes, and this daemon serves again with what it had,
   * `handed` (the processes it had let go of) opened again.
   */
  async #takeBack(
    e: unknown,
    successorStart: string | undefined,
    handed: HandedInstance[],
  ): Promise<never> {
    const daemon = this.#daemon;
    const successor = this.#successor;
    // A killed successor's socket can close before its exit is seen: its status gets a moment.
    const died = this.#exited || !runs(successor, successorStart) ||
      await Promise.race([this.#child.status.then(() => true), sleep(500).then(() => false)]);
    const why = died
      ? `the new daemon ${successor} died during the handoff`
      : `the handoff failed (${messageOf(e)})`;
    killGroup(successor);
    await waitGone(successor, successorStart, 2000);
    try {
      Deno.removeSync(this.#setup.socket);
    } catch { /* already gone */ }
    daemon.relisten();
    daemon.registry.resume();
    const back: {
      instance: HandedInstance;
      adoption: { handed: HandedInstance["handed"]; pipes: AdoptedPipes };
    }[] = [];
    for (const instance of handed) {
      try {
        back.push({
          instance,
          adoption: { handed: instance.handed, pipes: openPipes(instance.handed.pid) },
        });
      } catch {
        killGroup(instance.handed.pid);
      }
    }
    const again = await daemon.registry.adoptAll(back, [], undefined);
    for (const f of again.failed) killGroup(f.instance.handed.pid);
    daemon.resume();
    daemon.log("error", "daemon.upgrade_failed", `Upgrade failed: ${why}; still serving`, {
      successor,
      kept: again.adopted.length,
    });
    throw new McpxError(
      "DAEMON_START_FAILED",
      `The new daemon did not take over: ${why}; daemon ${Deno.pid} serves on with ${again.adopted.length} server process(es) it had handed over taken back`,
      { hint: "See the daemon's log (`mcpx log`), then run `mcpx daemon upgrade` again" },
    );
  }
}

async function waitGone(pid: number, start: string | undefined, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (runs(pid, start) && performance.now() < until) await sleep(10);
}

/** What the successor's side needs from the daemon (lib/daemon/server.ts). */
export interface SuccessorDeps {
  registry: Registry;
  env: Record<string, string | undefined>;
  stateDir: string;
  socket: string;
  log: LogSink;
  /**
   * Makes this daemon the one: its record, live state and children written, the TCP listener
   * bound, the named sessions read (`carried`: the predecessor whose sessions' processes were
   * handed over), and the requests held so far let through.
   */
  takeOver(carried?: {
    pid: number;
    startedAt: string;
    kept(session: string, server: string): boolean;
  }): void;
  /** Stops what a predecessor that died left running (lib/daemon/children.ts). */
  stopOrphans(): void;
}

/**
 * The successor's side: answers the predecessor's handoff requests and, should the predecessor
 * die first, takes over alone.
 */
export class Successor {
  readonly #from: Predecessor;
  readonly #deps: SuccessorDeps;
  readonly #prepared = new Map<number, AdoptedPipes>();
  #done = false;
  #adopting = false;
  #timer?: ReturnType<typeof setInterval>;

  constructor(from: Predecessor, deps: SuccessorDeps) {
    this.#from = from;
    this.#deps = deps;
  }

  /** Watches the predecessor: should it die before the handoff, this daemon takes over alone. */
  watch(): void {
    this.#timer = setInterval(() => {
      if (this.#done || this.#adopting || runs(this.#from.pid, this.#from.start)) return;
      this.#alone();
    }, 50);
  }

  get done(): boolean {
    return this.#done;
  }

  #alone(): void {
    this.#finish();
    for (const pipes of this.#prepared.values()) for (const f of Object.values(pipes)) f.close();
    this.#prepared.clear();
    this.#deps.stopOrphans();
    // The socket may still be this daemon's own: the predecessor died before it gave its place.
    try {
      Deno.renameSync(this.#from.socket, this.#deps.socket);
    } catch { /* already renamed */ }
    this.#deps.log(
      "warn",
      "daemon.upgrade_alone",
      `The daemon being upgraded (${this.#from.pid}) died during the handoff; this one serves, and stopped what it left`,
      { predecessor: this.#from.pid },
    );
    this.#deps.takeOver();
  }

  #finish(): void {
    this.#done = true;
    clearInterval(this.#timer);
  }

  /** Stops the watch (the daemon is stopping). */
  close(): void {
    clearInterval(this.#timer);
    for (const pipes of this.#prepared.values()) for (const f of Object.values(pipes)) f.close();
    this.#prepared.clear();
  }

  /** `POST /v1/daemon/handoff`: `prepare` opens the listed processes' pipes, `adopt` takes them. */
  async handle(req: Request): Promise<Response> {
    let body: Record<string, unknown>;
    try {
      body = await req.json();
    } catch {
      return Response.json({ title: "the handoff needs a JSON body" }, { status: 400 });
    }
    if (this.#done) {
      return Response.json({ title: "this daemon has already taken over" }, { status: 409 });
    }
    if (body.phase === "prepare") {
      const opened: number[] = [];
      for (const pid of (body.pids as number[]) ?? []) {
        if (!Number.isInteger(pid) || this.#prepared.has(pid)) continue;
        try {
          this.#prepared.set(pid, openPipes(pid));
          opened.push(pid);
        } catch (e) {
          this.#deps.log(
            "warn",
            "daemon.upgrade_pipes",
            `Cannot open the pipes of process ${pid}: ${messageOf(e)}`,
            {
              serverPid: pid,
            },
          );
        }
      }
      return Response.json({ opened });
    }
    if (body.phase !== "adopt") return Response.json({ title: "unknown phase" }, { status: 400 });
    this.#adopting = true;
    await stall(this.#deps.env, "adopting", this.#deps.stateDir);
    const handed = (body.handed as HandedInstance[]) ?? [];
    const list: {
      instance: HandedInstance;
      adoption: { handed: HandedInstance["handed"]; pipes: AdoptedPipes };
    }[] = [];
    const failedEarly: { instance: HandedInstance; why: string }[] = [];
    for (const instance of handed) {
      const pipes = this.#prepared.get(instance.handed.pid);
      this.#prepared.delete(instance.handed.pid);
      if (pipes) list.push({ instance, adoption: { handed: instance.handed, pipes } });
      else {
        killGroup(instance.handed.pid);
        failedEarly.push({ instance, why: "its pipes were not opened" });
      }
    }
    for (const pipes of this.#prepared.values()) for (const f of Object.values(pipes)) f.close();
    this.#prepared.clear();
    const { adopted, failed } = await this.#deps.registry.adoptAll(
      list,
      (body.notHanded as NotHanded[]) ?? [],
      body.carry as RegistryCarry | undefined,
    );
    for (const f of failed) killGroup(f.instance.handed.pid);
    this.#finish();
    const sessions = this.#deps.registry.sessionInstances();
    const from = body.from as { startedAt?: string } | undefined;
    this.#deps.takeOver({
      pid: this.#from.pid,
      startedAt: String(from?.startedAt ?? ""),
      kept: (session, server) => (sessions.get(session) ?? []).some((s) => s.server === server),
    });
    const row = (i: HandedInstance) => ({ server: i.server, key: i.scope.key, pid: i.handed.pid });
    return Response.json({
      adopted: adopted.map(row),
      failed: [...failedEarly, ...failed].map((f) => ({ ...row(f.instance), why: f.why })),
    });
  }
}
