import type { Operation, ParamSpec } from "../operations/define.ts";
import { paramFlag } from "../operations/define.ts";
import { envName, flagName, isPlumbing, SETTINGS, type SettingSpec } from "../settings/table.ts";

/** The widest line help prints. */
export const HELP_WIDTH = 100;

/**
 * The commands by task, each by its first word (a two-word command shows as its group): the
 * order `mcpx --help`, `mcpx help commands` and the man page list them in. The first group is
 * the loop, printed with summaries; a test holds every command word to exactly one group.
 */
export const HELP_GROUPS: readonly (readonly [title: string, words: readonly string[]])[] = [
  ["Find and call tools", ["ls", "search", "types", "call", "run", "exec"]],
  ["Tools", [
    "catalog",
    "schema",
    "client",
    "tools",
    "prompts",
    "resources",
    "complete",
    "refresh",
  ]],
  ["Scripts", ["scripts", "explore", "repl"]],
  ["Sessions", ["session", "end-session"]],
  ["Questions", ["elicit"]],
  ["Tasks", ["tasks"]],
  ["The daemon", ["status", "start", "stop", "restart", "daemons", "daemon", "health", "events"]],
  ["Configuration", ["config", "trust", "auth", "registry", "doctor"]],
  ["Serving", ["serve", "adapter", "api", "openapi", "service"]],
  ["Logs and views", ["log", "stats", "storage", "tui", "ui"]],
  ["Shell", ["help", "completion", "candidates", "agents-md", "version"]],
];

/** The settings whose flags `mcpx --help` shows; the rest are in `mcpx help options`. */
export const COMMON_OPTIONS: readonly string[] = [
  "output.json",
  "config",
  "select.profiles",
  "select.allProfiles",
  "daemon.inline",
  "output.maxBytes",
  "script.runtime",
  "logging.level",
];

const SPECS = SETTINGS as Record<string, SettingSpec>;

/** `text` broken at spaces into lines of at most `width` columns (a longer word stands alone). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/ +/)) {
      if (word === "") continue;
      if (line !== "" && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line === "" ? word : `${line} ${word}`;
    }
    lines.push(line);
  }
  return lines;
}

function indented(text: string, indent: string): string {
  return wrap(text, HELP_WIDTH - indent.length).map((l) => (l ? indent + l : l)).join("\n") + "\n";
}

/**
 * Two columns, the second wrapped under itself; a first cell wider than `max` stands on its own
 * line with the second below it.
 */
function columns(rows: readonly (readonly [string, string])[], indent = "  ", max = 26): string {
  const fits = rows.map((r) => r[0].length).filter((n) => n <= max);
  const w = Math.max(0, ...fits);
  const pad = indent + " ".repeat(w + 2);
  const out: string[] = [];
  for (const [a, b] of rows) {
    const body = wrap(b, HELP_WIDTH - pad.length);
    if (a.length > max) {
      out.push(indent + a);
      out.push(...body.map((l) => pad + l));
      continue;
    }
    out.push(`${indent}${a.padEnd(w)}  ${body[0]}`.trimEnd());
    out.push(...body.slice(1).map((l) => pad + l));
  }
  return out.join("\n") + "\n";
}

/** What a value of `type` is called in a flag's column (enum values are listed beside it). */
function valueName(type: string, values?: readonly string[]): string {
  if (type !== "enum") return type;
  const all = values!.join("|");
  return all.length <= 24 ? all : "value";
}

function enumNote(type: string, values?: readonly string[]): string {
  return type === "enum" && valueName(type, values) === "value"
    ? `; one of ${values!.join(", ")}`
    : "";
}

/** A parameter's flag as typed: `--no-auth` for one that is on unless turned off. */
function paramOption(p: ParamSpec): string {
  const long = p.type === "boolean"
    ? (p.on ? `--no-${paramFlag(p.name).slice(2)}` : paramFlag(p.name))
    : `${paramFlag(p.name)} <${valueName(p.type, p.values)}>`;
  return p.short ? `-${p.short}, ${long}` : long;
}

function paramUsage(p: ParamSpec): string {
  if (p.positional) return p.required ? `<${p.name}>` : `[${p.name}]`;
  return p.type === "boolean"
    ? paramFlag(p.name)
    : `${paramFlag(p.name)} <${p.type === "enum" ? p.values!.join("|") : p.type}>`;
}

/** `mcpx <command> [args]` for one operation. */
export function usage(op: Operation): string {
  if (op.cli.usage) return `mcpx ${op.cli.command.join(" ")} ${op.cli.usage}`;
  const pos = op.params.filter((p) => p.positional).map(paramUsage);
  const opts = op.params.some((p) => !p.positional) ? ["[options]"] : [];
  return ["mcpx", ...op.cli.command, ...pos, ...opts].join(" ");
}

/** For a boolean setting that is on unless turned off: the spelling that turns it off. */
function onNote(key: string, spec: SettingSpec): string {
  return spec.type === "boolean" && spec.default === "true"
    ? `; on by default, --no-${flagName(key).slice(2)} turns it off`
    : "";
}

function settingOption(key: string): [string, string] {
  const spec = SPECS[key];
  const value = spec.type === "boolean" ? "" : ` <${valueName(spec.type, spec.values)}>`;
  return [
    `${flagName(key)}${value}`,
    `${spec.doc}${enumNote(spec.type, spec.values)}${onNote(key, spec)} (${envName(key)})`,
  ];
}

const HELP_ROWS: [string, string][] = [
  ["-h, --help", "Show help for mcpx or a command"],
  ["-V, --version", "Print the version"],
];

/** The global options: one per non-plumbing setting, plus --help and --version. */
export function globalOptions(): [string, string][] {
  const keys = Object.keys(SPECS).filter((key) => !isPlumbing(key));
  return [...keys.map(settingOption), ...HELP_ROWS];
}

/** `mcpx help options`: every global option, grouped by its setting key's first word. */
export function optionsHelp(): string {
  const groups = new Map<string, string[]>();
  for (const key of Object.keys(SPECS)) {
    if (isPlumbing(key)) continue;
    const first = key.split(".")[0];
    groups.set(first, [...groups.get(first) ?? [], key]);
  }
  const parts = [
    indented(
      "Global options: each sets the setting of its name (`mcpx config --schema`), and may " +
        "stand anywhere on the command line. A boolean one also takes --no- before its name.",
      "",
    ),
  ];
  for (const [first, keys] of groups) {
    parts.push(`${first}:\n${columns(keys.map(settingOption))}`);
  }
  parts.push(`help:\n${columns(HELP_ROWS)}`);
  return parts.join("\n");
}

function groupOf(ops: readonly Operation[], word: string): Operation[] {
  return ops.filter((op) => op.cli.command[0] === word);
}

/** A command word as the main help names it: `session new|ls|…` for a group. */
function groupName(ops: readonly Operation[], word: string): string {
  const group = groupOf(ops, word);
  const subs = group.map((op) => op.cli.command[1]).filter((w) => w !== undefined);
  if (subs.length === 0) return word;
  // A command beside its group (`config` and `config import`) is named apart from it.
  const alone = group.some((op) => op.cli.command.length === 1) ? `${word}, ` : "";
  return `${alone}${word} ${subs.join("|")}`;
}

function commandRows(ops: readonly Operation[], words: readonly string[]): [string, string][] {
  return words.flatMap((word) =>
    groupOf(ops, word).map((op): [string, string] => [op.cli.command.join(" "), op.summary])
  );
}

/** The top-level help: one screen; the loop, every command by task, the common options. */
export function mainHelp(ops: readonly Operation[]): string {
  const [loop, ...rest] = HELP_GROUPS;
  const more = rest.map(([title, words]): [string, string] => [
    title,
    words.filter((w) => groupOf(ops, w).length > 0).map((w) => groupName(ops, w)).join(", "),
  ]);
  const others = Object.keys(SPECS).filter((k) => !isPlumbing(k) && !COMMON_OPTIONS.includes(k));
  return `mcpx: every MCP server on this machine behind one command

Usage: mcpx [options] <command> [args]

${loop[0]}:
${columns(commandRows(ops, loop[1]), "  ", 12)}
More commands, by task:
${columns(more, "  ", 16)}
Options:
${columns([...COMMON_OPTIONS.map(settingOption), ...HELP_ROWS])}
${others.length} more options: \`mcpx help options\`. Every command with its summary: \`mcpx help commands\`.
One command's usage, options and examples: \`mcpx help <command>\` (or \`mcpx <command> --help\`).
`;
}

/** `mcpx help commands`: every command by task, with its summary. */
export function commandsHelp(ops: readonly Operation[]): string {
  const rows = HELP_GROUPS.map(([title, words]) =>
    `${title}:\n${columns(commandRows(ops, words), "  ", 18)}`
  );
  return `${
    rows.join("\n")
  }\nOne command's usage, options and examples: \`mcpx help <command>\`.\n`;
}

/** `mcpx <group> --help`: the commands of a two-word group (`session`, `elicit`, …). */
export function groupHelp(ops: readonly Operation[], word: string): string {
  const group = groupOf(ops, word);
  return `Usage: mcpx ${word} <command> [args]

Commands:
${columns(group.map((op) => [op.cli.command.join(" "), op.summary]), "  ", 22)}
One command's usage, options and examples: \`mcpx help ${word} <command>\` (or \`mcpx ${word} <command> --help\`).
`.replace(/^(.{101,})$/gm, (line) => indented(line, "").trimEnd());
}

/** An example's command line with the words a shell would split quoted. */
function exampleLines(op: Operation): string {
  return (op.cli.examples ?? []).map(([line, doc]) => `  ${line}\n${indented(doc, "      ")}`).join(
    "",
  );
}

/** Help for one command: usage, what it does, its own options, its examples, its siblings. */
export function commandHelp(op: Operation, ops: readonly Operation[] = []): string {
  const params = op.params.map((p): [string, string] => [
    p.positional || op.cli.fills?.includes(p.name) ? `<${p.name}>` : paramOption(p),
    p.doc +
    (p.type === "enum" && (p.positional || valueName(p.type, p.values) === "value")
      ? ` (${p.values!.join(", ")})`
      : ""),
  ]);
  const siblings = op.cli.command.length === 1
    ? groupOf(ops, op.cli.command[0]).filter((o) => o !== op)
    : [];
  const parts = [
    `Usage: ${usage(op)}\n`,
    indented(op.summary, ""),
  ];
  if (op.description) parts.push(indented(op.description, ""));
  if (params.length) parts.push(`Arguments and options:\n${columns(params)}`);
  if (op.cli.examples?.length) parts.push(`Examples:\n${exampleLines(op)}`);
  if (siblings.length) {
    parts.push(
      `Subcommands:\n${columns(siblings.map((o) => [o.cli.command.join(" "), o.summary]))}`,
    );
  }
  parts.push("Global options (--json, --config and the rest): `mcpx help options`.\n");
  return parts.join("\n");
}

/** The help `mcpx help <words…>` prints, or undefined when the words name no topic. */
export function helpTopic(ops: readonly Operation[], words: readonly string[]): string | undefined {
  if (words.length === 0) return mainHelp(ops);
  const topic = words.join(" ");
  if (topic === "options") return optionsHelp();
  if (topic === "commands") return commandsHelp(ops);
  const op = ops.find((o) => o.cli.command.join(" ") === topic);
  if (op) return commandHelp(op, ops);
  if (words.length === 1 && groupOf(ops, words[0]).length > 0) return groupHelp(ops, words[0]);
  return undefined;
}
