/**
 * The npm package (`deno task pack`, docs/install.md) as a user gets it: the tarball installed
 * with `npm install -g --prefix` into a fresh HOME, the build folder removed first so that nothing
 * can point back into this checkout, then driven with a PATH that holds no deno, an empty Deno
 * cache and (where this machine lets a test make one) no network at all: `--version`, `ls`, `call`
 * and `run` against a real server, `serve` over stdio to the SDK's client with a host's minimal
 * environment, the web page's files, and `stop`, leaving no process behind.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { npmCache, npmServer, Sandbox } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

async function output(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    clearEnv: options.env !== undefined,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Whether `unshare -n` can give a child no network here (root in CI; not everywhere). */
async function canIsolateNetwork(): Promise<boolean> {
  try {
    return (await output("unshare", ["-n", "true"])).code === 0;
  } catch {
    return false;
  }
}

/** A folder of links to the few commands the package and its server need: no deno among them. */
function systemBin(dir: string): string {
  Deno.mkdirSync(dir, { recursive: true });
  for (const name of ["node", "readlink", "uname", "npm", "unshare"]) {
    for (const base of ["/usr/local/bin", "/usr/bin", "/bin"]) {
      try {
        Deno.statSync(join(base, name));
        Deno.symlinkSync(join(base, name), join(dir, name));
        break;
      } catch { /* elsewhere */ }
    }
  }
  return dir;
}

Deno.test("npm package: installed from its tarball, it runs with no deno on PATH, an empty Deno cache and no network", async () => {
  const pack = await output(Deno.execPath(), ["run", "-A", join(REPO, "tools", "pack.ts")], {
    cwd: REPO,
  });
  assert.equal(pack.code, 0, pack.stderr);
  const tarball = pack.stdout.trim().split("\n").at(-1)!;
  assert.match(tarball, /\/mcpx-cli-\d+\.\d+\.\d+\.tgz$/, "the last line is the tarball's path");

  await using box = await Sandbox.create(undefined, {});
  const kept = join(box.root, "mcpx-cli.tgz");
  await Deno.copyFile(tarball, kept);
  // Nothing the installed package runs may come from the build or the sources beside it.
  await Deno.remove(join(REPO, "dist", "npm"), { recursive: true });
  await Deno.remove(join(REPO, "dist", "cli"), { recursive: true });

  const prefix = join(box.root, "prefix");
  const install = await output(
    "npm",
    ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", "--prefer-offline", kept],
    { env: { ...Deno.env.toObject(), HOME: box.env.HOME, npm_config_cache: npmCache() } },
  );
  assert.equal(install.code, 0, install.stderr);
  const mcpx = join(prefix, "bin", "mcpx");
  box.exec = mcpx;
  const bin = systemBin(join(box.root, "sysbin"));
  assert.throws(() => Deno.statSync(join(bin, "deno")));
  const emptyCache = join(box.root, "deno-cache");
  Deno.mkdirSync(emptyCache);
  box.env.PATH = `${join(prefix, "bin")}:${bin}`;
  box.env.DENO_DIR = emptyCache;
  const offline = await canIsolateNetwork();
  const run = (args: string[], cwd = "work") =>
    offline
      ? output(join(bin, "unshare"), ["-n", mcpx, ...args], {
        cwd: join(box.root, cwd),
        env: box.env,
      })
      : output(mcpx, args, { cwd: join(box.root, cwd), env: box.env });

  const version = await run(["--version"]);
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout, /^mcpx \d+\.\d+\.\d+ \(deno \d/);

  await box.write("work/.mcpx.json", {
    mcpServers: { everything: npmServer("server-everything") },
  });
  await box.write(
    "work/hello.ts",
    'export default async () => String(await everything.echo({ message: "from a script" }));\n',
  );
  const call = await run(["call", "everything.echo", "message=installed"]);
  assert.equal(call.code, 0, call.stderr);
  assert.equal(call.stdout.trim(), "Echo: installed");
  const ls = await run(["--json", "ls"]);
  assert.equal(ls.code, 0, ls.stderr);
  const listed = JSON.parse(ls.stdout) as { namespaces: { namespace: string; tools: number }[] };
  assert.equal(listed.namespaces[0].namespace, "everything");
  assert.ok(listed.namespaces[0].tools > 5, ls.stdout);
  const script = await run(["run", "hello.ts"]);
  assert.equal(script.code, 0, script.stderr);
  assert.equal(script.stdout.trim(), "Echo: from a script");
  const agents = await run(["agents-md"]);
  assert.match(agents.stdout, /^# mcpx/, "AGENTS.md travels in the package");

  // A host starts `serve` with a minimal environment: HOME, PATH, USER and nothing of Deno's or
  // XDG's (so its daemon is another one, under HOME's own state folder).
  const host = {
    HOME: box.env.HOME,
    PATH: box.env.PATH,
    USER: "mcpx-test",
    E2E_SANDBOX: box.root,
    MCPX_TRUST_ALL: "1",
  };
  const client = new Client({ name: "e2e-package", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: offline ? join(bin, "unshare") : mcpx,
      args: offline ? ["-n", mcpx, "serve"] : ["serve"],
      cwd: join(box.root, "work"),
      env: host,
      stderr: "pipe",
    }),
  );
  try {
    const { tools } = await client.listTools();
    const exec = tools.find((t) => /(^|_)exec$/.test(t.name));
    assert.ok(exec, tools.map((t) => t.name).join(", "));
    const answer = await client.callTool({ name: exec.name, arguments: { code: "return 6 * 7" } });
    assert.match(JSON.stringify(answer.content), /42/);
  } finally {
    await client.close();
  }
  const hostStop = await output(mcpx, ["stop"], { cwd: join(box.root, "work"), env: host });
  assert.equal(hostStop.code, 0, hostStop.stderr);
  assert.match(hostStop.stdout, /stopped daemon/);

  // Nothing was fetched into either cache: there was nothing to fetch.
  for (const cache of [emptyCache, join(box.root, "home", ".cache", "deno")]) {
    let fetched: string[] = [];
    try {
      fetched = [...Deno.readDirSync(join(cache, "npm"))].map((e) => e.name);
    } catch { /* no npm folder at all */ }
    assert.deepEqual(fetched, [], `${cache} holds no npm packages`);
  }

  const stop = await run(["stop"]);
  assert.equal(stop.code, 0, stop.stderr);
  assert.match(stop.stdout, /stopped daemon/);

  // The page a daemon serves reads its files from the package (over loopback TCP, which a child
  // without a network has none of: this daemon starts with the machine's network).
  const web = await output(mcpx, ["--json", "ui"], { cwd: join(box.root, "work"), env: box.env });
  assert.equal(web.code, 0, web.stderr);
  const page = await fetch(new URL("/ui/app.js", JSON.parse(web.stdout).url));
  assert.equal(page.status, 200);
  assert.ok((await page.text()).length > 1000);
  const again = await output(mcpx, ["stop"], { cwd: join(box.root, "work"), env: box.env });
  assert.equal(again.code, 0, again.stderr);
});

Deno.test("npm package: its bin/mcpx says in one line what is missing: the runtime, a platform, a MCPX_DENO", async () => {
  const { shim } = await import("../../tools/pack.ts");
  await using box = await Sandbox.create();
  const pkg = join(box.root, "lib", "node_modules", "mcpx-cli");
  await Deno.mkdir(join(pkg, "bin"), { recursive: true });
  await Deno.writeTextFile(join(pkg, "bin", "mcpx"), shim("2.9.6"), { mode: 0o755 });
  const bin = systemBin(join(box.root, "sysbin"));
  const env = { HOME: box.env.HOME, PATH: bin };
  const missing = await output(join(pkg, "bin", "mcpx"), ["--version"], { env });
  assert.equal(missing.code, 127);
  assert.equal(missing.stderr.trim().split("\n").length, 1, missing.stderr);
  assert.match(missing.stderr, /runtime package @deno\/\S+ is not installed beside .*mcpx-cli/);
  assert.match(missing.stderr, /--omit=optional/);

  const wrong = await output(join(pkg, "bin", "mcpx"), ["--version"], {
    env: { ...env, MCPX_DENO: join(box.root, "nope") },
  });
  assert.equal(wrong.code, 127);
  assert.match(wrong.stderr, /^mcpx: MCPX_DENO=\S+ is not an executable file/);

  // A platform Deno has no binary for (a stand-in `uname` says which).
  const elsewhere = join(box.root, "elsewhere-bin");
  Deno.mkdirSync(elsewhere);
  Deno.symlinkSync(join(bin, "readlink"), join(elsewhere, "readlink"));
  await Deno.writeTextFile(
    join(elsewhere, "uname"),
    "#!/bin/sh\necho FreeBSD riscv64\n",
    { mode: 0o755 },
  );
  const unsupported = await output(join(pkg, "bin", "mcpx"), ["--version"], {
    env: { ...env, PATH: elsewhere },
  });
  assert.equal(unsupported.code, 127);
  assert.equal(unsupported.stderr.trim().split("\n").length, 1, unsupported.stderr);
  assert.match(
    unsupported.stderr,
    /^mcpx: mcpx-cli has no Deno runtime for FreeBSD riscv64: it runs on Linux x64 \(glibc\), .*macOS arm64; elsewhere set MCPX_DENO/,
  );

  // Deno's platform package found the way npm lays it out for a local install: hoisted beside.
  const hoisted = join(box.root, "lib", "node_modules", "@deno", "linux-x64-glibc");
  await Deno.mkdir(hoisted, { recursive: true });
  await Deno.writeTextFile(
    join(hoisted, "deno"),
    '#!/bin/sh\necho "stand-in deno: $*"\n',
    { mode: 0o755 },
  );
  if (Deno.build.os === "linux" && Deno.build.arch === "x86_64") {
    const found = await output(join(pkg, "bin", "mcpx"), ["ls"], { env });
    assert.equal(found.code, 0, found.stderr);
    assert.match(
      found.stdout,
      /^stand-in deno: run -A --no-config .* \S+\/mcpx-cli\/cli\/main\.js ls$/m,
    );
  }
});
