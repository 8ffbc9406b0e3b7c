import { join } from "node:path";

const REPO = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** Deno's own cache, kept when HOME moves so that npm packages are not fetched again. */
const DENO_DIR = Deno.env.get("DENO_DIR") ??
  JSON.parse(
    new TextDecoder().decode(
      new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stderr: "null" }).outputSync()
        .stdout,
    ),
  ).denoDir;

/**
 * npm's cache as this user has it, for an `npm install` run under a sandbox's HOME: Deno's platform
 * package (about 40 MB packed) is then taken from it rather than fetched again.
 */
export function npmCache(): string {
  return Deno.env.get("npm_config_cache") ?? join(Deno.env.get("HOME") ?? "/root", ".npm");
}

/** What one mcpx process printed and how it ended. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The variables among `names` that are set here, to hand on to a child. */
function passThrough(...names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((n) => Deno.env.get(n) === undefined ? [] : [[n, Deno.env.get(n)!]]),
  );
}

/** How a {@linkcode Sandbox} is set up. */
export interface SandboxOptions {
  /**
   * Set MCPX_TRUST_ALL=1, so the configurations the test writes need no `mcpx trust` (the
   * default); false for the tests of trust itself.
   */
  trustAll?: boolean;
  /**
   * An executable that is `mcpx` itself (an installed package's `bin/mcpx`), run as it is rather
   * than `deno run <entry>`.
   */
  exec?: string;
}

/**
 * A private world for real mcpx processes: its own HOME and XDG directories, so daemons,
 * sockets and records never meet another test's. Disposing stops every daemon it started and
 * fails if any process of this sandbox is left.
 */
export class Sandbox {
  readonly root: string;
  readonly env: Record<string, string>;

  /** The module `mcpx` runs: main.ts, or the built bundle (dist/cli/main.js). */
  readonly entry: string;

  /** An executable run as `mcpx` instead of `deno run <entry>` (SandboxOptions.exec). */
  exec?: string;

  private constructor(root: string, entry: string, options: SandboxOptions) {
    this.root = root;
    this.entry = entry;
    this.exec = options.exec;
    this.env = {
      HOME: join(root, "home"),
      XDG_STATE_HOME: join(root, "state"),
      XDG_CACHE_HOME: join(root, "cache"),
      XDG_CONFIG_HOME: join(root, "config"),
      TMPDIR: join(root, "tmp"),
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      NO_COLOR: "1",
      DENO_DIR,
      E2E_SANDBOX: root,
      // Servers inherit nothing they are not given (docs/security.md): the mark that finds what
      // a test left running, and Deno's cache for the Deno servers, are passed through by name.
      MCPX_SERVERS_ENV_PASSTHROUGH: "E2E_SANDBOX,DENO_DIR",
      // The configurations tests write are theirs: trusted, unless a test is about trust.
      ...(options.trustAll === false ? {} : { MCPX_TRUST_ALL: "1" }),
      // Which certificates Deno trusts when a test makes it fetch from npm (a TLS proxy's own).
      ...passThrough("DENO_TLS_CA_STORE", "DENO_CERT", "SSL_CERT_FILE"),
    };
  }

  /** Makes a sandbox under the system temp directory; `entry` is what `mcpx` runs. */
  static async create(
    entry = `${REPO}/main.ts`,
    options: SandboxOptions = {},
  ): Promise<Sandbox> {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "mcpx-e2e-" }));
    const box = new Sandbox(root, entry, options);
    for (const d of ["home", "state", "cache", "config", "tmp", "work"]) {
      await Deno.mkdir(join(root, d), { recursive: true });
    }
    return box;
  }

  /** Writes a configuration file (an object is written as JSON) and returns its path. */
  async write(rel: string, content: string | Record<string, unknown>): Promise<string> {
    const path = join(this.root, rel);
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(
      path,
      typeof content === "string" ? content : JSON.stringify(content, null, 2),
    );
    return path;
  }

  /** Runs `mcpx args…` as a real process under `deno run`, in `cwd` (relative to the root). */
  async mcpx(
    args: string[],
    options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {},
  ): Promise<Run> {
    const child = new Deno.Command(this.exec ?? Deno.execPath(), {
      args: this.exec ? args : ["run", "-A", "--config", `${REPO}/deno.json`, this.entry, ...args],
      cwd: join(this.root, options.cwd ?? "work"),
      env: { ...this.env, ...options.env },
      clearEnv: true,
      stdin: options.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (options.stdin !== undefined) {
      // Written while the output is read: a large stdin must not wait on a full stdout pipe.
      const writer = child.stdin.getWriter();
      writer.write(new TextEncoder().encode(options.stdin)).then(() => writer.close()).catch(
        () => {},
      );
    }
    const out = await child.output();
    const dec = new TextDecoder();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  }

  /** Like {@linkcode mcpx} with `--json`, parsing stdout; throws with stderr when it fails. */
  /**
   * The token a `/v1` request must carry (`x-mcpx-token`) for the daemon on `health.socket`:
   * the file beside its socket (`<key>.sock` → `<key>.token`, in the sandbox's state).
   */
  daemonToken(health: { socket: string }): string {
    return Deno.readTextFileSync(health.socket.replace(/\.sock$/, ".token")).trim();
  }

  async json<T = Record<string, unknown>>(
    args: string[],
    options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {},
  ): Promise<T> {
    const r = await this.mcpx(["--json", ...args], options);
    if (r.code !== 0) {
      throw new Error(`mcpx ${args.join(" ")} exited ${r.code}: ${r.stderr || r.stdout}`);
    }
    return JSON.parse(r.stdout) as T;
  }

  /** Pids of every live process whose environment carries this sandbox (daemons included). */
  processes(): number[] {
    const pids: number[] = [];
    const mark = new TextEncoder().encode(`E2E_SANDBOX=${this.root}\0`);
    for (const e of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(e.name) || Number(e.name) === Deno.pid) continue;
      try {
        const env = Deno.readFileSync(`/proc/${e.name}/environ`);
        if (indexOf(env, mark) >= 0) pids.push(Number(e.name));
      } catch { /* gone, or not ours to read */ }
    }
    return pids;
  }

  /** Stops every daemon, then fails if any process of the sandbox is still alive. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.mcpx(["stop", "--all"]);
    const deadline = Date.now() + 5000;
    let left = this.processes();
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      left = this.processes();
    }
    for (const pid of left) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
    await Deno.remove(this.root, { recursive: true }).catch(() => {});
    if (left.length > 0) {
      throw new Error(`processes left behind by the sandbox: ${left.join(", ")}`);
    }
  }
}

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * What names a daemon's files (its record, token, live state, log): the name of its socket in
 * the sandbox's state, `<key>.sock` (lib/config/fingerprint.ts `key`, over the file's path).
 */
export function daemonKey(health: { socket: string }): string {
  return health.socket.slice(health.socket.lastIndexOf("/") + 1).replace(/\.sock$/, "");
}

/** Whether a process exists. */
export function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` every 25 ms until it holds or `ms` pass; returns whether it held. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 15_000,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return await check();
}

/** A minimal configuration with one server that is never started in these tests. */
export const ONE_SERVER = { mcpServers: { echo: { command: "true" } } };

const NPM = `${REPO}/tests/npm/node_modules`;

/** A stdio entry for one of the real MCP servers installed under tests/npm (run with Node). */
export function npmServer(
  pkg: "server-everything" | "server-filesystem" | "server-memory",
  args: string[] = [],
): { command: string; args: string[] } {
  return { command: "node", args: [`${NPM}/@modelcontextprotocol/${pkg}/dist/index.js`, ...args] };
}

/** Path of the real server's entry script, for starting it by hand (e.g. in HTTP mode). */
export function npmServerScript(pkg: "server-everything"): string {
  return `${NPM}/@modelcontextprotocol/${pkg}/dist/index.js`;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Reads the daemon's JSON-lines log records of a sandbox. */
export async function daemonLog(box: Sandbox): Promise<Record<string, unknown>[]> {
  const dir = join(box.root, "state", "mcpx", "logs");
  const out: Record<string, unknown>[] = [];
  for await (const e of Deno.readDir(dir)) {
    // The daemons' files (`daemon-<short>*.jsonl`), not the runs' (`runs*.jsonl`).
    if (!e.name.startsWith("daemon-")) continue;
    const text = await Deno.readTextFile(join(dir, e.name));
    for (const line of text.split("\n")) if (line) out.push(JSON.parse(line));
  }
  return out;
}
