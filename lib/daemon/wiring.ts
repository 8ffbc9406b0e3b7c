// The daemon's registry and what it is built from (lib/daemon/server.ts): a configuration's
// servers, the schema cache of its version, and the hooks the registry calls back (connecting a
// server, the spec it starts from, a sign-in a call starts).

import { configuredAdapters } from "../adapters/declare.ts";
import { secureCacheDir } from "../cache/secure.ts";
import { dirname, resolve } from "../_path.ts";
import type { Context } from "../context.ts";
import type { Fingerprint } from "../config/fingerprint.ts";
import type { McpxConfig } from "../config/load.ts";
import type { DaemonLog, LogSink } from "../log/daemon.ts";
import { type LiveState, Registry } from "../pool/registry.ts";
import { type ServerDef, serverDefs } from "../config/servers.ts";
import { passthroughNames, serverEnvironment } from "../config/server_env.ts";
import type { Settings } from "../settings/resolve.ts";
import { cacheDir, questionsDb, stateDir } from "../paths.ts";
import { isMachine, login, oauthDir } from "../mcp/oauth/mod.ts";
import type { SignIn } from "../pool/sign_in.ts";
import type { ScopeKey } from "../pool/scope.ts";
import type { ServerSpec } from "../mcp/types.ts";
import {
  CacheWriter,
  readCache,
  readCacheSync,
  removeOtherVersions,
} from "../cache/schema_cache.ts";
import { namespacesOf } from "../discovery/load.ts";
import { summarizeCache, summaryFile } from "../discovery/ls_summary.ts";
import { load } from "../_load.ts";
import type { EventBus } from "../events/bus.ts";
import type { ClientHalf } from "./client_half.ts";
import { descendants, pidAlive, processToken, procStat } from "../_proc.ts";

type Auth = typeof import("../mcp/auth.ts");

/** What the registry's hooks read: the daemon's context, settings and log, and lib/mcp/auth.ts. */
interface Wiring {
  ctx: Context;
  settings: Settings;
  log: DaemonLog;
  auth: Pick<Auth, "resolveAuth" | "oauthClientConfig">;
}

/** The pool's log events that are also bus events (lib/events/bus.ts), by their bus type. */
const BUS_EVENTS: Record<string, string> = {
  "server.ready": "server.started",
  "server.start_failed": "server.failed",
  "server.exited": "server.crashed",
  "server.stop": "server.stopped",
};

/** The servers of a configuration, its warnings logged. */
export function defsOf(
  config: McpxConfig,
  settings: Settings,
  log: DaemonLog,
  cwd: string,
): ServerDef[] {
  const warnings: string[] = [];
  const defs = serverDefs(config, {
    warnings,
    queueTimeoutMs: settings.get("pool.queueTimeout"),
    evictNamed: settings.get("pool.evictNamed"),
    adapters: configuredAdapters(settings, cwd),
  });
  for (const w of warnings) log.write("warn", "config.warning", w);
  return defs;
}

/** The schema cache writer of one version of the configuration (`fp`). */
export async function cacheFor(
  ctx: Context,
  fp: Fingerprint,
  defs: ServerDef[],
  log: DaemonLog,
): Promise<CacheWriter> {
  const dir = secureCacheDir(cacheDir(ctx.boot, ctx.io.env));
  // This fingerprint's own file, intact, is what the writer starts from; else the cache carried
  // over from an earlier one (matched by each server's identity), or an empty one, which the
  // first listing writes out.
  const own = readCacheSync(dir, fp.hash, fp.path);
  const { cache: initial, warning } = own ?? await readCache(dir, fp.hash, fp.path);
  if (warning) log.write("warn", "cache.corrupt", warning);
  // Each write of the cache writes the summary `mcpx ls` reads instead (of every server). The
  // first also removes what older versions of the file left in the cache folder: this version's
  // file is the one carried over from now on.
  let swept = false;
  return new CacheWriter(
    dir,
    initial,
    own !== undefined && !own.warning,
    (written) => {
      summarizeCache(dir, written, (c) => namespacesOf(defs, c));
      if (swept) return;
      swept = true;
      const removed = removeOtherVersions(dir, written);
      for (const short of removed) {
        try {
          Deno.removeSync(summaryFile(dir, short));
        } catch { /* never written */ }
      }
      if (removed.length > 0) {
        log.write(
          "info",
          "cache.cleaned",
          `Removed the schema caches of ${removed.length} earlier version(s) of the configuration`,
          { fingerprints: removed },
        );
      }
    },
  );
}

/**
 * The daemon's registry of `config`'s servers: the watch hooks say when its live state and its
 * children change, and ask the named sessions about each call of a session.
 */
export async function makeRegistry(
  config: McpxConfig,
  ctx: Context,
  settings: Settings,
  log: DaemonLog,
  half: ClientHalf,
  events: EventBus,
  watch: {
    live: (state: LiveState) => void;
    children: (list: { pid: number; server: string; instance: string }[]) => void;
    sessions: NonNullable<ConstructorParameters<typeof Registry>[1]["sessions"]>;
  },
): Promise<Registry> {
  const defs = defsOf(config, settings, log, ctx.io.cwd);
  const fp = await ctx.fingerprint();
  const cache = await cacheFor(ctx, fp, defs, log);
  const { resolveAuth, oauthClientConfig } = await load<typeof import("../mcp/auth.ts")>(
    "../mcp/auth.ts",
    import.meta.url,
  );
  const { repositoryFinder } = await load<typeof import("../git/discover.ts")>(
    "../git/discover.ts",
    import.meta.url,
  );
  // The repo and worktree scopes: a layout the native reader leaves to git is asked of git once
  // per folder (only PATH and HOME reach it); when git cannot answer, the folder stands for the
  // repository. Either is said once in the log.
  const discover = repositoryFinder(
    { PATH: ctx.io.env.PATH ?? "", ...(ctx.io.env.HOME ? { HOME: ctx.io.env.HOME } : {}) },
    (n) =>
      log.write(
        n.outcome === "git" ? "info" : "warn",
        "git.fallback",
        n.outcome === "git"
          ? `The repository of ${n.cwd} was asked of git once: ${n.reason}`
          : `The repository of ${n.cwd} could not be found, so its folder stands for it: ${n.reason}`,
        { cwd: n.cwd, outcome: n.outcome },
      ),
  );
  const wiring: Wiring = { ctx, settings, log, auth: { resolveAuth, oauthClientConfig } };
  const configDir = dirname(config.path);
  const passthrough = passthroughNames(settings.get("servers.envPassthrough"));
  const maxMessageBytes = settings.get("daemon.maxMessageBytes");
  const { Broker } = await load<typeof import("../questions/broker.ts")>(
    "../questions/broker.ts",
    import.meta.url,
  );
  const questions = new Broker({
    path: questionsDb(settings, ctx.io.env),
    config: config.path,
    deadlineMs: settings.get("elicit.deadline"),
    maxPending: settings.get("elicit.maxPending"),
    log: (level, event, msg, attrs) => log.write(level, event, msg, attrs),
  });
  const write: LogSink = (level, event, msg, attrs) => {
    log.write(level, event, msg, attrs);
    const type = BUS_EVENTS[event];
    if (type) events.publish(type, { message: msg, ...attrs });
  };
  return new Registry(defs, {
    // The SDK is loaded when the first server starts, not with the daemon (~100 ms of start-up).
    connect: async (spec, startTimeoutMs, signal, adopt) => {
      // The connection is known once it exists; a question arrives only after the handshake.
      const self: { conn?: object } = {};
      const conn = await (await load<typeof import("../mcp/connect.ts")>(
        "../mcp/connect.ts",
        import.meta.url,
      )).connectServer(spec, {
        startTimeoutMs,
        signal,
        ...(adopt ? { adopt } : {}),
        maxMessageBytes,
        log: (level, event, msg, attrs) => log.write(level, event, msg, attrs),
        ...half.options(spec),
        capabilities: { roots: true, elicitation: { form: true, url: true }, sampling: true },
        inputRounds: settings.get("elicit.inputRounds"),
        // Roots are answered from the configuration; questions become stored state.
        // A gateway session's call hands them to its own client first (lib/surfaces/mcp/gateway.ts).
        onServerRequest: (method, params, rctx) =>
          method === "roots/list"
            ? questions.relay(self.conn ?? self, method, params, rctx.signal) ??
              half.options(spec).onServerRequest!(method, params, rctx)
            : questions.ask(self.conn ?? self, spec.name, method, params, rctx.signal),
      });
      self.conn = conn;
      half.started(spec, conn, startTimeoutMs);
      return conn;
    },
    called: (call) => events.publish("call.finished", { ...call }),
    questions,
    elicitWaitMs: settings.get("elicit.wait"),
    signIn: (server) => startSignIn(wiring, defs, server),
    spec: (def, key) => specOf(wiring, configDir, passthrough, def, key),
    discover,
    log: write,
    logParent: log.id,
    trace: settings.get("logging.trace"),
    reapIntervalMs: settings.get("plumbing.reapInterval"),
    alive: pidAlive,
    identify(pid) {
      const start = processToken(pid);
      if (!start) return undefined;
      return { start, pgid: Number(procStat(pid)?.[2] ?? 0) };
    },
    descendants: (pid) => descendants(pid),
    cache,
    live: watch.live,
    children: watch.children,
    sessions: watch.sessions,
  });
}

/** Whether the daemon runs in CI mode (`auth.ci`, or CI set): no sign-in is started then. */
function ciMode(w: Wiring): boolean {
  return w.settings.get("auth.ci") || ["true", "1"].includes(w.ctx.io.env.CI ?? "");
}

/**
 * A sign-in started from a call (lib/pool/sign_in.ts): the daemon's own `mcpx auth login`, its
 * URL handed over as a question; never in CI mode, nor for a machine client or a server whose
 * entry sets its own Authorization header. `defs` are the servers the registry was made with.
 */
function startSignIn(
  w: Wiring,
  defs: ServerDef[],
  server: { name: string },
): SignIn | undefined {
  const { ctx, settings, log } = w;
  const def = defs.find((d) => d.name === server.name);
  const ci = ciMode(w);
  if (!def || def.transport === "stdio" || ci) return undefined;
  let use;
  try {
    const env = def.envFrom === "caller" ? {} : { ...ctx.io.env };
    const auth = w.auth.resolveAuth(def.name, def.entry, { env });
    const own = Object.keys(auth.headers).some((h) => h.toLowerCase() === "authorization");
    const client = w.auth.oauthClientConfig(def.name, def.entry.mcpx?.oauth, env);
    if (own || !auth.url || isMachine(client)) return undefined;
    use = {
      namespace: def.namespace,
      url: auth.url,
      dir: oauthDir(stateDir(settings, ctx.io.env)),
      ...(client ? { client } : {}),
    };
  } catch {
    return undefined; // an unset ${VAR}: the call's own error says enough
  }
  const stop = new AbortController();
  const url = Promise.withResolvers<string>();
  const done = login(use, {
    say: (line) => {
      if (/^https?:\/\//.test(line)) url.resolve(line);
    },
    signal: stop.signal,
  });
  done.then(
    () => url.reject(new Error("signed in without a URL")),
    (e) => url.reject(e),
  );
  url.promise.catch(() => {});
  done.catch(() => {});
  log.write("info", "auth.signin", `A call started a sign-in to "${def.namespace}"`, {
    server: def.name,
  });
  return { url: url.promise, done, cancel: () => stop.abort() };
}

/** What a server of `def` is started from, for the scope `key` (its caller's values included). */
function specOf(
  w: Wiring,
  configDir: string,
  passthrough: ReturnType<typeof passthroughNames>,
  def: ServerDef,
  key?: ScopeKey,
): ServerSpec {
  const { ctx, settings } = w;
  // `${VAR}` reads the daemon's environment, or for "envFrom": "caller" the caller's values
  // that came with the call (the key carries them); nothing else of either reaches the server.
  const source = def.envFrom === "caller" ? { ...key?.env } : { ...ctx.io.env };
  const auth = w.auth.resolveAuth(def.name, def.entry, { env: source });
  const remote = def.transport !== "stdio" && auth.url !== undefined;
  const ownAuthorization = Object.keys(auth.headers).some((h) =>
    h.toLowerCase() === "authorization"
  );
  // A machine client (client credentials, JWT bearer, enterprise) gets its tokens in the daemon, so it needs its
  // configuration here; any other refresh uses the client stored with the tokens at login.
  const block = def.entry.mcpx?.oauth as Record<string, unknown> | undefined;
  const machine = remote &&
      ["client_credentials", "jwt_bearer", "enterprise"].includes(String(block?.grant))
    ? w.auth.oauthClientConfig(def.name, block, source)
    : undefined;
  const oauth = remote && !ownAuthorization
    ? {
      namespace: def.namespace,
      url: auth.url as string,
      dir: oauthDir(stateDir(settings, ctx.io.env)),
      ...(machine ? { client: machine } : {}),
      ci: ciMode(w),
    }
    : undefined;
  return {
    name: def.name,
    transport: def.transport,
    command: def.entry.command,
    args: auth.args,
    env: serverEnvironment(ctx.io.env, passthrough, auth.env),
    cwd: resolve(configDir, def.entry.cwd ?? "."),
    url: auth.url,
    headers: auth.headers,
    ...(oauth ? { oauth } : {}),
    protocol: def.protocol,
    ...(key?.cwd === undefined ? {} : { callerCwd: key.cwd }),
  };
}
