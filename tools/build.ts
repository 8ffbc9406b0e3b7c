/**
 * Builds the CLI that `deno task install` puts on PATH: `dist/cli/main.js` and its chunks, one
 * JavaScript bundle of main.ts split at every lazy import, so a command loads a few files rather
 * than dozens of TypeScript modules (about 2 ms of each `mcpx ls`; the figures are in
 * docs/dependencies.md).
 *
 *     deno run -A tools/build.ts [--check | --install]
 *
 * A dist/cli already built from the sources as they are is left alone. With `--check` it only
 * says whether it is; with `--install` it then copies it beside the `mcpx` shim it installs
 * (`deno install -g`, honouring DENO_INSTALL_ROOT), so that building again (the tests and the
 * benchmarks do) never changes the installed CLI.
 *
 * The sources are copied and rewritten first, in a temporary folder:
 * - `load<typeof import("X")>("X", import.meta.url)` becomes `import("X")`, which the bundler
 *   sees and splits at; any other use of `load` is refused, since the bundle could not contain it.
 * - every other `import.meta.url` becomes the `file:` URL of the source file it was written in: the
 *   Worker's launcher, the daemon's `main.ts` and AGENTS.md stay the repository's own files,
 *   wherever the bundle is copied.
 * - `BUILD` in lib/version.ts becomes this build's stamp of the sources.
 * launcher/worker.ts is bundled on its own into `worker.js`, which the built CLI's Worker loads
 * (one module rather than nine).
 * Then every `import("./chunk.js")` of the output is written with a URL built at run time, so that
 * `deno run` does not walk every chunk before the first line (see lib/_load.ts).
 */
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SHIM_FLAGS } from "./cli_flags.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(REPO, "dist", "cli");
const LOAD = /\bload<\s*typeof import\("([^"]+)"\)\s*>\(\s*"([^"]+)",\s*import\.meta\.url,?\s*\)/g;
const check = Deno.args.includes("--check");
const install = Deno.args.includes("--install");

function* sources(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(join(REPO, dir))) {
    const path = join(dir, e.name);
    if (e.isDirectory && e.name !== "testdata") yield* sources(path);
    else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) yield path;
  }
}

/** Every source the bundle is made from, rewritten, by path relative to the repository. */
function rewritten(): Map<string, string> {
  const out = new Map<string, string>();
  const problems: string[] = [];
  for (const path of ["main.ts", ...sources("lib"), ...sources("launcher")]) {
    let text = Deno.readTextFileSync(join(REPO, path));
    text = text.replace(LOAD, (whole, typed: string, loaded: string) => {
      if (typed !== loaded) problems.push(`${path}: ${whole}`);
      return `import(${JSON.stringify(loaded)})`;
    });
    if (path !== "lib/_load.ts" && /\bload</.test(text)) {
      problems.push(`${path}: load() with a specifier the build cannot see`);
    }
    text = text.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(join(REPO, path)).href));
    out.set(path, text);
  }
  if (problems.length) throw new Error(`cannot bundle:\n  ${problems.join("\n  ")}`);
  return out;
}

/** A stamp of the sources and of this script: what dist/cli/SOURCES records. */
async function stamp(files: Map<string, string>): Promise<string> {
  const all = [...files].sort(([a], [b]) => a < b ? -1 : 1).map(([p, t]) => `${p}\0${t}`);
  all.push(Deno.readTextFileSync(fileURLToPath(import.meta.url)));
  all.push(Deno.readTextFileSync(join(REPO, "deno.lock")));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(all.join("\0")));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

// A problem is one line (what failed, and for `cannot bundle` each offending place), never a trace.
let files: Map<string, string>;
let want: string;
try {
  files = rewritten();
  want = await stamp(files);
  // The bundle says which build it is (lib/version.ts): what it renders is stamped with that.
  const version = files.get("lib/version.ts")!;
  if (!version.includes('export const BUILD = "";')) throw new Error("lib/version.ts has no BUILD");
  files.set(
    "lib/version.ts",
    version.replace('export const BUILD = "";', `export const BUILD = "${want}";`),
  );
  let have: string | undefined;
  try {
    have = Deno.readTextFileSync(join(OUT, "SOURCES")).trim();
  } catch { /* not built */ }
  if (check) {
    if (have !== want) {
      throw new Error("dist/cli is not built from these sources: run `deno task build`");
    }
  } else {
    if (have !== want) await build();
    if (install) await installCopy();
    else console.log(`${relative(REPO, OUT)}/main.js is built from the sources as they are`);
  }
} catch (e) {
  console.error(`build: ${e instanceof Error ? e.message : String(e)}`);
  Deno.exit(1);
}

/** Bundles into a fresh folder beside dist/cli, then puts it in dist/cli's place. */
async function build(): Promise<void> {
  const tmp = await Deno.makeTempDir({ prefix: "mcpx-build-" });
  const next = `${OUT}.${Deno.pid}.new`;
  try {
    for (const name of ["deno.json", "deno.lock"]) {
      await Deno.copyFile(join(REPO, name), join(tmp, name));
    }
    for (const [path, text] of files) {
      await Deno.mkdir(dirname(join(tmp, path)), { recursive: true });
      await Deno.writeTextFile(join(tmp, path), text);
    }
    const bundle = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--config",
        join(tmp, "deno.json"),
        "--platform",
        "deno",
        "--code-splitting",
        // ink loads React's devtools only under DEV=true, and mcpx never sets it: an optional
        // peer dependency mcpx does not install.
        "--external",
        "react-devtools-core",
        "--outdir",
        next,
        join(tmp, "main.ts"),
      ],
      cwd: tmp,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!bundle.success) throw new Error("`deno bundle` failed");
    // The Worker's launcher as one module beside the CLI (lib/scripts/select.ts finds it).
    const worker = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--config",
        join(tmp, "deno.json"),
        "--platform",
        "deno",
        "-o",
        join(next, "worker.js"),
        join(tmp, "launcher", "worker.ts"),
      ],
      cwd: tmp,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!worker.success) throw new Error("`deno bundle` of launcher/worker.ts failed");
    for (const e of Deno.readDirSync(next)) {
      if (!e.name.endsWith(".js")) continue;
      const path = join(next, e.name);
      const text = Deno.readTextFileSync(path);
      Deno.writeTextFileSync(
        path,
        text.replace(
          /\bimport\("(\.\/[^"]+\.js)"\)/g,
          (_, spec: string) => `import(new URL(${JSON.stringify(spec)}, import.meta.url).href)`,
        ).replaceAll(
          '"__MCPX_BUNDLED_WORKER__"',
          'new URL("./worker.js", import.meta.url).href',
        ),
      );
    }
    Deno.writeTextFileSync(join(next, "SOURCES"), want + "\n");
    const old = `${OUT}.${Deno.pid}.old`;
    await Deno.rename(OUT, old).catch(() => {});
    await Deno.rename(next, OUT);
    await Deno.remove(old, { recursive: true }).catch(() => {});
  } finally {
    await Deno.remove(tmp, { recursive: true });
    await Deno.remove(next, { recursive: true }).catch(() => {});
  }
}

/** Copies dist/cli beside the shim and installs the shim (`deno install -g`) to run the copy. */
async function installCopy(): Promise<void> {
  const home = Deno.env.get("HOME") ?? "/";
  const root = Deno.env.get("DENO_INSTALL_ROOT") || join(home, ".deno");
  const keep = join(root, "bin", ".mcpx-cli");
  const copy = join(keep, want.slice(0, 16));
  await Deno.mkdir(keep, { recursive: true });
  try {
    Deno.statSync(join(copy, "SOURCES"));
  } catch {
    const next = `${copy}.${Deno.pid}.new`;
    await Deno.mkdir(next, { recursive: true });
    for (const e of Deno.readDirSync(OUT)) {
      await Deno.copyFile(join(OUT, e.name), join(next, e.name));
    }
    await Deno.rename(next, copy);
  }
  const shim = await new Deno.Command(Deno.execPath(), {
    args: [
      "install",
      "-g",
      ...SHIM_FLAGS,
      "-f",
      "--name",
      "mcpx",
      "--config",
      join(REPO, "deno.json"),
      join(copy, "main.js"),
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!shim.success) throw new Error("`deno install` failed");
  // Earlier installs' copies: the shim no longer runs them, but a process started from one (a
  // foreground `mcpx daemon`, a long run) still loads its chunks as it goes. A copy goes once it
  // has been replaced for a week.
  const week = Date.now() - 7 * 24 * 3600 * 1000;
  for (const e of Deno.readDirSync(keep)) {
    const path = join(keep, e.name);
    if (path === copy) continue;
    if ((Deno.statSync(path).mtime?.getTime() ?? 0) < week) {
      await Deno.remove(path, { recursive: true });
    }
  }
}
