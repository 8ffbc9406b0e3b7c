import { ERRORS, McpxError, messageOf } from "../errors.ts";
import { Context, type Host } from "../context.ts";
import { type Io, isOutputClosed } from "../io.ts";
import type { Operation, ParamSpec } from "../operations/define.ts";
import { paramFlag } from "../operations/define.ts";
import { COMMANDS } from "../operations/commands.ts";
import type { FlagValue } from "../settings/resolve.ts";
import { flagName, SETTINGS, type SettingSpec } from "../settings/table.ts";
import { didYouMean } from "../near.ts";
import { commandHelp, groupHelp, helpTopic, mainHelp } from "./help.ts";
import { execute } from "./execute.ts";
import { load } from "../_load.ts";

/** What the command line asked for. */
export interface ParsedArgs {
  op?: Operation;
  input: Record<string, unknown>;
  flags: FlagValue[];
  help: boolean;
  /** The group whose commands `mcpx <group> --help` asked for (`session`, `elicit`…). */
  group?: string;
}

const SETTING_FLAGS = new Map<string, string>(
  Object.keys(SETTINGS).map((key) => [flagName(key), key]),
);
const SPECS = SETTINGS as Record<string, SettingSpec>;

function usageError(message: string, op?: Operation): McpxError {
  return new McpxError("USAGE", message, {
    hint: `Run \`mcpx ${op ? op.cli.command.join(" ") + " " : ""}--help\``,
  });
}

function parseParam(op: Operation, p: ParamSpec, text: string, shown: string): unknown {
  if (p.type === "integer") {
    if (!/^-?\d+$/.test(text)) throw usageError(`${shown} takes a whole number, not "${text}"`, op);
    return Number(text);
  }
  if (p.type === "boolean") {
    if (!["true", "false"].includes(text)) {
      throw usageError(`${shown} takes true or false, not "${text}"`, op);
    }
    return text === "true";
  }
  if (p.type === "json") {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw usageError(`${shown} takes a JSON object, and "${text}" is not JSON`, op);
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw usageError(`${shown} takes a JSON object`, op);
    }
    return value;
  }
  if (p.type === "enum" && !p.values!.includes(text)) {
    throw usageError(
      `${shown} must be one of ${p.values!.join(", ")}, not "${text}"${
        didYouMean(text, p.values!)
      }`,
      op,
    );
  }
  return text;
}

/**
 * Parses a command line against the operations table and the settings table. Global options
 * (one per setting) may stand anywhere; a command's own options come after its name.
 * @throws {McpxError} USAGE naming the unknown command, option or bad value.
 */
export function parseArgs(
  args: readonly string[],
  ops: readonly Operation[],
): ParsedArgs {
  const out: ParsedArgs = { input: {}, flags: [], help: false };
  const positionals: string[] = [];
  // A word right after a boolean flag given bare (`--auth false`), by its place in positionals.
  const afterBoolean = new Map<number, string>();
  let op: Operation | undefined;
  let rest = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (rest || !arg.startsWith("-") || arg === "-") {
      if (!op && !rest) {
        // A two-word command beside a one-word one (`config import` beside `config`) wins its word.
        const pair = ops.find((o) =>
          o.cli.command.length > 1 && o.cli.command[0] === arg && o.cli.command[1] === args[i + 1]
        );
        op = pair ?? ops.find((o) => o.cli.command[0] === arg && o.cli.command.length === 1) ??
          ops.find((o) => o.cli.command[0] === arg);
        if (!op) {
          throw usageError(
            `Unknown command "${arg}"${didYouMean(arg, ops.map((o) => o.cli.command[0]))}`,
          );
        }
        // A command of two words (`elicit answer`): the next word picks among its group.
        if (op.cli.command.length > 1) {
          const group = ops.filter((o) => o.cli.command[0] === arg);
          const sub = args[i + 1];
          const found = group.find((o) => o.cli.command[1] === sub);
          if (!found && (sub === undefined || sub.startsWith("-"))) {
            const rest = args.slice(i + 1);
            if (rest.includes("-h") || rest.includes("--help")) {
              return { ...out, help: true, group: arg };
            }
          }
          if (!found) {
            const subs = group.map((o) => o.cli.command[1]);
            throw usageError(
              sub === undefined || sub.startsWith("-")
                ? `"mcpx ${arg}" needs one of: ${subs.join(", ")}`
                : `Unknown command "${arg} ${sub}"${didYouMean(sub, subs)}`,
            );
          }
          op = found;
          i++;
        }
        out.op = op;
        continue;
      }
      positionals.push(arg);
      continue;
    }
    if (arg === "--") {
      rest = true;
      continue;
    }
    if (arg === "-h" || arg === "--help") {
      out.help = true;
      continue;
    }
    if (arg === "-V" || arg === "--version") {
      op ??= out.op = ops.find((o) => o.id === "mcpx.version");
      continue;
    }
    const eq = arg.indexOf("=");
    let name = eq >= 0 ? arg.slice(0, eq) : arg;
    let inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
    let negated = false;
    const param = op?.params.find((p) =>
      !p.positional && !op?.cli.fills?.includes(p.name) &&
      (paramFlag(p.name) === name || (p.short && `-${p.short}` === name))
    );
    let settingKey = SETTING_FLAGS.get(name);
    if (!param && !settingKey && name.startsWith("--no-")) {
      const positive = "--" + name.slice(5);
      const p = op?.params.find((q) =>
        !q.positional && q.type === "boolean" && paramFlag(q.name) === positive
      );
      const s = SETTING_FLAGS.get(positive);
      if (p || (s && SPECS[s].type === "boolean")) {
        if (inline !== undefined) throw usageError(`${name} takes no value`, op);
        [name, inline, negated, settingKey] = [positive, "false", true, s];
        if (p) {
          out.input[p.name] = false;
          continue;
        }
      }
    }
    if (param) {
      if (param.type === "boolean") {
        out.input[param.name] = inline === undefined ? true : parseParam(op!, param, inline, name);
        if (inline === undefined && !negated) afterBoolean.set(positionals.length, name);
        continue;
      }
      const text = inline ?? args[++i];
      if (text === undefined) throw usageError(`${name} needs a value`, op);
      const value = parseParam(op!, param, text, name);
      if (param.repeatable || param.type === "list") {
        const prior = out.input[param.name];
        out.input[param.name] = [...(Array.isArray(prior) ? prior : []), value];
      } else out.input[param.name] = value;
      continue;
    }
    if (settingKey) {
      const spec = SPECS[settingKey];
      let text = inline;
      if (text === undefined) {
        if (spec.type === "boolean") text = "true";
        else if (
          spec.bare !== undefined && !(spec.values ?? []).includes(args[i + 1] ?? "")
        ) text = spec.bare;
        else {
          text = args[++i];
          if (text === undefined) throw usageError(`${name} needs a value`, op);
        }
      }
      out.flags.push({ key: settingKey, text, spelling: negated ? `--no-${name.slice(2)}` : name });
      continue;
    }
    const known = [
      ...SETTING_FLAGS.keys(),
      ...(op?.params.filter((p) => !p.positional && !op?.cli.fills?.includes(p.name)).map((p) =>
        paramFlag(p.name)
      ) ?? []),
    ];
    throw usageError(
      `Unknown option "${name}"${op ? ` for "mcpx ${op.cli.command.join(" ")}"` : ""}${
        didYouMean(name, known)
      }`,
      op,
    );
  }
  if (op && !out.help) {
    for (const p of op.params) {
      if (
        p.required && !p.positional && !op.cli.fills?.includes(p.name) && !(p.name in out.input)
      ) {
        throw usageError(`"mcpx ${op.cli.command.join(" ")}" needs ${paramFlag(p.name)}`, op);
      }
    }
  }
  if (op && !out.help && op.cli.positionals) {
    Object.assign(out.input, op.cli.positionals(positionals));
  } else if (op && !out.help) {
    const pos = op.params.filter((p) => p.positional);
    if (positionals.length > pos.length) {
      const word = positionals[pos.length];
      const flag = afterBoolean.get(pos.length);
      if (flag && (word === "true" || word === "false")) {
        throw usageError(
          `${flag} takes no value after a space: write ${
            word === "false" ? `--no-${flag.slice(2)}` : flag
          } (or ${flag}=${word})`,
          op,
        );
      }
      throw usageError(
        `Unexpected argument "${word}" for "mcpx ${op.cli.command.join(" ")}"`,
        op,
      );
    }
    pos.forEach((p, i) => {
      if (positionals[i] !== undefined) {
        out.input[p.name] = parseParam(op!, p, positionals[i], `<${p.name}>`);
      } else if (p.required) {
        throw usageError(`"mcpx ${op!.cli.command.join(" ")}" needs <${p.name}>`, op);
      }
    });
  }
  return out;
}

async function allOperations(): Promise<readonly Operation[]> {
  return (await load<typeof import("../operations/mod.ts")>(
    "../operations/mod.ts",
    import.meta.url,
  )).OPERATIONS;
}

/**
 * The operations a command line needs: only its command's, found by its first word, so a cheap
 * command loads one module; all of them for help, completion or a word that is no command.
 */
async function operationsFor(
  args: readonly string[],
  terminal = false,
): Promise<readonly Operation[]> {
  let word: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") break;
    if (!arg.startsWith("-") || arg === "-") {
      word = arg;
      break;
    }
    const key = !arg.includes("=") ? SETTING_FLAGS.get(arg) : undefined;
    if (key && SPECS[key].type !== "boolean") i++; // its value is the next word
  }
  const version = args.includes("--version") || args.includes("-V");
  // `mcpx --version` alone needs its own operation only, not every module's (~1.5 ms).
  if (word === undefined && version) return [await COMMANDS.version() as Operation];
  // Bare `mcpx` on a terminal opens the browser: its operation alone (help loads every one).
  if (word === undefined && terminal && !args.includes("-h") && !args.includes("--help")) {
    return [await COMMANDS.tui() as Operation];
  }
  const load = word === undefined ? undefined : COMMANDS[word];
  if (!load) return await allOperations();
  const loaded = await load();
  const ops: Operation[] = Array.isArray(loaded) ? [...loaded] : [loaded as Operation];
  if (version) ops.push(await COMMANDS.version() as Operation);
  return ops;
}

/** The inline rung, loaded only when a command has to host its daemon itself. */
function inlineRung(): NonNullable<Context["inline"]> {
  let stop: (() => Promise<void>) | undefined;
  const rung: NonNullable<Context["inline"]> = {
    started: false,
    async start(command) {
      if (stop) return;
      const { hostInline } = await load<typeof import("./inline.ts")>(
        "./inline.ts",
        import.meta.url,
      );
      stop = await hostInline(command);
    },
    async stop() {
      const s = stop;
      stop = undefined;
      await s?.();
      rung.started = false;
    },
  };
  return rung;
}

/**
 * The surfaces as the operations reach them (Context.host): the command line is the composition
 * root, so each is loaded here, on its first use, and `mcpx ls` loads none of them.
 */
export const CLI_HOST: Host = {
  async runDaemon(ctx, autostarted, listen, loaded) {
    const { runDaemon } = await load<typeof import("./daemon.ts")>("./daemon.ts", import.meta.url);
    loaded?.();
    return await runDaemon(ctx, autostarted, listen);
  },
  async serveMcp(ctx, http, expose, options) {
    const { serveFromCli } = await load<typeof import("./mcp/serve_cli.ts")>(
      "./mcp/serve_cli.ts",
      import.meta.url,
    );
    return await serveFromCli(ctx, http, expose, options);
  },
  runCommand: (args, io) => main(args, io),
  async openTui(ctx) {
    const { runTui } = await load<typeof import("../tui/run.ts")>("../tui/run.ts", import.meta.url);
    return await runTui(ctx);
  },
  async completionScript(shell) {
    const { completionScript } = await load<typeof import("./completion.ts")>(
      "./completion.ts",
      import.meta.url,
    );
    return completionScript(shell, await allOperations());
  },
  async openapiDocument() {
    const [{ openapiDocument }, operations, { z }] = await Promise.all([
      load<typeof import("./openapi.ts")>("./openapi.ts", import.meta.url),
      allOperations(),
      load<typeof import("zod")>("zod", import.meta.url),
    ]);
    return openapiDocument(operations, z);
  },
  helpTopic: async (words) => helpTopic(await allOperations(), words),
  commandWords: async () => (await allOperations()).map((op) => op.cli.command[0]),
};

/**
 * A message and its hint as one line: a sentence mark between them unless the message ends in
 * one; a message that ends by introducing what follows (a server's `…the following fields:`)
 * loses its colon, the hint being no list.
 */
export function joinHint(message: string, hint?: string): string {
  if (!hint) return message;
  if (/[?.!]$/.test(message)) return `${message} ${hint}`;
  return `${message.replace(/\s*:$/, "")}. ${hint}`;
}

/** Runs one command line and returns the exit status. Never throws for a user's mistake. */
export async function main(args: readonly string[], io: Io): Promise<number> {
  // `mcpx --tui` is `mcpx tui`.
  const end = args.indexOf("--");
  const tuiFlag = args.indexOf("--tui");
  if (tuiFlag >= 0 && (end < 0 || tuiFlag < end)) {
    args = ["tui", ...args.slice(0, tuiFlag), ...args.slice(tuiFlag + 1)];
  }
  let ctx: Context | undefined;
  try {
    return await command(args, io, (c) => (ctx = c));
  } catch (error) {
    // Reporting a failure to a stdout that has closed since.
    if (isOutputClosed(error)) return 0;
    throw error;
  } finally {
    // What the command hosted (an inline daemon and its servers) goes with it.
    await ctx?.close();
  }
}

async function command(
  args: readonly string[],
  io: Io,
  made: (ctx: Context) => void,
): Promise<number> {
  let ctx: Context | undefined;
  let op: Operation | undefined;
  let typed: Record<string, unknown> = {};
  let json = args.includes("--json");
  try {
    const ops = await operationsFor(args, io.isTerminal && io.stdinIsTerminal === true);
    const parsed = parseArgs(args, ops);
    // Bare `mcpx` on a terminal opens the browser; anywhere else it prints help.
    if (!parsed.op && !parsed.help && io.isTerminal && io.stdinIsTerminal) {
      parsed.op = ops.find((o) => o.id === "tui.open");
    }
    ctx = new Context(io, parsed.flags);
    made(ctx);
    // The ladder's last rung, should `daemon.inline` ask for it (lib/surfaces/inline.ts).
    ctx.inline = inlineRung();
    ctx.host = CLI_HOST;
    json = ctx.json;
    for (const w of ctx.boot.warnings) io.err(`mcpx: warning: ${w}\n`);
    if (parsed.help || !parsed.op) {
      io.out(
        parsed.op
          ? commandHelp(parsed.op, ops)
          : parsed.group
          ? groupHelp(ops, parsed.group)
          : mainHelp(await allOperations()),
      );
      return 0;
    }
    op = parsed.op;
    typed = parsed.input;
    const sent = op.cli.request ? await op.cli.request(parsed.input, ctx) : parsed.input;
    const output = await execute(op, sent, ctx);
    const loaded = ctx.loadedSettings();
    if (loaded) {
      // An operation that reported broken settings itself (doctor) still succeeded.
      const settings = await loaded.catch(() => undefined);
      for (const w of settings?.warnings ?? []) io.err(`mcpx: warning: ${w}\n`);
    }
    for (const w of ctx.locationWarnings()) io.err(`mcpx: warning: ${w}\n`);
    if (json) {
      const doc = op.json ? await op.json(output as never, ctx, typed as never) : output;
      io.out(JSON.stringify(doc, null, 2) + "\n");
    } else {io.out(
        op.render
          ? await op.render(output as never, ctx, typed as never)
          : JSON.stringify(output, null, 2) + "\n",
      );}
    const code = (output as { exitCode?: unknown } | null)?.exitCode;
    return typeof code === "number" ? code : 0;
  } catch (error) {
    // Whoever read stdout stopped reading (`mcpx ls | head -1`): that is theirs to decide.
    if (isOutputClosed(error)) return 0;
    // What the settings had to say (a file left out, say) may be why the command failed.
    const loaded = await ctx?.loadedSettings()?.catch(() => undefined);
    for (const w of loaded?.warnings ?? []) io.err(`mcpx: warning: ${w}\n`);
    for (const w of ctx?.locationWarnings() ?? []) io.err(`mcpx: warning: ${w}\n`);
    if (!(error instanceof McpxError)) {
      const message = messageOf(error);
      // Under --json the document on stdout is the one report; the text would repeat it.
      if (json) io.out(JSON.stringify({ error: { code: "INTERNAL", message } }, null, 2) + "\n");
      else io.err(`mcpx: internal error: ${message}. ${ERRORS.INTERNAL.hint}\n`);
      if (io.env.MCPX_DEBUG && error instanceof Error) io.err(`${error.stack}\n`);
      return ERRORS.INTERNAL.exit;
    }
    if (json) {
      // The operation's own document, when it has one; failing to make it leaves the usual one.
      const own = op?.jsonError && ctx
        ? await Promise.resolve(op.jsonError(error, ctx, typed)).catch(() => undefined)
        : undefined;
      const doc = own ??
        {
          error: {
            code: error.code,
            message: error.message,
            hint: error.hint || undefined,
            // A question's ticket and the command that answers it go with exit 75.
            ...(error.code === "INPUT_REQUIRED" ? { data: error.data } : {}),
          },
        };
      io.out(JSON.stringify(doc, null, 2) + "\n");
    } else {
      io.err(`mcpx: ${joinHint(error.message, error.hint)}\n`);
    }
    return ERRORS[error.code].exit;
  }
}
