// Entry of the default runtime: a Deno Worker inside the mcpx process, so a run starts no second
// process. A Worker shares the process's stdout, stderr, environment and exit, so this host routes
// every write to the CLI as a message, and turns Deno.exit (and process.exit, which calls it) and
// self.close into a reported end of the worker alone.

import { type Host, launch } from "./runtime.ts";
import type { DaemonReady, LaunchConfig, ReplRequest, WorkerMessage } from "./protocol.ts";
import { denoConsole } from "./deno_console.ts";

interface WorkerScope {
  postMessage(message: WorkerMessage, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<LaunchConfig | DaemonReady | ReplRequest>) => void) | null;
  close(): void;
  addEventListener(type: string, listener: (event: Event) => void): void;
}

const scope = globalThis as unknown as WorkerScope;
const encoder = new TextEncoder();
const realExit = Deno.exit;
let exited = false;

// Output up to this size is copied into the message; larger output is handed over (transferred).
// A worker's first transfer costs ~1.2 ms (timed in a bare Worker with performance.now()), a copy
// of a few bytes ~0.15: most runs print a line or two.
const TRANSFER_FROM = 64 * 1024;

function send(fd: 1 | 2, bytes: Uint8Array): void {
  const data = bytes.slice();
  if (data.length < TRANSFER_FROM) scope.postMessage({ t: "out", fd, data });
  else scope.postMessage({ t: "out", fd, data }, [data.buffer]);
}

function exit(code?: number): never {
  if (!exited) {
    exited = true;
    const status = typeof code === "number" ? code : Number(Deno.exitCode) || 0;
    scope.postMessage({ t: "exit", code: status });
  }
  return realExit(code);
}

function route(file: typeof Deno.stdout, fd: 1 | 2): void {
  const target = file as unknown as Record<string, unknown>;
  target.writeSync = (p: Uint8Array) => {
    send(fd, p);
    return p.length;
  };
  target.write = (p: Uint8Array) => {
    send(fd, p);
    return Promise.resolve(p.length);
  };
  Object.defineProperty(target, "writable", {
    configurable: true,
    get: () =>
      new WritableStream<Uint8Array>({
        write(chunk) {
          send(fd, chunk);
        },
      }),
  });
}

(Deno as unknown as Record<string, unknown>).exit = exit;
scope.close = () => exit(0);
route(Deno.stdout, 1);
route(Deno.stderr, 2);

const host: Host = {
  out: (text) => send(1, encoder.encode(text)),
  err: (text) => send(2, encoder.encode(text)),
  exit: (code) => exit(code),
  inspect: (value) => Deno.inspect(value, { colors: false }),
  setArgs(args) {
    Object.defineProperty(Deno, "args", { value: args, configurable: true, enumerable: true });
  },
  setEnv(env) {
    for (const [key, value] of Object.entries(env)) Deno.env.set(key, value);
  },
  onUncaught(handler) {
    scope.addEventListener("error", (event) => {
      event.preventDefault();
      const e = event as ErrorEvent;
      handler(e.error ?? new Error(e.message));
    });
    scope.addEventListener("unhandledrejection", (event) => {
      event.preventDefault();
      handler((event as PromiseRejectionEvent).reason);
    });
  },
  exitCode: () => Number(Deno.exitCode) || 0,
  makeConsole: denoConsole,
  sharesStdio: true,
  frames: { urls: true },
};

// The generated client's first call awaits this: undefined once the daemon is ready, else why not.
let daemonReady!: (problem: string | undefined) => void;
(globalThis as Record<symbol, unknown>)[Symbol.for("mcpx.daemon")] = new Promise<
  string | undefined
>((resolve) => (daemonReady = resolve));

scope.onmessage = (event) => {
  const message = event.data;
  // `mcpx repl` posts its statements here too; launcher/repl.ts listens for them.
  if ("t" in message) {
    if (message.t === "daemon") daemonReady(message.error);
  } else launch(host, message);
};
