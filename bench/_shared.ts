/**
 * What the benchmarks share: the repository's paths, an isolated user for real mcpx processes,
 * timing one process, percentiles, and the plain-text table.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SHIM_FLAGS } from "../tools/cli_flags.ts";

export const REPO = fileURLToPath(new URL("..", import.meta.url));
export const CONFIG = join(REPO, "deno.json");
/**
 * What the benchmarks run as `mcpx`: by default the built CLI that the npm package carries
 * (dist/cli/main.js, built from the sources first); main.ts itself with `MCPX_BENCH_SOURCE=1`.
 */
const SOURCE = Deno.env.get("MCPX_BENCH_SOURCE") === "1";
export const MAIN = SOURCE ? join(REPO, "main.ts") : join(REPO, "dist", "cli", "main.js");
/** `deno run`'s flags for mcpx and for the baseline alike: the installed shim's for the build. */
const RUN_FLAGS: readonly string[] = SOURCE ? ["-A", "--config", CONFIG] : SHIM_FLAGS;
/** How the figures' header names what was measured. */
export const ENTRY = SOURCE ? "mcpx = deno run main.ts" : "mcpx = the built CLI (dist/cli/main.js)";
if (!SOURCE) {
  const build = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(REPO, "tools", "build.ts")],
    stdout: "null",
    stderr: "inherit",
  }).outputSync();
  if (!build.success) throw new Error("`deno task build` failed");
}

/** Parses a flag's text as a whole number of at least `min`. @throws when it is not one. */
export function wholeNumber(flag: string, text: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) {
    throw new Error(`--${flag} takes a whole number >= ${min}`);
  }
  return n;
}

/** The Deno cache the caller uses: with a fresh HOME, Deno would otherwise re-download npm deps. */
export async function denoDir(): Promise<string> {
  const info = new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stderr: "inherit" });
  const out = await info.output();
  if (!out.success) throw new Error("`deno info --json` failed");
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/** A temporary directory standing in for the user, and the environment that points into it. */
export interface Isolated {
  root: string;
  env: Record<string, string>;
}

/**
 * Makes a temporary directory with its own HOME and XDG directories, so no real configuration,
 * state or daemon is seen or touched, and an empty module at `<root>/empty.ts` (the baseline).
 * DENO_DIR is kept: Deno's own cache is not what is measured.
 */
export async function makeIsolated(prefix: string): Promise<Isolated> {
  const cache = await denoDir();
  const root = await Deno.makeTempDir({ prefix });
  const env: Record<string, string> = {
    HOME: join(root, "home"),
    XDG_STATE_HOME: join(root, "state"),
    XDG_CACHE_HOME: join(root, "cache"),
    XDG_CONFIG_HOME: join(root, "config"),
    NO_COLOR: "1",
    PATH: Deno.env.get("PATH") ?? "",
    DENO_DIR: cache,
    // The update check can touch the network from inside a measured run.
    DENO_NO_UPDATE_CHECK: "1",
    // The benches' own throwaway configurations need no `mcpx trust` (docs/security.md).
    MCPX_TRUST_ALL: "1",
  };
  for (const dir of [env.HOME, env.XDG_STATE_HOME, env.XDG_CACHE_HOME, env.XDG_CONFIG_HOME]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  await Deno.writeTextFile(join(root, "empty.ts"), "export {};\n");
  return { root, env };
}

/**
 * Deno's arguments for `mcpx args…` from this checkout: the built CLI with the flags the npm
 * package's `bin/mcpx` passes (tools/cli_flags.ts), or main.ts as `deno task mcpx` runs it.
 */
export function mcpxArgs(args: string[]): string[] {
  return ["run", ...RUN_FLAGS, MAIN, ...args];
}

/** Deno's arguments for the baseline: an empty module under the same flags (and deno.json). */
export function emptyArgs(root: string): string[] {
  return ["run", ...RUN_FLAGS, join(root, "empty.ts")];
}

/** Runs deno once; resolves to its stdout. @throws with its stderr when it fails. */
export async function runDeno(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<string> {
  const out = await spawnDeno(args, cwd, env, "piped");
  return new TextDecoder().decode(out.stdout);
}

/** Runs deno once and returns the wall-clock milliseconds, spawn to exit. @throws on failure. */
export async function timeRun(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<number> {
  const start = performance.now();
  await spawnDeno(args, cwd, env, "null");
  return performance.now() - start;
}

async function spawnDeno(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  stdout: "piped" | "null",
): Promise<Deno.CommandOutput> {
  const command = new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env,
    clearEnv: true,
    stdout,
    stderr: "piped",
  });
  const out = await command.output();
  if (out.code !== 0) {
    throw new Error(
      `deno ${args.join(" ")} (in ${cwd}) exited with ${out.code}:\n${
        new TextDecoder().decode(out.stderr)
      }`,
    );
  }
  return out;
}

/** The median of the samples (the mean of the middle two for an even count). */
export function median(samples: number[]): number {
  const sorted = samples.toSorted((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The nearest-rank percentile: the smallest sample with at least `p` of them at or below it. */
export function percentile(samples: number[], p: number): number {
  const sorted = samples.toSorted((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)];
}

/** Columns padded to one width; the first and the last (text) align left, numbers right. */
export function formatTable(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const last = widths.length - 1;
  return rows.map((r) =>
    r.map((cell, i) => i === 0 || i === last ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))
      .join("  ").trimEnd()
  ).join("\n");
}

/** Pids of live processes (other than this one) whose environment has HOME inside `root`. */
export function processesOf(root: string): number[] {
  const mark = new TextEncoder().encode(`HOME=${join(root, "home")}\0`);
  const pids: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name) || Number(e.name) === Deno.pid) continue;
    try {
      if (contains(Deno.readFileSync(`/proc/${e.name}/environ`), mark)) pids.push(Number(e.name));
    } catch { /* gone, or not ours to read */ }
  }
  return pids;
}

function contains(hay: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * Stops every daemon of the isolated environment, waits up to 5 s for its processes (servers
 * carry the isolated HOME) and kills any left, then removes the directory. Resolves to what went
 * wrong, one line each; never throws.
 */
export async function teardown(root: string, env: Record<string, string>): Promise<string[]> {
  const problems: string[] = [];
  await runDeno(mcpxArgs(["stop", "--all"]), root, env).catch((err) =>
    problems.push(`mcpx stop --all: ${err.message}`)
  );
  const deadline = Date.now() + 5000;
  let left = processesOf(root);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = processesOf(root);
  }
  for (const pid of left) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
  if (left.length) problems.push(`killed processes left running: ${left.join(", ")}`);
  await Deno.remove(root, { recursive: true }).catch((err) =>
    problems.push(`removing ${root}: ${err.message}`)
  );
  return problems;
}

/**
 * Runs `body` with Ctrl-C handled. `stop` (stop what the run started, remove its files; resolve
 * to what went wrong) runs once: on Ctrl-C, which ends the process with 130 (Ctrl-C skips
 * `finally`, and daemons are detached), or when `body` ends. `body` calls `stopIfInterrupted`
 * between steps, and may call `cleanup` itself to report its problems; when `body` throws, they
 * are printed next to the error instead.
 */
export async function interruptible(
  stop: () => Promise<string[]>,
  body: (stopIfInterrupted: () => void, cleanup: () => Promise<string[]>) => Promise<void>,
): Promise<void> {
  let cleaning: Promise<string[]> | undefined;
  const cleanup = () =>
    cleaning ??= (async () => {
      Deno.removeSignalListener("SIGINT", onInterrupt);
      return await stop();
    })();
  let interrupted = false;
  let exiting: Promise<never> | undefined;
  const exitInterrupted = () =>
    exiting ??= cleanup().then((problems) => {
      for (const p of problems) console.error(p);
      Deno.exit(130);
    });
  const onInterrupt = () => {
    interrupted = true;
    console.error("interrupted: stopping the daemon and removing the temporary files");
    void exitInterrupted();
  };
  const stopIfInterrupted = () => {
    if (interrupted) throw new Error("interrupted");
  };
  Deno.addSignalListener("SIGINT", onInterrupt);
  let finished = false;
  try {
    await body(stopIfInterrupted, cleanup);
    finished = true;
  } finally {
    if (interrupted) await exitInterrupted();
    const problems = await cleanup();
    if (!finished) { for (const p of problems) console.error(p); }
  }
}
