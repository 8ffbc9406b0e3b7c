/**
 * Builds the CLI that `deno task install` puts on PATH: `dist/cli/main.js` and its chunks, one
 * JavaScript bundle of main.ts split at every lazy import, so a command loads a few files rather
 * than dozens of TypeScript modules (about 2 ms of each `mcpx ls`; the figures are in
 * docs/dependencies.md).
 *
 *     deno run -A tools/build.ts [--check]
 *
 * With `--check` it only says whether dist/cli was built from the sources as they are now.
 *
 * The sources are copied and rewritten first, in a temporary folder:
 * - `load<typeof import("X")>("X", import.meta.url)` becomes `import("X")`, which the bundler
 *   sees and splits at; any other use of `load` is refused, since the bundle could not contain it.
 * - every other `import.meta.url` becomes the URL of the source file it was written in, seen from
 *   dist/cli: the Worker's launcher, the daemon's `main.ts`, AGENTS.md and the generators' stamps
 *   stay the repository's own files.
 * Then every `import("./chunk.js")` of the output is written with a URL built at run time, so that
 * `deno run` does not walk every chunk before the first line (see lib/_load.ts).
 */
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(REPO, "dist", "cli");
const LOAD = /\bload<\s*typeof import\("([^"]+)"\)\s*>\(\s*"([^"]+)",\s*import\.meta\.url,?\s*\)/g;
const check = Deno.args.includes("--check");

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
    const self = relative(OUT, join(REPO, path));
    text = text.replaceAll(
      "import.meta.url",
      `new URL(${JSON.stringify(self)}, import.meta.url).href`,
    );
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

const files = rewritten();
const want = await stamp(files);
let have: string | undefined;
try {
  have = Deno.readTextFileSync(join(OUT, "SOURCES")).trim();
} catch { /* not built */ }
if (check) {
  if (have === want) Deno.exit(0);
  console.error("dist/cli is not built from these sources: run `deno task build`");
  Deno.exit(1);
}

const tmp = await Deno.makeTempDir({ prefix: "mcpx-build-" });
try {
  for (const name of ["deno.json", "deno.lock"]) {
    await Deno.copyFile(join(REPO, name), join(tmp, name));
  }
  for (const [path, text] of files) {
    await Deno.mkdir(dirname(join(tmp, path)), { recursive: true });
    await Deno.writeTextFile(join(tmp, path), text);
  }
  await Deno.remove(OUT, { recursive: true }).catch(() => {});
  const bundle = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--config",
      join(tmp, "deno.json"),
      "--platform",
      "deno",
      "--code-splitting",
      "--outdir",
      OUT,
      join(tmp, "main.ts"),
    ],
    cwd: tmp,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!bundle.success) throw new Error("`deno bundle` failed");
  for (const e of Deno.readDirSync(OUT)) {
    if (!e.name.endsWith(".js")) continue;
    const path = join(OUT, e.name);
    const text = Deno.readTextFileSync(path);
    Deno.writeTextFileSync(
      path,
      text.replace(
        /\bimport\("(\.\/[^"]+\.js)"\)/g,
        (_, spec: string) => `import(new URL(${JSON.stringify(spec)}, import.meta.url).href)`,
      ),
    );
  }
  Deno.writeTextFileSync(join(OUT, "SOURCES"), want + "\n");
} finally {
  await Deno.remove(tmp, { recursive: true });
}
console.log(`built ${relative(REPO, OUT)}/main.js`);
