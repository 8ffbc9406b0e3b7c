import { McpxError } from "../errors.ts";
import { toNamespace } from "../names.ts";
import type { ServerConfig } from "./servers.ts";

/**
 * The refusal of an ad-hoc server named over the daemon's TCP listener: the command line a user
 * typed is the consent for one, and a holder of the listener token is not that user at a command
 * line (docs/security.md).
 */
export function adHocOverTcp(): McpxError {
  return new McpxError(
    "FORBIDDEN",
    "An ad-hoc server (--stdio, --url) is refused over the daemon's TCP listener",
    { hint: "Name it from a command on the daemon's machine, or configure it there" },
  );
}

/**
 * Splits a command line into words the way a shell would quote them, without a shell: single
 * quotes keep everything, double quotes keep all but `\"` and `\\`, a backslash outside quotes
 * keeps the next character. Nothing is expanded: `$(…)`, `;` and backticks are text.
 * @throws {McpxError} USAGE for an unclosed quote or an empty line.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= "";
    } else if (c === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line[++i];
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (quote) {
    throw new McpxError(
      "USAGE",
      `The command line ${JSON.stringify(line)} has an unclosed ${quote}`,
    );
  }
  if (word !== undefined) words.push(word);
  if (words.length === 0) {
    throw new McpxError("USAGE", "--stdio needs a command line, like 'npx -y my-server'");
  }
  return words;
}

/** Runners whose first non-option argument names the server, not the runner itself. */
const RUNNERS = new Set(["npx", "uvx", "bunx", "pnpx", "node", "deno", "bun", "python", "python3"]);

/** The last part of a path or package name: `@scope/pkg@1.2` is `pkg`, `/a/b/server.js` is `server`. */
function stem(word: string): string {
  const parts = word.split("/").filter((p) => p !== "");
  // `pkg/dist/index.js` is named by its package's folder, not by `index`.
  while (
    parts.length > 1 && /^(index|main|cli|dist|build|lib|src|bin|out)(\.\w+)?$/.test(parts.at(-1)!)
  ) parts.pop();
  let w = parts.at(-1) ?? word;
  const at = w.indexOf("@", 1);
  if (at > 0) w = w.slice(0, at);
  return w.replace(/\.(m?[jt]s|py|exe)$/, "");
}

/** The namespace an ad-hoc stdio server gets: its program's name, or the package a runner runs. */
export function stdioNamespace(words: readonly string[]): string {
  const program = stem(words[0]);
  if (RUNNERS.has(program)) {
    // Subcommands of a runner (`deno run`, `bun x`), and options whose value is the next word.
    const verbs = new Set(["run", "x", "exec"]);
    const valued = new Set(["--from", "-p", "--package", "--with", "--config", "-c"]);
    const target = words.slice(1).find((w, i, all) =>
      !w.startsWith("-") && !verbs.has(w) && !valued.has(all[i - 1] ?? "")
    );
    if (target) return toNamespace(stem(target));
  }
  return toNamespace(program);
}

/** The namespace an ad-hoc URL gets: the host's first label (`127.0.0.1` is `host_127_0_0_1`). */
export function urlNamespace(url: URL): string {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const first = /^[\d.:]+$/.test(host) ? `host_${host}` : host.split(".")[0];
  return toNamespace(first);
}

/** An ad-hoc server: what `--stdio`, `--url` and `--name` say, as one `mcpServers` entry. */
export interface AdHoc {
  stdio?: string;
  url?: string;
  name?: string;
}

/**
 * The entry and the name of an ad-hoc server. The user typed it, so it is trusted; the same
 * command line (or URL) gives the same entry, hence the same pool in the daemon.
 * @throws {McpxError} USAGE for both or neither of `--stdio` and `--url`, or a URL that is not one.
 */
export function adHocEntry(given: AdHoc): { name: string; entry: ServerConfig } {
  if (given.stdio !== undefined && given.url !== undefined) {
    throw new McpxError("USAGE", "Give --stdio or --url, not both");
  }
  if (given.stdio !== undefined) {
    const [command, ...args] = splitCommandLine(given.stdio);
    return {
      name: given.name ? toNamespace(given.name) : stdioNamespace([command, ...args]),
      entry: { command, args },
    };
  }
  if (given.url !== undefined) {
    let url: URL;
    try {
      url = new URL(given.url);
    } catch {
      throw new McpxError("USAGE", `--url "${given.url}" is not a URL`, {
        hint: "Write it like https://example.com/mcp",
      });
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new McpxError("USAGE", `--url "${given.url}" is not an http or https URL`);
    }
    return {
      name: given.name ? toNamespace(given.name) : urlNamespace(url),
      entry: { url: url.href },
    };
  }
  throw new McpxError("USAGE", "An ad-hoc server needs --stdio '<command line>' or --url <url>");
}
