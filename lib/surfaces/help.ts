import type { Operation, ParamSpec } from "../operations/define.ts";
import { paramFlag } from "../operations/define.ts";
import { envName, flagName, isPlumbing, SETTINGS, type SettingSpec } from "../settings/table.ts";

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

/** The global options: one per non-plumbing setting, plus --help and --version. */
export function globalOptions(): [string, string][] {
  const rows: [string, string][] = [];
  for (const [key, spec] of Object.entries(SETTINGS as Record<string, SettingSpec>)) {
    if (isPlumbing(key)) continue;
    const value = spec.type === "boolean"
      ? ""
      : ` <${spec.type === "enum" ? spec.values!.join("|") : spec.type}>`;
    rows.push([`${flagName(key)}${value}`, `${spec.doc} (${envName(key)})`]);
  }
  rows.push(["-h, --help", "Show help for mcpx or a command"], [
    "-V, --version",
    "Print the version",
  ]);
  return rows;
}

function columns(rows: [string, string][], indent = "  "): string {
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([a, b]) => `${indent}${a.padEnd(w)}  ${b}`).join("\n") + "\n";
}

/** The top-level help: the loop, every command, the global options. */
export function mainHelp(ops: readonly Operation[]): string {
  return `mcpx: every MCP server on this machine behind one command

Usage: mcpx [global options] <command> [args]

Commands:
${columns(ops.map((op) => [op.cli.command.join(" "), op.summary]))}
Global options:
${columns(globalOptions())}
Every option is also a setting: see \`mcpx config --schema\`.
Run \`mcpx <command> --help\` for a command's arguments.
`;
}

/** Help for one command. */
export function commandHelp(op: Operation): string {
  const params = op.params.map((p): [string, string] => [
    p.positional || op.cli.fills?.includes(p.name) ? `<${p.name}>` : paramUsage(p),
    p.doc + (p.type === "enum" && p.positional ? ` (${p.values!.join(", ")})` : ""),
  ]);
  return `Usage: ${usage(op)}

${op.summary}${op.description ? `\n\n${op.description}` : ""}
${params.length ? `\nArguments and options:\n${columns(params)}` : ""}
Global options (--json, --config and the rest): \`mcpx --help\`.
`;
}
