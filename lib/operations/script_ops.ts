import { McpxError } from "../errors.ts";
import { defineOperation, type Zod } from "./define.ts";
import type { Context } from "../context.ts";
import type { RunRequest } from "../scripts/plan.ts";
import type { RunOutcome } from "../scripts/report.ts";
import type { ListedScript, ProbedLocation } from "../scripts/resolve.ts";
import { load } from "../_load.ts";
import { readInputFile } from "../_input.ts";

/** Why scripts have no `/v1` route: they run in the caller's process, not in the daemon. */
const LOCAL_ONLY =
  "A script runs in the caller's own process, with the caller's working directory, environment, stdin and terminal; the daemon only serves the tool calls it makes";

interface AdHocInput {
  stdio?: string;
  url?: string;
  name?: string;
}

interface RunInput extends AdHocInput {
  script: string;
  args?: string[];
  export?: string;
  format?: "text" | "logfmt" | "json";
  env?: string | string[];
  envFile?: string;
  noLauncher?: boolean;
  session?: string;
}

interface ExecInput extends AdHocInput {
  code: string;
  args?: string[];
  export?: string;
  format?: "text" | "logfmt" | "json";
  env?: string | string[];
  envFile?: string;
  noLauncher?: boolean;
  session?: string;
}

function usage(command: string, message: string): McpxError {
  return new McpxError("USAGE", message, { hint: `Run \`mcpx ${command} --help\`` });
}

/** `--session <name>` is the run's MCPX_SESSION_ID, after (so over) any --env of it. */
function withSession(env: string[], session: string | undefined): string[] {
  return session === undefined || session === "" ? env : [...env, `MCPX_SESSION_ID=${session}`];
}

/** `--env` given once is a string; a parser that collects repeats hands over a list. */
function pairs(env: string | string[] | undefined): string[] {
  return env === undefined ? [] : Array.isArray(env) ? env : [env];
}

const RUN_PARAMS = [
  {
    name: "export",
    type: "string",
    doc: "Call this named export with the arguments spread (f(a, b)) instead of the default export",
  },
  {
    name: "env",
    type: "string",
    doc: "Set a variable for the run, as KEY=VALUE; repeat it for more",
    // Collected into a list by a parser that honours `repeatable`; until then the last one wins.
    repeatable: true,
  },
  {
    name: "envFile",
    type: "string",
    doc: "Read variables for the run from a dotenv file (KEY=VALUE lines); --env wins over it",
  },
  {
    name: "format",
    type: "enum",
    values: ["text", "logfmt", "json"],
    doc: "How the script's log records are shown on stderr; the logging.format setting when absent",
  },
  {
    name: "session",
    type: "string",
    doc:
      "Run in this session (a named one from `mcpx session new` rejoins it): MCPX_SESSION_ID for the run",
  },
  {
    name: "noLauncher",
    type: "boolean",
    doc:
      "Hand the script to its runtime as it is: no globals, no console capture, no wrapping of its errors",
  },
  {
    name: "stdio",
    type: "string",
    doc:
      "Give the script this command line as an ad-hoc server, one more namespace (named as `mcpx ls --stdio` names it)",
  },
  {
    name: "url",
    type: "string",
    doc: "Give the script the MCP server at this URL as an ad-hoc server, one more namespace",
  },
  { name: "name", type: "string", doc: "The namespace of the ad-hoc server (--stdio, --url)" },
] as const;

/** The ad-hoc server a run names, if any. */
function adHocOf(input: AdHocInput): { adHoc?: AdHocInput } {
  if (input.stdio === undefined && input.url === undefined) {
    if (input.name !== undefined) {
      throw new McpxError("USAGE", "--name names an ad-hoc server: give --stdio or --url too");
    }
    return {};
  }
  return {
    adHoc: {
      ...(input.stdio !== undefined ? { stdio: input.stdio } : {}),
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.name !== undefined ? { name: input.name } : {}),
    },
  };
}

function envelopeSchema(z: Zod) {
  return z.object({
    exitCode: z.number(),
    ok: z.boolean().optional(),
    durationMs: z.number().optional(),
    runtime: z.enum(["worker", "deno", "bun", "node"]).optional(),
    script: z.string().optional(),
    session: z.string().optional(),
    runId: z.string().optional(),
    result: z.unknown().optional(),
    results: z.array(z.unknown()).optional(),
    stdout: z.string().optional(),
    logs: z.array(z.record(z.string(), z.unknown())).optional(),
    stderr: z.string().optional(),
    error: z.object({
      kind: z.string(),
      name: z.string(),
      message: z.string(),
      location: z.string().optional(),
      hint: z.string().optional(),
      stack: z.string().optional(),
    }).optional(),
    truncated: z.literal(true).optional(),
    spilledTo: z.string().optional(),
    bytes: z.number().optional(),
  });
}

async function run(ctx: Context, request: RunRequest): Promise<RunOutcome> {
  const { runScript } = await load<typeof import("../scripts/run.ts")>(
    "../scripts/run.ts",
    import.meta.url,
  );
  return await runScript(ctx, request);
}

/** `mcpx run <name|path> [args…]`. */
export const scriptsRun = defineOperation<RunInput, RunOutcome>({
  id: "scripts.run",
  summary: "Run a script by name or path: its stdout is the result, stderr its diagnostics",
  description:
    "A name is searched as .mcpx/scripts/<name>.ts upward from the working directory, then in $XDG_CONFIG_HOME/mcpx/scripts and ~/.config/mcpx/scripts (see paths.scripts); anything with a / or a script extension is a path. The arguments reach the script as Deno.args, process.argv.slice(2) and the global args; a default export is called with them as an array and what it returns is printed (a string as it is, anything else as JSON). log, emit, tools and every namespace are globals. Put -- before arguments that start with a dash. Exit status: the script's own, 1 when it throws, 2 for a missing --export, 124 on timeout. With --json, one document holds the result, emitted values, stdout, logs and stderr. Settings that shape a run: --prefix, --suffix, --before and --on-error (code around it, seeing script and result), --launcher (a template of your own), --no-capture-console, --typecheck (deno check instead of running); docs/launcher.md.",
  params: [
    {
      name: "script",
      type: "string",
      required: true,
      doc: "A script name (searched nearest first) or a path to a .ts/.js file",
    },
    {
      name: "args",
      type: "list",
      doc: "Arguments for the script: every word after the name",
    },
    ...RUN_PARAMS,
  ],
  cli: {
    command: ["run"],
    complete: "scripts",
    usage: "<name|path> [args...] [options]",
    positionals: (words) => {
      if (words.length === 0) {
        throw usage("run", '"mcpx run" needs a script name or path, e.g. `mcpx run hello`');
      }
      return { script: words[0], args: words.slice(1) };
    },
    fills: ["script", "args"],
    example: ["hello"],
    examples: [[
      "mcpx run summarize",
      "Run .mcpx/scripts/summarize.ts (searched upward, then ~/.config/mcpx/scripts)",
    ], [
      "mcpx run ./report.ts 2026-12 --format json",
      "A script by path, with an argument, its log as JSON lines",
    ], ["mcpx --runtime node run summarize", "The same script under Node"]],
  },
  http: { none: LOCAL_ONLY },
  // An ad-hoc server is named by a command line a user typed, not by an MCP client.
  mcp: { expose: true, hidden: ["stdio", "url", "name"] },
  where: "local",
  needsTrust: true,
  output: envelopeSchema,
  async run(input, ctx) {
    return await run(ctx, {
      script: input.script,
      args: input.args ?? [],
      export: input.export,
      ...(input.format ? { format: input.format } : {}),
      env: withSession(pairs(input.env), input.session),
      envFile: input.envFile,
      noLauncher: input.noLauncher,
      ...adHocOf(input),
    });
  },
  render: () => "",
});

/** `mcpx exec '<code>' [args…]`, or `mcpx exec -` for the program on stdin. */
export const scriptsExec = defineOperation<ExecInput, RunOutcome>({
  id: "scripts.exec",
  summary: "Run a program given on the command line (on stdin with -, from a file with @file)",
  description:
    "The program is TypeScript with the same globals as a script: every namespace is a bare identifier (fixture.echo({ text: 'hi' })), plus tools, log and emit. A single expression's value is printed; otherwise the code is the body of an async function, so `return x` prints x. Code with import or export statements runs as a module. Words after the program are its arguments. A program too long for one command-line argument (128 KiB on Linux) comes from stdin with - or from a file with @file (relative to the working directory; read at most up to daemon.maxRequestBytes, past which it is refused in one line); a program that itself starts with @ needs a space before it.",
  params: [
    {
      name: "code",
      type: "string",
      required: true,
      doc: "The program, - to read it from stdin, or @file to read it from a file",
    },
    {
      name: "args",
      type: "list",
      doc: "Arguments for the program: every word after it",
    },
    ...RUN_PARAMS,
  ],
  cli: {
    command: ["exec"],
    usage: "<code | - | @file> [args...] [options]",
    positionals: (words) => {
      if (words.length === 0) {
        throw usage(
          "exec",
          "\"mcpx exec\" needs a program, e.g. `mcpx exec '1 + 1'` (or - for stdin)",
        );
      }
      return { code: words[0], args: words.slice(1) };
    },
    fills: ["code", "args"],
    example: ["1 + 1"],
    examples: [
      [
        "mcpx exec 'await everything.get_sum({ a: 1, b: 2 })'",
        "A one-off program; an expression's value is printed",
      ],
      ["mcpx exec - < steps.ts", "The program from stdin"],
      ["mcpx exec @steps.ts", "The program from a file"],
    ],
  },
  http: { none: LOCAL_ONLY },
  // An ad-hoc server is named by a command line a user typed, not by an MCP client.
  mcp: {
    expose: true,
    hidden: ["stdio", "url", "name"],
    agent: {
      description:
        'Run a TypeScript program against every server; only what it returns or prints comes back. Each namespace is a global of async functions: `return (await filesystem.list_directory({ path: "." })).length`. Chain calls, loop, filter big results here rather than in many mcpx_call.',
      params: { code: "An expression (its value comes back), or statements with `return`" },
    },
  },
  where: "local",
  needsTrust: true,
  output: envelopeSchema,
  async run(input, ctx) {
    let code = input.code;
    const fromStdin = code === "-";
    if (fromStdin) code = await ctx.io.readStdin();
    else if (code.startsWith("@") && code.length > 1) {
      code = await readInputFile(
        ctx.io.cwd,
        code.slice(1),
        "the program file",
        "Write @<path to a .ts file>, or - to read the program from stdin",
        { maxBytes: (await ctx.settings()).get("daemon.maxRequestBytes") },
      );
    }
    if (code.trim() === "") throw usage("exec", "The program is empty");
    return await run(ctx, {
      code,
      args: input.args ?? [],
      export: input.export,
      ...(input.format ? { format: input.format } : {}),
      env: withSession(pairs(input.env), input.session),
      envFile: input.envFile,
      stdinUsed: fromStdin,
      noLauncher: input.noLauncher,
      ...adHocOf(input),
    });
  },
  render: () => "",
});

/** `mcpx scripts`: every reachable script, nearest first, shadowed ones marked. */
export const scriptsList = defineOperation<
  Record<string, never>,
  { scripts: ListedScript[]; searched: ProbedLocation[] }
>({
  id: "scripts.list",
  summary: "List the scripts `mcpx run <name>` can reach, with their first comment line",
  description:
    "Searched nearest first: .mcpx/scripts from the working directory upward, then $XDG_CONFIG_HOME/mcpx/scripts and ~/.config/mcpx/scripts, or what paths.scripts says. A script hidden by a nearer one of the same name is marked shadowed.",
  params: [],
  cli: {
    command: ["scripts"],
    examples: [[
      "mcpx scripts",
      "The scripts `mcpx run <name>` reaches, with their first comment line",
    ], ["mcpx --json scripts", "The same as JSON, with each script's path"]],
  },
  http: {
    none:
      "Scripts are found from the caller's working directory and configuration, which the daemon does not share",
  },
  mcp: { expose: true, readOnly: true },
  where: "local",
  output: (z) =>
    z.object({
      scripts: z.array(z.object({
        name: z.string(),
        path: z.string(),
        description: z.string(),
        shadowedBy: z.string().optional(),
      })),
      searched: z.array(z.object({
        path: z.string(),
        kind: z.enum(["dir", "file"]),
        from: z.string(),
        state: z.enum(["missing", "file", "dir"]),
      })),
    }),
  async run(_input, ctx) {
    const [{ listScripts, missingEntryWarnings }, { dirname }] = await Promise.all([
      load<typeof import("../scripts/resolve.ts")>("../scripts/resolve.ts", import.meta.url),
      load<typeof import("../_path.ts")>("../_path.ts", import.meta.url),
    ]);
    const settings = await ctx.settings();
    const source = settings.describe("paths.scripts").source;
    const search = {
      cwd: ctx.io.cwd,
      env: ctx.io.env,
      paths: settings.get("paths.scripts"),
      pathsBase: source.kind === "file" ? dirname(source.where) : ctx.io.cwd,
      allowOverlap: settings.get("plumbing.allowTsJsOverlap"),
    };
    for (const w of missingEntryWarnings(search)) ctx.io.err(`mcpx: warning: ${w}\n`);
    return listScripts(search);
  },
  async render(out) {
    const { clip, renderTable } = await load<typeof import("../table.ts")>(
      "../table.ts",
      import.meta.url,
    );
    if (out.scripts.length === 0) {
      return `No scripts. Searched:\n${
        out.searched.map((s) => `  ${s.path}  ${s.state}`).join("\n")
      }\nA script is a .ts file: put one at .mcpx/scripts/<name>.ts and run \`mcpx run <name>\`.\n`;
    }
    return renderTable(
      ["NAME", "DESCRIPTION", "PATH"],
      out.scripts.map((s) => [
        s.shadowedBy ? `${s.name} (shadowed)` : s.name,
        clip(s.description, 56),
        s.path,
      ]),
    );
  },
});
