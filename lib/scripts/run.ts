import { stripTypeScriptTypes } from "node:module";
import { dirname, join, resolve } from "../_path.ts";
import { after } from "../_timer.ts";
import { formatDuration } from "../duration.ts";
import { McpxError } from "../errors.ts";
import { cacheDir, outputDir } from "../paths.ts";
import { VERSION } from "../version.ts";
import type { Context } from "../context.ts";
import { callDaemon, ensureDaemon, type Health } from "../daemon/client.ts";
import { isFresh } from "./client_stamp.ts";
import { load } from "../_load.ts";
import {
  type DaemonReady,
  EXIT_FAILED,
  EXIT_TIMEOUT,
  LAUNCH_VARIABLE,
  type LaunchConfig,
  type Level,
  type LogRecord,
  type ScriptFailure,
  type WorkerMessage,
} from "../../launcher/protocol.ts";
import {
  emitModule,
  isCompiled,
  launcherDir,
  ownLauncherDir,
  type RuntimeCommand,
  runtimeCommand,
  type RuntimeName,
  WORKER_URL,
} from "../../launcher/select.ts";
import { readDirectives } from "./directives.ts";
import { parseEnvFile, parseEnvPair } from "./env_vars.ts";
import { boundEnvelope, RunOutput } from "./output.ts";
import { descendants, parentOf, processTree, signalAll, signalGroup } from "./processes.ts";
import { resolveScript, type SearchOptions } from "./resolve.ts";

/** What `mcpx run` and `mcpx exec` ask for. */
export interface RunRequest {
  /** A script name or path (`run`). */
  script?: string;
  /** Program text (`exec`); `-` has already been read from stdin. */
  code?: string;
  args: readonly string[];
  export?: string;
  /** `KEY=VALUE` pairs, in order; later ones win. */
  env?: readonly string[];
  envFile?: string;
  /** Whether the program came from stdin, which the script then cannot read. */
  stdinUsed?: boolean;
}

/** Where a failure happened, as the envelope shows it. */
export interface FailureReport {
  kind: ScriptFailure["kind"] | "timeout";
  name: string;
  message: string;
  /** `file:line:col`, the path relative to the caller's folder when inside it. */
  location?: string;
  /** What would fix it, when known (the namespaces or tools that do exist). */
  hint?: string;
  stack?: string;
}

/** The one document `mcpx --json run` prints. */
export interface RunEnvelope {
  ok: boolean;
  exitCode: number;
  durationMs: number;
  runtime: RuntimeName;
  script: string;
  session: string;
  result?: unknown;
  results: unknown[];
  stdout: string;
  logs: LogRecord[];
  stderr: string;
  error?: FailureReport;
  /** Set when the envelope passed `output.maxBytes`: the printed one is cut, the file whole. */
  truncated?: true;
  /** The file holding the whole envelope. */
  spilledTo?: string;
  /** The whole envelope's size in bytes. */
  bytes?: number;
}

/** What a run returns to the CLI: the exit status, or under --json the whole envelope. */
export type RunOutcome = { exitCode: number } | RunEnvelope;

interface Ended {
  code: number;
  timedOut?: boolean;
  /** Processes the script started that were still running and were stopped. */
  stopped: number;
}

const AsyncFunction = (async function () {}).constructor as FunctionConstructor;

/**
 * The module `mcpx exec` runs. Code with static imports or exports is a module as written;
 * otherwise it becomes the body of the default export, so `return x` prints x, and a single
 * expression is returned as it is (`mcpx exec 'fixture.echo({ text: "hi" })'`).
 */
export function execModule(code: string): { text: string; lineOffset: number } {
  if (/^\s*(import\s*[\w*{"'$]|export\s)/m.test(code)) return { text: code, lineOffset: 0 };
  let expression = false;
  try {
    new AsyncFunction(`return (\n${code}\n)`);
    expression = true;
  } catch { /* statements, or TypeScript syntax */ }
  const text = expression
    ? `export default async function () { return (\n${code}\n); }\n`
    : `export default async function () {\n${code}\n}\n`;
  return { text, lineOffset: 1 };
}

/** Marks where the program sits in the wrapper, so that it can be found again after transforming. */
const BODY_MARK = "/*mcpx:exec-body*/";

/**
 * Why an exec program that {@linkcode execModule} wraps in a function does not stand alone as
 * that function's body (`}{` closes the wrapper early and would run as something else), or
 * undefined when it does. A program that does not parse even wrapped is left to the runtime,
 * which names the line and column.
 */
export function execSyntaxError(code: string): string | undefined {
  if (execModule(code).lineOffset === 0) return undefined; // a module, run as written
  let js: string;
  try {
    js = stripTypeScriptTypes(
      `async function body() {\n${BODY_MARK}\n${code}\n${BODY_MARK}\n}\n`,
      { mode: "transform" },
    );
  } catch {
    return undefined;
  }
  const start = js.indexOf(BODY_MARK);
  const end = js.lastIndexOf(BODY_MARK);
  if (start < 0 || end <= start) return undefined;
  // import.meta parses in the module the body is run in, not in a Function.
  const body = js.slice(start + BODY_MARK.length, end).replace(/\bimport\s*\.\s*meta\b/g, "_m");
  try {
    new AsyncFunction(body);
    return undefined;
  } catch (e) {
    return e instanceof SyntaxError ? `SyntaxError: ${e.message}` : undefined;
  }
}

/**
 * Points the relative imports of an exec program at the caller's folder: the program is written
 * to the cache, but `./helper.ts` means the helper beside the caller. `./mcpx-client.ts` stays,
 * since the client is written beside the program. Only string literals after `from`, `import`
 * and `import(` are touched.
 */
export function rebaseImports(text: string, cwd: string): string {
  return text.replace(
    /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.\.?\/[^"'\n]*)\2/g,
    (whole, lead: string, quote: string, spec: string) =>
      spec === "./mcpx-client.ts"
        ? whole
        : `${lead}${quote}${new URL(`file://${resolve(cwd, spec)}`).href}${quote}`,
  );
}

function problemsError(problems: McpxError[]): McpxError {
  if (problems.length === 1) return problems[0];
  return new McpxError(
    problems[0].code,
    `${problems.length} problems before running:\n${
      problems.map((p) => `  - ${p.message}${p.hint ? ` (${p.hint})` : ""}`).join("\n")
    }`,
  );
}

async function capture<T>(problems: McpxError[], fn: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof McpxError) problems.push(e);
    else throw e;
    return undefined;
  }
}

/**
 * Whether the daemon `pid` may hold a process keyed to `session`: false only when the live state
 * it keeps (`{ pid, keys }`) is its own and lists no `session:<session>` key.
 */
function mayHoldSession(livePath: string, pid: number, session: string): boolean {
  try {
    const kept = JSON.parse(Deno.readTextFileSync(livePath)) as { pid?: number; keys?: unknown };
    return kept.pid !== pid || !Array.isArray(kept.keys) ||
      kept.keys.includes(`session:${session}`);
  } catch {
    return true;
  }
}

function writable(dir: string): boolean {
  try {
    const probe = join(dir, `.mcpx-probe-${crypto.randomUUID()}`);
    Deno.writeTextFileSync(probe, "");
    Deno.removeSync(probe);
    return true;
  } catch {
    return false;
  }
}

/** Runs a Worker launcher until it reports its exit, the timeout fires or a signal arrives. */
function runInWorker(
  worker: Worker,
  cfg: LaunchConfig,
  out: RunOutput,
  options: { timeoutMs: number; daemon: () => Promise<Health> | undefined },
): Promise<Ended> {
  return new Promise((resolveEnd) => {
    let done = false;
    // The run starts now; the daemon is asked while the script loads (handlers are set below in
    // this same turn, before any message can arrive).
    worker.postMessage(cfg);
    const daemon = options.daemon();
    // Whether the daemon has answered (or failed to) yet: `end` waits for that answer otherwise.
    let answered: boolean | undefined = daemon ? undefined : true;
    daemon?.then(() => (answered = true), () => (answered = true));
    const signals: [Deno.Signal, () => void][] = [];
    const end = async (code: number, timedOut = false) => {
      if (done) return;
      done = true;
      cancel?.();
      for (const [sig, fn] of signals) Deno.removeSignalListener(sig, fn);
      // What the script started and left running is stopped with it. The process table is read
      // before the worker goes, since ending a worker may already kill its children.
      const before = processTree(Deno.pid);
      worker.terminate();
      // The daemon, if this run is starting it, is a child of this process too: it is spared
      // (with its servers) once it has answered, or has failed to. Should that take a while, the
      // table is read again: what the script's children started meanwhile goes too, and of what
      // was listed before, only a process still there with the same parent (or adopted by init).
      const waited = answered === undefined;
      const health = await daemon?.catch(() => undefined);
      const spare = new Set(health ? [health.pid] : []);
      const left = new Set(descendants(Deno.pid, spare, before));
      if (waited) {
        for (const pid of left) {
          const parent = parentOf(pid);
          if (parent === undefined || (parent !== before.get(pid) && parent !== 1)) {
            left.delete(pid);
          }
        }
        for (const pid of descendants(Deno.pid, spare)) left.add(pid);
      }
      signalAll([...left]);
      resolveEnd({ code, timedOut, stopped: left.size });
    };
    worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
      const m = event.data;
      if (m.t === "out") m.fd === 1 ? out.stdout(m.data) : out.stderr(m.data);
      else if (m.t === "exit") end(m.code);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      out.failure ??= { kind: "uncaught", name: "Error", message: event.message };
      end(EXIT_FAILED);
    };
    const cancel = options.timeoutMs > 0
      ? after(options.timeoutMs, () => end(EXIT_TIMEOUT, true))
      : undefined;
    for (const [sig, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
      const fn = () => end(code);
      signals.push([sig, fn]);
      Deno.addSignalListener(sig, fn);
    }
    const tell = (message: DaemonReady) => !done && worker.postMessage(message);
    if (!daemon) tell({ t: "daemon", error: "no configuration, so no mcpx daemon to call" });
    else {
      daemon.then(
        () => tell({ t: "daemon" }),
        (e) => tell({ t: "daemon", error: e instanceof Error ? e.message : String(e) }),
      );
    }
  });
}

async function pump(stream: ReadableStream<Uint8Array>, sink: (b: Uint8Array) => void) {
  for await (const chunk of stream) sink(chunk);
}

/** Runs a subprocess launcher in its own process group, so a timeout stops all it started. */
async function runInProcess(
  command: RuntimeCommand,
  cfg: LaunchConfig,
  out: RunOutput,
  options: {
    timeoutMs: number;
    env: Record<string, string>;
    cwd: string;
    stdin: "inherit" | "null";
  },
): Promise<Ended> {
  const child = new Deno.Command(command.command, {
    args: [...command.args, ...cfg.args],
    cwd: options.cwd,
    env: { ...options.env, [LAUNCH_VARIABLE]: JSON.stringify(cfg) },
    clearEnv: true,
    stdin: options.stdin,
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  const pumps = Promise.all([
    pump(child.stdout, (b) => out.stdout(b)),
    pump(child.stderr, (b) => out.stderr(b)),
  ]);
  let timedOut = false;
  let stopped = 0;
  const stopAll = (signal: Deno.Signal) => {
    // Descendants first, while they are still ours: one that left the group is found this way.
    const left = descendants(child.pid);
    signalGroup(child.pid, signal);
    stopped = Math.max(stopped, signalAll(left, signal));
  };
  const cancel = options.timeoutMs > 0
    ? after(options.timeoutMs, () => {
      timedOut = true;
      stopAll("SIGKILL");
    })
    : undefined;
  const forward: [Deno.Signal, () => void][] = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map(
    (sig) => [sig, () => signalGroup(child.pid, sig)],
  );
  for (const [sig, fn] of forward) Deno.addSignalListener(sig, fn);
  const status = await child.status;
  cancel?.();
  for (const [sig, fn] of forward) Deno.removeSignalListener(sig, fn);
  // Whatever the script left running would hold the pipes open: stop it, then drain them.
  const leftovers = descendants(child.pid);
  signalGroup(child.pid, "SIGKILL");
  stopped = Math.max(stopped, signalAll(leftovers));
  await pumps;
  return { code: timedOut ? EXIT_TIMEOUT : status.code, timedOut, stopped };
}

/**
 * Runs one script (`run`) or program (`exec`) and reports it: streamed to the terminal with the
 * exit status returned, or, under --json, collected into one {@linkcode RunEnvelope}.
 * Everything knowable is checked before anything starts; a run that minted its session key ends
 * that session when it is over.
 */
export async function runScript(ctx: Context, request: RunRequest): Promise<RunOutcome> {
  const started = performance.now();
  const { io } = ctx;
  const settings = await ctx.settings();
  const problems: McpxError[] = [];

  // The script, and the folder its client is written to.
  const pathsSource = settings.describe("paths.scripts").source;
  const search: SearchOptions = {
    cwd: io.cwd,
    env: io.env,
    paths: settings.get("paths.scripts"),
    pathsBase: pathsSource.kind === "file" ? dirname(pathsSource.where) : io.cwd,
    allowOverlap: settings.get("plumbing.allowTsJsOverlap"),
  };
  const script = request.script !== undefined
    ? await capture(problems, () => resolveScript(request.script!, search))
    : undefined;
  let text = request.code ?? "";
  if (script) text = await Deno.readTextFile(script.path).catch(() => "");

  // Variables: the file first, then each --env in order.
  const env: Record<string, string> = {};
  if (request.envFile !== undefined) {
    const path = resolve(io.cwd, request.envFile);
    await capture(problems, async () => {
      let content: string;
      try {
        content = await Deno.readTextFile(path);
      } catch (e) {
        throw new McpxError(
          "USAGE",
          `Cannot read --env-file "${request.envFile}": ${(e as Error).message}`,
        );
      }
      Object.assign(env, parseEnvFile(content, request.envFile!));
    });
  }
  for (const pair of request.env ?? []) {
    await capture(problems, () => {
      const [k, v] = parseEnvPair(pair);
      env[k] = v;
    });
  }
  const syntax = request.code !== undefined ? execSyntaxError(request.code) : undefined;
  if (syntax) {
    problems.push(new McpxError("SCRIPT_FAILED", `Cannot run the exec program: ${syntax}`));
  }
  if (
    request.export !== undefined && request.export !== "default" &&
    !/^[A-Za-z_$][\w$]*$/.test(request.export)
  ) {
    problems.push(
      new McpxError("USAGE", `--export "${request.export}" is not a JavaScript identifier`),
    );
  }

  // The runtime and the timeout: a flag wins, then the script's own directive, then the setting.
  const where = script ? (script.named ? script.path : request.script!) : "exec";
  const directives = (await capture(problems, () => readDirectives(text, where))) ?? {};
  const chosen = (key: "script.runtime" | "script.timeout") =>
    settings.describe(key).source.kind === "flag";
  let runtime: RuntimeName = chosen("script.runtime")
    ? settings.get("script.runtime") as RuntimeName
    : directives.runtime ?? settings.get("script.runtime") as RuntimeName;
  const timeoutMs = chosen("script.timeout")
    ? settings.get("script.timeout")
    : directives.timeoutMs ?? settings.get("script.timeout");
  const cache = cacheDir(ctx.boot, io.env);
  let command: RuntimeCommand | undefined;
  if (runtime === "worker" && isCompiled()) {
    // A compiled mcpx cannot load a user's file into a Worker: run it under the first runtime
    // found on PATH instead.
    for (const candidate of ["deno", "bun", "node"] as const) {
      try {
        command = await runtimeCommand(candidate, {
          env: io.env,
          entry: join(await launcherDir(cache, VERSION), "main.ts"),
          script: script?.path ?? io.cwd,
          emitDir: join(cache, "emitted"),
        });
        runtime = candidate;
        break;
      } catch { /* try the next */ }
    }
    if (!command) {
      problems.push(
        new McpxError("NOT_FOUND", "This mcpx binary runs scripts with deno, bun or node", {
          hint: "Install one of them (`npm install -g deno`), or run mcpx itself under `deno run`",
        }),
      );
    }
  } else if (runtime !== "worker") {
    command = await capture(
      problems,
      async () =>
        runtimeCommand(runtime as Exclude<RuntimeName, "worker">, {
          env: io.env,
          entry: join(await launcherDir(cache, VERSION), "main.ts"),
          script: script?.path ?? io.cwd,
          emitDir: join(cache, "emitted"),
        }),
    );
  }
  if (problems.length > 0) throw problemsError(problems);

  // Start the Worker now: it loads the launcher while the client is checked.
  const worker = runtime === "worker"
    ? new Worker(WORKER_URL, { type: "module", name: "mcpx-script" })
    : undefined;
  let execFile: string | undefined;
  const emitted: string[] = [];
  try {
    const session = env.MCPX_SESSION_ID || io.env.MCPX_SESSION_ID || `run-${crypto.randomUUID()}`;
    const minted = !env.MCPX_SESSION_ID && !io.env.MCPX_SESSION_ID;
    const primary = ctx.location().primary;
    const scratch = join(cache, "scripts", primary ? (await ctx.fingerprint()).short : "none");
    Deno.mkdirSync(scratch, { recursive: true });
    const program = request.code !== undefined ? execModule(request.code) : undefined;
    if (program) {
      execFile = join(scratch, `exec-${crypto.randomUUID().slice(0, 8)}.ts`);
      Deno.writeTextFileSync(execFile, rebaseImports(program.text, io.cwd));
    }
    const scriptPath = script?.path ?? execFile!;

    // The daemon is asked for once the script is on its way: a client module that is already
    // right lets a Worker run start first (its first tool call waits for the daemon's word).
    let daemon: Promise<Health> | undefined;
    let socket: string | undefined;
    let clientPath: string | undefined;
    if (primary) {
      socket = (await ctx.paths()).socket;
      // Beside the script when it is a named one or imports the client (the reference's
      // `import tools from "./mcpx-client.ts"`); otherwise out of the way, in the cache.
      const beside = script && (script.named || text.includes("mcpx-client"))
        ? dirname(script.path)
        : undefined;
      const besidePath = beside && join(beside, "mcpx-client.ts");
      if (besidePath && worker && isFresh(ctx, besidePath, socket)) clientPath = besidePath;
      else if (
        !besidePath && worker && isFresh(ctx, join(scratch, "mcpx-client.ts"), socket)
      ) {
        clientPath = join(scratch, "mcpx-client.ts");
      } else {
        daemon = ensureDaemon(ctx);
        await daemon;
        let dir = scratch;
        if (beside) {
          if (writable(beside)) dir = beside;
          else {
            io.err(
              `mcpx: warning: cannot write mcpx-client.ts beside ${
                script!.path
              }; the globals work, an import of ./mcpx-client.ts will not\n`,
            );
          }
        }
        const { writeClient } = await load<typeof import("./client_module.ts")>(
          "./client_module.ts",
          import.meta.url,
        );
        clientPath = await writeClient(ctx, dir, socket, undefined, { listUnlisted: true });
      }
    }

    const scriptEnv: Record<string, string> = {
      ...env,
      MCPX_SESSION_ID: session,
      MCPX_CALLER_CWD: io.cwd,
      ...(socket ? { MCPX_SOCKET: socket, MCPX_TOKEN_FILE: (await ctx.paths()).token } : {}),
    };
    const cfg: LaunchConfig = {
      script: scriptPath,
      args: [...request.args],
      ...(request.export !== undefined ? { export: request.export } : {}),
      ...(clientPath ? { client: clientPath } : {}),
      json: ctx.json,
      logLevel: settings.get("logging.level") as Level,
      launcherDir: worker
        ? ownLauncherDir()
        : command!.emit?.launcherDir ?? dirname(command!.args.at(-1)!),
      ...(worker ? { env: scriptEnv } : {}),
    };
    if (command?.emit) {
      // An old Node: hand it JavaScript. The client is emitted once per run and the script
      // imports that very module (its "./mcpx-client.ts" is pointed at it), so the globals and
      // an imported client stay the same objects, as under the other runtimes.
      const tag = crypto.randomUUID().slice(0, 8);
      let clientUrl: string | undefined;
      if (cfg.client) {
        const client = join(scratch, `emitted-client-${tag}.mjs`);
        await emitModule(command.emit.deno, cfg.client, client);
        emitted.push(client);
        cfg.client = client;
        clientUrl = new URL(`file://${client}`).href;
      }
      const script = join(scratch, `emitted-${tag}.mjs`);
      await emitModule(command.emit.deno, cfg.script, script, { external: ["./mcpx-client.ts"] });
      emitted.push(script);
      if (clientUrl) {
        const text = await Deno.readTextFile(script);
        await Deno.writeTextFile(
          script,
          text.replaceAll('"./mcpx-client.ts"', JSON.stringify(clientUrl)),
        );
      }
      cfg.script = script;
    }
    const display = (path: string) => {
      if (path === execFile) return "exec";
      return path.startsWith(io.cwd + "/") ? path.slice(io.cwd.length + 1) : path;
    };
    const exec = program
      ? { offset: program.lineOffset, lines: request.code!.split("\n").length }
      : undefined;
    // `file:line:col` as the user reads it: relative to their folder; exec lines are the code's.
    const place = (file: string, line: number, col?: number) => {
      const l = exec && file === execFile
        ? Math.min(exec.lines, Math.max(1, line - exec.offset))
        : line;
      return `${display(file)}:${l}${col !== undefined ? `:${col}` : ""}`;
    };
    const source = (text: string) => {
      const m = /^(.*?):(\d+)(?::(\d+))?$/.exec(text);
      return m ? place(m[1], Number(m[2]), m[3] === undefined ? undefined : Number(m[3])) : text;
    };
    const bound = {
      maxBytes: settings.get("output.maxBytes"),
      dir: outputDir(ctx.boot, io.env),
      stem: script ? `run-${script.named ? script.name : script.path.split("/").pop()}` : "exec",
    };
    const out = new RunOutput({ json: ctx.json, io, bound, source });
    // The daemon: asked now if it was not before. A Worker run is already under way and told when
    // it answers; a subprocess starts only after.
    const askDaemon = () => primary ? (daemon ??= ensureDaemon(ctx)) : undefined;
    if (!worker) await askDaemon();
    const ended = worker
      ? await runInWorker(worker, cfg, out, { timeoutMs, daemon: askDaemon })
      : await runInProcess(command!, cfg, out, {
        timeoutMs,
        env: { ...io.env, ...scriptEnv },
        cwd: io.cwd,
        stdin: request.stdinUsed ? "null" : "inherit",
      });
    out.finish();

    // The session is ended where the daemon may hold a process for it: what the daemon keeps
    // (lib/daemon/server.ts) says so without asking it; without that, it is asked.
    const health = await daemon?.catch(() => undefined);
    if (minted && health && mayHoldSession((await ctx.paths()).live, health.pid, session)) {
      await callDaemon(ctx, {
        method: "POST",
        path: `/v1/sessions/${encodeURIComponent(session)}/end`,
        start: false,
      }).catch(() => undefined);
    }

    const name = script ? (script.named ? script.name : display(script.path)) : "exec";
    let error: FailureReport | undefined;
    if (ended.timedOut) {
      error = {
        kind: "timeout",
        name: "Timeout",
        message: `Script "${name}" timed out after ${formatDuration(timeoutMs)}; stopped it${
          ended.stopped ? ` and ${ended.stopped} process(es) it started` : ""
        }`,
      };
    } else if (out.failure) {
      const f = out.failure;
      const loc = f.location;
      error = {
        kind: f.kind,
        name: f.name,
        message: f.message,
        location: loc ? place(loc.file, loc.line, loc.col) : display(scriptPath),
        ...(f.hint ? { hint: f.hint } : {}),
        ...(f.stack ? { stack: f.stack } : {}),
      };
    }
    const exitCode = ended.code;

    if (ctx.json) {
      return boundEnvelope({
        ok: exitCode === 0 && !error,
        exitCode,
        durationMs: Math.round(performance.now() - started),
        runtime,
        script: script?.path ?? "exec",
        session,
        ...(out.hasResult ? { result: out.result } : {}),
        results: out.results,
        stdout: out.stdoutText,
        logs: out.logs,
        stderr: out.stderrText,
        ...(error ? { error } : {}),
      }, bound);
    }
    if (error) {
      if (error.kind === "timeout") io.err(`mcpx: ${error.message}\n`);
      else {
        const named = ["export", "result"].includes(error.kind) || error.name === "Error"
          ? ""
          : `${error.name}: `;
        io.err(
          `${error.location}: ${named}${error.message}${error.hint ? `; ${error.hint}` : ""}\n`,
        );
        if (io.env.MCPX_DEBUG && error.stack) io.err(`${error.stack}\n`);
      }
    }
    return { exitCode };
  } finally {
    worker?.terminate();
    if (execFile) await Deno.remove(execFile).catch(() => {});
    for (const file of emitted) await Deno.remove(file).catch(() => {});
  }
}
