// `mcpx run` and `mcpx exec`: a plan (plan.ts), the client (provision.ts), the run itself
// (launch.ts) and its report (report.ts), in that order.

import { dirname, join } from "../_path.ts";
import { firstId, traceAttrs, traceIdsJson } from "../log/trace_ids.ts";
import { holderOf } from "../sessions/named.ts";
import { logsDir, outputDir, RUNS_LOG_STEM } from "../paths.ts";
import { type Format, sourceLevel } from "../../launcher/log.ts";
import { RunLog, wantsColor } from "../log/run_log.ts";
import type { Context } from "../context.ts";
import type { LaunchConfig, Level } from "../../launcher/protocol.ts";
import { emitForNode, runInProcess, runInWorker } from "./launch.ts";
import { RunOutput } from "./output.ts";
import { execModule, planRun, rebaseImports, type RunPlan, type RunRequest } from "./plan.ts";
import { askDaemon, endSession, type Provision, provisionClient } from "./provision.ts";
import { remoteScriptEnv } from "../daemon/client.ts";
import { failureOf, places, report, type RunOutcome } from "./report.ts";
import {
  launcherDir,
  nearestDenoConfig,
  ownLauncherDir,
  type RuntimeCommand,
  runtimeCommand,
  WORKER_URL,
} from "./select.ts";
import { VERSION } from "../version.ts";
import { hash64 } from "../_hash.ts";
import { writeFileAtomic } from "../_atomic.ts";
import { McpxError } from "../errors.ts";
import { selfCommand } from "../_self.ts";

/** The command that runs `script` itself under `command`'s runtime, with no launcher. */
function bareCommand(command: RuntimeCommand, script: string): RuntimeCommand {
  if (command.emit) return { ...command, args: ["--enable-source-maps", script] };
  return { ...command, args: [...command.args.slice(0, -1), script] };
}

/** A declaration of the launcher's globals, for a typecheck of a script that has no client. */
const LAUNCHER_GLOBALS = `declare global {
  const log: ((msg: unknown, ...rest: unknown[]) => void) & Record<"debug" | "info" | "warn" | "error", (msg: unknown, ...rest: unknown[]) => void> & { with(attrs: Record<string, unknown>): typeof log };
  const emit: (value: unknown) => void;
  const args: string[];
  const captureFrames: (skip?: number, limit?: number) => { fn?: string; file?: string; line?: number; col?: number; text: string }[];
  const errorFrames: (error: unknown) => { fn?: string; file?: string; line?: number; col?: number; text: string }[];
}
export {};
`;

/**
 * `--typecheck`: checks the generated program and everything it imports with `deno check`,
 * running nothing. Under node and bun it says it cannot rather than pretending.
 * @throws {McpxError} USAGE under a runtime that strips types instead of checking them.
 */
async function typecheck(
  ctx: Context,
  o: { runtime: string; program?: string; script: string; scratch: string; emitted: string[] },
): Promise<{ exitCode: number }> {
  if (o.runtime === "node" || o.runtime === "bun") {
    throw new McpxError(
      "USAGE",
      `--typecheck cannot check a script run under ${o.runtime}: ${o.runtime} strips types rather than checking them`,
      { hint: "Type-check it with --runtime deno (or worker), which checks with deno check" },
    );
  }
  const tag = crypto.randomUUID().slice(0, 8);
  let target = o.script;
  if (o.program !== undefined) {
    const besideGlobals = join(dirname(o.script), "mcpx-globals.d.ts");
    let reference = besideGlobals;
    try {
      Deno.statSync(besideGlobals);
    } catch {
      reference = join(o.scratch, `launcher-globals-${tag}.d.ts`);
      Deno.writeTextFileSync(reference, LAUNCHER_GLOBALS);
      o.emitted.push(reference);
    }
    target = join(o.scratch, `typecheck-${tag}.ts`);
    const url = new URL(`file://${reference}`).href;
    Deno.writeTextFileSync(target, `${o.program}\nimport type {} from ${JSON.stringify(url)};\n`);
    o.emitted.push(target);
  }
  const config = nearestDenoConfig(o.script);
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", ...(config ? ["--config", config] : ["--no-config"]), target],
    cwd: ctx.io.cwd,
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(result.stderr) + new TextDecoder().decode(result.stdout);
  const shown = text.replaceAll(target, "<launcher>").replace(/\n*Stack backtrace:[\s\S]*$/, "\n");
  if (result.success) {
    ctx.io.err(
      `mcpx: typecheck passed: ${o.script}${o.program !== undefined ? " and its launcher" : ""}\n`,
    );
    return { exitCode: 0 };
  }
  ctx.io.err(shown.endsWith("\n") ? shown : shown + "\n");
  return { exitCode: 1 };
}

/**
 * The variables a script's runtime is given: --env-file and --env, then what its client needs
 * (the session it calls under, who owns it, the daemon's socket and token). `mcpx run`, `exec` and
 * `repl` share it.
 */
export async function scriptEnvironment(
  ctx: Context,
  o: {
    plan: Pick<RunPlan, "env">;
    session: string;
    /** Whether mcpx made the session key up (it ends with this process). */
    minted: boolean;
    runId: string;
    provision?: Provision;
  },
): Promise<Record<string, string>> {
  const { io } = ctx;
  const { plan, session, minted, runId, provision } = o;
  const ids = ctx.traceIds();
  return {
    ...plan.env,
    MCPX_SESSION_ID: session,
    MCPX_RUN_ID: runId,
    // A session this run minted ends with it, even should it be killed with SIGKILL: the
    // daemon watches this process (lib/pool/owners.ts).
    ...(minted ? { MCPX_SESSION_OWNER: String(Deno.pid) } : {}),
    // Should this run die first, the daemon stops a script in a runtime of its own.
    MCPX_RUN_PID: String(Deno.pid),
    // A key mcpx made up (here, or for a run this one runs inside) is not a named session: its
    // process may be stopped to make room between calls, and the run is told (docs/pools.md).
    MCPX_SESSION_MINTED: minted || (io.env.MCPX_SESSION_MINTED === "1" && !plan.env.MCPX_SESSION_ID)
      ? "1"
      : "",
    MCPX_CALLER_CWD: io.cwd,
    // The caller's logging.trace: the script's calls are traced as the command's own would be.
    ...(ctx.boot.get("logging.trace") ? { MCPX_TRACE: "1" } : {}),
    // The script's calls hold a named session as this command's caller does
    // (lib/sessions/named.ts `holderOf`): a take-over of it refuses both alike.
    MCPX_SESSION_HOLDER: holderOf({
      holder: io.env.MCPX_SESSION_HOLDER || undefined,
      ids,
      pid: io.ppid,
    }),
    // Handed on as JSON pairs, the one spelling the script's runtime reads.
    ...(Object.keys(ids).length ? { MCPX_TRACE_IDS: traceIdsJson(ids) } : {}),
    // The variables "envFrom": "caller" servers read, for the script's calls to send.
    ...(Object.keys(ctx.callerEnv()).length
      ? { MCPX_CALLER_ENV: JSON.stringify(ctx.callerEnv()) }
      : {}),
    ...(provision && provision.socket !== ""
      ? {
        MCPX_SOCKET: provision.socket,
        MCPX_TOKEN_FILE: (await ctx.paths()).token,
        // Should the daemon go away during the run, the script's client starts one as `mcpx
        // call` would: this command, with this run's configuration.
        MCPX_DAEMON_START: JSON.stringify(daemonStart(ctx)),
      }
      : {}),
    // A daemon elsewhere (daemon.endpoint): the script's calls go there too.
    ...(provision ? await remoteScriptEnv(ctx) : {}),
  };
}

/**
 * Runs one script (`run`) or program (`exec`) and reports it: streamed to the terminal with the
 * exit status returned, or, under --json, collected into one envelope (report.ts).
 * Everything knowable is checked before anything starts; a run that minted its session key ends
 * that session when it is over.
 */
export async function runScript(ctx: Context, request: RunRequest): Promise<RunOutcome> {
  const started = performance.now();
  const { io } = ctx;
  const settings = await ctx.settings();
  const plan = await planRun(ctx, request);
  const { script, runtime } = plan;
  let command = plan.command;
  if (request.noLauncher && !command) {
    // No launcher, so no Worker either: the script is handed to deno as it is.
    command = await runtimeCommand("deno", {
      env: io.env,
      entry: join(await launcherDir(plan.cache, VERSION), "main.ts"),
      script: script?.path ?? io.cwd,
      emitDir: join(plan.cache, "emitted"),
    });
  }

  // Start the Worker now: it loads the launcher while the client is checked.
  const worker = runtime === "worker" && !request.noLauncher && !plan.typecheck
    ? new Worker(WORKER_URL, { type: "module", name: "mcpx-script" })
    : undefined;
  let execFile: string | undefined;
  const emitted: string[] = [];
  // The run's records are stored by this process (lib/log/run_log.ts); a log that cannot be
  // written is said once on stderr and the run goes on.
  const runLog = new RunLog({
    dir: logsDir(ctx.boot, io.env),
    stem: RUNS_LOG_STEM,
    maxBytes: settings.get("logging.maxBytes"),
    problem: (line) => io.err(line + "\n"),
  });
  let runStarted = false;
  let exitCode: number | undefined;
  let daemonId: string | undefined;
  try {
    // The harness's session (MCPX_TRACE_IDS) is the run's when nothing established one.
    const ids = ctx.traceIds();
    const named = plan.env.MCPX_SESSION_ID || io.env.MCPX_SESSION_ID || firstId(ids, "session");
    const session = named || `run-${crypto.randomUUID()}`;
    const minted = !named;
    const primary = ctx.location().primary;
    // A daemon elsewhere (daemon.endpoint) has a configuration even where this folder has none;
    // its client is kept apart from this configuration's.
    const endpoint = ctx.boot.get("daemon.endpoint");
    const scratch = join(
      plan.cache,
      "scripts",
      endpoint
        ? `remote-${hash64(new TextEncoder().encode(endpoint))}`
        : primary
        ? (await ctx.fingerprint()).short
        : "none",
    );
    Deno.mkdirSync(scratch, { recursive: true, mode: 0o700 });
    const program = request.code !== undefined ? execModule(request.code) : undefined;
    if (program) {
      execFile = join(scratch, `exec-${crypto.randomUUID().slice(0, 8)}.ts`);
      Deno.writeTextFileSync(execFile, rebaseImports(program.text, io.cwd));
    }
    const scriptPath = script?.path ?? execFile!;
    if (plan.typecheck) {
      return await typecheck(ctx, {
        runtime: command?.runtime ?? "worker",
        program: request.noLauncher ? undefined : plan.program?.(scriptPath),
        script: scriptPath,
        scratch,
        emitted,
      });
    }
    runStarted = true;
    runLog.event("info", "run.start", "Script run starting", {
      script: script?.path ?? "exec",
      args: [...request.args],
      runtime,
      session,
      cwd: io.cwd,
      ...traceAttrs(ids),
    });

    // The daemon is asked for once the script is on its way.
    const provision: Provision | undefined = primary || endpoint
      ? await provisionClient(ctx, {
        script,
        text: plan.text,
        scratch,
        worker: !!worker,
        ...(request.adHoc ? { adHoc: request.adHoc } : {}),
      })
      : undefined;
    // With no client, a named script still has the launcher's globals: say so to an editor, unless
    // a client's fuller declaration is already there.
    if (!provision && script?.named) {
      const declared = join(dirname(script.path), "mcpx-globals.d.ts");
      try {
        Deno.statSync(declared);
      } catch {
        try {
          writeFileAtomic(
            declared,
            `// Generated by mcpx. Tells an editor which globals a script run by mcpx has.\n${LAUNCHER_GLOBALS}`,
            { mode: 0o644 },
          );
        } catch { /* a folder we may not write: the run does not need it */ }
      }
    }

    const scriptEnv = await scriptEnvironment(ctx, {
      plan,
      session,
      minted,
      runId: runLog.id,
      provision,
    });
    const cfg: LaunchConfig = {
      script: scriptPath,
      args: [...request.args],
      ...(request.export !== undefined ? { export: request.export } : {}),
      ...(provision ? { client: provision.clientPath } : {}),
      json: ctx.json,
      logLevel: settings.get("logging.level") as Level,
      logSource: sourceLevel(settings.get("logging.source")),
      launcherDir: worker
        ? ownLauncherDir()
        : command!.emit?.launcherDir ?? dirname(command!.args.at(-1)!),
      ...(worker ? { env: scriptEnv } : {}),
    };
    // An old Node: hand it JavaScript.
    if (command?.emit) await emitForNode(command.emit, cfg, scratch, emitted);
    if (script) {
      cfg.name = script.named
        ? script.name
        : script.path.split("/").pop()!.replace(/\.[mc]?[jt]s$/, "");
    }
    // The launcher template, filled for this run.
    if (plan.program && !request.noLauncher) {
      // Named by its content and kept: the same run again reuses the file and the runtime's
      // compiled copy of it, rather than adding one to the runtime's cache every run.
      const text = plan.program(cfg.script);
      const path = join(
        scratch,
        `launch-${hash64(new TextEncoder().encode(text))}.${command?.emit ? "mjs" : "ts"}`,
      );
      try {
        Deno.statSync(path);
      } catch {
        writeFileAtomic(path, text);
      }
      // An exec program is a new file every run, and so is its launcher: removed with it.
      if (execFile) emitted.push(path);
      cfg.program = path;
    }
    // No launcher: the runtime is handed the script itself.
    const bare = request.noLauncher ? bareCommand(command!, cfg.script) : undefined;

    const where = places(
      io.cwd,
      execFile,
      program ? { offset: program.lineOffset, lines: request.code!.split("\n").length } : undefined,
    );
    const bound = {
      maxBytes: settings.get("output.maxBytes"),
      dir: outputDir(ctx.boot, io.env),
      stem: script ? `run-${script.named ? script.name : script.path.split("/").pop()}` : "exec",
    };
    const out = new RunOutput({
      json: ctx.json,
      io,
      bound,
      source: where.source,
      render: {
        format: request.format ?? settings.get("logging.format") as Format,
        color: wantsColor(io),
      },
      store: (record) => runLog.record(record),
    });
    // The daemon: asked now if it was not before. A Worker run is already under way and told when
    // it answers; a subprocess starts only after.
    const daemon = () => provision ? askDaemon(ctx, provision) : undefined;
    if (!worker) await daemon();
    const ended = worker
      ? await runInWorker(worker, cfg, out, { timeoutMs: plan.timeoutMs, daemon })
      : await runInProcess(bare ?? command!, cfg, out, {
        bare: bare !== undefined,
        timeoutMs: plan.timeoutMs,
        env: { ...io.env, ...scriptEnv },
        cwd: io.cwd,
        stdin: request.stdinUsed ? "null" : "inherit",
      });
    out.finish();
    exitCode = ended.code;
    daemonId = (await provision?.daemon?.catch(() => undefined))?.logId;

    if (minted) await endSession(ctx, provision?.daemon, session);

    const name = script ? (script.named ? script.name : where.display(script.path)) : "exec";
    const error = failureOf(ended, out, {
      name,
      timeoutMs: plan.timeoutMs,
      scriptPath,
      places: where,
    });
    return report(ctx, {
      ended,
      out,
      error,
      started,
      runtime,
      script: script?.path ?? "exec",
      session,
      runId: runLog.id,
      bound,
    });
  } finally {
    if (runStarted) {
      runLog.event(exitCode === 0 ? "info" : "error", "run.end", "Script run ended", {
        exitCode: exitCode ?? null,
        ok: exitCode === 0,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        ...(daemonId ? { daemonId } : {}),
      });
    }
    runLog.close();
    worker?.terminate();
    if (execFile) await Deno.remove(execFile).catch(() => {});
    for (const file of emitted) await Deno.remove(file).catch(() => {});
  }
}

/**
 * The command a script's client runs to start the daemon again (`mcpx health`, which starts one
 * as `mcpx call` does), naming the run's configuration when the run was given one explicitly.
 */
function daemonStart(ctx: Context): string[] {
  const where = ctx.location();
  const args = where.explicit && where.primary ? ["--config", where.primary] : [];
  const self = selfCommand([...args, "health", "--json"]);
  return [self.command, ...self.args];
}
