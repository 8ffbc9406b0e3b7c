// Runtime selection, on the CLI side (Deno only): which runtime runs a script, the command that
// starts it, and where the launcher's files (launcher/) are. Nothing here is loaded by the
// script's runtime, and launcher/ imports nothing of lib/.

import { dirname, fromFileUrl, join } from "../_path.ts";
import { McpxError } from "../errors.ts";
import { findOnPath, isFile } from "../_fs.ts";

/** `worker` runs the script in a Deno Worker inside mcpx; the others start a process. */
export const RUNTIMES = ["worker", "deno", "bun", "node"] as const;
/** A runtime a script can run under. */
export type RuntimeName = (typeof RUNTIMES)[number];

/** How to start a subprocess runtime on the launcher's entry (the script's args follow). */
export interface RuntimeCommand {
  runtime: Exclude<RuntimeName, "worker">;
  command: string;
  args: string[];
  version?: string;
  /**
   * Set for a Node too old to strip types (before 22.6): the script and its client must be
   * emitted as JavaScript (`.mjs`, with inline source maps) before Node can load them.
   */
  emit?: { deno: string; launcherDir: string };
}

/** Oldest Node that runs the emitted `.mjs` launcher and scripts. */
export const NODE_EMIT_MIN: readonly [number, number] = [18, 0];

/**
 * Emits `source` (TypeScript) as one JavaScript module at `out`, with an inline source map so
 * Node's `--enable-source-maps` reports the original file, line and column.
 * @throws {McpxError} USAGE with the bundler's first error when the source does not compile.
 */
export async function emitModule(
  deno: string,
  source: string,
  out: string,
  options: { external?: string[] } = {},
): Promise<void> {
  const external = (options.external ?? []).flatMap((e) => ["--external", e]);
  const result = await new Deno.Command(deno, {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      "--sourcemap=inline",
      ...external,
      "-o",
      out,
      source,
    ],
    cwd: dirname(source),
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (result.success) return;
  const text = new TextDecoder().decode(result.stderr);
  const what = /error: (.*)/.exec(text)?.[1] ?? "it does not compile";
  const where = /at (file:\/\/\S+)/.exec(text)?.[1];
  const place = where
    ? fromFileUrl(new URL(where.replace(/:(\d+):(\d+)$/, ""))) +
      (where.match(/:(\d+:\d+)$/)?.[0] ?? "")
    : source;
  throw new McpxError("SCRIPT_FAILED", `${place}: ${what}`, {
    hint:
      "Node before 22.6 runs scripts emitted as JavaScript; fix the script, or use --runtime deno",
  });
}

/**
 * tools/build.ts turns this into the URL of `worker.js` beside the built CLI: launcher/worker.ts
 * and its imports bundled into one module, which a Worker loads in about half the time of the
 * nine TypeScript modules (bench/launcher.ts, docs/launcher.md).
 */
const BUNDLED_WORKER: string = "__MCPX_BUNDLED_WORKER__";

/** The Worker entry, for `new Worker(WORKER_URL, { type: "module" })`. */
export const WORKER_URL: URL = BUNDLED_WORKER.startsWith("file:")
  ? new URL(BUNDLED_WORKER)
  : new URL("../../launcher/worker.ts", import.meta.url);

/** The launcher's folder, as this module sees it. */
const LAUNCHER = new URL("../../launcher/", import.meta.url);

/** Files the subprocess entry needs, copied out when they are not plain files on disk. */
const ENTRY_FILES = [
  "main.ts",
  "runtime.ts",
  "log.ts",
  "values.ts",
  "failure.ts",
  "frames.ts",
  "console.ts",
  "deno_console.ts",
  "protocol.ts",
];

/** The oldest Node that strips TypeScript types (behind --experimental-strip-types until 22.18). */
export const NODE_MIN: readonly [number, number] = [22, 6];

/**
 * Whether this is a `deno compile` binary, where a Worker cannot import a file that was not
 * embedded (denoland/deno#18327), so a user's script cannot run in one.
 */
export function isCompiled(): boolean {
  return import.meta.url.includes("/deno-compile-");
}

// The doctor and the adapters find commands through this module, as it does (lib/_fs.ts).
export { findOnPath };

/**
 * The folder holding launcher/main.ts and its imports as plain files another runtime can load:
 * this folder under `deno run`, else a copy under `cacheDir` (a compiled binary must embed
 * launcher/ with `--include launcher/`).
 */
export async function launcherDir(cacheDir: string, version: string): Promise<string> {
  const here = LAUNCHER;
  if (here.protocol === "file:" && !isCompiled()) return fromFileUrl(here).replace(/\/$/, "");
  const dir = join(cacheDir, "launcher", version);
  await Deno.mkdir(dir, { recursive: true });
  for (const file of ENTRY_FILES) {
    const url = new URL(file, here);
    const text = url.protocol === "file:"
      ? await Deno.readTextFile(url)
      : await (await fetch(url)).text();
    const path = join(dir, file);
    let same = false;
    try {
      same = (await Deno.readTextFile(path)) === text;
    } catch { /* absent */ }
    if (!same) await Deno.writeTextFile(path, text);
  }
  return dir;
}

/** The folder of the launcher's own files as this process loads them (for stack filtering). */
export function ownLauncherDir(): string {
  if (BUNDLED_WORKER.startsWith("file:")) return dirname(fromFileUrl(WORKER_URL));
  const here = LAUNCHER;
  return here.protocol === "file:" ? fromFileUrl(here).replace(/\/$/, "") : here.href;
}

/** The deno.json (or deno.jsonc) nearest `script`: in its folder, or the first above it with one. */
export function nearestDenoConfig(script: string): string | undefined {
  for (let dir = dirname(script);; dir = dirname(dir)) {
    for (const name of ["deno.json", "deno.jsonc"]) {
      if (isFile(join(dir, name))) return join(dir, name);
    }
    if (dir === "/" || dir === dirname(dir)) return undefined;
  }
}

async function versionOf(command: string): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(command, {
      args: ["--version"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return new TextDecoder().decode(out.stdout).trim().split("\n")[0];
  } catch {
    return undefined;
  }
}

function unavailable(message: string, hint: string): McpxError {
  return new McpxError("NOT_FOUND", message, { hint });
}

/**
 * The command that runs `entry` (launcher/main.ts) under a subprocess runtime.
 * @throws {McpxError} NOT_FOUND naming how to install a runtime that is missing or too old.
 */
export async function runtimeCommand(
  runtime: Exclude<RuntimeName, "worker">,
  options: {
    env: Readonly<Record<string, string>>;
    entry: string;
    script: string;
    /** Where JavaScript emitted for an old Node is kept. */
    emitDir: string;
  },
): Promise<RuntimeCommand> {
  const { env, entry, script } = options;
  if (runtime === "deno") {
    const command = isCompiled() ? findOnPath("deno", env) : Deno.execPath();
    if (!command) {
      throw unavailable(
        "Deno is not installed: no `deno` on PATH",
        "Install it (`npm install -g deno`, or https://deno.land), or choose --runtime bun or node",
      );
    }
    const config = nearestDenoConfig(script);
    return {
      runtime,
      command,
      args: ["run", "-A", ...(config ? ["--config", config] : ["--no-config"]), entry],
    };
  }
  if (runtime === "bun") {
    const command = findOnPath("bun", env);
    if (!command) {
      throw unavailable(
        "Bun is not installed: no `bun` on PATH",
        "Install it with `npm install -g bun` (or https://bun.sh), or choose --runtime deno or node",
      );
    }
    return { runtime, command, args: [entry] };
  }
  const command = findOnPath("node", env);
  if (!command) {
    throw unavailable(
      "Node is not installed: no `node` on PATH",
      "Install Node 22.6 or newer (e.g. `npm install -g node@22`), or choose --runtime deno or bun",
    );
  }
  const version = await versionOf(command);
  const m = /^v(\d+)\.(\d+)/.exec(version ?? "");
  const [major, minor] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (major < NODE_MIN[0] || (major === NODE_MIN[0] && minor < NODE_MIN[1])) {
    // Too old to strip types: emit the launcher (once per mcpx version) and, per run, the script
    // and its client as .mjs with Deno's bundler, and let Node run JavaScript.
    const deno = isCompiled() ? findOnPath("deno", env) : Deno.execPath();
    const oldEnough = major > NODE_EMIT_MIN[0] ||
      (major === NODE_EMIT_MIN[0] && minor >= NODE_EMIT_MIN[1]);
    if (!deno || !oldEnough) {
      throw unavailable(
        `Node ${version ?? "of unknown version"} at ${command} cannot run TypeScript${
          deno ? "" : ", and no deno is on PATH to emit JavaScript for it"
        }: mcpx needs Node ${NODE_MIN.join(".")} or newer (or ${
          NODE_EMIT_MIN.join(".")
        } with deno)`,
        "Put a newer Node first on PATH (`npm install -g node@22`, or `npm install node@22` and use node_modules/.bin), or choose --runtime deno or bun",
      );
    }
    // The emitted launcher is cached outside the source tree, named by the launcher files'
    // sizes and times, so a changed launcher is emitted again.
    const stamp = ENTRY_FILES.map((f) => {
      const info = Deno.statSync(join(dirname(entry), f));
      return `${info.size}.${info.mtime?.getTime()}`;
    }).join("-");
    let hash = 0;
    for (const c of dirname(entry) + stamp) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
    const emitted = join(options.emitDir, `launcher-${hash.toString(16)}.mjs`);
    try {
      await Deno.stat(emitted);
    } catch {
      await Deno.mkdir(options.emitDir, { recursive: true });
      await emitModule(deno, entry, emitted);
    }
    return {
      runtime,
      command,
      args: ["--enable-source-maps", emitted],
      version,
      emit: { deno, launcherDir: dirname(entry) },
    };
  }
  // Type stripping is on by default from 22.18 and 23.6; before that it needs the flag.
  const flag = (major === 22 && minor < 18) || (major === 23 && minor < 6)
    ? ["--experimental-strip-types"]
    : [];
  return {
    runtime,
    command,
    args: [...flag, "--disable-warning=ExperimentalWarning", entry],
    version,
  };
}
