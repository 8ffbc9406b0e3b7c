// Which configuration files mcpx lets start programs and apply settings: the user's own
// locations, a file the user named, and files trusted once with `mcpx trust` (by real path and
// the sha256 of their text). The same store records the script folders trusted with
// `mcpx trust <dir>` (lib/scripts/trust.ts decides for scripts). docs/security.md says what this
// covers.

import { dirname, join, resolve } from "../_path.ts";
import { McpxError } from "../errors.ts";
import { writeFileAtomic } from "../_atomic.ts";

/** The file, in the state directory, that records trusted configurations (mode 0600). */
export const TRUST_FILE = "trust.json";

/** One trusted configuration, or one trusted script folder. */
export interface TrustRecord {
  /** `scripts` for a script folder; absent for a configuration file. */
  kind?: "scripts";
  /** The configuration's (or folder's) real path (symlinks resolved). */
  path: string;
  /**
   * The sha256 of a configuration's text when it was trusted, 64 lowercase hex digits; empty for
   * a script folder, which is trusted by path (its scripts are edited as they are used).
   */
  sha256: string;
  /** When it was trusted, ISO 8601. */
  trustedAt: string;
  /**
   * A hash of each field of the configuration when it was trusted (lib/config/trust_diff.ts), for
   * saying what changed when it is trusted again; absent in records from before it was kept.
   */
  fields?: Record<string, string>;
}

/** What the trust file holds. */
export interface TrustStore {
  version: 1;
  trusted: TrustRecord[];
}

/** Why a configuration is trusted, or why not. */
export type TrustState =
  | { trusted: true; why: "named" | "location" | "recorded" | "all" }
  | { trusted: false; why: "new" | "changed" | "unsafe"; reason?: string };

/** What a trust decision needs besides the file. */
export interface TrustOptions {
  env: Readonly<Record<string, string>>;
  /** The state directory, where {@linkcode TRUST_FILE} lives. */
  stateDir: string;
  /** The file was named with --config or MCPX_CONFIG. */
  explicit: boolean;
  /** `trust.all` (MCPX_TRUST_ALL): every safe file is trusted. */
  trustAll: boolean;
}

const me = (): number => Deno.uid() ?? -1;
const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0");

/** The sha256 of a configuration's text (UTF-8), as 64 lowercase hex digits. */
export async function contentHash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A path as a shell word: quoted only when it needs to be. */
export function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

/**
 * Why a configuration file may never be trusted, or undefined when it may: it must belong to this
 * user (or root, who can do anything anyway) and be writable by nobody else, or another user
 * could put commands in it after it was read.
 */
export function unsafeReason(path: string): string | undefined {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch {
    return undefined; // reading it fails later, with its own message
  }
  if (info.uid !== null && info.uid !== me() && info.uid !== 0) {
    return `it is owned by uid ${info.uid}, not you (${me()})`;
  }
  if (info.mode !== null && (info.mode & 0o022) !== 0) {
    return `group or others may write it (mode ${octal(info.mode)})`;
  }
  return undefined;
}

function real(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/**
 * Whether a configuration sits in one of the user's own locations: a file directly in
 * `$XDG_CONFIG_HOME/mcpx` or `~/.config/mcpx`, a file directly in the home directory
 * (`~/.mcpx.json`, `~/.mcp.json`), `~/.mcpx/config.json`, or the system's `/etc/mcpx/config.json`.
 */
export function isUserLocation(path: string, env: Readonly<Record<string, string>>): boolean {
  const file = real(path);
  const dir = dirname(file);
  const dirs = new Set<string>();
  const add = (d: string) => [dirs.add(resolve("/", d)), dirs.add(real(d))];
  if (env.XDG_CONFIG_HOME) add(join(env.XDG_CONFIG_HOME, "mcpx"));
  if (env.HOME) {
    add(join(env.HOME, ".config", "mcpx"));
    add(env.HOME);
    add(join(env.HOME, ".mcpx"));
  }
  add("/etc/mcpx");
  return dirs.has(dir);
}

function refuseStore(path: string, why: string): McpxError {
  return new McpxError("UNSAFE_PATH", `Refusing trust file ${path}: ${why}`, {
    hint: "Remove it, then trust your configurations again with `mcpx trust <path>`",
  });
}

/**
 * Reads the trust file; an absent one is empty.
 * @throws {McpxError} UNSAFE_PATH when it is not this user's or others may write it;
 *   CONFIG_INVALID when it is not a trust file.
 */
export function readTrustStore(path: string): TrustStore {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { version: 1, trusted: [] };
    throw e;
  }
  if (!info.isFile) throw refuseStore(path, "it is not a plain file");
  if (info.uid !== null && info.uid !== me()) {
    throw refuseStore(path, `it is owned by uid ${info.uid}, not you (${me()})`);
  }
  if (info.mode !== null && (info.mode & 0o022) !== 0) {
    throw refuseStore(path, `others may write it (mode ${octal(info.mode)})`);
  }
  let data: Partial<TrustStore> | undefined;
  try {
    data = JSON.parse(Deno.readTextFileSync(path));
  } catch { /* judged below */ }
  const ok = (r: unknown): r is TrustRecord =>
    typeof (r as TrustRecord)?.path === "string" &&
    typeof (r as TrustRecord)?.sha256 === "string" &&
    [undefined, "scripts"].includes((r as TrustRecord).kind);
  if (!data || data.version !== 1 || !Array.isArray(data.trusted) || !data.trusted.every(ok)) {
    throw new McpxError(
      "CONFIG_INVALID",
      `Cannot read trust file ${path}: it is not one mcpx wrote`,
      {
        hint: "Remove it, then trust your configurations again with `mcpx trust <path>`",
      },
    );
  }
  return { version: 1, trusted: data.trusted };
}

/** Writes the trust file whole (mode 0600, its folder 0700). */
export function writeTrustStore(path: string, store: TrustStore): void {
  writeFileAtomic(path, JSON.stringify(store, null, 2) + "\n");
}

/** Decides whether the configuration at `path` (its real path) with `text` is trusted. */
export async function trustState(
  path: string,
  text: string,
  options: TrustOptions,
): Promise<TrustState> {
  const reason = unsafeReason(path);
  if (reason) return { trusted: false, why: "unsafe", reason };
  if (options.explicit) return { trusted: true, why: "named" };
  if (isUserLocation(path, options.env)) return { trusted: true, why: "location" };
  if (options.trustAll) return { trusted: true, why: "all" };
  const record = readTrustStore(join(options.stateDir, TRUST_FILE)).trusted.find((r) =>
    r.path === path && r.kind === undefined
  );
  if (!record) return { trusted: false, why: "new" };
  return record.sha256 === await contentHash(text)
    ? { trusted: true, why: "recorded" }
    : { trusted: false, why: "changed" };
}

/** The error for a configuration that is not trusted, naming the command that trusts it. */
export function untrustedError(path: string, state: TrustState & { trusted: false }): McpxError {
  const command = `mcpx trust ${shellWord(path)}`;
  if (state.why === "unsafe") {
    return new McpxError("CONFIG_UNTRUSTED", `Refusing configuration ${path}: ${state.reason}`, {
      hint:
        "mcpx trusts only a file you own that nobody else may write: copy it to a file of your own after reading it, or `chmod go-w` it if it is yours",
    });
  }
  return new McpxError(
    "CONFIG_UNTRUSTED",
    state.why === "changed"
      ? `Configuration ${path} changed since it was trusted: read it, then run \`${command}\``
      : `Configuration ${path} is not trusted yet: read it, then run \`${command}\``,
    {
      hint:
        "Until then nothing it names starts: `mcpx ls` lists its servers, and `search`, `types`, `call`, `run` and `exec` exit 9",
    },
  );
}

/**
 * Refuses a configuration that is not trusted.
 * @throws {McpxError} CONFIG_UNTRUSTED naming the file and the command that trusts it.
 */
export async function requireTrusted(
  path: string,
  text: string,
  options: TrustOptions,
): Promise<void> {
  const state = await trustState(path, text, options);
  if (!state.trusted) throw untrustedError(path, state);
}

/** Records `path` (a real path) with `text` as trusted, replacing an older record of it. */
export async function trustFile(
  storePath: string,
  path: string,
  text: string,
  now: Date = new Date(),
  fields?: Record<string, string>,
): Promise<TrustRecord> {
  const reason = unsafeReason(path);
  if (reason) throw untrustedError(path, { trusted: false, why: "unsafe", reason });
  const store = readTrustStore(storePath);
  const record: TrustRecord = {
    path,
    sha256: await contentHash(text),
    trustedAt: now.toISOString(),
    ...(fields ? { fields } : {}),
  };
  store.trusted = [...store.trusted.filter((r) => r.path !== path), record];
  writeTrustStore(storePath, store);
  return record;
}

/**
 * Records the folder `dir` (a real path) as a trusted script folder, replacing an older record.
 * @throws {McpxError} CONFIG_UNTRUSTED for a folder another user owns or others may write.
 */
export function trustScriptDir(
  storePath: string,
  dir: string,
  now: Date = new Date(),
): TrustRecord {
  const reason = unsafeReason(dir);
  if (reason) {
    throw new McpxError("CONFIG_UNTRUSTED", `Refusing script folder ${dir}: ${reason}`, {
      hint:
        "mcpx runs scripts only from a folder you own that nobody else may write: copy the scripts you have read to one of your own",
    });
  }
  const store = readTrustStore(storePath);
  const record: TrustRecord = {
    kind: "scripts",
    path: dir,
    sha256: "",
    trustedAt: now.toISOString(),
  };
  store.trusted = [...store.trusted.filter((r) => r.path !== dir), record];
  writeTrustStore(storePath, store);
  return record;
}

/** Removes the records of any of `paths`; returns those removed. */
export function revokeFile(storePath: string, paths: readonly string[]): TrustRecord[] {
  const store = readTrustStore(storePath);
  const removed = store.trusted.filter((r) => paths.includes(r.path));
  if (removed.length > 0) {
    store.trusted = store.trusted.filter((r) => !paths.includes(r.path));
    writeTrustStore(storePath, store);
  }
  return removed;
}
