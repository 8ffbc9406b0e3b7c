// Entry of the subprocess runtimes: `deno run -A`, `bun` or `node` start this file with the
// script's arguments as their own, and its configuration in the _MCPX_LAUNCH variable, which is
// removed before anything of the script's runs. Erasable TypeScript only (Node strips types).

import { type Host, launch } from "./runtime.ts";
import { LAUNCH_VARIABLE, type LaunchConfig } from "./protocol.ts";
import type { ConsoleFactory } from "./console.ts";
import type { Frame } from "./frames.ts";
import { denoConsole } from "./deno_console.ts";

// deno-lint-ignore no-explicit-any
const g = globalThis as any;

function denoHost(): Host {
  const encoder = new TextEncoder();
  const writeAll = (file: { writeSync(p: Uint8Array): number }, text: string) => {
    let bytes = encoder.encode(text);
    while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
  };
  return {
    out: (text) => writeAll(g.Deno.stdout, text),
    err: (text) => writeAll(g.Deno.stderr, text),
    exit: (code) => g.Deno.exit(code),
    inspect: (value) => g.Deno.inspect(value, { colors: false }),
    setArgs() {},
    setEnv(env) {
      for (const [key, value] of Object.entries(env)) g.Deno.env.set(key, value);
    },
    onUncaught(handler) {
      g.addEventListener("error", (event: ErrorEvent) => {
        event.preventDefault();
        handler(event.error ?? new Error(event.message));
      });
      g.addEventListener("unhandledrejection", (event: PromiseRejectionEvent) => {
        event.preventDefault();
        handler(event.reason);
      });
    },
    exitCode: () => Number(g.Deno.exitCode) || 0,
    makeConsole: denoConsole,
    frames: { urls: true },
  };
}

/** Node's (and Bun's) Console class, over two streams that print through a function. */
function nodeConsole(process: Record<string, unknown>): ConsoleFactory {
  return (print) => {
    const get = process.getBuiltinModule as ((id: string) => Record<string, unknown>) | undefined;
    const Console = get?.("node:console")?.Console as
      | (new (options: Record<string, unknown>) => Record<string, unknown>)
      | undefined;
    if (!Console) return undefined;
    const stream = (stderr: boolean) => ({
      write(chunk: unknown, ...rest: unknown[]) {
        print(String(chunk), stderr);
        const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
        done?.();
        return true;
      },
      // Node's Console asks these of a stream, and swallows the error when one is missing.
      listenerCount: () => 1,
      on() {},
      once() {},
      emit() {},
      removeListener() {},
    });
    return new Console({ stdout: stream(false), stderr: stream(true), colorMode: false });
  };
}

/** Maps a frame of emitted JavaScript back to the TypeScript it came from (Node's source maps). */
function nodeMapper(process: Record<string, unknown>): ((f: Frame) => Frame) | undefined {
  const get = process.getBuiltinModule as ((id: string) => Record<string, unknown>) | undefined;
  const find = get?.("node:module")?.findSourceMap as
    | ((path: string) => { findEntry(l: number, c: number): Record<string, unknown> } | undefined)
    | undefined;
  if (!find) return undefined;
  return (f) => {
    if (!f.file || f.line === undefined || f.col === undefined) return f;
    let entry: Record<string, unknown> | undefined;
    try {
      entry = find(f.file)?.findEntry(f.line - 1, f.col - 1);
    } catch {
      return f;
    }
    const source = entry?.originalSource;
    if (typeof source !== "string" || typeof entry?.originalLine !== "number") return f;
    const file = source.startsWith("file://")
      ? decodeURIComponent(new URL(source).pathname)
      : source;
    const line = (entry.originalLine as number) + 1;
    const col = (entry.originalColumn as number) + 1;
    const place = `${file}:${line}:${col}`;
    const text = f.text.includes("(")
      ? f.text.replace(/\([^()]*\)$/, `(${place})`)
      : f.text.replace(/[^ ]+$/, place);
    return { ...f, file, line, col, text };
  };
}

function nodeHost(): Host {
  const process = g.process;
  const mapper = nodeMapper(process);
  const util = process.getBuiltinModule?.("node:util");
  const inspect = g.Bun
    ? (value: unknown) => g.Bun.inspect(value)
    : util
    ? (value: unknown) => util.inspect(value, { colors: false })
    : (value: unknown) => String(value);
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    exit(code) {
      process.exitCode = code;
      // Writes to pipes may still be queued: exit once both streams have taken everything.
      process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
    },
    inspect,
    setArgs(args, script) {
      process.argv = [process.argv[0], script, ...args];
    },
    setEnv(env) {
      Object.assign(process.env, env);
    },
    onUncaught(handler) {
      process.on("uncaughtException", handler);
      process.on("unhandledRejection", handler);
    },
    exitCode: () => Number(process.exitCode) || 0,
    // Bun's console is native, and its node:console formats as Node does: left as it is.
    makeConsole: g.Bun ? () => undefined : nodeConsole(process),
    frames: { ...(mapper ? { map: mapper } : {}) },
  };
}

const raw = g.Deno ? g.Deno.env.get(LAUNCH_VARIABLE) : g.process.env[LAUNCH_VARIABLE];
if (g.Deno) g.Deno.env.delete(LAUNCH_VARIABLE);
else delete g.process.env[LAUNCH_VARIABLE];
if (!raw) throw new Error(`launcher/main.ts is started by mcpx, with ${LAUNCH_VARIABLE} set`);
await launch(g.Deno ? denoHost() : nodeHost(), JSON.parse(raw) as LaunchConfig);
