import { dirname, resolve } from "node:path";
import { SETTINGS, type SettingSpec } from "../settings/table.ts";
import { fileURLToPath as fromFileUrl } from "node:url";
import { fromProblem, isErrorCode, McpxError } from "../errors.ts";
import type { Context } from "../context.ts";
import type { DaemonPaths } from "../paths.ts";

/** What `/v1/health` answers. */
export interface Health {
  service: "mcpx";
  version: string;
  pid: number;
  fingerprint: string;
  config: string;
  socket: string;
  startedAt: string;
  uptimeMs: number;
  autostarted: boolean;
}

/** An open line to a running daemon. */
export interface DaemonConnection {
  readonly socket: string;
  readonly health: Health;
  /** Sends one request to `/v1`; decodes problem documents into {@linkcode McpxError}. */
  request(method: string, path: string, body?: unknown): Promise<unknown>;
  close(): void;
}

function isSocket(path: string): boolean | undefined {
  try {
    return Deno.lstatSync(path).isSocket ?? false;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw new McpxError(
      "DAEMON_UNAVAILABLE",
      `Cannot inspect socket path "${path}": ${(e as Error).message}`,
    );
  }
}

async function send(
  client: Deno.HttpClient,
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  return await fetch(`http://mcpx${path}`, {
    method,
    client,
    signal,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * Looks at a socket path: `absent` (no file), `stale` (a socket nobody answers), or the health of
 * the mcpx daemon answering on it.
 * @throws {McpxError} SOCKET_FOREIGN when the path is not a socket or something else answers.
 */
export async function probe(socket: string): Promise<Health | "absent" | "stale"> {
  const kind = isSocket(socket);
  if (kind === undefined) return "absent";
  if (!kind) {
    throw new McpxError("SOCKET_FOREIGN", `"${socket}" exists and is not a socket`, {
      hint: "Remove it, or set daemon.socket (MCPX_DAEMON_SOCKET) to another path",
    });
  }
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socket } });
  try {
    let res: Response;
    try {
      res = await send(client, "GET", "/v1/health", undefined, AbortSignal.timeout(3000));
    } catch (e) {
      if (e instanceof DOMException && e.name === "TimeoutError") {
        throw new McpxError(
          "SOCKET_FOREIGN",
          `Socket "${socket}" accepted a connection but never answered`,
          {
            hint:
              "Something other than an mcpx daemon holds it; stop that program or set daemon.socket",
          },
        );
      }
      return "stale";
    }
    const text = await res.text();
    let health: Partial<Health> | undefined;
    try {
      health = JSON.parse(text);
    } catch { /* judged below */ }
    if (!res.ok || health?.service !== "mcpx") {
      throw new McpxError(
        "SOCKET_FOREIGN",
        `Socket "${socket}" is answered by something that is not an mcpx daemon`,
        {
          hint: "Stop that program, or set daemon.socket (MCPX_DAEMON_SOCKET) to another path",
        },
      );
    }
    return health as Health;
  } finally {
    client.close();
  }
}

function connection(socket: string, health: Health): DaemonConnection {
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socket } });
  return {
    socket,
    health,
    async request(method, path, body) {
      let res: Response;
      try {
        res = await send(client, method, path, body);
      } catch (e) {
        throw new McpxError(
          "DAEMON_UNAVAILABLE",
          `The daemon on "${socket}" went away: ${(e as Error).message}`,
          {
            cause: e,
          },
        );
      }
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text === "" ? null : JSON.parse(text);
      } catch { /* a non-JSON answer is returned as text */ }
      if (!res.ok) throw fromProblem(parsed as Record<string, never>, res.status);
      return parsed;
    },
    close: () => client.close(),
  };
}

function checkOwner(health: Health, fingerprint: string, socket: string): void {
  if (health.fingerprint !== fingerprint) {
    throw new McpxError(
      "SOCKET_FOREIGN",
      `Socket "${socket}" belongs to the daemon for ${health.config}, not this configuration`,
      { hint: "Give each configuration its own daemon.socket, or leave daemon.socket empty" },
    );
  }
}

/** The command that re-runs this program with other arguments (under `deno run` or compiled). */
export function selfCommand(args: string[]): { command: string; args: string[] } {
  const main = new URL("../../main.ts", import.meta.url);
  if (main.protocol !== "file:" || main.pathname.includes("/deno-compile-")) {
    return { command: Deno.execPath(), args };
  }
  const root = dirname(fromFileUrl(main));
  return {
    command: Deno.execPath(),
    args: ["run", "-A", "--config", `${root}/deno.json`, fromFileUrl(main), ...args],
  };
}

async function withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const file = await Deno.open(path, { create: true, write: true, mode: 0o600 });
  try {
    await file.lock(true);
    return await fn();
  } finally {
    file.close();
  }
}

async function spawnAndWait(
  ctx: Context,
  paths: DaemonPaths,
  fingerprint: string,
  deliberate: boolean,
): Promise<Health> {
  await Deno.remove(paths.startError).catch(() => {});
  // The daemon gets the command's settings flags, with paths made absolute because it runs in
  // the configuration's folder; the configuration itself goes by MCPX_CONFIG.
  const flagArgs = ctx.flags.filter((f) => f.key !== "output.json" && f.key !== "config").map(
    (f) => {
      const spec = (SETTINGS as Record<string, SettingSpec>)[f.key];
      const text = spec.type === "path" && f.text ? resolve(ctx.io.cwd, f.text) : f.text;
      return `${f.spelling}=${text}`;
    },
  );
  const self = selfCommand(["daemon", ...flagArgs]);
  const fp = await ctx.fingerprint();
  const child = new Deno.Command(self.command, {
    args: self.args,
    cwd: dirname(fp.path),
    env: { ...ctx.io.env, MCPX_DAEMON_CHILD: deliberate ? "hand" : "auto", MCPX_CONFIG: fp.path },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  let exited: Deno.CommandStatus | undefined;
  child.status.then((s) => (exited = s));
  child.unref();
  const timeout = ctx.boot.get("daemon.startTimeout");
  const deadline = performance.now() + timeout;
  while (performance.now() < deadline) {
    const state = await probe(paths.socket);
    if (typeof state === "object") {
      checkOwner(state, fingerprint, paths.socket);
      return state;
    }
    if (exited) {
      let report: { code?: string; message?: string; hint?: string } = {};
      try {
        report = JSON.parse(await Deno.readTextFile(paths.startError));
      } catch { /* no report written */ }
      // A mistake in the configuration is the user's, and keeps its own code and fix.
      if (
        isErrorCode(report.code) && !["INTERNAL", "DAEMON_START_FAILED"].includes(report.code) &&
        report.message
      ) {
        throw new McpxError(report.code, report.message, { hint: report.hint });
      }
      const why = report.message ?? `it exited with status ${exited.code}`;
      throw new McpxError(
        "DAEMON_START_FAILED",
        `The daemon for ${fp.path} did not start: ${why}`,
        {
          hint: report.hint ?? `See ${paths.log}`,
        },
      );
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  try {
    Deno.kill(child.pid, "SIGKILL");
  } catch { /* already gone */ }
  throw new McpxError(
    "DAEMON_START_FAILED",
    `The daemon for ${fp.path} did not answer within ${timeout} ms`,
    {
      hint:
        `Raise daemon.startTimeout, or run \`mcpx daemon\` in the foreground to see why; log: ${paths.log}`,
    },
  );
}

/**
 * Connects to this configuration's daemon. With `start`, a missing or stale one is started
 * (detached, auto-started) and awaited; concurrent callers serialise on a lock so exactly one
 * daemon starts. Without `start`, resolves to undefined when none runs.
 */
export async function connectDaemon(
  ctx: Context,
  options: { start: boolean; deliberate?: boolean },
): Promise<DaemonConnection | undefined> {
  const fp = await ctx.fingerprint();
  const paths = await ctx.paths();
  const state = await probe(paths.socket);
  if (typeof state === "object") {
    checkOwner(state, fp.hash, paths.socket);
    return connection(paths.socket, state);
  }
  if (!options.start) return undefined;
  try {
    await Deno.mkdir(paths.dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new McpxError(
      "DAEMON_UNAVAILABLE",
      `Cannot create state directory "${paths.dir}": ${(e as Error).message}`,
      {
        hint: "Set paths.state (MCPX_PATHS_STATE) to a writable directory",
      },
    );
  }
  const health = await withLock(paths.spawnLock, async () => {
    const again = await probe(paths.socket);
    if (typeof again === "object") {
      checkOwner(again, fp.hash, paths.socket);
      return again;
    }
    return await spawnAndWait(ctx, paths, fp.hash, options.deliberate ?? false);
  });
  return connection(paths.socket, health);
}
