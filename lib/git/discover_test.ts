// Every fixture is built by the real `git`, and every native answer is checked against
// what `git rev-parse` says in the same folder (made absolute and real).

import assert from "node:assert/strict";
import {
  discoverRepository,
  explainRepository,
  type FinderNote,
  parseConfig,
  repositoryFinder,
} from "./discover.ts";
import type { RepositoryInfo, RepositoryLayout } from "./discover.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin";

/** A temp folder (real path), removed afterwards. */
function withTemp(fn: (root: string) => void): () => void {
  return () => {
    const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "mcpx-git-" }));
    try {
      fn(root);
    } finally {
      Deno.removeSync(root, { recursive: true });
    }
  };
}

/**
 * Runs git in `cwd` with an environment of our choosing: none of the test process's GIT_*
 * variables, and no user or system config (init.defaultBranch, safe.bareRepository…).
 */
function run(cwd: string, ...args: string[]): { ok: boolean; out: string; err: string } {
  const out = new Deno.Command("git", {
    args: [
      ...["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"],
      ...["-c", "protocol.file.allow=always", ...args],
    ],
    cwd,
    clearEnv: true,
    env: { PATH, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    stdin: "null",
  }).outputSync();
  const text = new TextDecoder();
  return { ok: out.success, out: text.decode(out.stdout).trim(), err: text.decode(out.stderr) };
}

function git(cwd: string, ...args: string[]): string {
  const r = run(cwd, ...args);
  if (!r.ok) throw new Error(`git ${args.join(" ")} in ${cwd}: ${r.err}`);
  return r.out;
}

/** A repository at `dir` with one empty commit. */
function repo(dir: string): string {
  Deno.mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q");
  git(dir, "commit", "-q", "--allow-empty", "-m", "x");
  return dir;
}

/** What git says about `cwd`, as real paths; the git dir stands in for a missing work tree. */
function gitSays(cwd: string): Omit<RepositoryInfo, "layout"> | undefined {
  const r = run(cwd, "rev-parse", "--absolute-git-dir", "--git-common-dir");
  if (!r.ok) return undefined;
  const [gitDir, common] = r.out.split("\n");
  const real = (p: string) => Deno.realPathSync(p.startsWith("/") ? p : `${cwd}/${p}`);
  const top = run(cwd, "rev-parse", "--show-toplevel");
  return {
    worktree: top.ok ? real(top.out) : real(gitDir),
    gitDir: real(gitDir),
    commonDir: real(common),
  };
}

/** Our answer for `cwd` is git's, with `layout`. */
function agrees(cwd: string, layout: RepositoryLayout): RepositoryInfo {
  const theirs = gitSays(cwd);
  assert.ok(theirs, `git finds no repository at ${cwd}`);
  const ours = discoverRepository(cwd);
  assert.deepEqual(ours, { ...theirs, layout }, cwd);
  return ours!;
}

/** Neither we nor git find a repository at `cwd`; returns our reason. */
function bothRefuse(cwd: string): string {
  assert.equal(gitSays(cwd), undefined, `git finds a repository at ${cwd}`);
  const ex = explainRepository(cwd);
  assert.equal(ex.info, undefined);
  assert.ok(ex.reason);
  return ex.reason;
}

Deno.test(
  "a plain repository: its top level and the folders below it",
  withTemp((root) => {
    const a = repo(`${root}/a`);
    Deno.mkdirSync(`${a}/src/deep`, { recursive: true });
    const info = agrees(a, "dir");
    assert.equal(info.commonDir, `${a}/.git`);
    assert.deepEqual(agrees(`${a}/src/deep`, "dir"), info);
  }),
);

Deno.test(
  "a linked worktree: its own gitdir and worktree, the main repository's common dir",
  withTemp((root) => {
    const a = repo(`${root}/a`);
    git(a, "worktree", "add", "-q", `${root}/wt`);
    Deno.mkdirSync(`${root}/wt/sub`);
    const info = agrees(`${root}/wt/sub`, "worktree");
    assert.equal(info.worktree, `${root}/wt`);
    assert.equal(info.gitDir, `${a}/.git/worktrees/wt`);
    assert.equal(info.commonDir, `${a}/.git`);
    // Same repo key as the main checkout, different worktree key.
    const main = agrees(a, "dir");
    assert.equal(main.commonDir, info.commonDir);
    assert.notEqual(main.worktree, info.worktree);
  }),
);

Deno.test(
  "a submodule: keyed by its module dir; the superproject still answers for itself",
  withTemp((root) => {
    repo(`${root}/lib`);
    const sup = repo(`${root}/super`);
    git(sup, "submodule", "add", "-q", "../lib", "vendor/lib");
    assert.match(Deno.readTextFileSync(`${sup}/vendor/lib/.git`), /^gitdir: \.\.\//); // relative
    Deno.mkdirSync(`${sup}/vendor/lib/inner`);
    const info = agrees(`${sup}/vendor/lib/inner`, "submodule");
    assert.equal(info.worktree, `${sup}/vendor/lib`);
    assert.equal(info.commonDir, `${sup}/.git/modules/vendor/lib`);
    assert.equal(agrees(`${sup}/vendor`, "dir").worktree, sup);
  }),
);

Deno.test(
  "a bare repository, and a folder inside it",
  withTemp((root) => {
    const b = `${root}/b.git`;
    git(root, "init", "-q", "--bare", b);
    assert.equal(run(b, "rev-parse", "--show-toplevel").ok, false); // git: no work tree
    const info = agrees(b, "bare");
    assert.deepEqual(info, { worktree: b, gitDir: b, commonDir: b, layout: "bare" });
    assert.deepEqual(agrees(`${b}/refs/heads`, "bare"), info);
  }),
);

Deno.test(
  "a worktree of a bare repository has a work tree: the common core.bare is not its",
  withTemp((root) => {
    const src = repo(`${root}/src`);
    git(root, "clone", "-q", "--bare", src, `${root}/b.git`);
    git(`${root}/b.git`, "worktree", "add", "-q", `${root}/bw`);
    const info = agrees(`${root}/bw`, "worktree");
    assert.equal(info.worktree, `${root}/bw`);
    assert.equal(info.commonDir, `${root}/b.git`);
  }),
);

Deno.test(
  "--separate-git-dir: a .git file that points outside any modules/",
  withTemp((root) => {
    git(root, "init", "-q", `--separate-git-dir=${root}/store`, `${root}/checkout`);
    const info = agrees(`${root}/checkout`, "gitfile");
    assert.equal(info.gitDir, `${root}/store`);
    assert.equal(info.worktree, `${root}/checkout`);
  }),
);

Deno.test(
  "inside a git directory there is no work tree, as git says",
  withTemp((root) => {
    const a = repo(`${root}/a`);
    git(a, "worktree", "add", "-q", `${root}/wt`);
    agrees(`${a}/.git`, "bare");
    assert.equal(agrees(`${a}/.git/objects`, "bare").worktree, `${a}/.git`);
    const wt = agrees(`${a}/.git/worktrees/wt`, "bare");
    assert.equal(wt.commonDir, `${a}/.git`); // the commondir file still counts
  }),
);

Deno.test(
  "a symlinked path answers with real paths",
  withTemp((root) => {
    const a = repo(`${root}/a`);
    Deno.mkdirSync(`${a}/sub`);
    Deno.symlinkSync(`${a}/sub`, `${root}/link`);
    const info = agrees(`${root}/link`, "dir");
    assert.equal(info.worktree, a);
    // A symlinked .git directory is followed too.
    const b = repo(`${root}/b-store`);
    Deno.mkdirSync(`${root}/b`);
    Deno.renameSync(`${b}/.git`, `${root}/b-git`);
    Deno.symlinkSync(`${root}/b-git`, `${root}/b/.git`);
    const linked = agrees(`${root}/b`, "dir");
    assert.equal(linked.gitDir, `${root}/b-git`);
  }),
);

Deno.test(
  "a plain folder is not a repository",
  withTemp((root) => {
    Deno.mkdirSync(`${root}/plain/deeper`, { recursive: true });
    assert.match(bothRefuse(`${root}/plain/deeper`), /is not in a git repository/);
    assert.equal(discoverRepository(`${root}/plain`), undefined);
  }),
);

Deno.test(
  "a folder that becomes a repository later is found: no negative answer is kept",
  withTemp((root) => {
    const dir = `${root}/later`;
    Deno.mkdirSync(`${dir}/sub`, { recursive: true });
    assert.equal(discoverRepository(`${dir}/sub`), undefined);
    git(dir, "init", "-q");
    assert.equal(agrees(`${dir}/sub`, "dir").worktree, dir);
    Deno.removeSync(`${dir}/.git`, { recursive: true });
    assert.equal(discoverRepository(`${dir}/sub`), undefined);
  }),
);

Deno.test(
  "the caller's folder decides, not the process's; no environment is taken",
  withTemp((root) => {
    const a = repo(`${root}/a`);
    const b = repo(`${root}/b`);
    // One parameter: nothing from an environment can pin the answer.
    assert.equal(discoverRepository.length, 1);
    const source = Deno.readTextFileSync(new URL("./discover.ts", import.meta.url));
    assert.doesNotMatch(source, /Deno\.env|Deno\.cwd|process\.env/);
    const before = Deno.cwd();
    Deno.chdir(a);
    try {
      assert.equal(discoverRepository(b)?.worktree, b);
      assert.equal(explainRepository(b, { PATH }).info?.commonDir, `${b}/.git`);
    } finally {
      Deno.chdir(before);
    }
  }),
);

Deno.test(
  "a relative or missing folder is refused with a reason",
  withTemp((root) => {
    repo(`${root}/a`);
    assert.match(explainRepository("a").reason!, /not an absolute path/);
    assert.match(explainRepository(".").reason!, /not an absolute path/);
    assert.match(explainRepository(`${root}/a/missing`).reason!, /cannot resolve/);
  }),
);

Deno.test(
  "a .git folder that is not a repository is skipped, as git skips it",
  withTemp((root) => {
    const a = repo(`${root}/a`);
    Deno.mkdirSync(`${a}/sub/.git`, { recursive: true });
    Deno.writeTextFileSync(`${a}/sub/.git/HEAD`, "not a ref\n");
    assert.equal(agrees(`${a}/sub`, "dir").worktree, a);
  }),
);

Deno.test(
  "a broken .git file stops the walk, as git does",
  withTemp((root) => {
    const a = repo(`${root}/a`);
    Deno.mkdirSync(`${a}/sub`);
    Deno.writeTextFileSync(`${a}/sub/.git`, `gitdir: ${root}/nowhere\n`);
    assert.match(bothRefuse(`${a}/sub`), /not a git directory/);
    Deno.writeTextFileSync(`${a}/sub/.git`, "hello\n");
    assert.match(bothRefuse(`${a}/sub`), /not a "gitdir: <path>" file/);
  }),
);

Deno.test(
  "core.worktree elsewhere: left to one git run when allowed, else a reason",
  withTemp((root) => {
    const a = repo(`${root}/a`);
    Deno.mkdirSync(`${root}/elsewhere`);
    git(a, "config", "core.worktree", "../../elsewhere");
    const theirs = gitSays(a);
    assert.equal(theirs?.worktree, `${root}/elsewhere`);
    assert.equal(discoverRepository(a), undefined);
    const plain = explainRepository(a);
    assert.equal(plain.unsupported, "core.worktree");
    assert.match(plain.reason!, /core\.worktree = \.\.\/\.\.\/elsewhere.*no git fallback/);
    const noGit = explainRepository(a, { PATH: `${root}/empty:relative/bin` });
    assert.match(noGit.reason!, /git is not on PATH/);
    const asked = explainRepository(a, { PATH });
    assert.equal(asked.source, "git");
    assert.deepEqual(asked.info, { ...theirs, layout: "dir" });
  }),
);

Deno.test(
  "repositoryFinder() asks git once per folder for a layout left to it, else keys by the folder",
  withTemp((root) => {
    const a = repo(`${root}/a`);
    Deno.mkdirSync(`${root}/elsewhere`);
    git(a, "config", "core.worktree", "../../elsewhere");
    // A git that counts its runs, in front of the real one.
    const real = run(root, "--exec-path").ok
      ? new Deno.Command("sh", {
        args: ["-c", "command -v git"],
        env: { PATH },
        stdout: "piped",
      }).outputSync()
      : undefined;
    const gitPath = new TextDecoder().decode(real?.stdout).trim();
    Deno.mkdirSync(`${root}/bin`);
    Deno.writeTextFileSync(
      `${root}/bin/git`,
      `#!/bin/sh\necho run >> ${root}/runs\nexec ${gitPath} "$@"\n`,
    );
    Deno.chmodSync(`${root}/bin/git`, 0o755);
    const notes: FinderNote[] = [];
    const find = repositoryFinder({ PATH: `${root}/bin:${PATH}` }, (n) => notes.push(n));
    const first = find(a);
    assert.equal(first?.worktree, `${root}/elsewhere`);
    assert.deepEqual(find(a), first);
    assert.deepEqual(find(a), first);
    const runs = () => Deno.readTextFileSync(`${root}/runs`).split("\n").filter(Boolean).length;
    assert.equal(runs(), 1, "three calls from one folder ran git once");
    assert.deepEqual(notes.map((n) => [n.cwd, n.outcome]), [[a, "git"]]);
    assert.match(notes[0].reason, /answered by git rev-parse/);
    // A layout the native reader handles never runs git.
    const b = repo(`${root}/b`);
    assert.equal(find(b)?.worktree, b);
    assert.equal(runs(), 1);
    // With no git to ask, the folder stands for the repository, said once.
    const noGit = repositoryFinder({ PATH: `${root}/empty` }, (n) => notes.push(n));
    assert.deepEqual(noGit(a), { worktree: a, gitDir: a, commonDir: a, layout: "dir" });
    noGit(a);
    assert.deepEqual(notes.slice(1).map((n) => [n.outcome, /git is not on PATH/.test(n.reason)]), [
      ["folder", true],
    ]);
    // Outside any repository it is still no repository (the scope's own error says so).
    Deno.mkdirSync(`${root}/plain`);
    assert.equal(
      repositoryFinder({ PATH }, () => {})(`${root}/plain`),
      discoverRepository(`${root}/plain`),
    );
  }),
);

Deno.test(
  "inside a submodule's gitdir, core.worktree names the checkout: left to git",
  withTemp((root) => {
    repo(`${root}/lib`);
    const sup = repo(`${root}/super`);
    git(sup, "submodule", "add", "-q", "../lib", "lib");
    const gitdir = `${sup}/.git/modules/lib`;
    assert.equal(gitSays(gitdir)?.worktree, `${sup}/lib`);
    assert.equal(explainRepository(gitdir).unsupported, "core.worktree");
    const asked = explainRepository(gitdir, { PATH });
    assert.deepEqual(asked.info, { ...gitSays(gitdir), layout: "submodule" });
  }),
);

Deno.test(
  "a repository format above 1 is refused, as git refuses it",
  withTemp((root) => {
    const a = repo(`${root}/a`);
    git(a, "config", "core.repositoryformatversion", "2");
    assert.match(bothRefuse(a), /core\.repositoryformatversion 2/);
  }),
);

Deno.test(
  "the config is read as git reads it",
  withTemp((root) => {
    const a = repo(`${root}/a`);
    const config = `${a}/.git/config`;
    const write = (text: string) => Deno.writeTextFileSync(config, text);
    // Without core.repositoryformatversion git ignores core.bare.
    write("[core]\n\tbare = true\n");
    agrees(a, "dir");
    write("[core]\n\trepositoryformatversion = 0\n[CORE]\n\tBare\n");
    agrees(a, "bare");
    write("[core] repositoryformatversion = 0\n\tbare = yes # comment\n");
    agrees(a, "bare");
    write('[core]\n\trepositoryformatversion = 0\n[core "x"]\n\tbare = true\n[core.y]\n\tbare\n');
    agrees(a, "dir");
    write("[core]\n\trepositoryformatversion = 0\n\tbare = 0x0\n");
    agrees(a, "dir");
    write("[core]\n\trepositoryformatversion = 0\n\tbare ; comment\n");
    assert.match(bothRefuse(a), /bad config line 3/);
    write("[core]\n\trepositoryformatversion = 0\n\tbare = maybe\n");
    assert.match(bothRefuse(a), /bad boolean config value/);
  }),
);

Deno.test(
  "extensions.worktreeConfig: the common core.bare applies to worktrees too",
  withTemp((root) => {
    const a = repo(`${root}/a`);
    git(a, "worktree", "add", "-q", `${root}/wt`);
    git(a, "config", "core.repositoryformatversion", "1");
    git(a, "config", "extensions.worktreeConfig", "true");
    git(a, "config", "core.bare", "true");
    assert.equal(agrees(`${root}/wt`, "bare").worktree, `${a}/.git/worktrees/wt`);
    // Moved into the main checkout's config.worktree, as git-worktree(1) advises, it no
    // longer reaches the linked worktree.
    git(a, "config", "--unset", "core.bare");
    Deno.writeTextFileSync(`${a}/.git/config.worktree`, "[core]\n\tbare = true\n");
    agrees(`${root}/wt`, "worktree");
    agrees(a, "bare");
  }),
);

Deno.test("parseConfig() follows git's syntax", () => {
  const text = '\uFEFF# c\n[Core]\n\tWorkTree = " a  b " c\\\n d ; x\n[remote "Up\\"s"] url\n' +
    "[x] k = \\t\\n\\b\\\\ \r\n";
  assert.deepEqual(parseConfig(text), [
    ["core.worktree", " a  b  c d"],
    ['remote.Up"s.url', null],
    ["x.k", "\t\n\b\\"],
  ]);
  assert.throws(() => parseConfig('[core]\n\tworktree = "open\n'), /bad config line 2/);
  assert.throws(() => parseConfig("[core]\n\tk = \\q\n"), /bad config line 2/);
  assert.throws(() => parseConfig("[]\n"), /bad config line 1/);
  assert.throws(() => parseConfig("[a\nb]\n"), /bad config line 1/);
  assert.throws(() => parseConfig("1k = v\n"), /bad config line 1/);
});

const shm = (() => {
  try {
    return Deno.statSync("/dev/shm").dev !== Deno.statSync("/dev").dev;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "the walk stops at a filesystem boundary, as git does by default",
  ignore: !shm,
  fn: () => {
    const said = run("/dev/shm", "rev-parse", "--git-dir");
    assert.equal(said.ok, false);
    assert.match(said.err, /mount point|filesystem boundary/);
    assert.match(explainRepository("/dev/shm").reason!, /filesystem boundary at \/dev\/shm/);
  },
});
