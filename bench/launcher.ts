/**
 * What the launcher adds to a script's start-up: the launcher (its globals, console capture,
 * stack traces and the generated program from the template) against the same empty script with
 * no launcher, as `--no-launcher` runs it. Medians of interleaved runs, printed; never asserted.
 *
 *   deno run -A bench/launcher.ts [--runs 40]
 *
 * The figures: a Deno Worker inside the calling process (the default runtime), from `new Worker`
 * to the script's end, loading launcher/ as TypeScript modules (`deno run main.ts`) and as the one
 * bundled module the built CLI loads, each as wall time and as the CPU time the process spent
 * (every thread; less disturbed by other load on the machine than wall time); and a `deno run`
 * subprocess of launcher/main.ts, from spawn to exit.
 */
import { join } from "node:path";
import process from "node:process";
import { builtinFills, DEFAULT_TEMPLATE, expandTemplate } from "../lib/scripts/template.ts";
import { LAUNCH_VARIABLE, type LaunchConfig } from "../launcher/protocol.ts";

const REPO = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const LAUNCHER_DIR = join(REPO, "launcher");
const runsAt = Deno.args.indexOf("--runs");
const RUNS = runsAt >= 0 ? Number(Deno.args[runsAt + 1]) : 40;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const dir = await Deno.makeTempDir({ prefix: "mcpx-bench-launcher-" });
try {
  const script = join(dir, "empty.ts");
  await Deno.writeTextFile(script, "export default () => undefined;\n");
  // The Worker baseline: the same module, saying it is done as a bare Worker can.
  const bare = join(dir, "bare.ts");
  await Deno.writeTextFile(bare, `import "./empty.ts";\nself.postMessage("done");\n`);
  const program = join(dir, "launch.ts");
  await Deno.writeTextFile(
    program,
    expandTemplate(DEFAULT_TEMPLATE, builtinFills({ script, capture: true }), {
      repeat: [],
      origin: "the built-in launcher",
    }),
  );
  const cfg: LaunchConfig = {
    script,
    args: [],
    json: false,
    logLevel: "info",
    launcherDir: LAUNCHER_DIR,
    program,
  };

  /** CPU time of this process (every thread, so the Worker's too) per Worker run, in ms. */
  // What the built CLI's Worker loads: launcher/worker.ts bundled into one module (tools/build.ts).
  const bundled = join(dir, "worker.js");
  const bundle = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      "-o",
      bundled,
      join(LAUNCHER_DIR, "worker.ts"),
    ],
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!bundle.success) throw new Error("`deno bundle` of launcher/worker.ts failed");
  let entry = new URL("../launcher/worker.ts", import.meta.url);
  let cpu: { launched: number[]; bare: number[] } = { launched: [], bare: [] };
  const worker = async (launched: boolean): Promise<number> => {
    const c = process.cpuUsage();
    const t = performance.now();
    const w = new Worker(launched ? entry : new URL(`file://${bare}`), { type: "module" });
    await new Promise<void>((resolve) => {
      w.onmessage = (e) => {
        if (!launched || (e.data as { t?: string }).t === "exit") resolve();
      };
      if (launched) w.postMessage(cfg);
    });
    const ms = performance.now() - t;
    w.terminate();
    const used = process.cpuUsage(c);
    cpu[launched ? "launched" : "bare"].push((used.user + used.system) / 1000);
    return ms;
  };

  const spawn = async (launched: boolean): Promise<number> => {
    const t = performance.now();
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-config", launched ? join(LAUNCHER_DIR, "main.ts") : script],
      env: launched ? { [LAUNCH_VARIABLE]: JSON.stringify(cfg) } : {},
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    return performance.now() - t;
  };

  const measure = async (fn: (launched: boolean) => Promise<number>) => {
    // Warm the module cache for both, then interleave so drift hits both alike.
    await fn(true);
    await fn(false);
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      a.push(await fn(true));
      b.push(await fn(false));
    }
    return { launched: median(a), bare: median(b) };
  };

  const w = await measure(worker);
  const wc = { launched: median(cpu.launched), bare: median(cpu.bare) };
  entry = new URL(`file://${bundled}`);
  cpu = { launched: [], bare: [] };
  const b = await measure(worker);
  const bc = { launched: median(cpu.launched), bare: median(cpu.bare) };
  const p = await measure(spawn);
  const row = (name: string, m: { launched: number; bare: number }) =>
    `${name.padEnd(22)} ${m.launched.toFixed(2).padStart(8)} ${m.bare.toFixed(2).padStart(8)} ${
      (m.launched - m.bare).toFixed(2).padStart(8)
    }`;
  console.log(
    `launcher start-up, median of ${RUNS} interleaved runs (ms), deno ${Deno.version.deno}`,
  );
  console.log(
    `${"".padEnd(22)} ${"launcher".padStart(8)} ${"none".padStart(8)} ${"added".padStart(8)}`,
  );
  console.log(row("worker, sources", w));
  console.log(row("  CPU time", wc));
  console.log(row("worker, built CLI", b));
  console.log(row("  CPU time", bc));
  console.log(row("deno run subprocess", p));
} finally {
  await Deno.remove(dir, { recursive: true });
}
