// `mcpx run` and `mcpx exec`: a plan (plan.ts), the client (provision.ts), the run itself
// (launch.ts) and its report (report.ts), in that order.

import { dirname, join } from "../_path.ts";
import { outputDir } from "../paths.ts";
import type { Context } from "../context.ts";
import type { LaunchConfig, Level } from "../../launcher/protocol.ts";
import { emitForNode, runInProcess, runInWorker } from "./launch.ts";
import { RunOutput } from "./output.ts";
import { execModule, planRun, rebaseImports, type RunRequest } from "./plan.ts";
import { askDaemon, endSession, type Provision, provisionClient } from "./provision.ts";
import { remoteScriptEnv } from "../daemon/client.ts";
import { failureOf, places, report, type RunOutcome } from "./report.ts";
import { ownLauncherDir, WORKER_URL } from "./select.ts";

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
  const { script, command, runtime } = plan;

  // Start the Worker now: it loads the launcher while the client is checked.
  const worker = runtime === "worker"
    ? new Worker(WORKER_URL, { type: "module", name: "mcpx-script" })
    : undefined;
  let execFile: string | undefined;
  const emitted: string[] = [];
  try {
    const session = plan.env.MCPX_SESSION_ID || io.env.MCPX_SESSION_ID ||
      `run-${crypto.randomUUID()}`;
    const minted = !plan.env.MCPX_SESSION_ID && !io.env.MCPX_SESSION_ID;
    const primary = ctx.location().primary;
    const scratch = join(
      plan.cache,
      "scripts",
      primary ? (await ctx.fingerprint()).short : "none",
    );
    Deno.mkdirSync(scratch, { recursive: true });
    const program = request.code !== undefined ? execModule(request.code) : undefined;
    if (program) {
      execFile = join(scratch, `exec-${crypto.randomUUID().slice(0, 8)}.ts`);
      Deno.writeTextFileSync(execFile, rebaseImports(program.text, io.cwd));
    }
    const scriptPath = script?.path ?? execFile!;

    // The daemon is asked for once the script is on its way.
    const provision: Provision | undefined = primary
      ? await provisionClient(ctx, { script, text: plan.text, scratch, worker: !!worker })
      : undefined;

    const scriptEnv: Record<string, string> = {
      ...plan.env,
      MCPX_SESSION_ID: session,
      // A session this run minted ends with it, even should it be killed with SIGKILL: the
      // daemon watches this process (lib/pool/registry.ts).
      ...(minted ? { MCPX_SESSION_OWNER: String(Deno.pid) } : {}),
      // Should this run die first, the daemon stops a script in a runtime of its own.
      MCPX_RUN_PID: String(Deno.pid),
      // A key mcpx made up (here, or for a run this one runs inside) is not a named session: its
      // process may be stopped to make room between calls, and the run is told (docs/pools.md).
      MCPX_SESSION_MINTED:
        minted || (io.env.MCPX_SESSION_MINTED === "1" && !plan.env.MCPX_SESSION_ID) ? "1" : "",
      MCPX_CALLER_CWD: io.cwd,
      // The variables "envFrom": "caller" servers read, for the script's calls to send.
      ...(Object.keys(ctx.callerEnv()).length
        ? { MCPX_CALLER_ENV: JSON.stringify(ctx.callerEnv()) }
        : {}),
      ...(provision
        ? { MCPX_SOCKET: provision.socket, MCPX_TOKEN_FILE: (await ctx.paths()).token }
        : {}),
      // A daemon elsewhere (daemon.endpoint): the script's calls go there too.
      ...(provision ? await remoteScriptEnv(ctx) : {}),
    };
    const cfg: LaunchConfig = {
      script: scriptPath,
      args: [...request.args],
      ...(request.export !== undefined ? { export: request.export } : {}),
      ...(provision ? { client: provision.clientPath } : {}),
      json: ctx.json,
      logLevel: settings.get("logging.level") as Level,
      launcherDir: worker
        ? ownLauncherDir()
        : command!.emit?.launcherDir ?? dirname(command!.args.at(-1)!),
      ...(worker ? { env: scriptEnv } : {}),
    };
    // An old Node: hand it JavaScript.
    if (command?.emit) await emitForNode(command.emit, cfg, scratch, emitted);

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
    const out = new RunOutput({ json: ctx.json, io, bound, source: where.source });
    // The daemon: asked now if it was not before. A Worker run is already under way and told when
    // it answers; a subprocess starts only after.
    const daemon = () => provision ? askDaemon(ctx, provision) : undefined;
    if (!worker) await daemon();
    const ended = worker
      ? await runInWorker(worker, cfg, out, { timeoutMs: plan.timeoutMs, daemon })
      : await runInProcess(command!, cfg, out, {
        timeoutMs: plan.timeoutMs,
        env: { ...io.env, ...scriptEnv },
        cwd: io.cwd,
        stdin: request.stdinUsed ? "null" : "inherit",
      });
    out.finish();

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
      bound,
    });
  } finally {
    worker?.terminate();
    if (execFile) await Deno.remove(execFile).catch(() => {});
    for (const file of emitted) await Deno.remove(file).catch(() => {});
  }
}
