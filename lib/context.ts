import type { EventBus } from "./events/bus.ts";
import { type ConfigLocation, discoverConfig, noConfigError } from "./config/discover.ts";
import { type Fingerprint, fingerprintConfig } from "./config/fingerprint.ts";
import type { Io } from "./io.ts";
import type { Caller } from "./pool/scope.ts";
import type { Registry } from "./pool/registry.ts";
import type { NamedSessions } from "./sessions/named.ts";
import type { Selection } from "./config/servers.ts";
import { type DaemonPaths, daemonPaths, inlinePaths, stateDir } from "./paths.ts";
import {
  requireTrusted,
  shellWord,
  type TrustOptions,
  trustState,
  untrustedError,
} from "./config/trust.ts";
import { McpxError } from "./errors.ts";
import { type FlagValue, resolveSettings, type Settings } from "./settings/resolve.ts";
import { loadConfig, loadConfigSync, readConfigText } from "./config/load.ts";
import { callerVariables, pick } from "./config/server_env.ts";
import { firstId, parseTraceIds, type TraceIds } from "./log/trace_ids.ts";
import type { LogSink } from "./log/daemon.ts";
import { join } from "./_path.ts";
import { writeFileAtomic } from "./_atomic.ts";

/** The configuration an ad-hoc server runs under when none is found, or none trusted. */
export const AD_HOC_CONFIG_TEXT =
  '// Written by mcpx: the configuration ad-hoc servers (--stdio, --url) run under when no\n// trusted configuration is found (docs/sources.md). It names no server.\n{ "mcpServers": {} }\n';

function realPath(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/** What the daemon offers the web page: its TCP address, opened on demand, and one-time codes. */
export interface DaemonUi {
  /**
   * The address the page is served on (`daemon.listen`, else a loopback port opened at the
   * first ask and kept) and a new one-time code for it.
   */
  open(): Promise<{ listen: string; code: string; expiresInMs: number }>;
  /** The page session a code buys, once; undefined for a code unknown, used or expired. */
  exchange(code: string): string | undefined;
}

/**
 * What the daemon exposes to operations that run inside it: the operations table reaches the
 * daemon only through this, so the daemon imports the table (lib/surfaces/daemon.ts serves it) and
 * never the other way round.
 */
export interface DaemonHandle {
  readonly pid: number;
  readonly startedAt: number;
  readonly autostarted: boolean;
  readonly socket: string;
  /** The TCP address it also serves on (`daemon.listen`), host:port with the bound port. */
  readonly listen?: string;
  readonly configPath: string;
  readonly fingerprint: string;
  /** The daemon's id in the log (`dmn-…`), the parent of what it creates. */
  readonly logId: string;
  /** Idle time after which an auto-started daemon exits; 0 for never. */
  readonly idleExitMs: number;
  /** The server pools: calls, restarts, listings and their status. */
  readonly registry: Registry;
  /** Stops the daemon after the current answer is sent. */
  requestStop(reason: string): void;
  /**
   * The daemon's event bus (`GET /v1/events`): `publish(type, data)` never blocks. Absent
   * outside the daemon.
   */
  readonly events?: EventBus;
  /** What it stopped at its start that a daemon which died had left running, if anything. */
  readonly recovered?: string;
  /** The named sessions (`mcpx session …`, lib/sessions/named.ts). Absent outside the daemon. */
  readonly sessions?: NamedSessions;
  /** The web page (`mcpx ui`, lib/daemon/ui_gate.ts); absent outside the daemon. */
  readonly ui?: DaemonUi;
  /** The version it reports (MCPX_TEST_VERSION in the upgrade tests, else mcpx's). */
  readonly version?: string;
  /**
   * Hands this daemon's socket and servers to one started from `request.command`, then retires
   * (lib/daemon/upgrade.ts); absent outside the daemon.
   */
  upgrade?(request: UpgradeRequest): Promise<UpgradeResult>;
  /** Whether it is hosted inline (lib/surfaces/inline.ts): it ends with the command hosting it. */
  readonly inline?: boolean;
  /** The daemon's log. */
  readonly log?: { write: LogSink };
}

/**
 * What the surfaces hand down to the operations that host one (`mcpx daemon`, `serve`, `explore`,
 * `tui`) or read the whole operations table (`completion`, `help`, `openapi`): set by the
 * composition root (lib/surfaces/cli.ts, the daemon's surface for its requests) as `inline` is,
 * so that lib/operations/ never imports lib/surfaces/ or lib/tui/. Each door loads its surface on
 * its first use: a cheap command pays for none.
 */
export interface Host {
  /**
   * Runs the daemon for `ctx`'s configuration in this process (lib/surfaces/daemon.ts), calling
   * `loaded` once its modules are in; resolves to an exit status.
   */
  runDaemon(
    ctx: Context,
    autostarted: boolean,
    listen: string | undefined,
    loaded?: () => void,
  ): Promise<number>;
  /** Serves mcpx as an MCP server (lib/surfaces/mcp/serve_cli.ts), until its client or process ends. */
  serveMcp(
    ctx: Context,
    http: string | undefined,
    expose: readonly string[] | undefined,
    options: { session?: string; token?: string; tokenGiven?: boolean; tools?: "core" | "all" },
  ): Promise<{ served: string }>;
  /** Runs one command line as `mcpx` does (lib/surfaces/cli.ts); resolves to its exit status. */
  runCommand(args: readonly string[], io: Io): Promise<number>;
  /** Runs the browser on this terminal (lib/tui/run.ts) until it ends; resolves to an exit status. */
  openTui(ctx: Context): Promise<number>;
  /** The completion script for `shell`, from the operations and settings tables. */
  completionScript(shell: "bash" | "zsh" | "fish"): Promise<string>;
  /** The OpenAPI document of `/v1`, from the operations table (lib/surfaces/openapi.ts). */
  openapiDocument(): Promise<Record<string, unknown>>;
  /** The help of a topic (lib/surfaces/help.ts `helpTopic`); undefined for a topic it has not. */
  helpTopic(words: readonly string[]): Promise<string | undefined>;
  /** The first word of every operation's command, in the table's order. */
  commandWords(): Promise<string[]>;
}

/** A door of the host of a context no surface hosts: it refuses, naming itself. */
function unhosted(door: keyof Host): () => Promise<never> {
  return () =>
    Promise.reject(new McpxError("INTERNAL", `No surface hosts this context (host.${door})`));
}

/** The host of a context until a surface sets its own. */
const UNHOSTED: Host = {
  runDaemon: unhosted("runDaemon"),
  serveMcp: unhosted("serveMcp"),
  runCommand: unhosted("runCommand"),
  openTui: unhosted("openTui"),
  completionScript: unhosted("completionScript"),
  openapiDocument: unhosted("openapiDocument"),
  helpTopic: unhosted("helpTopic"),
  commandWords: unhosted("commandWords"),
};

/**
 * `--json` as a flag, for a context a surface makes (MCP tools, `/mcp`): a tool's answer is the
 * operation's document, never its terminal form.
 */
export const JSON_FLAG: FlagValue = { key: "output.json", text: "true", spelling: "--json" };

/**
 * Everything an operation may need, computed lazily so that a cheap command pays for none of it:
 * `boot` holds the settings readable without files; `settings()` adds the configuration files.
 */
export class Context {
  readonly io: Io;
  readonly flags: readonly FlagValue[];
  readonly boot: Settings;
  readonly daemon?: DaemonHandle;
  /** Inside the daemon: who sent the request (from the `x-mcpx-caller` header). */
  readonly caller: Caller;
  /** Inside the daemon: aborted when the request's client goes away. */
  readonly signal?: AbortSignal;
  /**
   * Which rung of the ladder answered this command (docs/daemon.md, "The ladder"): a daemon
   * already on its `socket`, a named one at a `url`, one this command had to `spawn`, or one it
   * hosts `inline`. Unset until a daemon answered.
   */
  rung?: "socket" | "url" | "spawn" | "inline";
  /**
   * What the daemon this command started stopped of one that died (its `recovered`, already said
   * on stderr): set by the daemon client, read by `mcpx serve` to tell its MCP client.
   */
  recovered?: string;
  /**
   * The daemon this command hosts itself (`daemon.inline`), on files of its own: set by the CLI
   * surface, which alone may load the daemon's surface (lib/surfaces/inline.ts).
   */
  inline?: {
    /** Hosts it, once; resolves when it answers on its socket. */
    start: (ctx: Context) => Promise<void>;
    /** Whether it was started. */
    started: boolean;
    /** Stops it and its servers; resolves once they are gone. */
    stop: () => Promise<void>;
  };
  /**
   * The surfaces, for the operations that host one or read the whole table: set by the
   * composition root (lib/surfaces/cli.ts), which alone may load them.
   */
  host: Host = UNHOSTED;
  #location?: ConfigLocation;
  #layers?: ConfigLocation;
  #fingerprint?: Fingerprint;
  #settings?: Promise<Settings>;
  /** The real paths of the settings layers found trusted when the settings were read. */
  #trusted: string[] = [];

  constructor(
    io: Io,
    flags: readonly FlagValue[] = [],
    daemon?: DaemonHandle,
    caller: Caller = {},
    boot?: Settings,
    signal?: AbortSignal,
  ) {
    this.io = io;
    this.flags = flags;
    // The daemon hands its own: the same environment and flags resolve the same on every request.
    this.boot = boot ?? resolveSettings({ env: io.env, flags });
    this.daemon = daemon;
    this.caller = caller;
    this.signal = signal;
  }

  /** What this process tells the daemon about its caller: cwd, parent pid, session ids, profiles. */
  callerInfo(): Caller {
    // The harness's ids add context; they never replace a session mcpx established.
    const ids = this.traceIds();
    return {
      cwd: this.io.cwd,
      pid: this.io.ppid,
      session: this.io.env.MCPX_SESSION_ID || firstId(ids, "session") || undefined,
      runId: this.io.env.MCPX_RUN_ID || undefined,
      ...(this.io.env.MCPX_SESSION_ID && Number(this.io.env.MCPX_SESSION_OWNER) > 0
        ? { owner: Number(this.io.env.MCPX_SESSION_OWNER) }
        : {}),
      sessionMinted: (this.io.env.MCPX_SESSION_ID && this.io.env.MCPX_SESSION_MINTED === "1") ||
        undefined,
      parentSession: this.io.env.MCPX_PARENT_SESSION_ID || firstId(ids, "parent") || undefined,
      ...(Object.keys(ids).length ? { ids } : {}),
      holder: this.io.env.MCPX_SESSION_HOLDER || undefined,
      user: this.io.env.USER || undefined,
      process: Deno.pid,
      selection: this.selection(),
      ...(this.boot.get("logging.trace") ? { trace: true } : {}),
      ...(Object.keys(this.callerEnv()).length ? { env: this.callerEnv() } : {}),
    };
  }

  #traceIds?: TraceIds;

  /**
   * MCPX_TRACE_IDS, parsed (lib/log/trace_ids.ts).
   * @throws {McpxError} USAGE when it is malformed
   */
  traceIds(): TraceIds {
    return this.#traceIds ??= parseTraceIds(this.io.env.MCPX_TRACE_IDS);
  }

  #callerEnv?: Record<string, string>;

  /**
   * This command's values of the variables that servers with `"envFrom": "caller"` reference:
   * all the daemon is told of this command's environment (lib/config/server_env.ts).
   */
  callerEnv(): Record<string, string> {
    if (this.#callerEnv) return this.#callerEnv;
    let names: string[] = [];
    try {
      // Only a file that says envFrom at all is parsed for it.
      const fp = this.location().primary ? this.fingerprintSync() : undefined;
      if (fp?.text.includes("envFrom")) {
        names = callerVariables(loadConfigSync(fp.path, fp.text)?.mcpServers ?? {});
      }
    } catch { /* the command itself reports a broken configuration */ }
    return this.#callerEnv = pick(this.io.env, names);
  }

  /** The profile selection of `--profile`, `--skip-default`, `--all-profiles`. */
  selection(): Selection {
    const profiles = this.boot.get("select.profiles").split(",").map((p) => p.trim()).filter(
      Boolean,
    );
    return {
      ...(profiles.length ? { profiles } : {}),
      ...(profiles.length && this.boot.describe("select.profiles").source.kind === "flag"
        ? { strict: true }
        : {}),
      ...(this.boot.get("select.skipDefault") ? { skipDefault: true } : {}),
      ...(this.boot.get("select.allProfiles") ? { all: true } : {}),
    };
  }

  /** Whether output should be JSON. */
  get json(): boolean {
    return this.boot.get("output.json");
  }

  /** Where the primary configuration file is; the search stops there and nothing is parsed. */
  location(): ConfigLocation {
    // The full search (settings() makes it) found the same primary file: no second walk.
    return this.#location ??= this.#layers ?? discoverConfig(
      this.io.cwd,
      this.io.env,
      this.boot.get("config") || undefined,
      { firstOnly: true, paths: this.boot.get("paths.config") },
    );
  }

  /** Every configuration file, farthest first: the settings layers. */
  layers(): ConfigLocation {
    return this.#layers ??= discoverConfig(
      this.io.cwd,
      this.io.env,
      this.boot.get("config") || undefined,
      { paths: this.boot.get("paths.config") },
    );
  }

  /** One line per `paths.config` entry that names nothing, once the search has been made. */
  locationWarnings(): string[] {
    const missing = new Set([...this.#location?.missing ?? [], ...this.#layers?.missing ?? []]);
    return [...missing].map((path) =>
      `paths.config names "${path}", which does not exist: it was skipped`
    );
  }

  /** The primary configuration's fingerprint, now. @throws {McpxError} CONFIG_NOT_FOUND */
  fingerprintSync(): Fingerprint {
    const primary = this.location().primary;
    if (!primary) throw noConfigError(this.location());
    return this.#fingerprint ??= fingerprintConfig(primary);
  }

  /** The primary configuration's fingerprint. @throws {McpxError} CONFIG_NOT_FOUND */
  fingerprint(): Promise<Fingerprint> {
    try {
      return Promise.resolve(this.fingerprintSync());
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** What deciding whether a configuration file is trusted needs (lib/config/trust.ts). */
  trustOptions(path?: string): TrustOptions {
    const location = this.location();
    return {
      env: this.io.env,
      stateDir: stateDir(this.boot, this.io.env),
      explicit: location.explicit && (path === undefined || path === location.primary),
      trustAll: this.boot.get("trust.all"),
    };
  }

  /**
   * Why the primary configuration is not trusted, as the error that says so and names the command
   * that trusts it; undefined when it is trusted, or there is none. What `ls` tells and `search`,
   * `types`, `catalog` and `schema` refuse with: they start nothing, but an answer from an
   * untrusted file (tools never listed, or listed before it changed) is not one to act on.
   */
  async untrusted(): Promise<McpxError | undefined> {
    if (!this.location().primary) return undefined;
    const fp = this.fingerprintSync();
    const state = await trustState(fp.path, fp.text, this.trustOptions());
    return state.trusted ? undefined : untrustedError(fp.path, state);
  }

  /**
   * Refuses a primary configuration that is not trusted, before anything it names starts.
   * @throws {McpxError} CONFIG_UNTRUSTED naming the command that trusts it.
   */
  async requireTrust(): Promise<void> {
    if (!this.location().primary) return;
    const fp = this.fingerprintSync();
    await requireTrusted(fp.path, fp.text, this.trustOptions());
  }

  /**
   * For a command that names an ad-hoc server (`--stdio`, `--url`): the command line the user
   * typed is consent enough for that server, but not for a configuration nobody trusted. With no
   * configuration found, or a primary one that is not trusted, the command runs under mcpx's own
   * empty configuration (`<state>/adhoc/config.json`, named as if by --config) and its daemon, so
   * nothing the untrusted file names ever starts. Returns whether it did.
   */
  async useAdHocConfig(): Promise<boolean> {
    const location = this.location();
    if (location.primary) {
      const fp = this.fingerprintSync();
      if ((await trustState(fp.path, fp.text, this.trustOptions())).trusted) return false;
    }
    const path = join(stateDir(this.boot, this.io.env), "adhoc", "config.json");
    let text: string | undefined;
    try {
      text = Deno.readTextFileSync(path);
    } catch { /* written below */ }
    if (text !== AD_HOC_CONFIG_TEXT) writeFileAtomic(path, AD_HOC_CONFIG_TEXT);
    const layers = this.layers().layers.filter((p) => p !== location.primary);
    this.#location = { primary: path, layers: [path], searched: location.searched, explicit: true };
    // The user's other (trusted) files still give their settings; the untrusted one gives none.
    this.#layers = { ...this.#location, layers: [...layers, path] };
    this.#fingerprint = undefined;
    this.#settings = undefined;
    this.#trusted = [];
    return true;
  }

  /** The full settings, if something already asked for them. */
  loadedSettings(): Promise<Settings> | undefined {
    return this.#settings;
  }

  /** Every setting, with the configuration files read (farthest first, nearest last). */
  settings(): Promise<Settings> {
    return this.#settings ??= (async () => {
      const files = [];
      const warnings: string[] = [];
      const layers = this.layers().layers;
      const primary = this.location().primary;
      for (const path of layers) {
        // The primary file as fingerprinted (already read), the others from disk.
        const fp = path === primary ? await this.fingerprint() : undefined;
        const real = fp?.path ?? realPath(path);
        const text = fp?.text ?? readConfigText(path);
        const { data } = await loadConfig(path, text);
        // A file not trusted applies no setting: a planted /tmp/.mcpx.json names no scripts.
        const state = await trustState(real, text, this.trustOptions(path));
        if (!state.trusted) {
          if (Object.keys(data).some((k) => !["mcpServers", "pool", "$schema"].includes(k))) {
            warnings.push(
              `Settings in ${path} are not applied: ${
                state.why === "unsafe"
                  ? state.reason
                  : `it is not trusted${
                    state.why === "changed" ? " since it changed" : ""
                  } (run \`mcpx trust ${shellWord(real)}\`)`
              }`,
            );
          }
          continue;
        }
        this.#trusted.push(real);
        files.push({ path, data });
      }
      return resolveSettings({ env: this.io.env, files, flags: this.flags, warnings });
    })();
  }

  /**
   * The real paths of the trusted configuration files among the settings layers: their projects
   * are where a `.mcpx/scripts` folder may run without `mcpx trust` (lib/scripts/trust.ts).
   */
  async trustedConfigs(): Promise<readonly string[]> {
    await this.settings();
    return this.#trusted;
  }

  /**
   * The daemon's files for this configuration; for a daemon this command hosts inline, files of
   * its own (`<key>.inline-<pid>.*`), logging beside the others as `inline-<key>`.
   */
  async paths(): Promise<DaemonPaths> {
    const key = (await this.fingerprint()).key;
    if (!this.inline?.started) return daemonPaths(this.boot, this.io.env, key);
    return inlinePaths(this.boot, this.io.env, key, Deno.pid);
  }

  /** Stops what this command hosted (an inline daemon and its servers); nothing otherwise. */
  async close(): Promise<void> {
    if (this.inline?.started) await this.inline.stop();
  }
}

/** What `mcpx daemon upgrade` asks of the running daemon: the command of the new version. */
export interface UpgradeRequest {
  command: string;
  args: string[];
}

/** What an upgrade did. */
export interface UpgradeResult {
  from: { pid: number; version: string };
  to: { pid: number; version: string };
  /** Server processes the successor took over, and those stopped instead (with why). */
  handedOver: { server: string; key: string; pid: number }[];
  stopped: { server: string; key: string; pid?: number; why: string }[];
  /** From the request to the successor owning every process handed over. */
  durationMs: number;
  /** How long the old daemon waited for its calls in flight. */
  drainMs: number;
}
