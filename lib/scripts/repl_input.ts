// When a line typed at `mcpx repl` is not yet a whole statement: a bracket, template literal or
// block comment left open asks for another line, as a shell's PS2 does.

const CLOSER: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/**
 * Whether `code` stops inside an open bracket, template literal or block comment. Code that is
 * wrong rather than unfinished (a closing bracket with no opener, a string cut off at the end of
 * its line) is complete: evaluating it reports the mistake.
 */
export function incomplete(code: string): boolean {
  // What closes each open construct, innermost last: ) ] } or ` (inside a template literal).
  const open: string[] = [];
  let i = 0;
  while (i < code.length) {
    const c = code[i];
    if (open.at(-1) === "`") {
      if (c === "\\") i += 2;
      else if (c === "`") open.pop(), i++;
      else if (c === "$" && code[i + 1] === "{") open.push("}"), i += 2;
      else i++;
      continue;
    }
    if (c === "/" && code[i + 1] === "/") {
      const end = code.indexOf("\n", i);
      i = end < 0 ? code.length : end + 1;
    } else if (c === "/" && code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      if (end < 0) return true;
      i = end + 2;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < code.length && code[j] !== c && code[j] !== "\n") j += code[j] === "\\" ? 2 : 1;
      if (j >= code.length || code[j] === "\n") return false;
      i = j + 1;
    } else if (c === "`") {
      open.push("`");
      i++;
    } else if (c in CLOSER) {
      open.push(CLOSER[c]);
      i++;
    } else if (c === ")" || c === "]" || c === "}") {
      if (open.at(-1) !== c) return false;
      open.pop();
      i++;
    } else i++;
  }
  return open.length > 0;
}

/** The identifier chain at the end of `line` (`memory.cre`), what Tab completes. */
export function lastWord(line: string): string {
  return /[\p{L}\p{N}_$.]*$/u.exec(line)?.[0] ?? "";
}
