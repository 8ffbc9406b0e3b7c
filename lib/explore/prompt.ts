// The prompts of `mcpx explore` and `mcpx repl`, drawn by @inquirer (docs/dependencies.md): a
// line with history and tab completion, and one question per argument of a tool. Loaded only by
// those two commands.

import {
  createPrompt,
  isEnterKey,
  isTabKey,
  type KeypressEvent,
  useKeypress,
  useRef,
  useState,
} from "@inquirer/core";
import input from "@inquirer/input";
import select from "@inquirer/select";
import type { Field } from "./arguments.ts";
import { answerProblem } from "./arguments.ts";

/** What the loops ask of a terminal; a fake stands in for it in tests. */
export interface Prompter {
  /** One line, with history and completion; undefined when Ctrl-C or Ctrl-D ends it. */
  line(message: string, options: LineOptions): Promise<string | undefined>;
  /** The answer to one argument, as text ("" skips it); undefined when Ctrl-C cancels it. */
  field(field: Field): Promise<string | undefined>;
}

/** How a line is read. */
export interface LineOptions {
  /** Earlier lines, oldest first, for the up and down arrows. */
  history: readonly string[];
  /** The words that may follow what was typed; Tab fills in what they share. */
  complete?: (line: string) => readonly string[];
}

/** The longest text every one of `words` starts with. */
export function sharedPrefix(words: readonly string[]): string {
  if (words.length === 0) return "";
  let prefix = words[0];
  for (const w of words) {
    while (!w.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}

/**
 * What Tab does to `line`: the completed line, and the candidates to show when more than one is
 * left. `complete` is given the line and returns whole lines it may become.
 */
export function completeLine(
  line: string,
  complete: (line: string) => readonly string[],
): { line: string; shown: readonly string[] } {
  const options = complete(line).filter((c) => c.startsWith(line));
  if (options.length === 0) return { line, shown: [] };
  if (options.length === 1) {
    return { line: options[0].endsWith(".") ? options[0] : options[0] + " ", shown: [] };
  }
  const shared = sharedPrefix(options);
  return { line: shared.length > line.length ? shared : line, shown: options };
}

function terminalColumns(): number {
  try {
    return Deno.consoleSize().columns;
  } catch {
    return 80;
  }
}

const isUp = (key: KeypressEvent) => key.name === "up" || (key.ctrl && key.name === "p");
const isDown = (key: KeypressEvent) => key.name === "down" || (key.ctrl && key.name === "n");

interface LineConfig extends LineOptions {
  message: string;
}

const linePrompt = createPrompt<string, LineConfig>((config, done) => {
  const [status, setStatus] = useState<"idle" | "done">("idle");
  const [value, setValue] = useState("");
  const [shown, setShown] = useState<readonly string[]>([]);
  // Where the arrows are in the history (its length: the line being typed), and that line.
  const place = useRef(config.history.length);
  const draft = useRef("");

  useKeypress((key, rl) => {
    if (status !== "idle") return;
    const replace = (text: string) => {
      rl.clearLine(0);
      rl.write(text);
      setValue(text);
    };
    if (isEnterKey(key)) {
      setStatus("done");
      setShown([]);
      done(value);
    } else if (isTabKey(key)) {
      // readline has put the tab into the line: what was typed before it is `value`.
      const result = config.complete ? completeLine(value, config.complete) : undefined;
      replace(result?.line ?? value);
      setShown(result?.shown ?? []);
    } else if (isUp(key) || isDown(key)) {
      const history = config.history;
      if (place.current === history.length) draft.current = value;
      const next = Math.min(history.length, Math.max(0, place.current + (isUp(key) ? -1 : 1)));
      if (next === place.current) return;
      place.current = next;
      replace(next === history.length ? draft.current : history[next]);
    } else {
      setValue(rl.line);
      if (shown.length) setShown([]);
    }
  });

  const line = `${config.message}${value}`;
  if (status === "done" || shown.length === 0) return line;
  const width = Math.max(...shown.map((s) => s.length)) + 2;
  const columns = Math.max(1, Math.floor(terminalColumns() / width));
  const rows: string[] = [];
  const limit = 60;
  const list = shown.slice(0, limit);
  for (let i = 0; i < list.length; i += columns) {
    rows.push(list.slice(i, i + columns).map((s) => s.padEnd(width)).join("").trimEnd());
  }
  if (shown.length > limit) rows.push(`… and ${shown.length - limit} more`);
  return [line, rows.join("\n")];
});

function cancelled(error: unknown): boolean {
  return error instanceof Error &&
    ["ExitPromptError", "AbortPromptError", "CancelPromptError"].includes(error.name);
}

/** The prompter of a real terminal. */
export function terminalPrompter(): Prompter {
  return {
    async line(message, options) {
      try {
        return await linePrompt({ message, ...options });
      } catch (error) {
        if (cancelled(error)) return undefined;
        throw error;
      }
    },
    async field(field) {
      const label = `${field.name}${field.required ? "" : " (optional)"}${
        field.description ? ` - ${field.description.split("\n")[0]}` : ""
      }`;
      try {
        if (field.choices) {
          const skip = field.required ? [] : [{ name: "(leave out)", value: "" }];
          const choices = [
            ...field.choices.map((c) => ({
              name: c === field.default ? `${c} (default)` : c,
              value: c,
            })),
            ...skip,
          ];
          return await select({ message: label, choices, default: field.default ?? "" });
        }
        return await input({
          message: `${label} [${field.kind}]`,
          default: field.default,
          validate: (text) => answerProblem(field, text) ?? true,
        });
      } catch (error) {
        if (cancelled(error)) return undefined;
        throw error;
      }
    },
  };
}
