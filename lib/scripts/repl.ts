// `mcpx repl`: statements typed one at a time into one Worker that stays, so one session (and
// every server process it leases) lasts from the first statement to the last. The pieces are
// `mcpx run`'s: its plan (variables, --env-file), client (provision.ts), environment (run.ts),
// launcher (the Worker's globals) and output (output.ts); launcher/repl.ts is the script.

import { fromFileUrl, join } from "../_path.ts";
import { logsDir, outputDir, RUNS_LOG_STEM } from "../paths.ts";
import { type Format, sourceLevel } from "../../launcher/log.ts";
import { RunLog, wantsColor } from "../log/run_log.ts";
import type { Context } from "../context.ts";
import type { LaunchConfig, Level, ReplRequest, WorkerMessage } from "../../launcher/protocol.ts";
import { RunOutput } from "./output.ts";
import { planRun } from "./plan.ts";
import { askDaemon, endSession, type Provision, provisionClient } from "./provision.ts";
import { scriptEnvironment } from "./run.ts";
import { ownLauncherDir, WORKER_URL } from "./select.ts";
import { descendants, signalAll } from "../_proc.ts";
import { tellDaemon } from "./launch.ts";
import { incomplete, lastWord } from "./repl_input.ts";
import type { History } from "../explore/history.ts";
import type { Prompter } from "../explore/prompt.ts";
import { firstId } from "../log/trace_ids.ts";
import { after } from "../_timer.ts";

/** The script the repl's Worker runs: the statement loop. */
const REPL_SCRIPT = new URL("../../launcher/repl.ts", import.meta.url);

/** What `mcpx repl` was asked for. */
export interface ReplOptions {
  /** `KEY=VALUE` pairs, later ones winning. */
  env?: readonly string[];
  envFile?: string;
  prompter: Prompter;
  history: History;
  /** The words Tab offers: namespaces and their `ns.tool` functions. */
  names: () => Promise<readonly string[]>;
}

/** What, typed alone at the first prompt, leaves the repl. */
const LEAVE = ["exit", "quit", ".exit", ".quit"];

/** Runs the repl until `exit`, Ctrl-D or Ctrl-C at its first prompt; ends its session. */
export async function runRepl(ctx: Context, options: ReplOptions): Promise<{ exitCode: number }> {
  const started = performance.now();
  const { io } = ctx;
  const settings = await ctx.settings();
  const plan = await planRun(ctx, {
    code: "undefined",
    args: [],
    env: options.env,
    envFile: options.envFile,
  });
  // A session named for it (as `mcpx run` takes one) is joined; otherwise the repl makes one up.
  const named = plan.env.MCPX_SESSION_ID || io.env.MCPX_SESSION_ID ||
    firstId(ctx.traceIds(), "session");
  const session = named || `repl-${crypto.randomUUID()}`;
  const minted = !named;
  const primary = ctx.location().primary;
  const scratch = join(plan.cache, "scripts", primary ? (await ctx.fingerprint()).short : "none");
  Deno.mkdirSync(scratch, { recursive: true, mode: 0o700 });
  const runLog = new RunLog({
    dir: logsDir(ctx.boot, io.env),
    stem: RUNS_LOG_STEM,
    maxBytes: settings.get("logging.maxBytes"),
    problem: (line) => io.err(line + "\n"),
  });
  const worker = new Worker(WORKER_URL, { type: "module", name: "mcpx-repl" });
  let provision: Provision | undefined;
  let interrupted = false;
  let pending: ((ok: boolean) => void) | undefined;
  const onInterrupt = () => {
    // The shell's prompt, next, starts on a line of its own rather than after the ^C.
    if (!interrupted) io.err("\n");
    interrupted = true;
    pending?.(false);
  };
  try {
    runLog.event("info", "run.start", "Script run starting", {
      script: "repl",
      args: [],
      runtime: "worker",
      session,
      cwd: io.cwd,
    });
    provision = primary
      ? await provisionClient(ctx, { text: "", scratch, worker: true })
      : undefined;
    const env = await scriptEnvironment(ctx, {
      plan,
      session,
      minted,
      runId: runLog.id,
      provision,
    });
    // A person holds this session between statements, as a named one is held: its processes
    // are not stopped to make room while they think.
    env.MCPX_SESSION_MINTED = "";
    const cfg: LaunchConfig = {
      script: fromFileUrl(REPL_SCRIPT),
      args: [],
      ...(provision ? { client: provision.clientPath } : {}),
      json: false,
      logLevel: settings.get("logging.level") as Level,
      logSource: sourceLevel(settings.get("logging.source")),
      launcherDir: ownLauncherDir(),
      env,
      name: "repl",
    };
    const bound = {
      maxBytes: settings.get("output.maxBytes"),
      dir: outputDir(ctx.boot, io.env),
      stem: "repl",
    };
    const render = {
      format: settings.get("logging.format") as Format,
      color: wantsColor(io),
    };
    // Each statement's output is one run's: bounded, its records rendered and stored.
    let out: RunOutput | undefined;
    let exited = false;
    const reply = () => new Promise<boolean>((resolve) => (pending = resolve));
    worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
      const m = event.data;
      if (m.t === "out") {
        out ??= new RunOutput({
          json: false,
          io,
          bound,
          source: (s) => s,
          render,
          store: (r) => runLog.record(r),
        });
        m.fd === 1 ? out.stdout(m.data) : out.stderr(m.data);
      } else if (m.t === "evaluated" || m.t === "exit") {
        if (m.t === "exit") exited = true;
        out?.finish();
        if (out?.failure) io.err(`${out.failure.name}: ${out.failure.message}\n`);
        out = undefined;
        pending?.(m.t === "evaluated" && m.ok);
      }
    };
    worker.onerror = (event) => {
      event.preventDefault();
      io.err(`mcpx: the repl's worker failed: ${event.message}\n`);
      exited = true;
      pending?.(false);
    };
    const ready = reply();
    worker.postMessage(cfg);
    tellDaemon(provision ? askDaemon(ctx, provision) : undefined, (m) => worker.postMessage(m));
    await ready;
    const names = await options.names().catch(() => [] as string[]);
    const words = [...names, "tools", "log", "emit", "args", "exit"];
    io.out(
      `mcpx repl: TypeScript, one session (${session}); every namespace is a global. exit or Ctrl-D leaves.\n`,
    );
    const send = (request: ReplRequest) => worker.postMessage(request);
    let lines: string[] = [];
    while (!exited) {
      const line = await options.prompter.line(lines.length ? "... " : "> ", {
        history: options.history.lines,
        complete: (text) => {
          const word = lastWord(text);
          const head = text.slice(0, text.length - word.length);
          return words.filter((w) => w.startsWith(word)).map((w) => head + w);
        },
      });
      if (line === undefined) {
        // Ctrl-C on a continuation line drops the statement; at the first prompt it leaves.
        if (lines.length === 0) break;
        lines = [];
        continue;
      }
      // `exit` and `quit` alone are no statement worth running (a ReferenceError): they leave.
      if (lines.length === 0 && LEAVE.includes(line.trim())) break;
      options.history.add(line);
      lines.push(line);
      const code = lines.join("\n");
      if (code.trim() === "") {
        lines = [];
        continue;
      }
      if (incomplete(code)) continue;
      lines = [];
      const done = reply();
      send({ t: "eval", code });
      // Ctrl-C while a statement runs cannot stop it alone: it ends the repl, as it would a run.
      Deno.addSignalListener("SIGINT", onInterrupt);
      await done;
      Deno.removeSignalListener("SIGINT", onInterrupt);
      if (interrupted) break;
    }
    if (!exited) {
      // The Worker is told first, so that it closes its inspector session before it goes: a
      // Worker ended with the session open takes the process down with it. A statement that
      // holds its thread (a loop that never yields) cannot hear it; the Worker is ended anyway.
      const gone = reply();
      send({ t: "end" });
      const cancel = interrupted ? after(1000, () => pending?.(false)) : undefined;
      await gone;
      cancel?.();
    }
    return { exitCode: interrupted ? 130 : 0 };
  } finally {
    try {
      Deno.removeSignalListener("SIGINT", onInterrupt);
    } catch { /* not added */ }
    // What the statements started and left running goes with the repl; the daemon stays.
    const health = await provision?.daemon?.catch(() => undefined);
    const left = descendants(Deno.pid, new Set(health ? [health.pid] : []));
    worker.terminate();
    signalAll(left);
    if (minted) await endSession(ctx, provision?.daemon, session);
    runLog.event("info", "run.end", "Script run ended", {
      exitCode: interrupted ? 130 : 0,
      ok: !interrupted,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    });
    runLog.close();
  }
}
