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
import { parseArgs } from "node:util";
import {
  emptyArgs,
  ENTRY,
  formatTable,
  makeIsolated,
  mcpxArgs,
  median,
  percentile,
  timeRun,
  wholeNumber,
} from "./_shared.ts";

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
  return {
    runs: wholeNumber("runs", values.runs, 1),
    warmup: wholeNumber("warmup", values.warmup, 0),
    json: values.json,
  };
}

/**
 * A temporary directory standing in for the user: its own HOME and XDG directories, so no real
 * configuration, state or daemon is seen or touched, and two projects (see {@linkcode Environment}).
 * The warm daemon gets a project of its own so the cold case never restarts it: "warm" then means
 * a daemon that has been up and answering for the whole session.
 */
async function makeEnvironment(): Promise<Environment> {
  const { root, env } = await makeIsolated("mcpx-bench-");
  const warm = join(root, "warm");
  const cold = join(root, "cold");
  for (const dir of [warm, cold]) {
    await Deno.mkdir(dir);
    await Deno.writeTextFile(join(dir, ".mcpx.json"), PROJECT_CONFIG);
  }
  return { root, env, warm, cold };
}

function stats(samples: number[]): Stats {
  return {
    medianMs: median(samples),
    p90Ms: percentile(samples, 0.9),
    minMs: Math.min(...samples),
  };
}

function cases(e: Environment): Case[] {
  const stop = ["stop"];
  return [
    {
      name: "empty deno run (baseline)",
      args: emptyArgs(e.root),
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
    `runs: ${opts.runs} (+${opts.warmup} warmup), deno ${Deno.version.deno}, ${ENTRY}, ` +
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
