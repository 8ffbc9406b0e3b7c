/**
 * The npm package as a user has it (docs/install.md): packed, installed from the tarball into a
 * throwaway prefix and HOME, then timed side by side with what it stands on.
 *
 *     deno run -A bench/package.ts [--runs 15] [--json]
 *
 * Figures, medians over `--runs` interleaved rounds:
 * 1. the tarball's size, and `npm install -g` of it from the local file (its Deno platform
 *    package from npm's cache), three times;
 * 2. installed `mcpx --version`, `mcpx ls` and a warm `mcpx call` (a tiny stdio server, the
 *    daemon up), each as a ratio of an empty `deno run` by the same Deno binary;
 * 3. the Deno cache after a first run with an empty one (`--version`, then a call that starts
 *    the daemon and a server);
 * 4. the installed daemon's resident set (VmRSS) with two servers up (server-everything twice,
 *    from tests/npm, each called once);
 * 5. a cold call (no daemon: the daemon and the tiny server started, the call made, mcpx exits)
 *    as a ratio of the same call made by a bare script on the SDK's client
 *    (bench/_sdk_call.ts: spawn the server, initialize, call, exit).
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { faultyServer } from "../tests/fixtures/servers.ts";
import { npmCache, npmServer } from "../tests/_helpers.ts";
import { formatTable, makeIsolated, median, REPO, wholeNumber } from "./_shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "15" }, json: { type: "boolean", default: false } },
});
const runs = wholeNumber("runs", values.runs!, 3);

async function exec(
  command: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ ms: number; stdout: string }> {
  const start = performance.now();
  const out = await new Deno.Command(command, {
    args,
    cwd: opts.cwd,
    env: opts.env,
    clearEnv: opts.env !== undefined,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ms = performance.now() - start;
  if (!out.success) {
    throw new Error(
      `${command} ${args.join(" ")} exited ${out.code}: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return { ms, stdout: new TextDecoder().decode(out.stdout) };
}

function duBytes(path: string): number {
  let total = 0;
  const walk = (p: string) => {
    for (const e of Deno.readDirSync(p)) {
      const q = join(p, e.name);
      if (e.isDirectory) walk(q);
      else if (e.isFile) total += Deno.statSync(q).size;
    }
  };
  walk(path);
  return total;
}

function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

const iso = await makeIsolated("mcpx-bench-package-");
await using _cleanup = {
  async [Symbol.asyncDispose]() {
    if (prefix) await exec(mcpxBin(), ["stop", "--all"], { env: iso.env }).catch(() => {});
    await Deno.remove(iso.root, { recursive: true }).catch(() => {});
  },
};

// 1. Pack, then install three times into fresh prefixes.
const pack = await exec(Deno.execPath(), ["run", "-A", join(REPO, "tools", "pack.ts")]);
const tarball = pack.stdout.trim().split("\n").at(-1)!;
const tarballBytes = Deno.statSync(tarball).size;
const installs: number[] = [];
let prefix = "";
for (let i = 0; i < 3; i++) {
  prefix = join(iso.root, `prefix-${i}`);
  const npmEnv = { ...Deno.env.toObject(), HOME: iso.env.HOME, npm_config_cache: npmCache() };
  installs.push(
    (await exec(
      "npm",
      ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", "--prefer-offline", tarball],
      { env: npmEnv },
    )).ms,
  );
}
function mcpxBin(): string {
  return join(prefix, "bin", "mcpx");
}
const pkgDir = join(prefix, "lib", "node_modules", "mcpx-cli");
const deno = Deno.realPathSync(
  join(
    pkgDir,
    "node_modules",
    "@deno",
    `${Deno.build.os === "darwin" ? "darwin" : "linux"}-${
      Deno.build.arch === "aarch64" ? "arm64" : "x64"
    }${Deno.build.os === "linux" ? "-glibc" : ""}`,
    "deno",
  ),
);
const empty = join(iso.root, "empty.js");
Deno.writeTextFileSync(empty, "export {};\n");
const work = join(iso.root, "work");
Deno.mkdirSync(work);
Deno.writeTextFileSync(
  join(work, ".mcpx.json"),
  JSON.stringify({ mcpServers: { tiny: faultyServer() } }),
);
const env = { ...iso.env, PATH: `${join(prefix, "bin")}:${iso.env.PATH}` };
const mcpx = mcpxBin();

// 3 first: the Deno cache after a first run with an empty one.
const coldCache = join(iso.root, "cold-deno-dir");
Deno.mkdirSync(coldCache);
{
  const coldEnv = { ...env, DENO_DIR: coldCache };
  await exec(mcpx, ["--version"], { cwd: work, env: coldEnv });
  await exec(mcpx, ["call", "tiny.echo", "text=x"], { cwd: work, env: coldEnv });
  await exec(mcpx, ["stop"], { cwd: work, env: coldEnv });
}
const coldCacheBytes = duBytes(coldCache);
let coldNpm = 0;
try {
  coldNpm = [...Deno.readDirSync(join(coldCache, "npm", "registry.npmjs.org"))].length;
} catch { /* no npm packages at all */ }

// 2. Warm starts against an empty `deno run`, interleaved.
await exec(mcpx, ["refresh"], { cwd: work, env });
await exec(mcpx, ["call", "tiny.echo", "text=x"], { cwd: work, env });
const base: number[] = [], version: number[] = [], ls: number[] = [], call: number[] = [];
for (let i = 0; i < runs + 2; i++) {
  const b = (await exec(deno, ["run", "-A", "--no-config", empty], { cwd: work, env })).ms;
  const v = (await exec(mcpx, ["--version"], { cwd: work, env })).ms;
  const l = (await exec(mcpx, ["ls"], { cwd: work, env })).ms;
  const c = (await exec(mcpx, ["call", "tiny.echo", "text=x"], { cwd: work, env })).ms;
  if (i < 2) continue; // warm-up
  base.push(b), version.push(v), ls.push(l), call.push(c);
}
await exec(mcpx, ["stop"], { cwd: work, env });

// 4. The daemon's resident set with two servers up.
const two = join(iso.root, "two");
Deno.mkdirSync(two);
Deno.writeTextFileSync(
  join(two, ".mcpx.json"),
  JSON.stringify({
    mcpServers: { a: npmServer("server-everything"), b: npmServer("server-everything") },
  }),
);
const rss: number[] = [];
for (let i = 0; i < 3; i++) {
  await exec(mcpx, ["call", "a.echo", "message=x"], { cwd: two, env });
  await exec(mcpx, ["call", "b.echo", "message=x"], { cwd: two, env });
  const health = JSON.parse((await exec(mcpx, ["--json", "health"], { cwd: two, env })).stdout);
  await new Promise((r) => setTimeout(r, 1000));
  rss.push(rssMiB(health.pid));
  await exec(mcpx, ["stop"], { cwd: two, env });
}

// 5. A cold call against a bare SDK client's.
const sdkScript = join(REPO, "bench", "_sdk_call.ts");
const tiny = faultyServer();
const cold: number[] = [], sdk: number[] = [];
for (let i = 0; i < runs + 1; i++) {
  const s = (await exec(Deno.execPath(), [
    "run",
    "-A",
    "--config",
    join(REPO, "deno.json"),
    sdkScript,
    JSON.stringify(tiny),
  ], { cwd: work, env })).ms;
  const c = (await exec(mcpx, ["call", "tiny.echo", "text=x"], { cwd: work, env })).ms;
  await exec(mcpx, ["stop"], { cwd: work, env });
  if (i < 1) continue;
  sdk.push(s), cold.push(c);
}

const m = (xs: number[]) => median(xs);
const figures = {
  tarballKiB: tarballBytes / 1024,
  installMs: m(installs),
  emptyDenoRunMs: m(base),
  versionMs: m(version),
  versionRatio: m(version) / m(base),
  lsMs: m(ls),
  lsRatio: m(ls) / m(base),
  warmCallMs: m(call),
  warmCallRatio: m(call) / m(base),
  coldDenoDirMiB: coldCacheBytes / 1024 / 1024,
  coldDenoDirNpmPackages: coldNpm,
  daemonRssTwoServersMiB: m(rss),
  coldCallMs: m(cold),
  sdkColdCallMs: m(sdk),
  coldCallRatio: m(cold) / m(sdk),
};
if (values.json) console.log(JSON.stringify(figures, null, 2));
else {
  const f = (n: number, d = 1) => n.toFixed(d);
  console.log(`npm package mcpx-cli, installed from its tarball; medians of ${runs} rounds\n`);
  console.log(formatTable([
    ["figure", "value", "against"],
    ["tarball", `${f(figures.tarballKiB, 0)} KiB`, ""],
    ["npm install -g from the tarball", `${f(figures.installMs, 0)} ms`, "3 installs"],
    ["empty `deno run`", `${f(figures.emptyDenoRunMs)} ms`, "baseline"],
    ["mcpx --version", `${f(figures.versionMs)} ms`, `${f(figures.versionRatio, 2)}×`],
    ["mcpx ls", `${f(figures.lsMs)} ms`, `${f(figures.lsRatio, 2)}×`],
    ["mcpx call (warm)", `${f(figures.warmCallMs)} ms`, `${f(figures.warmCallRatio, 2)}×`],
    [
      "DENO_DIR after a first run",
      `${f(figures.coldDenoDirMiB)} MiB`,
      `${figures.coldDenoDirNpmPackages} npm packages`,
    ],
    ["daemon VmRSS, two servers up", `${f(figures.daemonRssTwoServersMiB)} MiB`, "3 daemons"],
    ["cold mcpx call", `${f(figures.coldCallMs)} ms`, `${f(figures.coldCallRatio, 2)}×`],
    ["the same call by a bare SDK client", `${f(figures.sdkColdCallMs)} ms`, "baseline"],
  ]));
}
