import { type CandidateKind, defineOperation } from "./define.ts";
import { VERSION } from "../version.ts";
import { load } from "../_load.ts";
import { McpxError } from "../errors.ts";
import { didYouMean } from "../near.ts";

/** `mcpx version`. */
export const version = defineOperation<Record<string, never>, { version: string; deno: string }>({
  id: "mcpx.version",
  summary: "Print mcpx's version",
  params: [],
  cli: {
    command: ["version"],
    examples: [["mcpx version", "mcpx's version and Deno's"], [
      "mcpx --json version",
      "The same as JSON",
    ]],
  },
  http: { method: "GET", path: "/v1/version" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  output: (z) => z.object({ version: z.string(), deno: z.string() }),
  run: () => Promise.resolve({ version: VERSION, deno: Deno.version.deno }),
  render: (v) => `mcpx ${v.version} (deno ${v.deno})\n`,
});

/** `mcpx completion <shell>`: a completion script generated from the operations and settings. */
export const completion = defineOperation<{ shell: string }, { shell: string; script: string }>({
  id: "completion.script",
  summary: "Print a shell completion script (bash, zsh or fish)",
  description:
    "Install with e.g. `mcpx completion bash > ~/.local/share/bash-completion/completions/mcpx`.",
  params: [{
    name: "shell",
    type: "enum",
    values: ["bash", "zsh", "fish"],
    positional: true,
    required: true,
    doc: "The shell to complete for",
  }],
  cli: {
    command: ["completion"],
    examples: [[
      "mcpx completion bash > ~/.local/share/bash-completion/completions/mcpx",
      "Install bash completion",
    ], ["mcpx completion fish > ~/.config/fish/completions/mcpx.fish", "Install fish completion"]],
  },
  http: { method: "GET", path: "/v1/completion/{shell}" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({ shell: z.string(), script: z.string() }),
  async run(input, ctx) {
    return { shell: input.shell, script: await ctx.host.completionScript(input.shell as "bash") };
  },
  render: (out) => out.script,
});

const KINDS = ["namespaces", "tools", "targets", "scripts"] as const;

/**
 * `mcpx candidates <kind>`: the words a shell completes to, from the schema cache and the script
 * folders; no server or daemon is started. Nothing to offer (no configuration, a broken one)
 * prints nothing and exits 0: a completion must never print an error into a command line.
 */
export const candidates = defineOperation<
  { kind: CandidateKind },
  { kind: CandidateKind; candidates: string[] }
>({
  id: "completion.candidates",
  summary: "Print what a shell completes to: namespaces, tools, both, or scripts",
  description:
    "One word per line: `namespaces`, `tools` (`ns.tool`, as `mcpx types` names them), `targets` (both) or `scripts` (what `mcpx run` finds). Read from the schema cache and the script folders without starting anything; where there is nothing to offer it prints nothing and exits 0.",
  params: [{
    name: "kind",
    type: "enum",
    values: KINDS,
    positional: true,
    required: true,
    doc: "namespaces, tools, targets or scripts",
  }],
  cli: {
    command: ["candidates"],
    examples: [["mcpx candidates tools", "Every ns.tool name a shell completes to"], [
      "mcpx candidates scripts",
      "Every script name",
    ]],
  },
  http: { method: "GET", path: "/v1/candidates/{kind}" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({ kind: z.enum(KINDS), candidates: z.array(z.string()) }),
  async run(input, ctx) {
    const words = async (): Promise<string[]> => {
      if (input.kind === "scripts") {
        const { scriptsList } = await load<typeof import("./script_ops.ts")>(
          "./script_ops.ts",
          import.meta.url,
        );
        const out = await scriptsList.run({}, ctx);
        return out.scripts.filter((s) => !s.shadowedBy).map((s) => s.name);
      }
      const { loadNamespaces } = await load<typeof import("../discovery/load.ts")>(
        "../discovery/load.ts",
        import.meta.url,
      );
      const { functionNames } = await load<typeof import("../names.ts")>(
        "../names.ts",
        import.meta.url,
      );
      const shown = (await loadNamespaces(ctx)).namespaces.filter((n) => n.state !== "disabled");
      const namespaces = shown.map((n) => n.def.namespace);
      const tools = shown.flatMap((n) => {
        const names = functionNames(n.tools);
        return n.tools.map((t) => `${n.def.namespace}.${names.get(t.name)}`);
      });
      if (input.kind === "namespaces") return namespaces;
      return input.kind === "tools" ? tools : [...namespaces, ...tools];
    };
    return { kind: input.kind, candidates: await words().catch(() => []) };
  },
  render: (out) => out.candidates.map((c) => c + "\n").join(""),
});

/** `mcpx agents-md`: the instruction file an agent host injects. */
export const agentsMd = defineOperation<Record<string, never>, { text: string }>({
  id: "agents.md",
  summary: "Print AGENTS.md, the instructions an agent needs to use mcpx",
  params: [],
  cli: {
    command: ["agents-md"],
    examples: [["mcpx agents-md", "The instructions an agent needs to use mcpx"], [
      "mcpx agents-md >> AGENTS.md",
      "Add them to a project's own file",
    ]],
  },
  http: { method: "GET", path: "/v1/agents-md" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  output: (z) => z.object({ text: z.string() }),
  async run() {
    return { text: await Deno.readTextFile(new URL("../../AGENTS.md", import.meta.url)) };
  },
  render: (out) => out.text,
});

/**
 * `mcpx help [topic]`: the top-level help, every command's (`help session new`), a group's
 * (`help session`), every command with its summary (`help commands`), or every global option
 * (`help options`); all of it from the operations and settings tables.
 */
export const help = defineOperation<{ topic?: string[] }, { topic: string; text: string }>({
  id: "help.show",
  summary: "Show help: for mcpx, one command, a group, every command, or every option",
  params: [{
    name: "topic",
    type: "list",
    doc: "A command (`call`, `session new`), a group (`session`), `commands` or `options`",
  }],
  cli: {
    command: ["help"],
    usage: "[<command> | commands | options]",
    positionals: (words) => ({ topic: [...words] }),
    fills: ["topic"],
    example: ["session", "new"],
    examples: [
      ["mcpx help call", "How to call one tool: usage, options and examples"],
      ["mcpx help session", "The commands of a group"],
      ["mcpx help options", "Every global option, grouped by what it sets"],
    ],
  },
  http: { none: "help is the command line's own text; /v1 has its OpenAPI document" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({ topic: z.string(), text: z.string() }),
  async run(input, ctx) {
    const words = input.topic ?? [];
    const topic = words.join(" ");
    const text = await ctx.host.helpTopic(words);
    if (text !== undefined) return { topic, text };
    const known = ["commands", "options", ...new Set(await ctx.host.commandWords())];
    throw new McpxError(
      "USAGE",
      `No help for "${topic}"${didYouMean(words.at(-1) ?? topic, known)}`,
      { hint: "Run `mcpx help commands` for every command" },
    );
  },
  render: (out) => out.text,
});
