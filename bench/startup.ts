/**
 * Start-up benchmark: the whole-process wall-clock time of mcpx commands, as a shell user sees
 * it, next to `deno run` of an empty module measured in the same session.
 *
 *     deno run -A bench/startup.ts [--runs 20] [--warmup 3] [--json]
 *
 * Raw milliseconds depend on the machine; the ratio to the empty script does much less, because
 * the empty script already pays Deno's own start-up and the loading of the same deno.json. The
 * ratio is therefore what mcpx itself adds.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const CONFIG = join(REPO, "deno.json");
const MAIN = join(REPO, "main.ts");
/** Every project gets the same configuration; the server is never started by these commands. */
const PROJECT_CONFIG = JSON.stringify({ mcpServers: { echo: { command: "true" } } });

interface Stats {
  medianMs: number;
  p90Ms: number;
  minMs: number;
}

interface Target {
  text: string;
  met(stats: Stats, baseline: Stats): boolean;
}

interface Case {
  name: string;
  /** Arguments to the deno binary. */
  args: string[];
  cwd: string;
  /** mcpx commands run untimed before every timed run, to put the daemon in the state needed. */
  before?: string[][];
  target?: Target;
}

interface Environment {
  root: string;
  env: Record<string, string>;
  /** A project whose daemon is started once and kept running: the warm case. */
  warm: string;
  /** A project whose daemon is stopped before each run: the cold and no-daemon cases. */
  cold: string;
}

function options(): { runs: number; warmup: number; json: boolean } {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      runs: { type: "string", default: "20" },
      warmup: { type: "string", default: "3" },
      json: { type: "boolean", default: false },
    },
  });
  const count = (flag: string, text: string, min: number) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) {
      throw new Error(`--${flag} takes a whole number >= ${min}`);
    }
    return n;
  };
  return {
    runs: count("runs", values.runs, 1),
    warmup: count("warmup", values.warmup, 0),
    json: values.json,
  };
}

/** The Deno cache the caller uses: with a fresh HOME, Deno would otherwise re-download npm deps. */
async function denoDir(): Promise<string> {
  const info = new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stderr: "inherit" });
  const out = await info.output();
  if (!out.success) throw new Error("`deno info --json` failed");
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/**
 * A temporary directory standing in for the user: its own HOME and XDG directories, so no real
 * configuration, state or daemon is seen or touched, and two projects (see {@linkcode Environment}).
 * The warm daemon gets a project of its own so the cold case never restarts it: "warm" then means
 * a daemon that has been up and answering for the whole session.
 */
async function makeEnvironment(): Promise<Environment> {
  const cache = await denoDir();
  const root = await Deno.makeTempDir({ prefix: "mcpx-bench-" });
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
  };
  const warm = join(root, "warm");
  const cold = join(root, "cold");
  for (const dir of [env.HOME, env.XDG_STATE_HOME, env.XDG_CACHE_HOME, env.XDG_CONFIG_HOME]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  for (const dir of [warm, cold]) {
    await Deno.mkdir(dir);
    await Deno.writeTextFile(join(dir, ".mcpx.json"), PROJECT_CONFIG);
  }
  await Deno.writeTextFile(join(root, "empty.ts"), "export {};\n");
  return { root, env, warm, cold };
}

function mcpxArgs(args: string[]): string[] {
  return ["run", "-A", "--config", CONFIG, MAIN, ...args];
}

/** Runs deno once and returns the wall-clock milliseconds, spawn to exit. @throws on failure. */
async function timeRun(args: string[], cwd: string, env: Record<string, string>): Promise<number> {
  const command = new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env,
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  });
  const start = performance.now();
  const out = await command.output();
  const ms = performance.now() - start;
  if (out.code !== 0) {
    throw new Error(
      `deno ${args.join(" ")} (in ${cwd}) exited with ${out.code}:\n${
        new TextDecoder().decode(out.stderr)
      }`,
    );
  }
  return ms;
}

function stats(samples: number[]): Stats {
  const sorted = samples.toSorted((a, b) => a - b);
  const mid = sorted.length >> 1;
  return {
    medianMs: sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2,
    p90Ms: sorted[Math.ceil(sorted.length * 0.9) - 1],
    minMs: sorted[0],
  };
}

function cases(e: Environment): Case[] {
  const stop = ["stop"];
  return [
    {
      name: "empty deno run (baseline)",
      args: ["run", "-A", "--config", CONFIG, join(e.root, "empty.ts")],
      cwd: e.root,
    },
    { name: "mcpx --help", args: mcpxArgs(["--help"]), cwd: e.warm },
    { name: "mcpx config", args: mcpxArgs(["config"]), cwd: e.warm },
    {
      name: "mcpx status (warm daemon)",
      args: mcpxArgs(["status"]),
      cwd: e.warm,
      target: {
        text: "<= 2.0x empty",
        met: (s, base) => s.medianMs <= 2 * base.medianMs,
      },
    },
    {
      // Placed before "no daemon" so that case's stop also ends the daemon this one spawned,
      // and no freshly started daemon lingers into the next round.
      name: "mcpx health (cold: spawns daemon)",
      args: mcpxArgs(["health"]),
      cwd: e.cold,
      before: [stop],
      target: { text: "< 400 ms", met: (s) => s.medianMs < 400 },
    },
    { name: "mcpx status (no daemon)", args: mcpxArgs(["status"]), cwd: e.cold, before: [stop] },
  ];
}

function formatTable(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  // Text columns (the first and the last) align left, numbers right.
  const last = widths.length - 1;
  return rows.map((r) =>
    r.map((cell, i) => i === 0 || i === last ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))
      .join("  ").trimEnd()
  ).join("\n");
}

function report(
  opts: { runs: number; warmup: number; json: boolean },
  all: Case[],
  samples: number[][],
): void {
  const baseline = stats(samples[0]);
  const ms = (n: number) => n.toFixed(1);
  const rows = all.map((c, i) => {
    const s = stats(samples[i]);
    return {
      name: c.name,
      ...s,
      ratio: s.medianMs / baseline.medianMs,
      target: c.target ? { text: c.target.text, met: c.target.met(s, baseline) } : undefined,
    };
  });
  if (opts.json) {
    console.log(JSON.stringify(
      {
        runs: opts.runs,
        warmup: opts.warmup,
        deno: Deno.version.deno,
        baselineMedianMs: baseline.medianMs,
        cases: rows.map((r, i) => ({ ...r, samplesMs: samples[i] })),
      },
      null,
      2,
    ));
    return;
  }
  console.log(
    `runs: ${opts.runs} (+${opts.warmup} warmup), deno ${Deno.version.deno}, ` +
      `baseline (empty deno run) median ${ms(baseline.medianMs)} ms`,
  );
  console.log(formatTable([
    ["case", "median_ms", "p90_ms", "min_ms", "ratio_vs_empty", "target"],
    ...rows.map((r) => [
      r.name,
      ms(r.medianMs),
      ms(r.p90Ms),
      ms(r.minMs),
      `${r.ratio.toFixed(2)}x`,
      r.target ? `${r.target.text}: ${r.target.met ? "met" : "MISSED"}` : "",
    ]),
  ]));
}

async function main(): Promise<void> {
  const opts = options();
  const e = await makeEnvironment();
  const mcpx = (cwd: string, args: string[]) => timeRun(mcpxArgs(args), cwd, e.env);
  // Ctrl-C would end this process without running `finally`, leaving the detached daemons up;
  // instead, note it and stop at the next run boundary.
  let interrupted = false;
  const onInterrupt = () => void (interrupted = true);
  Deno.addSignalListener("SIGINT", onInterrupt);
  try {
    await mcpx(e.warm, ["start"]);
    const all = cases(e);
    const samples = all.map(() => [] as number[]);
    // Round-robin: every round runs each case once, so machine noise lands on all of them alike.
    for (let round = 0; round < opts.warmup + opts.runs; round++) {
      for (const [i, c] of all.entries()) {
        if (interrupted) throw new Error("interrupted");
        for (const args of c.before ?? []) await mcpx(c.cwd, args);
        const ms = await timeRun(c.args, c.cwd, e.env);
        if (round >= opts.warmup) samples[i].push(ms);
      }
    }
    report(opts, all, samples);
  } finally {
    Deno.removeSignalListener("SIGINT", onInterrupt);
    try {
      await mcpx(e.root, ["stop", "--all"]);
    } finally {
      await Deno.remove(e.root, { recursive: true });
    }
  }
}

await main();
