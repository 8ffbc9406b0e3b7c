// Finds the git repository that holds a directory by reading `.git` directly: a port of
// git's discovery rules (setup.c, gitrepository-layout(5), git-worktree(1)). No `git`
// subprocess on the normal path, no cache, and no environment: the answer depends only on
// the directory passed in and the files on disk. docs/git-discovery.md walks the layouts.

import { messageOf } from "../errors.ts";
import { dirname } from "../_path.ts";
import { findOnPath, isDirectory } from "../_fs.ts";

/** How the repository of a checkout is laid out on disk. */
export type RepositoryLayout =
  /** `<worktree>/.git` is the repository directory. */
  | "dir"
  /** `<worktree>/.git` is a file `gitdir: <path>` (e.g. `git init --separate-git-dir`). */
  | "gitfile"
  /** A linked worktree (`git worktree add`): the gitdir holds a `commondir` file. */
  | "worktree"
  /** A submodule checkout whose `.git` file points into `<super>/.git/modules/<name>`. */
  | "submodule"
  /** No work tree: a bare repository, or the directory is inside a git directory. */
  | "bare";

/** Where a directory's repository lives. Every path is a real path (symlinks resolved). */
export interface RepositoryInfo {
  /** The checkout's top level (`git rev-parse --show-toplevel`); `gitDir` when bare. */
  worktree: string;
  /** This checkout's git directory (`git rev-parse --absolute-git-dir`). */
  gitDir: string;
  /** The shared git directory (`--git-common-dir`): `gitDir` unless a linked worktree. */
  commonDir: string;
  layout: RepositoryLayout;
}

/** Why a directory has, or has no, repository. */
export interface RepositoryExplanation {
  info?: RepositoryInfo;
  /** Why `info` is absent; or, when `source` is "git", which layout needed git. */
  reason?: string;
  /** Set when the repository uses a layout the native reader leaves to git. */
  unsupported?: "core.worktree";
  /** Who produced `info`. */
  source?: "native" | "git";
}

/**
 * What the one `git rev-parse` fallback may use. It is the only way anything from an
 * environment reaches this module, and only these two values are passed to git: never
 * GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR or any other GIT_* variable.
 */
export interface GitFallback {
  /** The PATH to find `git` on. Relative entries are skipped. */
  PATH: string;
  /** Lets git read the user's own configuration (e.g. `safe.directory`). */
  HOME?: string;
}

/**
 * The repository holding `cwd` (an absolute path), read from disk; `undefined` when there
 * is none or its layout is one the native reader leaves to git ({@link explainRepository}
 * says which). Takes no environment, caches nothing and starts no process.
 */
export function discoverRepository(cwd: string): RepositoryInfo | undefined {
  return explainRepository(cwd).info;
}

/**
 * Like {@link discoverRepository}, with the reason when there is no answer. Given a
 * `fallback`, a layout the native reader does not implement is handed to one
 * `git rev-parse` run in `cwd` with an otherwise empty environment.
 */
export function explainRepository(cwd: string, fallback?: GitFallback): RepositoryExplanation {
  try {
    return explain(cwd, fallback);
  } catch (e) {
    // A race with the filesystem (a folder removed mid-walk): an answer, never a throw.
    return { reason: `cannot read the repository of ${cwd}: ${messageOf(e)}` };
  }
}

function explain(cwd: string, fallback?: GitFallback): RepositoryExplanation {
  if (!cwd.startsWith("/")) {
    return { reason: `${JSON.stringify(cwd)} is not an absolute path` };
  }
  let start: string;
  let device: number;
  try {
    start = Deno.realPathSync(cwd);
    device = Deno.statSync(start).dev;
  } catch (e) {
    return { reason: `cannot resolve ${cwd}: ${messageOf(e)}` };
  }
  let dir = start;
  for (;;) {
    const found = probe(dir);
    if (typeof found === "string") return { reason: found };
    if (found) return settle(start, found, fallback);
    if (dir === "/") {
      return { reason: `${start} is not in a git repository (no .git in it or any parent)` };
    }
    const parent = dirname(dir);
    let parentDevice: number;
    try {
      parentDevice = Deno.statSync(parent).dev;
    } catch (e) {
      return { reason: `cannot stat ${parent}: ${messageOf(e)}` };
    }
    if (parentDevice !== device) {
      return {
        reason: `${start} is not in a git repository (stopped at the filesystem boundary ` +
          `at ${dir}, as git does)`,
      };
    }
    dir = parent;
  }
}

/** A git directory found while walking up. */
interface Found {
  /** Real path of the git directory. */
  gitDir: string;
  /** The folder whose `.git` led here; undefined when the folder itself is a git dir. */
  holder?: string;
  /** Whether that `.git` was a file. */
  gitfile: boolean;
}

/** One step of the walk: `.git` (file, then directory), then the folder itself (bare). */
function probe(dir: string): Found | string | undefined {
  const dotgit = dir === "/" ? "/.git" : `${dir}/.git`;
  let st: Deno.FileInfo | undefined;
  try {
    st = Deno.statSync(dotgit);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory)) {
      return `cannot stat ${dotgit}: ${messageOf(e)}`;
    }
  }
  if (st?.isFile) {
    const target = readGitfile(dotgit, st.size);
    if ("reason" in target) return target.reason;
    return { gitDir: target.gitDir, holder: dir, gitfile: true };
  }
  if (st?.isDirectory) {
    // A `.git` folder that is not a repository is skipped, as git skips it.
    if (isGitDirectory(dotgit)) {
      return { gitDir: Deno.realPathSync(dotgit), holder: dir, gitfile: false };
    }
  } else if (st) {
    return `${dotgit} is neither a file nor a directory (git refuses it)`;
  }
  if (isGitDirectory(dir)) return { gitDir: dir, gitfile: false };
  return undefined;
}

/** The real path a `.git` file names, or a reason (git refuses every one of these). */
function readGitfile(path: string, size: number): { gitDir: string } | { reason: string } {
  if (size > 1 << 20) return { reason: `${path} is too large to be a .git file` };
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    return { reason: `cannot read ${path}: ${messageOf(e)}` };
  }
  if (!text.startsWith("gitdir: ")) return { reason: `${path} is not a "gitdir: <path>" file` };
  const target = text.slice(8).replace(/[\r\n]+$/, "");
  if (target === "") return { reason: `${path} names no path` };
  const joined = target.startsWith("/") ? target : `${dirname(path)}/${target}`;
  if (!isGitDirectory(joined)) {
    return { reason: `${path} points to ${target}, which is not a git directory` };
  }
  try {
    return { gitDir: Deno.realPathSync(joined) };
  } catch (e) {
    return { reason: `cannot resolve ${joined}: ${messageOf(e)}` };
  }
}

/**
 * git's `is_git_directory`: a valid HEAD in the directory, and `objects/` and `refs/` in
 * its common directory (its `commondir` file's target, if it has one).
 */
function isGitDirectory(dir: string): boolean {
  if (!validHead(`${dir}/HEAD`)) return false;
  let common: string;
  try {
    common = commonDirOf(dir) ?? dir;
  } catch {
    return false;
  }
  return isDirectory(`${common}/objects`) && isDirectory(`${common}/refs`);
}

/** git's `validate_headref`: a `refs/…` symlink, `ref: refs/…`, or an object id. */
function validHead(path: string): boolean {
  try {
    if (Deno.lstatSync(path).isSymlink) return Deno.readLinkSync(path).startsWith("refs/");
    const file = Deno.openSync(path);
    try {
      const buf = new Uint8Array(255);
      const n = file.readSync(buf) ?? 0;
      const head = new TextDecoder("latin1").decode(buf.subarray(0, n));
      if (/^ref:[ \t\n\r]*refs\//.test(head)) return true;
      return /^[0-9a-fA-F]{40}/.test(head);
    } finally {
      file.close();
    }
  } catch {
    return false;
  }
}

/** The real path named by `<gitDir>/commondir` (relative to `gitDir`), if the file exists. */
function commonDirOf(gitDir: string): string | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`${gitDir}/commondir`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw e;
  }
  const target = text.replace(/[\r\n]+$/, "");
  return Deno.realPathSync(target.startsWith("/") ? target : `${gitDir}/${target}`);
}

/** Turns a found git directory into an answer, applying the repository's own config. */
function settle(start: string, found: Found, fallback?: GitFallback): RepositoryExplanation {
  const { gitDir, holder } = found;
  let commonDir: string | undefined;
  let format: Format;
  try {
    commonDir = commonDirOf(gitDir);
    format = readFormat(gitDir, commonDir ?? gitDir, commonDir !== undefined);
  } catch (e) {
    return { reason: `cannot read the repository at ${gitDir}: ${messageOf(e)}` };
  }
  if (format.version > 1) {
    return {
      reason: `${gitDir} has core.repositoryformatversion ${format.version}; git refuses ` +
        `versions above 1`,
    };
  }
  const shared = commonDir ?? gitDir;
  const bare = (): RepositoryInfo => ({
    worktree: gitDir,
    gitDir,
    commonDir: shared,
    layout: "bare",
  });
  // git: core.bare wins over core.worktree; a folder found as a git dir has no work tree.
  if (format.bare === true) return { info: bare(), source: "native" };
  if (format.worktree !== undefined) {
    const value = format.worktree;
    let named: string;
    try {
      named = Deno.realPathSync(value.startsWith("/") ? value : `${gitDir}/${value}`);
    } catch (e) {
      return {
        reason: `${gitDir} has core.worktree = ${value}, which git cannot enter: ${messageOf(e)}`,
      };
    }
    // A submodule's gitdir names its own checkout: the layout we implement.
    if (named !== holder) {
      const reason = `${gitDir} has core.worktree = ${value}, which moves the checkout to ` +
        `${named}; the native reader leaves that layout to git`;
      return askGit(start, reason, layoutOf(found, commonDir), fallback);
    }
  }
  if (holder === undefined) return { info: bare(), source: "native" };
  return {
    info: { worktree: holder, gitDir, commonDir: shared, layout: layoutOf(found, commonDir) },
    source: "native",
  };
}

/** The layout of a checkout that has a work tree (git's fallback may find one for a bare find). */
function layoutOf(found: Found, commonDir: string | undefined): RepositoryLayout {
  if (commonDir !== undefined) return "worktree";
  if (found.gitfile || found.holder === undefined) {
    return insideModules(found.gitDir) ? "submodule" : found.gitfile ? "gitfile" : "dir";
  }
  return "dir";
}

/** Whether `gitDir` lies under `<some git dir>/modules/`, where submodules keep theirs. */
function insideModules(gitDir: string): boolean {
  for (let p = dirname(gitDir); p !== "/"; p = dirname(p)) {
    if (p.endsWith("/modules") && isGitDirectory(dirname(p))) return true;
  }
  return false;
}

// --- The repository's config: the four keys discovery reads --------------------------

interface Format {
  /** core.repositoryformatversion; -1 when absent, and then git ignores the rest. */
  version: number;
  bare?: boolean;
  worktree?: string;
}

/**
 * git's `read_and_verify_repository_format`: core.* from the common config; with
 * extensions.worktreeConfig, overridden by this checkout's `config.worktree`. A checkout
 * with a `commondir` ignores the common config's core.bare and core.worktree.
 */
function readFormat(gitDir: string, commonDir: string, hasCommon: boolean): Format {
  const format: Format = { version: -1 };
  let worktreeConfig = false;
  for (const [key, value] of readConfig(`${commonDir}/config`)) {
    if (key === "core.repositoryformatversion") format.version = configInt(key, value);
    else if (key === "extensions.worktreeconfig") worktreeConfig = configBool(key, value);
    else applyWorktreeKey(format, key, value);
  }
  if (format.version < 0) return { version: -1 };
  if (worktreeConfig) {
    for (const [key, value] of readConfig(`${gitDir}/config.worktree`)) {
      applyWorktreeKey(format, key, value);
    }
  } else if (hasCommon) {
    delete format.bare;
    delete format.worktree;
  }
  return format;
}

function applyWorktreeKey(format: Format, key: string, value: string | null): void {
  if (key === "core.bare") format.bare = configBool(key, value);
  else if (key === "core.worktree") {
    if (value === null) throw new Error("core.worktree has no value");
    format.worktree = value;
  }
}

/**
 * The `[key, value]` pairs of a git config file (keys lower-cased, `section.sub.name`;
 * `null` for a bare key), per git's config.c. Includes are not followed: git does not
 * follow them when it reads the repository format either. A missing file is empty.
 */
function readConfig(path: string): [string, string | null][] {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return [];
    throw e;
  }
  return parseConfig(text, path);
}

/** git's own `isspace`: space, tab, newline and carriage return only. */
const SPACE = /[ \t\n\r]/;
const KEYCHAR = /[A-Za-z0-9-]/;

/** Parses git config text; throws on what git calls a bad config line. */
export function parseConfig(text: string, name = "config"): [string, string | null][] {
  const src = (text.startsWith("\uFEFF") ? text.slice(1) : text).replace(/\r\n/g, "\n") + "\n";
  const out: [string, string | null][] = [];
  let i = 0;
  let line = 1;
  let section = "";
  let startLine = 1;
  const bad = () => new Error(`bad config line ${startLine} in ${name}`);
  const next = () => {
    const c = src[i++] ?? "\n";
    if (c === "\n") line++;
    return c;
  };
  while (i < src.length) {
    startLine = line;
    const c = next();
    if (c === "\n" || SPACE.test(c)) continue;
    if (c === "#" || c === ";") {
      while (i < src.length && src[i] !== "\n") i++;
      continue;
    }
    if (c === "[") {
      let name = "";
      for (;;) {
        const d = next();
        if (d === "]") break;
        if (SPACE.test(d)) {
          // `[section "subsection"]`: case kept, `\` escapes the next character.
          let e = d;
          while (SPACE.test(e)) {
            if (e === "\n") throw bad();
            e = next();
          }
          if (e !== '"') throw bad();
          name += ".";
          for (;;) {
            let f = next();
            if (f === "\n") throw bad();
            if (f === '"') break;
            if (f === "\\") {
              f = next();
              if (f === "\n") throw bad();
            }
            name += f;
          }
          if (next() !== "]") throw bad();
          break;
        }
        if (!KEYCHAR.test(d) && d !== ".") throw bad();
        name += d.toLowerCase();
      }
      if (name === "") throw bad();
      section = name;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) throw bad();
    let key = c.toLowerCase();
    let d = next();
    while (KEYCHAR.test(d)) {
      key += d.toLowerCase();
      d = next();
    }
    while (d === " " || d === "\t") d = next();
    let value: string | null = null;
    if (d !== "\n") {
      if (d !== "=") throw bad();
      value = parseValue(next, bad);
    }
    out.push([`${section}.${key}`, value]);
  }
  return out;
}

/** git's `parse_value`: quotes, escapes, comments, trimmed trailing blanks. */
function parseValue(next: () => string, bad: () => Error): string {
  let value = "";
  let quote = false;
  let comment = false;
  let trimAt = -1;
  for (;;) {
    let c = next();
    if (c === "\n") {
      if (quote) throw bad();
      return trimAt >= 0 ? value.slice(0, trimAt) : value;
    }
    if (comment) continue;
    if (SPACE.test(c) && !quote) {
      if (trimAt < 0) trimAt = value.length;
      if (value.length > 0) value += c;
      continue;
    }
    if (!quote && (c === ";" || c === "#")) {
      comment = true;
      continue;
    }
    trimAt = -1;
    if (c === "\\") {
      c = next();
      if (c === "\n") continue;
      else if (c === "t") c = "\t";
      else if (c === "b") c = "\b";
      else if (c === "n") c = "\n";
      else if (c !== "\\" && c !== '"') throw bad();
      value += c;
      continue;
    }
    if (c === '"') {
      quote = !quote;
      continue;
    }
    value += c;
  }
}

/** git's `git_config_bool`. */
function configBool(key: string, value: string | null): boolean {
  if (value === null) return true;
  const v = value.toLowerCase();
  if (v === "" || v === "false" || v === "no" || v === "off") return false;
  if (v === "true" || v === "yes" || v === "on") return true;
  try {
    return configInt(key, value) !== 0;
  } catch {
    throw new Error(`bad boolean config value ${JSON.stringify(value)} for ${key}`);
  }
}

/** git's `git_config_int`: decimal, 0x hex or 0 octal, with an optional k, m or g. */
function configInt(key: string, value: string | null): number {
  const m = value === null
    ? null
    : /^\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([kKmMgG]?)$/.exec(value);
  if (!m) throw new Error(`bad numeric config value ${JSON.stringify(value)} for ${key}`);
  const digits = m[2];
  const n = /^0[xX]/.test(digits)
    ? parseInt(digits.slice(2), 16)
    : digits.length > 1 && digits.startsWith("0")
    ? parseInt(digits, 8)
    : parseInt(digits, 10);
  const unit = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[3].toLowerCase()] ?? 1;
  return (m[1] === "-" ? -n : n) * unit;
}

// --- The one git fallback --------------------------------------------------------------

/** Asks git, once, for a layout the native reader leaves to it. */
function askGit(
  cwd: string,
  why: string,
  layout: RepositoryLayout,
  fallback: GitFallback | undefined,
): RepositoryExplanation {
  const unsupported = "core.worktree" as const;
  if (!fallback) return { reason: `${why}, and no git fallback was allowed`, unsupported };
  const git = findOnPath("git", fallback, { absoluteOnly: true });
  if (!git) return { reason: `${why}, and git is not on PATH`, unsupported };
  const env: Record<string, string> = { PATH: fallback.PATH };
  if (fallback.HOME) env.HOME = fallback.HOME;
  let out: Deno.CommandOutput;
  try {
    out = new Deno.Command(git, {
      args: ["rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel"],
      cwd,
      clearEnv: true,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).outputSync();
  } catch (e) {
    return { reason: `${why}, and running ${git} failed: ${messageOf(e)}`, unsupported };
  }
  const text = new TextDecoder();
  if (!out.success) {
    const said = text.decode(out.stderr).trim().split("\n")[0] || `exit ${out.code}`;
    return { reason: `${why}, and git rev-parse said: ${said}`, unsupported };
  }
  const [gitDir, commonDir, worktree] = text.decode(out.stdout).split("\n");
  try {
    const real = (p: string) => Deno.realPathSync(p.startsWith("/") ? p : `${cwd}/${p}`);
    return {
      info: {
        worktree: real(worktree),
        gitDir: real(gitDir),
        commonDir: real(commonDir),
        layout,
      },
      reason: `${why}; answered by git rev-parse`,
      unsupported,
      source: "git",
    };
  } catch (e) {
    return { reason: `${why}, and git rev-parse answered unusably: ${messageOf(e)}`, unsupported };
  }
}

// --- The daemon's finder ---------------------------------------------------------------

/** What {@link repositoryFinder} says when git had to be asked, or could not answer. */
export interface FinderNote {
  cwd: string;
  /** `git`: git answered; `folder`: the scope was degraded to the folder itself. */
  outcome: "git" | "folder";
  reason: string;
}

/**
 * The repository finder the `repo` and `worktree` scopes use: the native reader, and for the
 * layouts it leaves to git (`core.worktree` naming another folder) one `git rev-parse` per
 * folder, remembered, so that a call does not start a process. When git cannot answer either,
 * the folder itself stands for the repository (its processes are keyed by it, as the `cwd` scope
 * would), rather than a process per call. `note` is told once per folder, for the log.
 */
export function repositoryFinder(
  fallback: GitFallback,
  note: (n: FinderNote) => void,
  limit = 1024,
): (cwd: string) => RepositoryInfo | undefined {
  const asked = new Map<string, RepositoryInfo>();
  return (cwd) => {
    const known = asked.get(cwd);
    if (known) return known;
    const native = explainRepository(cwd);
    if (native.info || native.unsupported === undefined) return native.info;
    const answer = explainRepository(cwd, fallback);
    let info = answer.info;
    if (info) note({ cwd, outcome: "git", reason: answer.reason ?? native.reason ?? "" });
    else {
      info = { worktree: cwd, gitDir: cwd, commonDir: cwd, layout: "dir" };
      note({ cwd, outcome: "folder", reason: answer.reason ?? native.reason ?? "" });
    }
    // Bounded: a daemon asked from many folders forgets the oldest answer first.
    if (asked.size >= limit) asked.delete(asked.keys().next().value!);
    asked.set(cwd, info);
    return info;
  };
}
