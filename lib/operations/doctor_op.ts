import { defineOperation } from "./define.ts";
import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import { messageOf } from "../errors.ts";

/** One check's outcome: `fail` makes `mcpx doctor` exit 1; `warn` is reported and passes. */
export interface Check {
  /** Which area: runtime, git, settings, config, trust, server, dirs, daemon, logindex, credentials. */
  area: string;
  status: "ok" | "warn" | "fail" | "skip";
  /** What was found, one line. */
  message: string;
  /** What to do about it, one line (on every warn and fail). */
  hint?: string;
}

interface DoctorOutput {
  checks: Check[];
  failed: number;
  warned: number;
  exitCode?: number;
}

/** Exit status of `mcpx doctor` when any check failed. */
export const DOCTOR_FAILED_EXIT = 1;

function hintOf(e: unknown): string | undefined {
  const hint = (e as { hint?: unknown } | null)?.hint;
  return typeof hint === "string" && hint ? hint : undefined;
}

async function versionOf(
  command: string,
  args: string[],
): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "null" }).output();
    if (!out.success) return undefined;
    return new TextDecoder().decode(out.stdout).trim().split("\n")[0];
  } catch {
    return undefined;
  }
}

/** Whether `command` names an executable: a path that exists, or a name on `PATH`. */
function installed(
  command: string,
  env: Readonly<Record<string, string>>,
  cwd: string,
  findOnPath: (n: string, e: Readonly<Record<string, string>>) => string | undefined,
): boolean {
  if (command.includes("/")) {
    try {
      const p = command.startsWith("/") ? command : `${cwd}/${command}`;
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  }
  return findOnPath(command, env) !== undefined;
}

function modeOf(path: string): number | undefined {
  try {
    return Deno.statSync(path).mode! & 0o777;
  } catch {
    return undefined;
  }
}

/** Scopes under which one process serves the calls of several sessions. */
const SHARED_SCOPES: readonly string[] = ["global", "repo", "worktree", "cwd"];

/**
 * A warning for a server known to keep per-caller state (lib/config/stateful.ts) whose leasing,
 * chosen in a block, hands one process to several sessions.
 */
function sharedStateful(
  def: {
    name: string;
    stateful?: string;
    statefulNeeds?: string;
    leasing: string;
    pool: { sharing: string; scope: string };
  },
): Check | undefined {
  if (!def.stateful) return undefined;
  if (!SHARED_SCOPES.includes(def.pool.scope)) {
    // One process per session: two sessions at once need two processes that can coexist.
    if (!def.statefulNeeds) return undefined;
    return {
      area: "sharing",
      status: "warn",
      message:
        `${def.name}: each session gets its own process, but without ${def.statefulNeeds} they all open one profile folder, so a second session's fails while the first runs ("Browser is already in use")`,
      hint: `Add "${def.statefulNeeds}" to the args of mcpServers.${def.name}`,
    };
  }
  const where = def.leasing === "pool" ? "the top-level pool block" : "its mcpx block";
  return {
    area: "sharing",
    status: "warn",
    message:
      `${def.name}: ${def.stateful}, yet one process serves the callers of every session (sharing ${def.pool.sharing}, scope ${def.pool.scope}, set in ${where})`,
    hint: `Write "sharing": "exclusive", "scope": "session" in mcpServers.${def.name}.mcpx, ` +
      `or remove sharing and scope from ${where} to take that default`,
  };
}

/** Every check, in the order somebody would make them by hand. */
export async function runChecks(ctx: Context, options: { start: boolean }): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (c: Check) => checks.push(c);
  const env = ctx.io.env;
  const select = await load<typeof import("../scripts/select.ts")>(
    "../scripts/select.ts",
    import.meta.url,
  );
  const { VERSION } = await load<typeof import("../version.ts")>("../version.ts", import.meta.url);

  // The runtime(s).
  // `--runtime deno` runs this deno, or, from a compiled binary, the one on PATH.
  const deno = select.isCompiled() ? select.findOnPath("deno", env) : Deno.execPath();
  add(
    deno ? { area: "runtime", status: "ok", message: `deno ${Deno.version.deno} at ${deno}` } : {
      area: "runtime",
      status: "skip",
      message: "deno is not on PATH (only scripts with --runtime deno need it)",
    },
  );
  for (const name of ["node", "bun"] as const) {
    const path = select.findOnPath(name, env);
    if (!path) {
      add({
        area: "runtime",
        status: "skip",
        message: `${name} is not on PATH (only scripts with --runtime ${name} need it)`,
      });
      continue;
    }
    const v = await versionOf(path, ["--version"]);
    let note = "";
    if (name === "node" && v) {
      // As lib/scripts/select.ts runs it: types stripped from 22.6, emitted JavaScript from 18.
      const [maj, min] = v.replace(/^v/, "").split(".").map(Number);
      const older = (want: readonly [number, number]) =>
        maj < want[0] || (maj === want[0] && min < want[1]);
      if (older(select.NODE_EMIT_MIN)) {
        add({
          area: "runtime",
          status: "warn",
          message: `node ${v} at ${path} is older than ${select.NODE_EMIT_MIN.join(".")}`,
          hint: `Install node ${
            select.NODE_MIN.join(".")
          } or later to run scripts with --runtime node`,
        });
        continue;
      }
      if (older(select.NODE_MIN)) note = " (scripts are emitted as JavaScript for it first)";
    }
    add({
      area: "runtime",
      status: "ok",
      message: `${name} ${v ?? "(version unknown)"} at ${path}${note}`,
    });
  }

  // git.
  const git = select.findOnPath("git", env);
  add(
    git ? { area: "git", status: "ok", message: `git at ${git}` } : {
      area: "git",
      status: "warn",
      message: "git is not on PATH",
      hint:
        "Install git: the repo and worktree scopes find repositories without it, adapters using git need it",
    },
  );
  // The repository here, as the repo and worktree scopes will find it.
  const { explainRepository } = await load<typeof import("../git/discover.ts")>(
    "../git/discover.ts",
    import.meta.url,
  );
  const here = explainRepository(ctx.io.cwd);
  if (here.unsupported) {
    add({
      area: "git",
      status: "warn",
      message: `${here.reason}: the daemon asks ${
        git ? "git once for this folder" : "no git (none on PATH) and keys by the folder itself"
      } for repo- and worktree-scoped servers`,
      hint: git
        ? "Nothing to do unless git refuses the folder (safe.directory); the daemon's log says what git answered (git.fallback)"
        : "Install git, or expect one process per folder rather than per repository",
    });
  } else if (here.info) {
    add({
      area: "git",
      status: "ok",
      message: `repository ${here.info.worktree} (${here.info.layout}), found without git`,
    });
  }

  // Settings that contradict each other.
  let settingsOk = true;
  try {
    const settings = await ctx.settings();
    for (const w of settings.warnings) {
      add({
        area: "settings",
        status: "warn",
        message: w,
        hint: "Fix or remove it: an unknown or doubled setting is ignored",
      });
    }
    for (const s of settings.all()) {
      for (const o of s.overrode) {
        if (o.source.kind === "default") continue;
        const quiet = s.source.kind === "flag";
        if (quiet) continue;
        add({
          area: "settings",
          status: "warn",
          message: `${s.key} = ${
            JSON.stringify(s.text)
          } from ${s.source.kind} ${s.source.where} overrides ${
            JSON.stringify(o.text)
          } from ${o.source.kind} ${o.source.where}`,
          hint: s.source.kind === "env"
            ? `Unset ${s.source.where}, or remove ${s.key} from ${o.source.where}`
            : `Remove ${s.key} from one of the two files`,
        });
      }
    }
  } catch (e) {
    settingsOk = false;
    add({
      area: "settings",
      status: "fail",
      message: messageOf(e),
      hint: hintOf(e) ?? "Fix the value named",
    });
  }
  if (settingsOk && !checks.some((c) => c.area === "settings")) {
    add({ area: "settings", status: "ok", message: "no contradictions" });
  }

  // The configuration parses, and is trusted.
  const { loadConfig, readConfigText } = await load<typeof import("../config/load.ts")>(
    "../config/load.ts",
    import.meta.url,
  );
  const { serverDefs } = await load<typeof import("../config/servers.ts")>(
    "../config/servers.ts",
    import.meta.url,
  );
  const trust = await load<typeof import("../config/trust.ts")>(
    "../config/trust.ts",
    import.meta.url,
  );
  const primary = ctx.location().primary;
  type Defs = ReturnType<typeof serverDefs>;
  let defs: Defs | undefined;
  let trusted = false;
  if (!primary) {
    add({
      area: "config",
      status: "fail",
      message: "no configuration file found",
      hint: "Create .mcpx.json here or ~/.config/mcpx/config.json, or name one with --config",
    });
  } else {
    try {
      const config = await loadConfig(primary, readConfigText(primary));
      defs = serverDefs(config);
      add({
        area: "config",
        status: "ok",
        message: `${primary} parses (${defs.length} server${defs.length === 1 ? "" : "s"})`,
      });
    } catch (e) {
      add({
        area: "config",
        status: "fail",
        message: messageOf(e),
        hint: hintOf(e) ?? `Fix ${primary} at the place named`,
      });
    }
    try {
      const real = Deno.realPathSync(primary);
      const state = await trust.trustState(real, readConfigText(primary), ctx.trustOptions());
      trusted = state.trusted;
      add(
        state.trusted
          ? { area: "trust", status: "ok", message: `${primary} is trusted (${state.why})` }
          : {
            area: "trust",
            status: "fail",
            message: state.why === "unsafe"
              ? (state.reason ?? `${primary} is not safe to trust`)
              : `${primary} is not trusted${state.why === "changed" ? " since it changed" : ""}`,
            hint: state.why === "unsafe"
              ? "Make the file yours and writable by you alone (chmod go-w)"
              : `Read it, then run \`mcpx trust ${trust.shellWord(real)}\``,
          },
      );
    } catch { /* unreadable: the config check said so */ }
  }

  // Every server's command is installed; credentials it references are present.
  const oauth = await load<typeof import("../mcp/oauth/mod.ts")>(
    "../mcp/oauth/mod.ts",
    import.meta.url,
  );
  const { stateDir, cacheDir, logsDir } = await load<typeof import("../paths.ts")>(
    "../paths.ts",
    import.meta.url,
  );
  const boot = ctx.loadedSettings() ? await ctx.settings().catch(() => ctx.boot) : ctx.boot;
  const state = stateDir(boot, env);
  // Servers that could start: enabled, their command found. Each is started below (or said to
  // be left alone), so none is called `ok` for its command alone.
  const startable: NonNullable<Defs> = [];
  if (!defs && primary) {
    add({
      area: "server",
      status: "skip",
      message: "servers not checked: the configuration does not load",
    });
  }
  for (const def of defs ?? []) {
    if (def.disabled) {
      add({ area: "server", status: "skip", message: `${def.name}: disabled` });
      continue;
    }
    if (def.transport === "stdio") {
      const command = def.entry.command ?? "";
      if (!installed(command, env, ctx.io.cwd, select.findOnPath)) {
        add({
          area: "server",
          status: "fail",
          message: `${def.name}: command "${command}" is not installed (not found on PATH)`,
          hint: `Install ${command}, or fix "command" of mcpServers.${def.name}`,
        });
      } else startable.push(def);
    } else startable.push(def);
    const shared = sharedStateful(def);
    if (shared) add(shared);
    const unset = def.envFrom === "daemon" ? def.envNames.filter((n) => env[n] === undefined) : [];
    for (const name of unset) {
      add({
        area: "credentials",
        status: "fail",
        message: `${def.name}: \${${name}} is referenced but ${name} is not set`,
        hint: `Set ${name} in the environment the daemon starts from (then \`mcpx stop\`)`,
      });
    }
    if (def.transport !== "stdio" && def.entry.url && def.entry.mcpx?.oauth !== undefined) {
      let found = false;
      try {
        found = oauth.findCredentials(oauth.oauthDir(state), oauth.resourceOf(def.entry.url)) !==
          undefined;
      } catch { /* an unreadable token file counts as none */ }
      add(
        found ? { area: "credentials", status: "ok", message: `${def.name}: signed in` } : {
          area: "credentials",
          status: "fail",
          message: `${def.name}: no OAuth tokens stored`,
          hint: `Run \`mcpx auth login ${def.namespace}\``,
        },
      );
    }
  }

  // Adapters (paths.adapters): each declared program is installed.
  const adapters = { declared: 0, missing: 0, failed: false };
  if (!settingsOk) {
    add({
      area: "adapter",
      status: "skip",
      message: "adapters not checked: the settings (paths.adapters among them) do not resolve",
    });
  } else if (boot.get("paths.adapters") !== "") {
    const { configuredAdapters } = await load<typeof import("../adapters/declare.ts")>(
      "../adapters/declare.ts",
      import.meta.url,
    );
    try {
      for (const a of configuredAdapters(boot, ctx.io.cwd)) {
        adapters.declared++;
        if (!installed(a.command, env, ctx.io.cwd, select.findOnPath)) adapters.missing++;
        add(
          installed(a.command, env, ctx.io.cwd, select.findOnPath)
            ? { area: "adapter", status: "ok", message: `${a.name}: ${a.command} is installed` }
            : {
              area: "adapter",
              status: "fail",
              message: `${a.name}: "${a.command}" is not installed (declared in ${a.file})`,
              hint: `Install ${a.command}, or fix "command" of adapter ${a.name}`,
            },
        );
      }
    } catch (e) {
      add({
        area: "adapter",
        status: "fail",
        message: messageOf(e),
        hint: hintOf(e) ?? "Fix the declaration named (docs/adapters.md)",
      });
      adapters.failed = true;
    }
  }

  // The directories and their permissions.
  for (const [what, dir] of [["state", state], ["cache", cacheDir(boot, env)]] as const) {
    const mode = modeOf(dir);
    if (mode === undefined) {
      add({ area: "dirs", status: "ok", message: `${what} ${dir} (made when first needed)` });
    } else if (what === "state" && (mode & 0o077) !== 0) {
      add({
        area: "dirs",
        status: "fail",
        message: `${what} ${dir} has mode ${mode.toString(8).padStart(4, "0")}, open to others`,
        hint: `Run \`chmod 700 ${dir}\``,
      });
    } else {
      add({ area: "dirs", status: "ok", message: `${what} ${dir}` });
    }
  }
  const logs = logsDir(boot, env);
  let info: Deno.FileInfo | undefined;
  try {
    info = Deno.statSync(logs);
  } catch { /* not made yet */ }
  if (!info) {
    add({ area: "logindex", status: "ok", message: `${logs} (made when first needed)` });
  } else {
    if (!info.isDirectory) {
      add({
        area: "logindex",
        status: "fail",
        message: `log directory ${logs} is not a directory`,
        hint: `Move ${logs} away, or point MCPX_LOGGING_DIR (--logging-dir) at a folder`,
      });
    } else {
      const { INDEX_FILE, openIndex } = await load<typeof import("../logindex/index.ts")>(
        "../logindex/index.ts",
        import.meta.url,
      );
      const db = `${logs}/${INDEX_FILE}`;
      if (modeOf(db) === undefined) {
        add({
          area: "logindex",
          status: "ok",
          message: `${logs} (no index yet: \`mcpx log\` builds it)`,
        });
      } else {
        // Opened as `mcpx log` opens it: a corrupt one is set aside and rebuilt, and said so.
        const said: string[] = [];
        try {
          const index = openIndex(logs, (line) => said.push(line));
          try {
            const row = index.db.prepare("SELECT count(*) AS n FROM records").get() as {
              n: number;
            };
            add({ area: "logindex", status: "ok", message: `${db} (${row.n} records)` });
          } finally {
            index.close();
          }
          for (const line of said) {
            add({
              area: "logindex",
              status: "warn",
              message: line,
              hint: "Nothing to do: `mcpx log` fills the new index from the JSONL files",
            });
          }
        } catch (e) {
          add({
            area: "logindex",
            status: "fail",
            message: `${db} cannot be opened: ${messageOf(e)}`,
            hint: `Move ${db} away: \`mcpx log\` builds a new one from the JSONL files`,
          });
        }
      }
    }
  }

  // The daemon.
  const client = await load<typeof import("../daemon/client.ts")>(
    "../daemon/client.ts",
    import.meta.url,
  );
  let running = false;
  if (primary) {
    try {
      const fp = await ctx.fingerprint();
      const paths = await ctx.paths();
      const health = await client.probe(paths.socket, {
        fallback: paths.socketFallback,
        token: paths.token,
      });
      if (health === "absent") {
        add({ area: "daemon", status: "ok", message: "not running (starts when needed)" });
      } else if (health === "stale") {
        add({
          area: "daemon",
          status: "warn",
          message: `socket ${paths.socket} is left from a daemon that is gone`,
          hint: "Nothing to do: the next command replaces it (or run `mcpx stop`)",
        });
      } else if (health.version !== VERSION) {
        add({
          area: "daemon",
          status: "fail",
          message: `daemon ${health.pid} runs mcpx ${health.version}, this CLI is ${VERSION}`,
          hint: "Run `mcpx stop`: the next command starts a daemon of this version",
        });
      } else {
        running = true;
        add({
          area: "daemon",
          status: "ok",
          message: `running (pid ${health.pid}, ${health.version}${
            health.fingerprint === fp.hash ? "" : ", reloads the changed configuration"
          })`,
        });
      }
    } catch (e) {
      add({
        area: "daemon",
        status: "fail",
        message: messageOf(e),
        hint: hintOf(e) ?? "Run `mcpx stop --all`, then try again",
      });
    }
  }

  // A registry named in the settings answers (the default one is not asked: doctor works offline).
  const registryUrl = boot.describe("registry.url");
  let registry =
    `registry ${registryUrl.value} not asked (the default; set registry.url to check one)`;
  let registryOk = true;
  if (registryUrl.source.kind !== "default") {
    const r = await load<typeof import("../registry/registry.ts")>(
      "../registry/registry.ts",
      import.meta.url,
    );
    try {
      await r.searchRegistry(String(registryUrl.value), "", 1);
      add({ area: "registry", status: "ok", message: `${registryUrl.value} answers` });
      registry = `registry ${registryUrl.value} answers`;
    } catch (e) {
      registry = `registry ${registryUrl.value} does not answer`;
      registryOk = false;
      add({
        area: "registry",
        status: "fail",
        message: messageOf(e),
        hint: `Fix registry.url (set in ${registryUrl.source.kind} ${registryUrl.source.where})`,
      });
    }
  }

  // The integrations at a glance: git, adapters, the registry (each has its own row above).
  const parts = [
    git ? `git at ${git}${here.unsupported ? " (asked for this folder's layout)" : ""}` : "no git",
    adapters.failed
      ? "adapters not readable"
      : `${adapters.declared} adapter${adapters.declared === 1 ? "" : "s"}${
        adapters.missing ? ` (${adapters.missing} not installed)` : ""
      }`,
    registry,
  ];
  const fine = git !== undefined && !adapters.failed && adapters.missing === 0 && registryOk;
  add({
    area: "integrations",
    status: fine ? "ok" : "warn",
    message: parts.join("; "),
    ...(fine ? {} : { hint: "See the git, adapter and registry rows above" }),
  });

  // Every server starts: through the daemon, as `mcpx refresh` does (at most REFRESH_PARALLEL at
  // once, lib/pool/registry.ts), whatever failed above.
  const notStarted = (why: string) => {
    for (const def of startable) {
      add({
        area: "server",
        status: "skip",
        message: `${def.namespace}: ${
          def.transport === "stdio" ? `${def.entry.command} is installed; ` : ""
        }not started (${why})`,
      });
    }
  };
  if (startable.length === 0) {
    // Nothing to start: no daemon either.
  } else if (!options.start) {
    notStarted("--offline");
  } else if (!trusted) {
    notStarted("the configuration is not trusted");
  } else {
    try {
      const answer = await client.callDaemon(ctx, {
        method: "POST",
        path: "/v1/servers/refresh",
        start: true,
        caller: ctx.callerInfo(),
      });
      const value = answer?.value as
        | { servers: { namespace: string; tools: number | null; error?: string }[] }
        | undefined;
      const got = new Map((value?.servers ?? []).map((s) => [s.namespace, s]));
      for (const def of startable) {
        const s = got.get(def.namespace);
        add(
          s && !s.error
            ? {
              area: "server",
              status: "ok",
              message: `${def.namespace}: starts, ${s.tools} tools`,
            }
            : {
              area: "server",
              status: "fail",
              message: `${def.namespace}: does not start: ${
                (s?.error ?? "the daemon did not list it").split("\n").slice(0, 6).join(" | ")
              }`,
              hint: `Run its command by hand to see why, then \`mcpx restart ${def.namespace}\``,
            },
        );
      }
      if (!running) {
        add({
          area: "daemon",
          status: "ok",
          message: "started to check the servers (`mcpx stop` stops it)",
        });
      }
    } catch (e) {
      add({
        area: "server",
        status: "fail",
        message: `servers could not be started: ${messageOf(e)}`,
        hint: hintOf(e) ?? "Run `mcpx refresh` to see the whole error",
      });
    }
  }
  return checks;
}

/** `mcpx doctor`: one command for "it does not work". */
export const doctor = defineOperation<{ offline?: boolean; noStart?: boolean }, DoctorOutput>({
  id: "setup.doctor",
  summary:
    "Check the runtimes, settings, configuration, servers, directories, daemon and log index",
  description:
    "Checks, in order: the runtimes scripts use (deno, node, bun), git and the repository here (a layout left to git is a warning), settings that contradict each other (a value overriding another from a file or variable, unknown keys and MCPX_* variables), whether the configuration parses and is trusted, whether every enabled server's command and every adapter's program is installed, the ${VAR} references and OAuth tokens servers need, the state, cache and log directories and their modes, the daemon (running, same version as this CLI), a registry.url that was set (it answers), one integrations row summing up git, adapters and the registry, servers known to keep per-caller state (a browser) that one process serves for every session (a warning), and then starts every enabled server whose command is found through the daemon as `mcpx refresh` does, a few at a time (not with --offline), reporting the first lines a server that does not start wrote. A failed check never stops the others, and a server is `ok` only once it started. Every failed check says what to do. Exits 1 when any check failed; warnings do not fail.",
  params: [
    {
      name: "offline",
      type: "boolean",
      doc: "Do not start the servers (nor a daemon) to check that they start",
    },
    { name: "noStart", type: "boolean", doc: "The older spelling of --offline" },
  ],
  cli: {
    command: ["doctor"],
    examples: [[
      "mcpx doctor",
      "Every check: runtimes, settings, configuration, servers, daemon, log",
    ], ["mcpx doctor --no-start", "The same without starting any server"]],
  },
  http: { none: "doctor inspects the machine the CLI runs on, not the daemon" },
  mcp: { expose: false },
  where: "local",
  output: (z) =>
    z.object({
      checks: z.array(z.object({
        area: z.string(),
        status: z.enum(["ok", "warn", "fail", "skip"]),
        message: z.string(),
        hint: z.string().optional(),
      })),
      failed: z.number(),
      warned: z.number(),
      exitCode: z.number().optional(),
    }),
  async run(input, ctx) {
    const checks = await runChecks(ctx, { start: !(input.offline || input.noStart) });
    const failed = checks.filter((c) => c.status === "fail").length;
    const warned = checks.filter((c) => c.status === "warn").length;
    return { checks, failed, warned, ...(failed ? { exitCode: DOCTOR_FAILED_EXIT } : {}) };
  },
  render(out) {
    const mark = { ok: "ok  ", warn: "warn", fail: "FAIL", skip: "--  " };
    const lines = out.checks.map((c) =>
      `${mark[c.status]}  ${c.area.padEnd(11)} ${c.message}${
        c.hint ? `\n      ${" ".repeat(12)}→ ${c.hint}` : ""
      }`
    );
    lines.push(
      out.failed
        ? `${out.failed} check(s) failed, ${out.warned} warning(s)`
        : `all checks passed${out.warned ? `, ${out.warned} warning(s)` : ""}`,
    );
    return lines.join("\n") + "\n";
  },
});
