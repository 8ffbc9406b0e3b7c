import { parseDuration } from "../duration.ts";
import { McpxError } from "../errors.ts";
import { type RuntimeName, RUNTIMES } from "./select.ts";

/** What a script may ask for in its leading comments: `// mcpx: runtime=node timeout=30s`. */
export interface Directives {
  runtime?: RuntimeName;
  timeoutMs?: number;
}

/**
 * Reads `// mcpx: key=value …` lines from the comments that open a script (a shebang and blank
 * lines may come first). Known keys: `runtime` (worker, deno, bun, node) and `timeout`.
 * @throws {McpxError} USAGE naming the file and line of an unknown key or a bad value.
 */
export function readDirectives(text: string, file: string): Directives {
  const out: Directives = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "" || line.startsWith("#!")) continue;
    if (!line.startsWith("//")) break;
    const m = /^\/\/\s*mcpx:\s*(.*)$/.exec(line);
    if (!m) continue;
    for (const pair of m[1].split(/\s+/).filter(Boolean)) {
      const [key, value = ""] = pair.split("=", 2);
      const bad = (expected: string) =>
        new McpxError(
          "USAGE",
          `${file}:${i + 1}: "// mcpx: ${pair}" ${expected}`,
          { hint: "Directives are `// mcpx: runtime=worker|deno|bun|node timeout=<duration>`" },
        );
      if (key === "runtime") {
        if (!(RUNTIMES as readonly string[]).includes(value)) {
          throw bad(`names no runtime: use one of ${RUNTIMES.join(", ")}`);
        }
        out.runtime = value as RuntimeName;
      } else if (key === "timeout") {
        const ms = parseDuration(value);
        if (ms === undefined) throw bad("is not a duration such as 30s, 5m or 0");
        out.timeoutMs = ms;
      } else throw bad(`is not a directive mcpx knows`);
    }
  }
  return out;
}
