import { defineOperation } from "./define.ts";
import { VERSION } from "../version.ts";
import { load } from "../_load.ts";

/** `mcpx version`. */
export const version = defineOperation<Record<string, never>, { version: string; deno: string }>({
  id: "mcpx.version",
  summary: "Print mcpx's version",
  params: [],
  cli: { command: ["version"] },
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
  cli: { command: ["completion"] },
  http: { method: "GET", path: "/v1/completion/{shell}" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({ shell: z.string(), script: z.string() }),
  async run(input) {
    const { completionScript } = await load<typeof import("../surfaces/completion.ts")>(
      "../surfaces/completion.ts",
      import.meta.url,
    );
    const { OPERATIONS } = await load<typeof import("./mod.ts")>("./mod.ts", import.meta.url);
    return { shell: input.shell, script: completionScript(input.shell as "bash", OPERATIONS) };
  },
  render: (out) => out.script,
});

/** `mcpx agents-md`: the instruction file an agent host injects. */
export const agentsMd = defineOperation<Record<string, never>, { text: string }>({
  id: "agents.md",
  summary: "Print AGENTS.md, the instructions an agent needs to use mcpx",
  params: [],
  cli: { command: ["agents-md"] },
  http: { method: "GET", path: "/v1/agents-md" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  output: (z) => z.object({ text: z.string() }),
  async run() {
    return { text: await Deno.readTextFile(new URL("../../AGENTS.md", import.meta.url)) };
  },
  render: (out) => out.text,
});
