// Where the daemon listens (lib/daemon/server.ts): its unix socket, the TCP address of
// `daemon.listen` (with a bearer token) and the web page's loopback port, each answering with the
// daemon's handler (lib/daemon/handler.ts) after its own check of who is asking.

import { dirname, join } from "../_path.ts";
import { McpxError, messageOf } from "../errors.ts";
import type { DaemonLog } from "../log/daemon.ts";
import type { Settings } from "../settings/resolve.ts";
import { type DaemonPaths, SUN_PATH_LIMIT } from "../paths.ts";
import { refuseWithoutToken } from "./guard.ts";
import { hostPort, listenerToken, refuseOnListener, type TcpAddress } from "./listen.ts";
import type { UiGate } from "./ui_gate.ts";
import type { Handler } from "./handler.ts";
import { type GuardedServer, serveGuarded } from "./tcp_guard.ts";

/** What the listeners are opened with. */
export interface ListenerDeps {
  handler: Handler;
  log: DaemonLog;
  settings: Settings;
  paths: DaemonPaths;
  /** Who may open the web page (`mcpx ui`). */
  gate: UiGate;
  /** The socket's token (lib/daemon/guard.ts). */
  token: string;
  /** `daemon.listen`, when set. */
  listen: TcpAddress | undefined;
  /** Where the TCP address bound is recorded (host:port): the daemon's state. */
  state: { listen?: string };
  /** Whether to say on stderr where /v1 and /mcp are served (a daemon started by hand). */
  announce: boolean;
  err(text: string): void;
}

/** The daemon's listeners. */
export class Listeners {
  readonly #deps: ListenerDeps;
  // The unix listeners: one, and a second one when an upgrade failed and this daemon took its
  // socket back (the first still listens on the path its successor replaced).
  readonly #unix: Deno.HttpServer<Deno.UnixAddr>[] = [];
  #tcp: GuardedServer | undefined;
  // The web page's loopback listener (`mcpx ui`), when no daemon.listen serves it.
  #ui: GuardedServer | undefined;
  #bound = 0;
  /** A handler that threw: logged, and answered 500. */
  readonly #onError = (error: unknown) => {
    this.#deps.log.write("error", "http.error", String(error));
    return new Response("internal error", { status: 500 });
  };

  constructor(deps: ListenerDeps) {
    this.#deps = deps;
  }

  /**
   * Listens on the unix socket `path`. Bound at a private name and renamed onto its path: Deno
   * unlinks the path a listener was bound at when it shuts down, and after an upgrade that path
   * is the successor's socket.
   */
  listenUnix(path: string): void {
    let at = join(dirname(path), `.${Deno.pid}-${this.#bound++}.sock`);
    // A daemon.socket near or past the length limit is bound in place: no upgrade then keeps
    // it, and one past the limit fails here (renamed onto, nobody could connect to it).
    const long = (p: string) => new TextEncoder().encode(p).length > SUN_PATH_LIMIT;
    if (long(at) || long(path)) at = path;
    try {
      Deno.removeSync(at);
    } catch { /* none left over */ }
    const token = this.#deps.token;
    try {
      this.#unix.push(Deno.serve(
        { path: at, onListen() {}, onError: this.#onError },
        this.#deps.handler.for((req) => refuseWithoutToken(req, token)),
      ));
      Deno.chmodSync(at, 0o600);
      if (at !== path) Deno.renameSync(at, path);
    } catch (e) {
      if (at !== path) {
        try {
          Deno.removeSync(at);
        } catch { /* never bound */ }
      }
      throw new McpxError(
        "DAEMON_START_FAILED",
        `Cannot listen on "${path}": ${messageOf(e)}`,
        {
          hint: "Set daemon.socket (MCPX_DAEMON_SOCKET) to a path in a writable directory",
        },
      );
    }
  }

  /** Listens on `daemon.listen`, if it is set. */
  bindTcp(): void {
    const { listen, settings, paths, gate, state } = this.#deps;
    if (!listen) return;
    // Beyond the socket's 0600: anyone who can reach the port must hold the listener token,
    // loopback or not (other users of this machine reach a loopback port too).
    const bearer = listenerToken(settings.get("daemon.token"), paths.listenToken);
    const at = { ...listen };
    try {
      this.#tcp = this.#guarded(
        at,
        this.#deps.handler.for((req) => refuseOnListener(req, at, bearer, gate), true),
      );
      at.port = this.#tcp.addr.port;
    } catch (e) {
      throw new McpxError(
        "DAEMON_START_FAILED",
        `Cannot listen on ${hostPort(at)}: ${messageOf(e)}`,
        { hint: "Give --listen (daemon.listen) a free port of an address of this machine" },
      );
    }
    state.listen = hostPort(at);
    if (this.#deps.announce) {
      this.#deps.err(
        `mcpx daemon: /v1 and /mcp at http://${state.listen} (bearer token: ${
          settings.get("daemon.token") ? "daemon.token" : paths.listenToken
        })\n`,
      );
    }
  }

  /**
   * Where the web page is served: where daemon.listen is, else on a loopback port opened the
   * first time `mcpx ui` asks: it takes page sessions only, no token anyone was given.
   */
  openUi(): string {
    const { state, gate } = this.#deps;
    if (state.listen) return state.listen;
    if (!this.#ui) {
      const at = { hostname: "127.0.0.1", port: 0 };
      const nobody = crypto.randomUUID() + crypto.randomUUID();
      this.#ui = this.#guarded(
        at,
        this.#deps.handler.for((req) => refuseOnListener(req, at, nobody, gate), true),
      );
      at.port = this.#ui.addr.port;
      this.#deps.log.write("info", "daemon.ui_listening", "Serving the web page", {
        ui: hostPort(at),
      });
    }
    return hostPort({ hostname: "127.0.0.1", port: this.#ui.addr.port });
  }

  /**
   * A TCP listener within the `daemon.listen*` bounds (lib/daemon/tcp_guard.ts), its connections
   * piped to a private unix socket beside the daemon's own.
   */
  #guarded(at: TcpAddress, handler: (req: Request) => Promise<Response>): GuardedServer {
    const { settings, log, paths } = this.#deps;
    const inner = join(dirname(paths.socket), `.${Deno.pid}-tcp-${this.#bound++}.sock`);
    return serveGuarded(
      { hostname: at.hostname, port: at.port, inner },
      {
        maxConnections: settings.get("daemon.listenMaxConnections"),
        headerTimeoutMs: settings.get("daemon.listenHeaderTimeout"),
        idleTimeoutMs: settings.get("daemon.listenIdleTimeout"),
      },
      handler,
      this.#onError,
      (why, active) => {
        const said = {
          maxConnections:
            `refused: ${active} connections already held (daemon.listenMaxConnections)`,
          headerTimeout: "closed: no request head in time (daemon.listenHeaderTimeout)",
          idleTimeout: "closed: silent too long (daemon.listenIdleTimeout)",
        }[why];
        log.write(
          why === "idleTimeout" ? "info" : "warn",
          "listen.bound",
          `A TCP connection to ${hostPort(at)} was ${said}`,
          {
            listen: hostPort(at),
            bound: why,
            active,
          },
        );
      },
    );
  }

  /** Stops accepting on the TCP listeners, without waiting for their connections to end. */
  closeTcp(): void {
    void this.#tcp?.shutdown();
    void this.#ui?.shutdown();
    this.#tcp = undefined;
    this.#ui = undefined;
    this.#deps.state.listen = undefined;
  }

  /** Closes what a start that failed had opened, one after the other. */
  async abort(): Promise<void> {
    await Promise.all(this.#unix.map((s) => s.shutdown()));
    await this.#tcp?.shutdown();
  }

  /** Closes every listener; resolves once their connections have ended. */
  shutdown(): Promise<unknown> {
    return Promise.all([
      ...this.#unix.map((s) => s.shutdown()),
      this.#tcp?.shutdown(),
      this.#ui?.shutdown(),
    ]);
  }
}
