// `mcpx explore`: a prompt loop over the discovery commands. Every screen is one mcpx command
// run in this process, its output left in the scrollback, and the footer names that command so
// that it can be run again without the prompt (reference: the-explorer).

import { shellWord } from "../config/trust.ts";
import { didYouMean } from "../near.ts";
import { argumentsOf, type Field, fieldsOf } from "./arguments.ts";
import type { History } from "./history.ts";
import type { Prompter } from "./prompt.ts";
import { messageOf } from "../errors.ts";

/** The namespaces and `ns.tool` names there are to show. */
export interface Names {
  namespaces: readonly string[];
  tools: readonly string[];
}

/** What the loop needs; the command passes real ones, tests fakes. */
export interface ExploreDeps {
  prompter: Prompter;
  history: History;
  /** Runs one mcpx command line in this process (the global flags go first); its exit status. */
  run(args: readonly string[]): Promise<number>;
  out(text: string): void;
  /** What exists now: read again after every screen, since a refresh may change it. */
  names(): Promise<Names>;
  /** The input schema of `ns.tool`; throws a one-line error when there is no such tool. */
  schema(target: string): Promise<unknown>;
  /** The global options explore was given (`--config=…`), repeated in every command. */
  flags: readonly string[];
}

/** The words of the loop itself, with what each does. */
export const EXPLORE_WORDS: readonly (readonly [string, string])[] = [
  ["<namespace>", "its tools' signatures (mcpx types <namespace>)"],
  ["<namespace>.<tool>", "one signature (mcpx types <namespace>.<tool>)"],
  ["types <namespace>", "the same, for a namespace named like one of these words"],
  ["call <namespace>.<tool>", "ask for each argument, then call it through the daemon"],
  ["ls", "the namespaces (mcpx ls)"],
  ["search <words>", "tools matching the words (mcpx search)"],
  ["chain [id]", "recent calls and runs; with an id, what led to it (mcpx log --chain)"],
  ["log [options]", "the newest log records (mcpx log -n 20)"],
  ["stats [options]", "calls, durations and errors per tool (mcpx stats)"],
  ["status", "the daemon and its server processes (mcpx status)"],
  ["refresh", "list every server's tools again (mcpx refresh)"],
  ["help", "this list"],
  ["quit", "leave (Ctrl-D, or Ctrl-C at this prompt)"],
];

const COMMAND_WORDS = [
  "call",
  "ls",
  "search",
  "chain",
  "log",
  "stats",
  "status",
  "refresh",
  "help",
  "quit",
];

/** The recent traces `chain` lists: the calls and runs the log index holds, newest first. */
export const RECENT_TRACES =
  "SELECT substr(ts, 12, 12) AS time, id, coalesce(json_extract(raw, '$.script'), json_extract(raw, '$.msg')) AS what, duration AS ms, ok FROM records WHERE event IN ('call.end', 'run.start') ORDER BY tsms DESC LIMIT 20";

/** Splits a line into words: spaces separate, '…' and "…" quote, as a shell does. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= "";
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? "") + ch;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The whole lines Tab may turn `line` into: command words, namespaces, `ns.tool` names. */
export function candidates(line: string, names: Names): string[] {
  const space = line.lastIndexOf(" ");
  const head = line.slice(0, space + 1);
  const current = line.slice(space + 1);
  // The first word is a command, a namespace or a tool; after `call`, a tool.
  const words = space < 0
    ? [...COMMAND_WORDS, ...names.namespaces, ...names.tools]
    : head.trim() === "call"
    ? names.tools
    : [];
  return [...new Set(words.filter((w) => w.startsWith(current)).map((w) => head + w))];
}

/** The help screen. */
export function exploreHelp(): string {
  const width = Math.max(...EXPLORE_WORDS.map(([w]) => w.length)) + 2;
  return EXPLORE_WORDS.map(([w, d]) => `  ${w.padEnd(width)}${d}\n`).join("") +
    "Tab completes command words, namespaces and tool names; the arrows walk the history.\n";
}

/**
 * Runs the loop until quit, Ctrl-D, or Ctrl-C at its prompt. A failing command prints its own
 * one-line error and the loop goes on.
 */
export async function explore(deps: ExploreDeps): Promise<void> {
  const { prompter, history, out } = deps;
  let names = await deps.names();
  const footer = (args: readonly string[]) =>
    out(`→ ${["mcpx", ...deps.flags, ...args].map(shellWord).join(" ")}\n\n`);
  const screen = async (args: readonly string[]) => {
    await deps.run([...deps.flags, ...args]);
    footer(args);
  };
  const listed = names.namespaces;
  out(
    listed.length === 0
      ? "mcpx explore: no namespaces (`ls` says why). Type help.\n"
      : `mcpx explore: ${listed.length} namespace${listed.length === 1 ? "" : "s"}${
        listed.length <= 12 ? ` (${listed.join(", ")})` : ""
      }. Type help, or a namespace.\n`,
  );
  for (;;) {
    const line = await prompter.line("mcpx> ", {
      history: history.lines,
      complete: (text) => candidates(text, names),
    });
    if (line === undefined) break;
    history.add(line.trim());
    const words = splitWords(line);
    const [word, ...rest] = words;
    if (word === undefined) continue;
    if (word === "quit" || word === "exit" || word === "q") break;
    if (word === "help" || word === "?") {
      out(exploreHelp());
      footer(["explore", "--help"]);
    } else if (word === "ls") await screen(["ls", ...rest]);
    else if (word === "status") await screen(["status", ...rest]);
    else if (word === "refresh") await screen(["refresh", ...rest]);
    else if (word === "stats") await screen(["stats", ...rest]);
    else if (word === "log") await screen(["log", ...(rest.length ? rest : ["-n", "20"])]);
    else if (word === "search") {
      if (rest.length === 0) out("search needs words, e.g. search read file\n");
      else await screen(["search", ...rest]);
    } else if (word === "types") await screen(["types", ...rest]);
    else if (word === "chain") {
      const args = rest.length ? ["log", "--chain", rest[0]] : ["log", "sql", RECENT_TRACES];
      await deps.run([...deps.flags, ...args]);
      if (rest.length === 0) out("chain <id> shows what led to one of them.\n");
      footer(args);
    } else if (word === "call") {
      if (rest.length === 0) out("call needs a tool, e.g. call everything.echo (Tab completes)\n");
      else await call(deps, rest[0], footer);
    } else if (names.namespaces.includes(word) || names.tools.includes(word)) {
      await screen(["types", word]);
    } else if (/^[^.\s]+\.[^.\s]+$/.test(word)) {
      // A tool the names do not know yet: `types` says what is wrong with it.
      await screen(["types", word]);
    } else {
      // A suggestion ends in its own question mark: no full stop after it.
      const near = didYouMean(word, [...COMMAND_WORDS, ...names.namespaces]);
      out(`"${word}" is not a namespace or a command${near || "."} Type help\n`);
    }
    names = await deps.names().catch(() => names);
  }
}

/** `call ns.tool`: one question per argument, then the call as `mcpx call` makes it. */
async function call(
  deps: ExploreDeps,
  target: string,
  footer: (args: readonly string[]) => void,
): Promise<void> {
  let schema: unknown;
  try {
    schema = await deps.schema(target);
  } catch (error) {
    deps.out(`${messageOf(error)}\n`);
    return;
  }
  const fields: Field[] = fieldsOf(schema);
  const answers: string[] = [];
  for (const field of fields) {
    const answer = await deps.prompter.field(field);
    if (answer === undefined) {
      deps.out("Call cancelled\n");
      return;
    }
    answers.push(answer);
  }
  const args = ["call", target, JSON.stringify(argumentsOf(fields, answers))];
  await deps.run([...deps.flags, ...args]);
  footer(args);
}
