/**
 * Builds the CLI: `dist/cli/main.js` and its chunks, one JavaScript bundle of main.ts split at every
 * lazy import, so a command loads a few files rather than dozens of TypeScript modules (about 2 ms
 * of each `mcpx ls`; the figures are in docs/dependencies.md). `deno task pack` (tools/pack.ts)
 * wraps it into the npm package.
 *
 *     deno run -A tools/build.ts [--check]
 *
 * A dist/cli already built from the sources as they are is left alone. With `--check` it only
 * says whether it is.
 *
 * The build is whole in itself: it imports nothing from outside its folder but `node:` built-ins
 * (npm packages are bundled in), and reads nothing outside it, so it runs the same from any place
 * it is copied to, with an empty Deno cache and no network. The sources are copied and rewritten
 * first, in a temporary folder:
 * - `load<typeof import("X")>("X", import.meta.url)` becomes `import("X")`, which the bundler
 *   sees and splits at; any other use of `load` is refused, since the bundle could not contain it.
 * - every other `import.meta.url` becomes the URL of that source file's place in the build's
 *   `src/` folder, which holds the files the CLI reads at run time (RESOURCES: AGENTS.md, the web
 *   page, the launcher a subprocess runtime loads…), laid out as in the repository.
 * - `BUILD` in lib/version.ts becomes this build's stamp of the sources.
 * launcher/worker.ts is bundled on its own into `worker.js`, which the built CLI's Worker loads
 * (one module rather than nine), and lib/_self.ts's `BUNDLED_MAIN` becomes `main.js`'s URL, so the
 * daemon a built CLI starts is the same build.
 * Then every `import("./chunk.js")` of the output is written with a URL built at run time, so that
 * `deno run` does not walk every chunk before the first line (see lib/_load.ts).
 */
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(REPO, "dist", "cli");
const LOAD = /\bload<\s*typeof import\("([^"]+)"\)\s*>\(\s*"([^"]+)",\s*import\.meta\.url,?\s*\)/g;
const check = Deno.args.includes("--check");
/** The folder of the build that holds the files it reads at run time, laid out as in the repository. */
const SRC = "src";

/**
 * The bundler's helper for `require()` in bundled CommonJS (only the TUI's and the prompts'
 * packages call it), which every chunk imports, and which imports `node:module` at once: that
 * starts Deno's Node compatibility layer, about 14 ms of every command's start (the sources keep
 * `node:` out of the CLI's first modules for the same reason). It is made on its first call instead.
 */
const EAGER_REQUIRE =
  'import { createRequire as __deno_internal_createRequire } from "node:module";\nvar __require = __deno_internal_createRequire(import.meta.url);';
const LAZY_REQUIRE =
  'var __deno_internal_require;\nvar __require = (id) => (__deno_internal_require ??= process.getBuiltinModule("node:module").createRequire(import.meta.url))(id);';

/**
 * RESOURCES: the files the built CLI reads at run time rather than imports (each found from a module's
 * `import.meta.url`): AGENTS.md (`mcpx agents-md`), the web page, the client module's runtime,
 * and the launcher, which a subprocess runtime and the repl's Worker load as they are.
 */
function resources(): string[] {
  const launcher = [...Deno.readDirSync(join(REPO, "launcher"))]
    .filter((e) => e.isFile && e.name.endsWith(".ts") && !e.name.endsWith("_test.ts"))
    .map((e) => `launcher/${e.name}`).sort();
  return [
    "AGENTS.md",
    "lib/web/index.html",
    "lib/web/app.css",
    "lib/web/app.js",
    "lib/runtime/client.ts",
    ...launcher,
  ];
}

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
    // The module's place in the build's own copy of the sources' files (RESOURCES), relative to
    // the chunk it lands in: every chunk sits in the one folder.
    text = text.replaceAll(
      "import.meta.url",
      `new URL(${JSON.stringify(`./${SRC}/${path}`)}, import.meta.url).href`,
    );
    out.set(path, text);
  }
  if (problems.length) throw new Error(`cannot bundle:\n  ${problems.join("\n  ")}`);
  return out;
}

/** A stamp of the sources and of this script: what dist/cli/SOURCES records. */
async function stamp(files: Map<string, string>): Promise<string> {
  const all = [...files].sort(([a], [b]) => a < b ? -1 : 1).map(([p, t]) => `${p}\0${t}`);
  for (const path of resources()) all.push(`${path}\0${Deno.readTextFileSync(join(REPO, path))}`);
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
    console.log(`${relative(REPO, OUT)}/main.js is built from the sources as they are`);
  }
} catch (e) {
  console.error(`build: ${e instanceof Error ? e.message : String(e)}`);
  Deno.exit(1);
}

/**
 * Refuses a build whose first modules (main.js and the chunks it imports as it loads) import a
 * `node:` module: every command would pay for Deno's Node compatibility layer.
 */
function noNodeAtStart(dir: string): void {
  const seen = new Set<string>();
  const walk = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const text = Deno.readTextFileSync(join(dir, name));
    const node = /^import\s[^;]*?["'](node:[^"']+)["']/m.exec(text);
    if (node) throw new Error(`${name}, loaded at every start, imports ${node[1]}`);
    for (const [, dep] of text.matchAll(/^(?:import|export)\s[^;]*?["']\.\/([^"']+\.js)["']/gm)) {
      walk(dep);
    }
  };
  walk("main.js");
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
        ).replaceAll(
          '"__MCPX_BUNDLED_MAIN__"',
          'new URL("./main.js", import.meta.url).href',
        ).replace(EAGER_REQUIRE, LAZY_REQUIRE),
      );
    }
    noNodeAtStart(next);
    for (const path of resources()) {
      await Deno.mkdir(dirname(join(next, SRC, path)), { recursive: true });
      await Deno.copyFile(join(REPO, path), join(next, SRC, path));
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
