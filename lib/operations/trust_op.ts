import { defineOperation } from "./define.ts";
import { McpxError } from "../errors.ts";
import type { Context } from "../context.ts";
// Static: this module is loaded for `mcpx trust` alone, and these are small.
import { join, resolve } from "../_path.ts";
import { stateDir } from "../paths.ts";
import { noConfigError, PROJECT_NAMES } from "../config/discover.ts";
import { loadConfig, parseJsonc, readConfigText } from "../config/load.ts";
import * as trust from "../config/trust.ts";
import { diffFields, fieldHashes, leaves, secretField } from "../config/trust_diff.ts";

interface TrustEntry {
  /** `config` for a configuration file, `scripts` for a script folder. */
  kind: "config" | "scripts";
  path: string;
  sha256: string;
  trustedAt: string;
  /** `current`: the file is as trusted; `changed`: it needs trusting again; `missing`: gone. */
  state: "current" | "changed" | "missing";
}

interface TrustOutput {
  action: "trusted" | "revoked" | "list";
  /** The trust file. */
  file: string;
  /** What was trusted: a configuration file, or a script folder. */
  kind?: "config" | "scripts";
  /** The configuration (or script folder) trusted or revoked. */
  path?: string;
  sha256?: string;
  /** The servers a trusted configuration may now start. */
  servers?: string[];
  entries?: TrustEntry[];
  /** What changed since the file was last trusted, when it was and its text differs. */
  changes?: TrustChanges;
}

/** A trusted-again file's changes, field by field (lib/config/trust_diff.ts). */
interface TrustChanges {
  /** When it was trusted before. */
  since: string;
  /** False when that trust recorded no fields (an older mcpx): what changed is unknown. */
  detail: boolean;
  fields: {
    path: string;
    change: "added" | "removed" | "changed";
    /** The new value as JSON, for an added or changed field that is no env or header. */
    value?: string;
  }[];
}

/**
 * What `path` names, as a real path: a configuration file, a folder holding one, or else a script
 * folder (a folder's own `.mcpx/scripts` when it has one, or the folder itself).
 */
function target(
  ctx: Context,
  path: string | undefined,
): { kind: "config" | "scripts"; path: string } {
  if (path === undefined) {
    const primary = ctx.location().primary;
    if (!primary) throw noConfigError(ctx.location());
    return { kind: "config", path: Deno.realPathSync(primary) };
  }
  const full = resolve(ctx.io.cwd, path);
  const isDir = (p: string) => {
    try {
      return Deno.statSync(p).isDirectory;
    } catch {
      return false;
    }
  };
  try {
    if (isDir(full)) {
      const found = PROJECT_NAMES.map((n) => join(full, n)).find((p) => {
        try {
          return Deno.statSync(p).isFile;
        } catch {
          return false;
        }
      });
      if (found) return { kind: "config", path: Deno.realPathSync(found) };
      const scripts = join(full, ".mcpx", "scripts");
      return { kind: "scripts", path: Deno.realPathSync(isDir(scripts) ? scripts : full) };
    }
    return { kind: "config", path: Deno.realPathSync(full) };
  } catch {
    throw new McpxError("CONFIG_NOT_FOUND", `Configuration file "${full}" does not exist`, {
      hint: "Name a configuration file, a script folder, or run `mcpx trust` in its folder",
    });
  }
}

/** What changed in a configuration since the trust `before` was given, field by field. */
function changesSince(
  before: trust.TrustRecord,
  fields: Record<string, string>,
  parsed: unknown,
): TrustChanges {
  const since = before.trustedAt;
  if (!before.fields) return { since, detail: false, fields: [] };
  const values = new Map(leaves(parsed));
  const diff = diffFields(before.fields, fields);
  const shown = (path: string) =>
    secretField(path) ? undefined : JSON.stringify(values.get(path)) ?? "null";
  return {
    since,
    detail: true,
    fields: [
      ...diff.changed.map((path) => ({ path, change: "changed" as const, value: shown(path) })),
      ...diff.added.map((path) => ({ path, change: "added" as const, value: shown(path) })),
      ...diff.removed.map((path) => ({ path, change: "removed" as const })),
    ],
  };
}

function renderChanges(changes: TrustChanges): string {
  const when = changes.since.slice(0, 10);
  if (!changes.detail) {
    return `it changed since it was trusted on ${when} (that trust recorded no detail of it)\n`;
  }
  // The text changed but no field did: comments, spacing or the order of keys.
  if (changes.fields.length === 0) {
    return `changed since it was trusted on ${when}: only comments, spacing or key order\n`;
  }
  const rows = changes.fields.map((f) =>
    `  ${f.change.padEnd(7)}  ${f.path}${f.value === undefined ? "" : ` = ${f.value}`}\n`
  );
  return `changed since it was trusted on ${when}:\n${rows.join("")}`;
}

/** `mcpx trust [path]`, `--list`, `--revoke <path>`: the configurations allowed to start things. */
export const configTrust = defineOperation<
  { path?: string; list?: boolean; revoke?: string },
  TrustOutput
>({
  id: "config.trust",
  summary:
    "Trust a configuration file, so that it may start its servers and apply its settings, or a script folder",
  description:
    "A configuration outside your own locations (a cloned repository's .mcpx.json or .mcp.json, one in a parent folder) starts nothing and applies no setting until it is trusted: meanwhile `ls` lists its servers (`untrusted` where never listed) and names this command, and `search`, `types`, `catalog` and `schema` exit 9 as `call` does. Read the file first: trusting it lets it run the commands it names. Trust is recorded by real path and the sha256 of the file's text in <state>/trust.json (0600); a changed file needs trusting again. With no path, the configuration found from the working directory. Files named with --config or MCPX_CONFIG, and those in your own locations, are trusted already; MCPX_TRUST_ALL=1 trusts every file. A file another user owns, or that group or others may write, is never trusted. A folder with no configuration in it is trusted as a script folder (its .mcpx/scripts when it has one): a .mcpx/scripts folder found above the working directory outside a trusted project runs nothing by name until then.",
  params: [
    {
      name: "path",
      type: "string",
      positional: true,
      doc:
        "The configuration file (or its folder), or a script folder; default the configuration found from here",
    },
    { name: "list", type: "boolean", doc: "List the trusted configurations instead" },
    { name: "revoke", type: "string", doc: "Forget the trust given to this configuration file" },
  ],
  cli: {
    command: ["trust"],
    examples: [["mcpx trust .mcp.json", "Trust this project's file, after reading it"], [
      "mcpx trust --list",
      "The trusted files",
    ], ["mcpx trust --revoke .mcp.json", "Forget the trust given to it"]],
  },
  http: { none: "trust is given by a person at a terminal, not over the daemon's socket" },
  mcp: { expose: false },
  where: "local",
  output: (z) =>
    z.object({
      action: z.enum(["trusted", "revoked", "list"]),
      file: z.string(),
      kind: z.enum(["config", "scripts"]).optional(),
      path: z.string().optional(),
      sha256: z.string().optional(),
      servers: z.array(z.string()).optional(),
      changes: z.object({
        since: z.string(),
        detail: z.boolean(),
        fields: z.array(z.object({
          path: z.string(),
          change: z.enum(["added", "removed", "changed"]),
          value: z.string().optional(),
        })),
      }).optional(),
      entries: z.array(
        z.object({
          kind: z.enum(["config", "scripts"]),
          path: z.string(),
          sha256: z.string(),
          trustedAt: z.string(),
          state: z.enum(["current", "changed", "missing"]),
        }),
      ).optional(),
    }),
  async run(input, ctx) {
    const file = join(stateDir(ctx.boot, ctx.io.env), trust.TRUST_FILE);
    const given = [input.list && "--list", input.revoke !== undefined && "--revoke", input.path]
      .filter(Boolean);
    if (given.length > 1) {
      throw new McpxError("USAGE", "Give one of <path>, --list and --revoke <path>", {
        hint: "Run `mcpx trust --help`",
      });
    }
    if (input.list) {
      const entries: TrustEntry[] = [];
      for (const r of trust.readTrustStore(file).trusted) {
        let state: TrustEntry["state"] = "missing";
        const kind = r.kind ?? "config";
        try {
          if (kind === "scripts") state = Deno.statSync(r.path).isDirectory ? "current" : "missing";
          else {
            state = await trust.contentHash(readConfigText(r.path)) === r.sha256
              ? "current"
              : "changed";
          }
        } catch { /* gone or unreadable */ }
        entries.push({ kind, path: r.path, sha256: r.sha256, trustedAt: r.trustedAt, state });
      }
      return { action: "list", file, entries };
    }
    if (input.revoke !== undefined) {
      const full = resolve(ctx.io.cwd, input.revoke);
      let real = full;
      try {
        real = Deno.realPathSync(full);
      } catch { /* a file that is gone is revoked by the path as given */ }
      const removed = trust.revokeFile(file, [...new Set([full, real])]);
      if (removed.length === 0) {
        throw new McpxError("NOT_FOUND", `${full} is not a trusted configuration or folder`, {
          hint: "`mcpx trust --list` shows the trusted ones",
        });
      }
      return { action: "revoked", file, path: removed[0].path };
    }
    const { kind, path } = target(ctx, input.path);
    if (kind === "scripts") {
      trust.trustScriptDir(file, path);
      return { action: "trusted", file, kind, path };
    }
    const text = readConfigText(path);
    // A file that does not parse is not trusted: what it would start cannot be read.
    const config = await loadConfig(path, text);
    const before = trust.readTrustStore(file).trusted.find((r) => r.path === path && !r.kind);
    const parsed = await parseJsonc(text, path);
    const fields = await fieldHashes(parsed);
    const record = await trust.trustFile(file, path, text, new Date(), fields);
    return {
      action: "trusted",
      file,
      kind,
      path,
      sha256: record.sha256,
      servers: Object.keys(config.mcpServers),
      changes: before && before.sha256 !== record.sha256
        ? changesSince(before, fields, parsed)
        : undefined,
    };
  },
  render(out) {
    if (out.action === "list") {
      if (out.entries!.length === 0) return `no trusted configurations (${out.file})\n`;
      return out.entries!.map((e) =>
        `${e.state.padEnd(7)}  ${e.path}  (${
          e.kind === "scripts" ? "script folder, " : ""
        }trusted ${e.trustedAt.slice(0, 10)})\n`
      ).join("");
    }
    if (out.action === "revoked") return `revoked trust in ${out.path}\n`;
    if (out.kind === "scripts") {
      return `trusted script folder ${out.path}: \`mcpx run <name>\` may run the scripts in it\n`;
    }
    const servers = out.servers!.length ? `: ${out.servers!.join(", ")}` : "";
    return `trusted ${out.path} (sha256 ${
      out.sha256!.slice(0, 12)
    }): it may start its servers${servers}\n${
      out.changes ? renderChanges(out.changes) : ""
    }a change to the file needs \`mcpx trust\` again\n`;
  },
});
