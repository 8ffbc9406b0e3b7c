// Whether a script found by name may run (docs/security.md, "Repositories"). A `.mcpx/scripts`
// folder found upward from the working directory is a repository's file as much as its
// `.mcpx.json` is: it runs only inside a trusted project, or once trusted with `mcpx trust <dir>`.
// The user's own folders and those `paths.scripts` names (from a trusted file, the environment or
// a flag) need no trust. A script, or a folder holding it, that another user owns or others may
// write is never run.

import { dirname, join } from "../_path.ts";
import { McpxError } from "../errors.ts";
import { readTrustStore, shellWord, TRUST_FILE, unsafeReason } from "../config/trust.ts";
import { discoverRepository } from "../git/discover.ts";
import type { ResolvedScript } from "./resolve.ts";

/** What deciding needs: the caller's variables, the state folder, and the trusted configurations. */
export interface ScriptTrustOptions {
  env: Readonly<Record<string, string>>;
  stateDir: string;
  /** `trust.all` (MCPX_TRUST_ALL): every safe folder is trusted. */
  trustAll: boolean;
  /** The real paths of the trusted configuration files (the settings layers that applied). */
  trustedConfigs: readonly string[];
}

const basename = (path: string) => path.slice(path.lastIndexOf("/") + 1);

function real(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/** The folder a configuration's project is: `/repo` for `/repo/.mcpx.json` and `/repo/.mcpx/config.json`. */
function projectDir(config: string): string {
  const dir = dirname(config);
  return basename(dir) === ".mcpx" && basename(config) === "config.json" ? dirname(dir) : dir;
}

/**
 * The folders a trusted configuration's project covers: its own folder and each one above it up to
 * the top of the git checkout holding it (none above when it is in no checkout). A `.mcpx/scripts`
 * folder in one of them belongs to the project.
 */
export function projectFolders(config: string): string[] {
  const start = projectDir(config);
  const top = discoverRepository(start)?.worktree;
  const out = [start];
  if (
    top === undefined || !(start === top || start.startsWith(top.endsWith("/") ? top : top + "/"))
  ) {
    return out;
  }
  for (let dir = start; dir !== top && dirname(dir) !== dir;) {
    dir = dirname(dir);
    out.push(dir);
  }
  return out;
}

function refuse(script: string, what: string, reason: string): McpxError {
  const which = what === script
    ? `script ${script}`
    : `script folder ${what} (holding ${script.slice(what.length + 1)})`;
  return new McpxError("CONFIG_UNTRUSTED", `Refusing ${which}: ${reason}`, {
    hint:
      "mcpx runs a script it finds by name only from a folder you own that nobody else may write; run a file you have read by its path (`mcpx run ./hello.ts`)",
  });
}

/**
 * Refuses a script found by name that may not run: one in a file or folder another user owns or
 * others may write (always), or one in a `.mcpx/scripts` folder found upward that is in no trusted
 * project and was not trusted with `mcpx trust <dir>`. A script given by path is not checked: the
 * user named it.
 * @throws {McpxError} CONFIG_UNTRUSTED naming the reason, or the command that trusts the folder.
 */
export function requireScriptTrusted(script: ResolvedScript, options: ScriptTrustOptions): void {
  if (!script.named || !script.location) return;
  const location = script.location;
  const folder = location.kind === "dir" ? location.path : dirname(location.path);
  const checked = [script.path, folder];
  if (location.from === "project") checked.push(dirname(folder));
  for (const path of checked) {
    const reason = unsafeReason(path);
    if (reason) throw refuse(script.path, path, reason);
  }
  if (location.from !== "project" || options.trustAll) return;
  const dir = real(folder);
  // The home folder's own `.mcpx/scripts` is the user's, as `~/.mcpx/config.json` is.
  if (options.env.HOME && dir === real(join(options.env.HOME, ".mcpx", "scripts"))) return;
  // The folder holding `.mcpx/scripts`: the project folder it would belong to.
  const owner = dirname(dirname(dir));
  if (options.trustedConfigs.some((c) => projectFolders(c).includes(owner))) return;
  const store = readTrustStore(join(options.stateDir, TRUST_FILE));
  if (store.trusted.some((r) => r.kind === "scripts" && r.path === dir)) return;
  const command = `mcpx trust ${shellWord(dir)}`;
  throw new McpxError(
    "CONFIG_UNTRUSTED",
    `Script folder ${dir} is not trusted: read its scripts, then run \`${command}\``,
    {
      hint:
        "A .mcpx/scripts folder found from the working directory upward runs by name only in a trusted project (beside a trusted configuration, or up to its git checkout's top) or once trusted; a script given by path (`mcpx run ./hello.ts`) runs as named",
    },
  );
}
