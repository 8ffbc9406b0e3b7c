import { McpxError } from "../errors.ts";
import { load } from "../_load.ts";
import { editDistance } from "../near.ts";

/** A parsed configuration file. */
export interface McpxConfig {
  path: string;
  /** The entries as written; `serverDefs()` (servers.ts) checks each. */
  mcpServers: Record<string, unknown>;
  pool: Record<string, unknown>;
  /** The whole top-level object, for the settings layer. */
  data: Record<string, unknown>;
}

/** Line and column (both from 1) of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === "\n") [line, start] = [line + 1, i + 1];
  }
  return { line, column: offset - start + 1 };
}

/**
 * Parses JSONC text: comments and trailing commas allowed, string-literal aware.
 * The fast path strips comments and trailing commas ({@linkcode stripJsonc}) for `JSON.parse`;
 * only text that is still rejected loads the JSONC parser, for the error's line and column.
 * @throws {McpxError} CONFIG_INVALID naming the file, line and column.
 */
export async function parseJsonc(text: string, path: string): Promise<unknown> {
  text = withoutBom(text);
  const fast = parseJsoncFast(text);
  if (fast) return fast.value;
  // A real mistake: the JSONC parser (loaded only now, ~34 ms) says where.
  const { parse, printParseErrorCode } = await load<typeof import("jsonc-parser")>(
    "jsonc-parser",
    import.meta.url,
  );
  const errors: { error: number; offset: number; length: number }[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0];
    const { line, column } = lineColumn(text, first.offset);
    const what = printParseErrorCode(first.error as Parameters<typeof printParseErrorCode>[0])
      .replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
    throw new McpxError(
      "CONFIG_INVALID",
      `Cannot parse ${path}: ${what} at line ${line}, column ${column}`,
      { hint: "Fix the file; comments and trailing commas are allowed" },
    );
  }
  return value;
}

/** The text without the byte order mark an editor may save at its start. */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The value of valid JSONC text, or undefined when it is not (the slow path says why). */
function parseJsoncFast(text: string): { value: unknown } | undefined {
  text = withoutBom(text);
  // Plain JSON first: JSON.parse of a 2 KB file takes ~0.03 ms at start-up, stripping it first
  // ~0.3 (performance.now() around each); a file with comments pays both.
  try {
    return { value: JSON.parse(text) };
  } catch { /* JSONC, or broken */ }
  try {
    return { value: JSON.parse(stripJsonc(text)) };
  } catch {
    return undefined;
  }
}

/**
 * Removes `//` and `/* *\/` comments and trailing commas outside string literals, so that valid
 * JSONC becomes JSON for `JSON.parse`. Text that is not valid JSONC stays invalid: an unterminated
 * comment stays, and so does a `"` that opens no string (one ends at the line's end). A comma
 * trails when only whitespace and comments stand between it and the `}` or `]`.
 *
 * One pass by hand, not regular expressions: a start's first regular expression costs ~0.15 ms,
 * and this runs at every start (performance.now() around it in the built CLI).
 */
export function stripJsonc(text: string): string {
  let out = "";
  let kept = 0; // text before this index is in `out` or dropped
  // The next `"`, `/` and `,` at or after `i`, found by indexOf: a loop over every character
  // runs in the interpreter at start-up, ~0.4 ms for a 2 KB file.
  let quote = -2, slash = -2, comma = -2;
  for (let i = 0; i < text.length;) {
    if (quote !== -1 && quote < i) quote = text.indexOf('"', i);
    if (slash !== -1 && slash < i) slash = text.indexOf("/", i);
    if (comma !== -1 && comma < i) comma = text.indexOf(",", i);
    i = first(first(quote, slash), comma);
    if (i < 0) break;
    if (i === quote) {
      i = stringEnd(text, i);
    } else if (i === slash) {
      const skip = commentEnd(text, i);
      if (skip < 0) i++;
      else {
        out += text.slice(kept, i);
        kept = i = skip;
      }
    } else {
      if (trails(text, i + 1)) {
        out += text.slice(kept, i);
        kept = i + 1;
      }
      i++;
    }
  }
  return kept === 0 ? text : out + text.slice(kept);
}

const SLASH = 47, STAR = 42;

// The smaller of two indexes, where -1 is none.
function first(a: number, b: number): number {
  return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

// Where the string literal opening at `i` ends (just past its closing quote); a literal that
// meets a line break or the end first opens nothing, and scanning goes on after the quote.
function stringEnd(text: string, i: number): number {
  const eol = text.indexOf("\n", i + 1);
  for (let j = i + 1;;) {
    const close = text.indexOf('"', j);
    if (close < 0 || (eol >= 0 && eol < close)) return i + 1;
    let escapes = 0;
    while (text.charCodeAt(close - 1 - escapes) === 92) escapes++;
    if (escapes % 2 === 0) return close + 1;
    j = close + 1;
  }
}

// Just past the comment starting at `i` (a `//` comment keeps its line break), or -1 for none.
function commentEnd(text: string, i: number): number {
  const next = text.charCodeAt(i + 1);
  if (next === SLASH) {
    // A line ends at \n or at a lone \r (old Mac files), as the JSONC parser has it.
    const lf = text.indexOf("\n", i + 2);
    const cr = text.indexOf("\r", i + 2);
    const eol = first(lf, cr);
    return eol < 0 ? text.length : eol;
  }
  if (next === STAR) {
    const close = text.indexOf("*/", i + 2);
    return close < 0 ? -1 : close + 2;
  }
  return -1;
}

// Whether only whitespace and comments stand between `i` and a `}` or `]`.
function trails(text: string, i: number): boolean {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) i++;
    else if (c === SLASH && commentEnd(text, i) >= 0) i = commentEnd(text, i);
    else return c === 125 || c === 93;
  }
  return false;
}

/**
 * The text of a configuration file. A file that cannot be read (permissions, a directory, a
 * special file) is the user's to fix, not a bug: one line naming the file and the reason.
 * @throws {McpxError} CONFIG_NOT_FOUND when it is gone, CONFIG_INVALID when it cannot be read.
 */
export function readConfigText(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch (e) {
    throw unreadable(path, e);
  }
}

/** The error for a configuration file the system would not read. */
export function unreadable(path: string, error: unknown): McpxError {
  const e = error as { code?: unknown; message?: unknown };
  // Deno's message is "<reason> (os error N): <op> '<path>'": the reason, once, reads best.
  const message = String(e.message ?? error);
  const cut = message.indexOf(" (os error");
  const reason = (cut > 0 ? message.slice(0, cut) : message).toLowerCase();
  const code = typeof e.code === "string" ? ` (${e.code})` : "";
  return new McpxError(
    error instanceof Deno.errors.NotFound ? "CONFIG_NOT_FOUND" : "CONFIG_INVALID",
    `Cannot read configuration "${path}": ${reason}${code}`,
    {
      hint: "Make it a readable file, or point MCPX_CONFIG (or --config) at another",
      cause: error,
    },
  );
}

/**
 * Parses and checks a configuration file's text (read from `path` when not given).
 * @throws {McpxError} CONFIG_INVALID with the file and what is wrong.
 */
export async function loadConfig(path: string, text?: string): Promise<McpxConfig> {
  text ??= readConfigText(path);
  return checkConfig(path, await parseJsonc(text, path));
}

/**
 * {@linkcode loadConfig} without a turn of the event loop for text that parses, which is all but
 * a broken file: undefined when it does not, and `loadConfig` then says where it is broken.
 * @throws {McpxError} CONFIG_INVALID for a file that parses but is not a configuration.
 */
export function loadConfigSync(path: string, text: string): McpxConfig | undefined {
  const fast = parseJsoncFast(text);
  return fast && checkConfig(path, fast.value);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The top-level keys mcpx reads itself; every other key is a setting (lib/settings/). */
const CONFIG_KEYS = ["mcpServers", "pool"];

/**
 * The shape of the file's top level; each server is checked by `serverDefs()` (servers.ts).
 * A near miss of `mcpServers` or `pool` is refused rather than warned about: the file would
 * otherwise load with no servers, or with no pool settings, and every command after it would
 * be wrong in a way that says nothing of why. Any other unknown key is the settings layer's to
 * warn about.
 */
function checkConfig(path: string, data: unknown): McpxConfig {
  if (!isObject(data)) {
    throw new McpxError("CONFIG_INVALID", `${path} must hold a JSON object`);
  }
  for (const key in data) {
    if (CONFIG_KEYS.includes(key) || !Object.hasOwn(data, key)) continue;
    // Tighter than nearest(): `tools` or `port` two steps from `pool` is some other key.
    const near = CONFIG_KEYS.find((k) =>
      editDistance(key.toLowerCase(), k.toLowerCase()) <= Math.max(1, Math.floor(k.length / 4))
    );
    if (near !== undefined) {
      throw new McpxError(
        "CONFIG_INVALID",
        `Unknown key "${key}" in ${path}: did you mean "${near}"?`,
        { hint: `mcpx reads "${near}" only; rename the key` },
      );
    }
  }
  const servers = data.mcpServers ?? {};
  if (!isObject(servers)) {
    throw new McpxError("CONFIG_INVALID", `"mcpServers" in ${path} must be an object`);
  }
  const pool = data.pool ?? {};
  if (!isObject(pool)) throw new McpxError("CONFIG_INVALID", `"pool" in ${path} must be an object`);
  return { path, mcpServers: servers, pool, data };
}
