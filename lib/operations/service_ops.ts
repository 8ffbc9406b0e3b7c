import { defineOperation } from "./define.ts";
import { McpxError, messageOf } from "../errors.ts";
import type { Context } from "../context.ts";
import { dirname } from "../_path.ts";
import { noConfigError } from "../config/discover.ts";
import { selfCommand } from "../_self.ts";
import { writeFileAtomic } from "../_atomic.ts";
import { load } from "../_load.ts";
import type { ServicePlatform } from "../service/unit.ts";

interface ServiceOutput {
  action: "install" | "uninstall" | "status";
  platform: ServicePlatform;
  /** The unit (systemd) or label (launchd). */
  name: string;
  /** Where its definition is. */
  file: string;
  /** The configuration its daemon serves. */
  config: string;
  /** Whether the definition file exists (after the action). */
  installed: boolean;
  /** Whether the file on disk is what `install` would write now (false: install again). */
  current?: boolean;
  /** The service manager's word on it (`active`, `inactive`, …), when one could be asked. */
  state?: string;
  /** Why the service manager could not be asked for the state (status), when it could not. */
  unasked?: string;
  /** The service manager's commands run, each with how it ended. */
  ran: { command: string; ok: boolean; output?: string }[];
  /** What the person still has to do (no service manager here, or one that failed). */
  todo?: string[];
}

function platformOf(asked: string | undefined): ServicePlatform {
  if (asked === "systemd" || asked === "launchd") return asked;
  if (Deno.build.os === "darwin") return "launchd";
  if (Deno.build.os === "linux") return "systemd";
  throw new McpxError("USAGE", `No service manager is known for ${Deno.build.os}`, {
    hint: "Run `mcpx daemon` under your own supervisor, or pass --platform systemd|launchd",
  });
}

/** The configuration this command serves: the one it found, as a real path. */
function configOf(ctx: Context): string {
  const primary = ctx.location().primary;
  if (!primary) throw noConfigError(ctx.location());
  return Deno.realPathSync(primary);
}

/** Runs a service manager's command, never throwing: a missing program is an outcome. */
async function manager(
  command: string,
  args: string[],
  env: Readonly<Record<string, string>>,
): Promise<
  { command: string; ok: boolean; output?: string; stdout?: string; missing?: boolean }
> {
  const shown = [command, ...args].join(" ");
  try {
    const out = await new Deno.Command(command, {
      args,
      env: { ...env },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim() + "\n" +
      new TextDecoder().decode(out.stderr).trim();
    const output = text.trim().split("\n").slice(0, 3).join(" ").slice(0, 300);
    const stdout = new TextDecoder().decode(out.stdout).trim();
    return { command: shown, ok: out.success, ...(output ? { output } : {}), stdout };
  } catch (e) {
    const missing = e instanceof Deno.errors.NotFound;
    return { command: shown, ok: false, output: missing ? "not installed" : messageOf(e), missing };
  }
}

/** The systemd or launchd commands for an action, shown to the person when they cannot be run. */
function managerCommands(
  platform: ServicePlatform,
  action: "install" | "uninstall" | "status",
  name: string,
  file: string,
  uid: number,
): string[][] {
  if (platform === "systemd") {
    if (action === "install") {
      return [["systemctl", "--user", "daemon-reload"], [
        "systemctl",
        "--user",
        "enable",
        "--now",
        name,
      ]];
    }
    if (action === "uninstall") {
      return [["systemctl", "--user", "disable", "--now", name], [
        "systemctl",
        "--user",
        "daemon-reload",
      ]];
    }
    return [["systemctl", "--user", "is-active", name]];
  }
  const target = `gui/${uid}`;
  if (action === "install") return [["launchctl", "bootstrap", target, file]];
  if (action === "uninstall") return [["launchctl", "bootout", `${target}/${name}`]];
  return [["launchctl", "print", `${target}/${name}`]];
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw new McpxError("UNSAFE_PATH", `Cannot read "${path}": ${messageOf(e)}`);
  }
}

const PLATFORM = {
  name: "platform",
  type: "enum",
  values: ["systemd", "launchd"],
  doc: "The service manager (default: systemd on Linux, launchd on macOS)",
} as const;

/** `mcpx service install|uninstall|status`: this configuration's daemon as a user service. */
export const service = defineOperation<
  {
    action: "install" | "uninstall" | "status";
    platform?: string;
    start?: boolean;
    print?: boolean;
  },
  ServiceOutput & { definition?: string }
>({
  id: "service.manage",
  summary:
    "Run this configuration's daemon as a user service: install, uninstall, or show its status",
  description:
    "install writes a systemd user unit (~/.config/systemd/user/mcpx-<key>.service; Restart=on-failure, WantedBy=default.target) or, on macOS, a launchd agent (~/Library/LaunchAgents/dev.mcpx.<key>.plist; RunAtLoad, KeepAlive on failure) that runs `mcpx daemon` for the configuration this command finds, with MCPX_CONFIG, the configuration's folder, and this command's PATH, DENO_DIR and XDG folders; then enables and starts it (systemctl --user enable --now, launchctl bootstrap) unless told not to (--no-start). Where the service manager cannot be reached the file is still written and the commands to run are printed. --print shows the definition without writing it. status says whether the file is there, whether it is what install would write now, and what the service manager says. A daemon started by a service never exits when idle; commands find it on its socket as they find any other.",
  params: [
    {
      name: "action",
      type: "enum",
      values: ["install", "uninstall", "status"],
      positional: true,
      required: true,
      doc: "install, uninstall or status",
    },
    PLATFORM,
    {
      name: "start",
      type: "boolean",
      on: true,
      doc: "install: only write the file (by default it is also enabled and started now)",
    },
    { name: "print", type: "boolean", doc: "install: print the definition instead of writing it" },
  ],
  cli: {
    command: ["service"],
    examples: [
      ["mcpx service install", "Run the daemon as a systemd unit or launchd agent, started now"],
      ["mcpx service install --print", "Print the definition instead of writing it"],
      ["mcpx service status", "Whether the service is installed and running"],
    ],
  },
  http: { none: "a service is installed in the user's own session, not through a daemon" },
  mcp: { expose: false },
  where: "local",
  needsTrust: true,
  output: (z) =>
    z.object({
      action: z.enum(["install", "uninstall", "status"]),
      platform: z.enum(["systemd", "launchd"]),
      name: z.string(),
      file: z.string(),
      config: z.string(),
      installed: z.boolean(),
      current: z.boolean().optional(),
      state: z.string().optional(),
      unasked: z.string().optional(),
      ran: z.array(
        z.object({ command: z.string(), ok: z.boolean(), output: z.string().optional() }),
      ),
      todo: z.array(z.string()).optional(),
      definition: z.string().optional(),
    }),
  async run(input, ctx) {
    const platform = platformOf(input.platform);
    const config = configOf(ctx);
    const fp = await ctx.fingerprint();
    const env = ctx.io.env;
    const { DAEMON_V8_FLAGS } = await load<typeof import("../daemon/client.ts")>(
      "../daemon/client.ts",
      import.meta.url,
    );
    const self = selfCommand(["daemon"], DAEMON_V8_FLAGS);
    const { SERVICE_ENV, serviceDefinition, serviceName, servicePath } = await load<
      typeof import("../service/unit.ts")
    >("../service/unit.ts", import.meta.url);
    const name = serviceName(platform, fp.key);
    const file = servicePath(platform, fp.key, env);
    const definition = serviceDefinition(platform, {
      key: fp.key,
      config,
      cwd: dirname(config),
      command: self.command,
      args: self.args,
      env: Object.fromEntries(SERVICE_ENV.flatMap((n) => env[n] ? [[n, env[n]]] : [])),
    });
    const base = { action: input.action, platform, name, file, config };
    const uid = Deno.uid() ?? 0;
    const ran: ServiceOutput["ran"] = [];
    const todo: string[] = [];
    const runAll = async (commands: string[][]) => {
      for (const [command, ...args] of commands) {
        const r = await manager(command, args, env);
        ran.push({ command: r.command, ok: r.ok, ...(r.output ? { output: r.output } : {}) });
        if (!r.ok) {
          const at = commands.findIndex((c) => c.join(" ") === r.command);
          todo.push(...commands.slice(at).map((c) => c.join(" ")));
          return false;
        }
      }
      return true;
    };

    if (input.action === "install") {
      if (input.print) {
        return { ...base, installed: (await readText(file)) !== undefined, ran, definition };
      }
      try {
        await Deno.mkdir(dirname(file), { recursive: true });
        writeFileAtomic(file, definition, { mode: 0o644 });
      } catch (e) {
        throw new McpxError("UNSAFE_PATH", `Cannot write "${file}": ${messageOf(e)}`, {
          hint: "Check that the folder is yours and writable, or use --print and place it yourself",
        });
      }
      if (input.start !== false) {
        await runAll(managerCommands(platform, "install", name, file, uid));
      }
      return { ...base, installed: true, current: true, ran, ...(todo.length ? { todo } : {}) };
    }

    const onDisk = await readText(file);
    if (input.action === "uninstall") {
      if (onDisk === undefined) return { ...base, installed: false, ran };
      await runAll(managerCommands(platform, "uninstall", name, file, uid));
      try {
        await Deno.remove(file);
      } catch (e) {
        throw new McpxError("UNSAFE_PATH", `Cannot remove "${file}": ${messageOf(e)}`);
      }
      return { ...base, installed: false, ran, ...(todo.length ? { todo } : {}) };
    }

    // status
    if (onDisk === undefined) return { ...base, installed: false, ran };
    const [[command, ...args]] = managerCommands(platform, "status", name, file, uid);
    const asked = await manager(command, args, env);
    // systemd's word is one word on stdout (`active`, `failed`, …); a manager that could not be
    // asked (no user bus: "Failed to connect to bus" on stderr) says none, and no state is made up.
    const word = asked.stdout?.split("\n")[0].trim() ?? "";
    const state = asked.missing
      ? undefined
      : platform === "systemd"
      ? (/^[a-z][a-z-]*$/.test(word) ? word : undefined)
      : (asked.ok ? "loaded" : "not loaded");
    return {
      ...base,
      installed: true,
      current: onDisk === definition,
      ...(state ? { state } : { unasked: asked.output ?? "it gave no answer" }),
      ran,
    };
  },
  render(out) {
    if (out.definition !== undefined) return out.definition;
    const lines: string[] = [];
    if (out.action === "status") {
      if (!out.installed) {
        return `${out.name}: not installed (\`mcpx service install\` writes ${out.file})\n`;
      }
      lines.push(
        `${out.name}: installed at ${out.file}, ${
          out.state ?? `the service manager could not be asked (${out.unasked})`
        }`,
        `  serves ${out.config}`,
      );
      if (out.current === false) {
        lines.push(
          "  the file differs from what this mcpx would write: run `mcpx service install` again",
        );
      }
      return lines.join("\n") + "\n";
    }
    if (out.action === "uninstall") {
      lines.push(
        out.installed ? `${out.name}: still installed` : `${out.name}: removed (${out.file})`,
      );
    } else {
      lines.push(`${out.name}: written to ${out.file}`, `  serves ${out.config}`);
    }
    for (const r of out.ran) {
      lines.push(
        `  ${r.ok ? "ran" : "failed"}: ${r.command}${r.ok || !r.output ? "" : ` (${r.output})`}`,
      );
    }
    if (out.todo?.length) {
      lines.push("  still to do, where the service manager runs:");
      for (const t of out.todo) lines.push(`    ${t}`);
    }
    return lines.join("\n") + "\n";
  },
});
