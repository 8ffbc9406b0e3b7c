import { join } from "node:path";
import { defineOperation } from "./define.ts";
import { load } from "../_load.ts";

interface ImportOutput {
  source: string;
  files: string[];
  config: string;
  written: boolean;
  servers: { name: string; entry: Record<string, unknown>; from: string; status: string }[];
}

/** `mcpx config import <host|path> [--write]`: other hosts' servers into this configuration. */
export const configImport = defineOperation<{ source: string; write?: boolean }, ImportOutput>({
  id: "config.import",
  summary: "Import the servers another MCP host configures (Claude, Cursor, VS Code)",
  description:
    "Reads the mcpServers of claude-desktop (~/.config/Claude/claude_desktop_config.json; ~/Library/Application Support/Claude on macOS), claude-code (./.mcp.json, ~/.claude.json with its entry for this directory), cursor (./.cursor/mcp.json, ~/.cursor/mcp.json), vscode (./.vscode/mcp.json, its servers) or any file given by path. Without --write it prints what it would add; with --write it adds each server the primary configuration does not have yet (creating ./.mcpx.json when there is none), comments and formatting kept. The edited configuration is a new version: `mcpx trust` it again before its new servers start.",
  params: [
    {
      name: "source",
      type: "string",
      positional: true,
      required: true,
      doc: "claude-desktop, claude-code, cursor, vscode, or a file's path",
    },
    { name: "write", type: "boolean", doc: "Add them to the primary configuration file" },
  ],
  cli: {
    command: ["config", "import"],
    examples: [[
      "mcpx config import vscode",
      "Show the servers VS Code configures, as mcpx would write them",
    ], ["mcpx config import claude --write", "Write Claude's servers into .mcpx.json"]],
  },
  http: { none: "It reads and edits files of the caller's machine" },
  mcp: { expose: false },
  where: "local",
  output: (z) =>
    z.object({
      source: z.string(),
      files: z.array(z.string()),
      config: z.string(),
      written: z.boolean(),
      servers: z.array(
        z.object({
          name: z.string(),
          entry: z.record(z.string(), z.unknown()),
          from: z.string(),
          status: z.string(),
        }),
      ),
    }),
  async run(input, ctx) {
    const { importServers, addToConfig } = await load<typeof import("../config/import.ts")>(
      "../config/import.ts",
      import.meta.url,
    );
    const { files, servers } = await importServers(input.source, ctx.io.env, ctx.io.cwd);
    const config = ctx.location().primary ?? join(ctx.io.cwd, ".mcpx.json");
    let skipped = new Set<string>();
    if (input.write) {
      skipped = new Set((await addToConfig(config, servers)).skipped);
    } else {
      const { readConfigText, loadConfig } = await load<typeof import("../config/load.ts")>(
        "../config/load.ts",
        import.meta.url,
      );
      try {
        const have = (await loadConfig(config, readConfigText(config))).mcpServers;
        skipped = new Set(servers.map((s) => s.name).filter((n) => Object.hasOwn(have, n)));
      } catch { /* no configuration yet: everything is new */ }
    }
    return {
      source: input.source,
      files,
      config,
      written: input.write === true,
      servers: servers.map((s) => ({
        name: s.name,
        entry: s.entry as Record<string, unknown>,
        from: s.from,
        status: skipped.has(s.name) ? "exists" : input.write ? "added" : "new",
      })),
    };
  },
  render(o) {
    const lines = o.servers.map((s) =>
      `${s.status.padEnd(6)} ${s.name}  ${JSON.stringify(s.entry)}`
    );
    const fresh = o.servers.filter((s) => s.status !== "exists").length;
    lines.push(
      o.written
        ? `${fresh} server(s) added to ${o.config}; run \`mcpx trust\` before they start`
        : `${fresh} server(s) to add to ${o.config}: run again with --write`,
    );
    return lines.join("\n") + "\n";
  },
});
