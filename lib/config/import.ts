import { join, resolve } from "node:path";
import { McpxError, messageOf } from "../errors.ts";
import { writeFileAtomic } from "../_atomic.ts";
import { parseJsonc } from "./load.ts";
import { addServers } from "./edit.ts";
import type { ServerConfig } from "./servers.ts";

/** The hosts whose configuration files `mcpx config import` knows by name. */
export const HOSTS = ["claude-desktop", "claude-code", "cursor", "vscode"] as const;
export type Host = (typeof HOSTS)[number];

/** Where each host keeps its servers, nearest first: (`home`, `cwd`, environment). */
export function hostFiles(
  host: Host,
  env: Readonly<Record<string, string>>,
  cwd: string,
): string[] {
  const home = env.HOME ?? "";
  switch (host) {
    case "claude-desktop":
      return Deno.build.os === "darwin"
        ? [join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")]
        : Deno.build.os === "windows"
        ? [join(env.APPDATA ?? home, "Claude", "claude_desktop_config.json")]
        : [
          join(
            env.XDG_CONFIG_HOME || join(home, ".config"),
            "Claude",
            "claude_desktop_config.json",
          ),
        ];
    case "claude-code":
      return [join(cwd, ".mcp.json"), join(home, ".claude.json")];
    case "cursor":
      return [join(cwd, ".cursor", "mcp.json"), join(home, ".cursor", "mcp.json")];
    case "vscode":
      return [join(cwd, ".vscode", "mcp.json")];
  }
}

/** One server found in another host's file, as mcpx writes it. */
export interface Imported {
  name: string;
  entry: ServerConfig;
  from: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The keys of an entry that mean the same to mcpx as to the host that wrote it. */
const KEPT = ["command", "args", "env", "cwd", "url", "headers", "disabled"] as const;

/** One host entry as an `mcpServers` entry: the connection fields kept, the host's own dropped. */
export function translateEntry(raw: Record<string, unknown>): ServerConfig {
  const out: ServerConfig = {};
  for (const k of KEPT) if (raw[k] !== undefined) out[k] = raw[k] as never;
  // VS Code and Claude Code say "stdio" / "http" / "sse" in `type`; mcpx reads http and sse.
  const type = raw.type ?? raw.transport;
  if (type === "sse" || type === "http" || type === "streamable-http") {
    out.type = type === "sse" ? "sse" : "http";
  }
  if (out.url === undefined && typeof raw.serverUrl === "string") out.url = raw.serverUrl;
  return out;
}

/**
 * The servers of one file: its `mcpServers` (Claude, Cursor, `.mcp.json`), VS Code's `servers`,
 * and Claude Code's per-project `projects[cwd].mcpServers` for this directory.
 * @throws {McpxError} CONFIG_INVALID when the file does not parse.
 */
export async function readHostFile(path: string, cwd: string): Promise<Imported[]> {
  const text = Deno.readTextFileSync(path);
  const data = await parseJsonc(text, path);
  if (!isObject(data)) {
    throw new McpxError("CONFIG_INVALID", `${path} is not a JSON object`);
  }
  const blocks: unknown[] = [data.mcpServers, data.servers];
  if (isObject(data.projects) && isObject(data.projects[cwd])) {
    blocks.push((data.projects[cwd] as Record<string, unknown>).mcpServers);
  }
  const out: Imported[] = [];
  for (const block of blocks) {
    if (!isObject(block)) continue;
    for (const [name, raw] of Object.entries(block)) {
      if (!isObject(raw) || out.some((o) => o.name === name)) continue;
      const entry = translateEntry(raw);
      if (entry.command === undefined && entry.url === undefined) continue;
      out.push({ name, entry, from: path });
    }
  }
  return out;
}

/**
 * The servers `source` names: a host's files (those that exist), or one file's path.
 * @throws {McpxError} NOT_FOUND when no file of the host (or the path) exists.
 */
export async function importServers(
  source: string,
  env: Readonly<Record<string, string>>,
  cwd: string,
): Promise<{ files: string[]; servers: Imported[] }> {
  const named = (HOSTS as readonly string[]).includes(source);
  const candidates = named ? hostFiles(source as Host, env, cwd) : [resolve(cwd, source)];
  const files = candidates.filter((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  if (files.length === 0) {
    throw new McpxError(
      "NOT_FOUND",
      named ? `No configuration file of ${source} found` : `No file "${source}"`,
      { hint: named ? `Looked at ${candidates.join(", ")}` : `Hosts: ${HOSTS.join(", ")}` },
    );
  }
  const servers: Imported[] = [];
  for (const file of files) {
    for (const s of await readHostFile(file, cwd)) {
      if (!servers.some((o) => o.name === s.name)) servers.push(s);
    }
  }
  return { files, servers };
}

/**
 * Adds `servers` under `mcpServers` of the JSONC file at `path` (created when missing), its
 * comments and formatting kept (jsonc-parser's edits). A name the file has already is left as
 * it is. Returns the names added and those skipped.
 * @throws {McpxError} CONFIG_INVALID when the file does not parse; it is left untouched.
 */
export async function addToConfig(
  path: string,
  servers: readonly Imported[],
): Promise<{ added: string[]; skipped: string[]; text: string }> {
  let text = "{\n}\n";
  let mode: number | undefined;
  try {
    text = Deno.readTextFileSync(path);
    mode = (Deno.statSync(path).mode ?? 0o600) & 0o777;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) {
      throw new McpxError("CONFIG_INVALID", `Cannot read ${path}: ${messageOf(e)}`);
    }
  }
  const { text: edited, added, skipped } = await addServers(path, text, servers);
  if (added.length > 0) {
    try {
      // Through a symlink (a dotfiles checkout) to the file it names: replacing the link with a
      // file would leave the real one as it was.
      let target = path;
      try {
        target = Deno.realPathSync(path);
      } catch { /* not there yet: made at `path` */ }
      writeFileAtomic(target, edited, { mode: mode ?? 0o600 });
    } catch (e) {
      throw new McpxError("CONFIG_INVALID", `Cannot write ${path}: ${messageOf(e)}`, {
        hint: "Check the file's permissions; it was left as it was",
      });
    }
  }
  return { added, skipped, text: edited };
}
