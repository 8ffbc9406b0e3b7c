import { McpxError } from "../errors.ts";
import { defineOperation } from "./define.ts";
import type { Context } from "../context.ts";
import type { FlagValue } from "../settings/resolve.ts";
import { SETTINGS, type SettingSpec } from "../settings/table.ts";
import { load } from "../_load.ts";

/** Why the prompts have no `/v1` route: they need the caller's own terminal. */
const TERMINAL_ONLY =
  "A prompt reads the caller's own terminal; the daemon serves the commands each screen runs";

/**
 * Refuses to prompt where nobody can answer: stdin and stdout must both be terminals (isatty,
 * which /dev/null and a pipe are not), so `mcpx explore < /dev/null` exits at once.
 * @throws {McpxError} USAGE, one line naming the commands to use instead.
 */
export function requireTerminal(ctx: Context, command: string, instead: string): void {
  if (ctx.io.isTerminal && ctx.io.stdinIsTerminal) return;
  const which = !ctx.io.stdinIsTerminal ? "stdin is not a terminal" : "stdout is not a terminal";
  throw new McpxError("USAGE", `mcpx ${command} needs a terminal (${which})`, {
    hint: `Without one, use ${instead}`,
  });
}

/** The global options as words that parse back to the same settings (`--config=…`). */
export function flagWords(flags: readonly FlagValue[]): string[] {
  const specs = SETTINGS as Record<string, SettingSpec>;
  return flags.map((f) => {
    if (f.spelling.startsWith("--no-")) return f.spelling;
    if (specs[f.key]?.type === "boolean" && f.text === "true") return f.spelling;
    return `${f.spelling}=${f.text}`;
  });
}

async function stateFile(ctx: Context, name: string): Promise<string> {
  const [{ stateDir }, { join }] = await Promise.all([
    load<typeof import("../paths.ts")>("../paths.ts", import.meta.url),
    load<typeof import("../_path.ts")>("../_path.ts", import.meta.url),
  ]);
  return join(stateDir(ctx.boot, ctx.io.env), name);
}

/** `mcpx explore`: the discovery commands as a prompt loop. */
export const exploreRun = defineOperation<Record<string, never>, Record<string, never>>({
  id: "explore.run",
  summary: "Walk the namespaces, signatures, calls and log at a prompt",
  description:
    "A prompt loop over the discovery commands, for a person at a terminal; not full-screen, so what it shows stays in the scrollback. A namespace's name shows its signatures, ns.tool one signature; call ns.tool asks for each argument (required ones first, enums as choices, defaults shown) and calls it through the daemon; chain lists recent calls and runs (chain <id> shows what led to one); log, stats, status, search and ls run those commands. Under every screen is the command that prints it without the prompt. Tab completes command words, namespaces and tool names; the arrows walk the history, kept in explore_history under the state folder. Ctrl-C cancels a question; Ctrl-C or Ctrl-D at the mcpx> prompt leaves. With stdin or stdout not a terminal it says so and exits 2 at once.",
  params: [],
  cli: {
    command: ["explore"],
    examples: [["mcpx explore", "Walk namespaces, signatures and calls at a prompt"], [
      "mcpx --profile browser explore",
      "The same, with a profile's servers too",
    ]],
  },
  http: { none: TERMINAL_ONLY },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({}),
  async run(_input, ctx) {
    requireTerminal(
      ctx,
      "explore",
      "mcpx ls, mcpx types <namespace>, mcpx call <namespace.tool>, mcpx log, mcpx stats and mcpx status",
    );
    const [{ explore }, { terminalPrompter }, { History }, misc, discovery] = await Promise.all([
      load<typeof import("../explore/explore.ts")>("../explore/explore.ts", import.meta.url),
      load<typeof import("../explore/prompt.ts")>("../explore/prompt.ts", import.meta.url),
      load<typeof import("../explore/history.ts")>("../explore/history.ts", import.meta.url),
      load<typeof import("./misc_ops.ts")>("./misc_ops.ts", import.meta.url),
      load<typeof import("../discovery/load.ts")>("../discovery/load.ts", import.meta.url),
    ]);
    const words = async (kind: "namespaces" | "tools") =>
      (await misc.candidates.run({ kind }, ctx)).candidates;
    await explore({
      prompter: terminalPrompter(),
      history: new History(await stateFile(ctx, "explore_history")),
      run: (args) => ctx.host.runCommand(args, ctx.io),
      out: (text) => ctx.io.out(text),
      names: async () => ({ namespaces: await words("namespaces"), tools: await words("tools") }),
      async schema(target) {
        const dot = target.indexOf(".");
        if (dot < 0) {
          throw new McpxError("USAGE", `"${target}" is not <namespace.tool>`);
        }
        const { namespaces } = await discovery.loadNamespaces(ctx);
        const ns = discovery.pickNamespace(namespaces, target.slice(0, dot));
        if (ns.state !== "ready") throw discovery.unlistedError(ns);
        return discovery.pickTool(ns, target.slice(dot + 1)).inputSchema;
      },
      flags: flagWords(ctx.flags),
    });
    return {};
  },
  render: () => "",
});

/** `mcpx repl`: TypeScript statements in one session. */
export const scriptsRepl = defineOperation<
  { env?: string | string[]; envFile?: string },
  { exitCode: number }
>({
  id: "scripts.repl",
  summary: "Type TypeScript statements one at a time, in one session, every namespace a global",
  description:
    "Each statement runs in one Worker that lasts the whole repl, as a script does under `mcpx run`: every namespace is a global (memory.read_graph()), with tools, log and emit; top-level await works; a declared name stays for the next statement and may be declared again. A value is printed as `mcpx run` prints a result (a string as it is, anything else as JSON; what JSON cannot hold, inspected). A statement left open (a bracket, template literal or comment) continues on the next line. All statements share one session, so a server process leased by one (a browser, a memory graph) is the same process for the next; .exit, Ctrl-D, or Ctrl-C at the > prompt ends the session and its leases. Ctrl-C while a statement runs ends the repl. History is kept in repl_history under the state folder; Tab completes namespaces and their tools. With stdin or stdout not a terminal it says so and exits 2 at once.",
  params: [
    {
      name: "env",
      type: "string",
      doc: "Set a variable for the session, as KEY=VALUE; repeat it for more",
      repeatable: true,
    },
    {
      name: "envFile",
      type: "string",
      doc:
        "Read variables for the session from a dotenv file (KEY=VALUE lines); --env wins over it",
    },
  ],
  cli: {
    command: ["repl"],
    examples: [["mcpx repl", "TypeScript statements one at a time; every namespace is a global"], [
      "mcpx repl --env-file .env",
      "The same, with variables read from a file",
    ]],
  },
  http: { none: TERMINAL_ONLY },
  mcp: { expose: false },
  where: "local",
  needsTrust: true,
  output: (z) => z.object({ exitCode: z.number() }),
  async run(input, ctx) {
    requireTerminal(
      ctx,
      "repl",
      "mcpx exec '<code>' (or mcpx exec - < file) and mcpx run <script>",
    );
    const [{ runRepl }, { terminalPrompter }, { History }, misc] = await Promise.all([
      load<typeof import("../scripts/repl.ts")>("../scripts/repl.ts", import.meta.url),
      load<typeof import("../explore/prompt.ts")>("../explore/prompt.ts", import.meta.url),
      load<typeof import("../explore/history.ts")>("../explore/history.ts", import.meta.url),
      load<typeof import("./misc_ops.ts")>("./misc_ops.ts", import.meta.url),
    ]);
    return await runRepl(ctx, {
      env: input.env === undefined ? [] : Array.isArray(input.env) ? input.env : [input.env],
      envFile: input.envFile,
      prompter: terminalPrompter(),
      history: new History(await stateFile(ctx, "repl_history")),
      names: async () => (await misc.candidates.run({ kind: "targets" }, ctx)).candidates,
    });
  },
  render: () => "",
});
