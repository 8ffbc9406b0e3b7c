/**
 * Builds the npm package (docs/install.md): `dist/npm/mcpx-cli-<version>.tgz`, whose path is the
 * last line this prints (other tools read that line).
 *
 *     deno run -A tools/pack.ts [--install]
 *
 * The package holds the built CLI (tools/build.ts: one bundle with every npm dependency inside,
 * and the files it reads at run time), the example configuration, and `bin/mcpx`, a POSIX shell
 * script that finds the Deno binary of Deno's own platform package (an optional dependency, as the
 * `deno` package has it, so npm installs only the one for this machine) and `exec`s it on the
 * bundle. No install script runs, nothing is downloaded at the first call, and Node is needed only
 * by npm. With `--install`, the tarball is then installed with `npm install -g` (npm's prefix,
 * `npm_config_prefix` honoured): what `deno task install` does.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { VERSION } from "../lib/version.ts";
import { SHIM_FLAGS } from "./cli_flags.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(REPO, "dist", "npm");
/** The npm name (docs/install.md says why this one); the command stays `mcpx`. */
export const PACKAGE = "mcpx-cli";

/** Deno's platform packages, by what `uname -sm` says. */
export const PLATFORMS: readonly { uname: string[]; pkg: string; label: string }[] = [
  { uname: ["Linux x86_64"], pkg: "@deno/linux-x64-glibc", label: "Linux x64 (glibc)" },
  {
    uname: ["Linux aarch64", "Linux arm64"],
    pkg: "@deno/linux-arm64-glibc",
    label: "Linux arm64 (glibc)",
  },
  { uname: ["Darwin x86_64"], pkg: "@deno/darwin-x64", label: "macOS x64" },
  { uname: ["Darwin arm64"], pkg: "@deno/darwin-arm64", label: "macOS arm64" },
];

/**
 * `bin/mcpx`: finds this platform's Deno from the package's own folder and runs the bundle. npm
 * installs only the platform package that fits the machine, so the one `@deno/*` folder found
 * walking up is taken without asking `uname` (a process fewer at every start); `uname` decides
 * only when several are there, and names the platform when none is.
 */
export function shim(denoVersion: string): string {
  const cases = PLATFORMS.map((p) =>
    `    ${p.uname.map((u) => `"${u}"`).join("|")}) target=${p.pkg} ;;`
  ).join("\n");
  const supported = PLATFORMS.map((p) => p.label).join(", ");
  const flags = SHIM_FLAGS.map((f) => `'${f}'`).join(" ");
  return `#!/bin/sh
# mcpx, as the npm package ${PACKAGE} installs it (written by tools/pack.ts).
# Runs the bundled CLI in ../cli with the Deno binary of Deno's own platform package, which npm
# installed beside this package as an optional dependency; never through npm's Node wrapper.
# MCPX_DENO names another deno binary (${denoVersion} is the one this package was built and tested with).
self=$(readlink -f "$0" 2>/dev/null) || self=$0
pkg=\${self%/*}
pkg=\${pkg%/*}
deno=\${MCPX_DENO:-}
if [ -n "$deno" ]; then
  if [ ! -x "$deno" ]; then
    echo "mcpx: MCPX_DENO=$deno is not an executable file: point it at a deno binary, or unset it" >&2
    exit 127
  fi
else
  dir=$pkg
  found=0
  while :; do
    for cand in "$dir"/node_modules/@deno/*/deno; do
      [ -x "$cand" ] || continue
      deno=$cand
      found=$((found + 1))
    done
    [ "$found" -gt 0 ] && break
    [ -z "$dir" ] && break
    dir=\${dir%/*}
  done
  if [ "$found" -ne 1 ]; then
    case "$(uname -sm)" in
${cases}
    *)
      echo "mcpx: ${PACKAGE} has no Deno runtime for $(uname -sm): it runs on ${supported}; elsewhere set MCPX_DENO to a deno ${denoVersion} binary" >&2
      exit 127 ;;
    esac
    deno=$dir/node_modules/$target/deno
    if [ "$found" -eq 0 ] || [ ! -x "$deno" ]; then
      echo "mcpx: Deno's runtime package $target is not installed beside $pkg: install ${PACKAGE} again without --omit=optional (npm install -g ${PACKAGE}), or set MCPX_DENO to a deno ${denoVersion} binary" >&2
      exit 127
    fi
  fi
fi
DENO_NO_UPDATE_CHECK=1 exec "$deno" run ${flags} "$pkg/cli/main.js" "$@"
`;
}

/** The package's package.json. */
export function manifest(denoVersion: string): Record<string, unknown> {
  return {
    name: PACKAGE,
    version: VERSION,
    description:
      "mcpx: every MCP server on the machine behind one shell command, with a daemon that leases server processes per session",
    type: "module",
    bin: { mcpx: "bin/mcpx" },
    files: ["bin/", "cli/", "examples/", "README.md"],
    optionalDependencies: Object.fromEntries(PLATFORMS.map((p) => [p.pkg, denoVersion])),
    keywords: ["mcp", "model-context-protocol", "cli", "agent", "daemon", "deno"],
    // No license is chosen yet (docs/install.md): one must be before the package is published.
    license: "UNLICENSED",
  };
}

async function run(command: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "inherit" })
    .output();
  if (!out.success) throw new Error(`\`${command} ${args.join(" ")}\` failed`);
  return new TextDecoder().decode(out.stdout);
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(join(from, e.name), join(to, e.name));
    else if (e.isFile) await Deno.copyFile(join(from, e.name), join(to, e.name));
  }
}

if (import.meta.main) {
  try {
    const denoVersion = Deno.version.deno;
    await run(Deno.execPath(), ["run", "-A", join(REPO, "tools", "build.ts")], REPO);
    const stage = join(OUT, "package");
    await Deno.remove(stage, { recursive: true }).catch(() => {});
    await copyTree(join(REPO, "dist", "cli"), join(stage, "cli"));
    await copyTree(join(REPO, "examples"), join(stage, "examples"));
    await Deno.copyFile(join(REPO, "README.md"), join(stage, "README.md"));
    await Deno.mkdir(join(stage, "bin"));
    await Deno.writeTextFile(join(stage, "bin", "mcpx"), shim(denoVersion), { mode: 0o755 });
    await Deno.chmod(join(stage, "bin", "mcpx"), 0o755);
    await Deno.writeTextFile(
      join(stage, "package.json"),
      JSON.stringify(manifest(denoVersion), null, 2) + "\n",
    );
    const packed = JSON.parse(
      await run("npm", ["pack", "--json", "--pack-destination", OUT, stage], REPO),
    ) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
    const tarball = join(OUT, packed[0].filename);
    console.log(
      `${PACKAGE} ${VERSION}: ${packed[0].entryCount} files, ${
        (packed[0].size / 1024).toFixed(0)
      } KiB packed, ${
        (packed[0].unpackedSize / 1024).toFixed(0)
      } KiB unpacked; deno ${denoVersion}`,
    );
    if (Deno.args.includes("--install")) {
      await run("npm", ["install", "-g", "--no-audit", "--no-fund", tarball], REPO);
      const prefix = (await run("npm", ["prefix", "-g"], REPO)).trim();
      console.log(`installed: ${join(prefix, "bin", "mcpx")}`);
    }
    console.log(tarball);
  } catch (e) {
    console.error(`pack: ${e instanceof Error ? e.message : String(e)}`);
    Deno.exit(1);
  }
}
