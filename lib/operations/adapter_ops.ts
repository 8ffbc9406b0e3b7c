import { defineOperation } from "./define.ts";
import { load } from "../_load.ts";
import { McpxError } from "../errors.ts";
import { didYouMean } from "../near.ts";
import type { Context } from "../context.ts";

async function declared(ctx: Context, file?: string) {
  const { configuredAdapters, readAdapters } = await load<typeof import("../adapters/declare.ts")>(
    "../adapters/declare.ts",
    import.meta.url,
  );
  return file !== undefined
    ? readAdapters(file, ctx.io.cwd)
    : configuredAdapters(await ctx.settings(), ctx.io.cwd);
}

/**
 * Refuses what `mcpx ls` refuses of the adapters beside the configuration (an adapter named like
 * a configured server: CONFIG_INVALID, exit 3), by building the same server model.
 */
async function sameAsLs(
  ctx: Context,
  adapters: Awaited<ReturnType<typeof declared>>,
): Promise<void> {
  if (adapters.length === 0 || !ctx.location().primary) return;
  const fp = ctx.fingerprintSync();
  const [{ loadConfig }, { serverDefs }] = await Promise.all([
    load<typeof import("../config/load.ts")>("../config/load.ts", import.meta.url),
    load<typeof import("../config/servers.ts")>("../config/servers.ts", import.meta.url),
  ]);
  serverDefs(await loadConfig(fp.path, fp.text), { adapters, warnings: [] });
}

/** `mcpx adapter serve <name>`: one adapter as a stdio MCP server; the daemon starts it. */
export const adapterServe = defineOperation<{ name: string; file?: string }, { exitCode: number }>({
  id: "adapter.serve",
  summary: "Serve one adapter (a command-line program) as a stdio MCP server",
  description:
    "The daemon runs this for each adapter `paths.adapters` declares; it is rarely typed by hand. Each tool call runs the program once with an argument vector built from the declared parameters: no shell, and a non-zero exit is a result (exitCode, stdout, stderr) rather than an error, unless the declaration names it a failure (errorExitCodes). docs/adapters.md.",
  params: [
    { name: "name", type: "string", positional: true, required: true, doc: "The adapter's name" },
    {
      name: "file",
      type: "string",
      doc: "The declaration file (or folder) to read instead of paths.adapters",
    },
  ],
  cli: {
    command: ["adapter", "serve"],
    examples: [["mcpx adapter serve git", "The adapter git as a stdio MCP server"], [
      "mcpx adapter serve git --file adapters/",
      "One declared in a folder of your own",
    ]],
  },
  http: { none: "It speaks MCP on its own stdin and stdout" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({ exitCode: z.number() }),
  async run(input, ctx) {
    const all = await declared(ctx, input.file);
    const adapter = all.find((a) => a.name === input.name);
    if (!adapter) {
      const names = all.map((a) => a.name);
      throw new McpxError(
        "SERVER_NOT_FOUND",
        `No adapter is called "${input.name}"${didYouMean(input.name, names)}`,
        {
          hint: names.length
            ? `Adapters declared: ${names.join(", ")}`
            : "No adapter is declared: set paths.adapters (docs/adapters.md)",
        },
      );
    }
    const { serveAdapter } = await load<typeof import("../adapters/serve.ts")>(
      "../adapters/serve.ts",
      import.meta.url,
    );
    await serveAdapter(adapter);
    return { exitCode: 0 };
  },
  render: () => "",
});

interface CheckEntry {
  name: string;
  command: string;
  file: string;
  installed: boolean;
  /** Where the program was found. */
  path?: string;
  tools: number;
}

/** `mcpx adapter check`: whether each declared adapter's program is installed. */
export const adapterCheck = defineOperation<
  Record<string, never>,
  { adapters: CheckEntry[]; exitCode: number }
>({
  id: "adapter.check",
  summary: "Say whether each adapter's program is installed",
  description:
    "Looks each adapter's command up on PATH (or checks the path it names), starting nothing. Exit status 1 when any is missing.",
  params: [],
  cli: {
    command: ["adapter", "check"],
    examples: [["mcpx adapter check", "Whether each adapter's program is installed"], [
      "mcpx --paths-adapters ./adapters adapter check",
      "The adapters declared in a folder of your own",
    ]],
  },
  http: { method: "GET", path: "/v1/adapters" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  output: (z) =>
    z.object({
      adapters: z.array(z.object({
        name: z.string(),
        command: z.string(),
        file: z.string(),
        installed: z.boolean(),
        path: z.string().optional(),
        tools: z.number(),
      })),
      exitCode: z.number(),
    }),
  async run(_input, ctx) {
    const { findOnPath } = await load<typeof import("../scripts/select.ts")>(
      "../scripts/select.ts",
      import.meta.url,
    );
    const found = await declared(ctx);
    await sameAsLs(ctx, found);
    const adapters = found.map((a): CheckEntry => {
      let path: string | undefined;
      if (a.command.includes("/")) {
        try {
          const info = Deno.statSync(a.command);
          if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) path = a.command;
        } catch { /* missing */ }
      } else path = findOnPath(a.command, ctx.io.env);
      return {
        name: a.name,
        command: a.command,
        file: a.file,
        installed: path !== undefined,
        ...(path !== undefined ? { path } : {}),
        tools: a.tools.length,
      };
    });
    return { adapters, exitCode: adapters.every((a) => a.installed) ? 0 : 1 };
  },
  render(out) {
    if (out.adapters.length === 0) return "No adapter is declared (paths.adapters)\n";
    return out.adapters.map((a) =>
      a.installed
        ? `ok       ${a.name}: ${a.command} (${a.path}), ${a.tools} tool${
          a.tools === 1 ? "" : "s"
        }\n`
        : `missing  ${a.name}: "${a.command}" is not installed (not found on PATH); declared in ${a.file}\n`
    ).join("");
  },
});
