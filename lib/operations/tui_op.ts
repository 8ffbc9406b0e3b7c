import { defineOperation } from "./define.ts";
import { McpxError } from "../errors.ts";

/** `mcpx tui` (also `mcpx --tui`, and bare `mcpx` on a terminal): the six-view browser. */
export const tuiOpen = defineOperation<Record<string, never>, { exitCode: number }>({
  id: "tui.open",
  summary: "Browse namespaces, tools, the log, stats, servers, sessions and storage full-screen",
  description:
    "Six views named in the header, `]` and `[` between them: tools (namespaces, that namespace's tools, one signature; moving the cursor loads the next pane), log (newest last, follows), stats (`d` cycles calls, servers, errors, sessions, slowest, volume), servers (processes with pid, uptime and why each stopped), sessions, storage (what each part of mcpx's files costs on disk). `/` filters the focused list, Enter or a click opens a row in full, `r` refreshes, `q` or Ctrl-C quits. Needs a terminal on stdin and stdout. `mcpx --tui` is the same command, and `mcpx` with no command opens it on a terminal and prints help elsewhere (docs/ui.md).",
  params: [],
  cli: {
    command: ["tui"],
    examples: [["mcpx tui", "The full-screen browser (bare `mcpx` on a terminal opens it too)"], [
      "mcpx --profile browser tui",
      "The same with a profile's servers",
    ]],
  },
  http: { none: "it draws on the caller's terminal" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({ exitCode: z.number() }),
  async run(_input, ctx) {
    if (!ctx.io.isTerminal || !ctx.io.stdinIsTerminal) {
      throw new McpxError("USAGE", "mcpx tui needs a terminal on stdin and stdout", {
        hint: "Run it in a terminal; `mcpx ls`, `mcpx log` and `mcpx stats` print the same",
      });
    }
    return { exitCode: await ctx.host.openTui(ctx) };
  },
  render: () => "",
});
