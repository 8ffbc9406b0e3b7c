/** Shared by the tests of lib/mcp: real servers, free ports, and a look at process groups. */
import type { ServerSpec } from "./types.ts";
import { serverEnvironment } from "../config/server_env.ts";
import { realIo } from "../io.ts";
import { exists } from "../_fs.ts";

const REPO = new URL("../../", import.meta.url).pathname;

/** The real server-everything, installed by `npm ci` in tests/npm. */
export const EVERYTHING = `${REPO}tests/npm/node_modules/.bin/mcp-server-everything`;
const EVERYTHING_MAIN =
  `${REPO}tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js`;

/** Whether the real servers are installed; tests that need them are skipped (and counted) if not. */
export const HAVE_EVERYTHING = exists(EVERYTHING) && exists(EVERYTHING_MAIN);

/** Our scripted stdio server (see testdata/scripted_server.ts), as a command and arguments. */
export const SCRIPTED = {
  command: Deno.execPath(),
  args: [
    "run",
    "--quiet",
    "--no-config",
    "--allow-env=SCRIPTED_SILENT,SCRIPTED_VERSION",
    new URL("./testdata/scripted_server.ts", import.meta.url).pathname,
  ],
};

const MODERN_FLAGS = [
  "--quiet",
  "--no-config",
  `--import-map=${new URL("./testdata/modern_server.imports.json", import.meta.url).pathname}`,
];
const MODERN_MAIN = new URL("./testdata/modern_server.ts", import.meta.url).pathname;

/**
 * A stdio server on the SDK v2 server (see testdata/modern_server.ts) that serves both eras.
 * `--no-config` keeps it off the repository's lockfile. It runs `--cached-only`, so that a start
 * never waits on the registry inside a connect timeout: call {@linkcode cacheModern} first.
 */
export const MODERN = {
  command: Deno.execPath(),
  args: ["run", ...MODERN_FLAGS, "--cached-only", "--allow-env", "--allow-read", MODERN_MAIN],
};

const ASKING_MAIN = new URL("./testdata/asking_server.ts", import.meta.url).pathname;

/** The SDK-server fixture that asks for roots, reports progress, logs (testdata/asking_server.ts). */
export const ASKING = {
  command: Deno.execPath(),
  args: [
    "run",
    ...MODERN_FLAGS,
    "--cached-only",
    "--allow-env",
    "--allow-read",
    "--allow-net=127.0.0.1",
    ASKING_MAIN,
  ],
};

/** The asking server over Streamable HTTP; dispose it to kill it. */
export async function startHttpAsking(): Promise<{ url: string } & AsyncDisposable> {
  await cacheModern();
  const child = new Deno.Command(ASKING.command, {
    args: [...ASKING.args, "--http"],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/PORT \d+/.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const port = /PORT (\d+)/.exec(text)?.[1];
  const stop = async () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await child.status;
    await reader.cancel().catch(() => {});
  };
  if (!port) {
    await stop();
    throw new Error(`the asking server did not listen: ${text}`);
  }
  return { url: `http://127.0.0.1:${port}/mcp`, [Symbol.asyncDispose]: stop };
}

let modernCached: Promise<void> | undefined;

/**
 * Brings MODERN's npm packages into the Deno cache (once per test process), so that the tests
 * need no earlier install step: with an empty `DENO_DIR` this downloads them.
 */
export function cacheModern(): Promise<void> {
  return modernCached ??= (async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["cache", ...MODERN_FLAGS, MODERN_MAIN, ASKING_MAIN],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(
        `deno cache of ${MODERN_MAIN} failed: ${new TextDecoder().decode(out.stderr)}`,
      );
    }
  })();
}

/**
 * A complete spec from the fields a test cares about. A server's env is its whole environment,
 * so the base the daemon gives (and Deno's cache, for the Deno servers) is put under `env`.
 */
export function spec(fields: Partial<ServerSpec> & { name: string }): ServerSpec {
  const base = serverEnvironment(realIo().env, ["DENO_DIR"], {});
  return {
    transport: "stdio",
    args: [],
    headers: {},
    protocol: "legacy",
    ...fields,
    env: { ...base, ...fields.env },
  };
}

/**
 * The live processes in process group `pgid`, read from /proc. Zombies are left out: once a
 * group member's parent has exited it is reparented to PID 1, and reaping it is PID 1's job
 * (on some machines, never); a zombie holds no memory, files or ports.
 */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
    } catch {
      continue; // It exited while we looked.
    }
    // The command name (field 2) may contain spaces and parentheses; fields after it don't.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [state, , pgrp] = fields;
    if (Number(pgrp) === pgid && state !== "Z") members.push(Number(entry.name));
  }
  return members;
}

/** The process group id of `pid`, from /proc. */
export function processGroupOf(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** server-everything running in an HTTP mode on 127.0.0.1; dispose it to kill its group. */
export interface HttpEverything extends AsyncDisposable {
  /** The MCP endpoint (`/mcp` or `/sse`). */
  url: string;
  /** Everything it has written to stdout and stderr so far. */
  output(): string;
}

/** Starts server-everything in `streamableHttp` or `sse` mode on a free loopback port. */
export async function startHttpEverything(mode: "streamableHttp" | "sse"): Promise<HttpEverything> {
  const port = freePort();
  const loopback = new URL("./testdata/loopback.mjs", import.meta.url).pathname;
  const child = new Deno.Command("node", {
    args: ["--import", loopback, EVERYTHING_MAIN, mode],
    env: { PORT: String(port) },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  let text = "";
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const stop = async () => {
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    await child.status;
    await pumps;
  };
  try {
    await waitForPort(port, 10_000);
  } catch (error) {
    await stop();
    throw new Error(`server-everything (${mode}) did not listen: ${text}`, { cause: error });
  }
  return {
    url: `http://127.0.0.1:${port}/${mode === "sse" ? "sse" : "mcp"}`,
    output: () => text,
    [Symbol.asyncDispose]: stop,
  };
}

async function waitForPort(port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Polls `check` until it holds or `ms` pass; returns whether it held. */
export async function eventually(check: () => boolean, ms = 2000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
