// The one edit of a configuration's text mcpx makes: servers added under `mcpServers` through
// jsonc-parser's edits, so comments, order, indentation and line ends stay as they were. Used by
// `mcpx config import --write` (import.ts) and `mcpx registry add --write` (lib/registry/).

import { load } from "../_load.ts";
import { parseJsonc } from "./load.ts";
import { McpxError } from "../errors.ts";

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * `text` with each of `servers` added under `mcpServers` (made when missing), in the file's own
 * indentation and line ends; a name the text has already is skipped, never replaced.
 * @throws {McpxError} CONFIG_INVALID when the text does not parse (with its line and column), or
 *   is not an object with an object `mcpServers`
 */
export async function addServers(
  path: string,
  text: string,
  servers: readonly { name: string; entry: unknown }[],
): Promise<{ text: string; added: string[]; skipped: string[] }> {
  if (text.trim() === "") text = "{\n}\n";
  const data = await parseJsonc(text, path);
  if (!isObject(data) || (data.mcpServers !== undefined && !isObject(data.mcpServers))) {
    throw new McpxError(
      "CONFIG_INVALID",
      `Cannot add servers to ${path}: ${
        isObject(data) ? '"mcpServers" is not an object' : "it is not a JSON object"
      }`,
      { hint: "Fix the file by hand; it was left as it was" },
    );
  }
  const existing = isObject(data) && isObject(data.mcpServers) ? data.mcpServers : {};
  const { modify, applyEdits } = await load<typeof import("jsonc-parser")>(
    "jsonc-parser",
    import.meta.url,
  );
  const indent = /\n(\t| +)"/.exec(text)?.[1] ?? "  ";
  const formattingOptions = {
    insertSpaces: !indent.startsWith("\t"),
    tabSize: indent.startsWith("\t") ? 1 : indent.length,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
  const added: string[] = [];
  const skipped: string[] = [];
  for (const s of servers) {
    if (Object.hasOwn(existing, s.name) || added.includes(s.name)) {
      skipped.push(s.name);
      continue;
    }
    text = applyEdits(text, modify(text, ["mcpServers", s.name], s.entry, { formattingOptions }));
    added.push(s.name);
  }
  return { text, added, skipped };
}
