// Launching and running a script: in a Worker inside mcpx, or as a subprocess in its own process
// group, until it exits, times out or is interrupted; what it started and left is stopped.

import { messageOf } from "../errors.ts";
import { join } from "../_path.ts";
import { after } from "../_timer.ts";
import type { Health } from "../daemon/client.ts";
import {
  type DaemonReady,
  EXIT_FAILED,
  EXIT_TIMEOUT,
  LAUNCH_VARIABLE,
  type LaunchConfig,
  type WorkerMessage,
} from "../../launcher/protocol.ts";
import type { RunOutput } from "./output.ts";
import { descendants, parentOf, processTree, signalAll, signalGroup } from "../_proc.ts";
import { emitModule, type RuntimeCommand } from "./select.ts";

/** How a run ended. */
export interface Ended {
  code: number;
  timedOut?: boolean;
  /** Processes the script started that were still running and were stopped. */
  stopped: number;
}

/**
 * For a Node too old to strip types: emits the script and its client as JavaScript, pointing
 * `cfg` at them. The client is emitted once per run and the script imports that very module (its
 * "./mcpx-client.ts" is pointed at it), so the globals and an imported client stay the same
 * objects, as under the other runtimes. Each file written is added to `emitted` as soon as it
 * is, for the caller to remove when the run is over.
 */
export async function emitForNode(
  emit: NonNullable<RuntimeCommand["emit"]>,
  cfg: LaunchConfig,
  scratch: string,
  emitted: string[],
): Promise<void> {
  const tag = crypto.randomUUID().slice(0, 8);
  let clientUrl: string | undefined;
  if (cfg.client) {
    const client = join(scratch, `emitted-client-${tag}.mjs`);
    await emitModule(emit.deno, cfg.client, client);
    emitted.push(client);
    cfg.client = client;
    clientUrl = new URL(`file://${client}`).href;
  }
  const script = join(scratch, `emitted-${tag}.mjs`);
  await emitModule(emit.deno, cfg.script, script, { external: ["./mcpx-client.ts"] });
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

/** Runs a Worker launcher until it reports its exit, the timeout fires or a signal arrives. */
export function runInWorker(
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
    // SIGHUP too (a closed terminal or SSH session), as the subprocess path forwards it.
    for (const [sig, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
      const fn = () => end(code);
      signals.push([sig, fn]);
      Deno.addSignalListener(sig, fn);
    }
    tellDaemon(daemon, (message) => !done && worker.postMessage(message));
  });
}

/**
 * Tells a Worker launcher, once it is known, whether the daemon answered: its client's first call
 * waits for this. `mcpx run` and `mcpx repl` both start the Worker before the daemon has answered.
 */
export function tellDaemon(
  daemon: Promise<Health> | undefined,
  tell: (message: DaemonReady) => void,
): void {
  if (!daemon) tell({ t: "daemon", error: "no configuration, so no mcpx daemon to call" });
  else {
    daemon.then(
      () => tell({ t: "daemon" }),
      (e) => tell({ t: "daemon", error: messageOf(e) }),
    );
  }
}

async function pump(stream: ReadableStream<Uint8Array>, sink: (b: Uint8Array) => void) {
  for await (const chunk of stream) sink(chunk);
}

/** Runs a subprocess launcher in its own process group, so a timeout stops all it started. */
export async function runInProcess(
  command: RuntimeCommand,
  cfg: LaunchConfig,
  out: RunOutput,
  options: {
    timeoutMs: number;
    env: Record<string, string>;
    cwd: string;
    stdin: "inherit" | "null";
    /** The script itself, with no launcher (`--no-launcher`): nothing is handed to it. */
    bare?: boolean;
  },
): Promise<Ended> {
  const child = new Deno.Command(command.command, {
    args: [...command.args, ...cfg.args],
    cwd: options.cwd,
    env: options.bare ? options.env : { ...options.env, [LAUNCH_VARIABLE]: JSON.stringify(cfg) },
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
