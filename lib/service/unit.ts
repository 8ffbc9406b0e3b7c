// `mcpx service`: the daemon of one configuration as a user service, a systemd user unit on
// Linux and a launchd agent on macOS (docs/daemon.md, "As a service"). A user service rather than
// a system one: the configuration and the state belong in the user's own HOME, and a system unit
// running as root would need a HOME override to find either.

import { join } from "../_path.ts";
import { McpxError } from "../errors.ts";

/** Which service manager a definition is written for. */
export type ServicePlatform = "systemd" | "launchd";

/** What a service definition is made from. */
export interface ServiceSpec {
  /** The configuration's short key (the daemon's file names use the same). */
  key: string;
  /** The configuration file the daemon serves (absolute). */
  config: string;
  /** The folder the daemon runs in: the configuration's. */
  cwd: string;
  /** The program and its arguments that run `mcpx daemon`. */
  command: string;
  args: string[];
  /** Variables the service gets (PATH, DENO_DIR, …), since a service manager's own are sparse. */
  env: Record<string, string>;
}

/** The service's name: `mcpx-<key>` (`.service` for systemd; `dev.mcpx.<key>` for launchd). */
export function serviceName(platform: ServicePlatform, key: string): string {
  return platform === "systemd" ? `mcpx-${key}.service` : `dev.mcpx.${key}`;
}

/** Where the definition goes: the user's systemd folder, or `~/Library/LaunchAgents`. */
export function servicePath(
  platform: ServicePlatform,
  key: string,
  env: Readonly<Record<string, string>>,
): string {
  const home = env.HOME ?? "";
  if (platform === "launchd") {
    return join(home, "Library", "LaunchAgents", `${serviceName("launchd", key)}.plist`);
  }
  const config = env.XDG_CONFIG_HOME || join(home, ".config");
  return join(config, "systemd", "user", serviceName("systemd", key));
}

/** One word of an `ExecStart=` line: quoted when it must be, `%` and `$` doubled (systemd.service(5)). */
function systemdWord(word: string): string {
  const escaped = word.replaceAll("%", "%%").replaceAll("$", "$$$$");
  if (escaped !== "" && !/[\s"'\\;]/.test(escaped)) return escaped;
  return `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** One `Environment=` assignment, quoted as a whole (systemd.exec(5)). */
function systemdAssignment(name: string, value: string): string {
  const text = `${name}=${value}`.replaceAll("%", "%%").replaceAll("\\", "\\\\")
    .replaceAll('"', '\\"');
  return `Environment="${text}"`;
}

/**
 * Refuses a spec with a line break or other control character in any value: a unit file is read
 * line by line, so a folder named `x\nExecStartPre=…` would add a line of its own.
 * @throws {McpxError} USAGE
 */
function refuseControls(spec: ServiceSpec): void {
  const values = [spec.config, spec.cwd, spec.command, ...spec.args, ...Object.values(spec.env)];
  // deno-lint-ignore no-control-regex
  const bad = values.find((v) => /[\x00-\x1f\x7f]/.test(v));
  if (bad === undefined) return;
  throw new McpxError(
    "USAGE",
    `Cannot write a service for ${JSON.stringify(bad)}: it holds a line break or control character`,
    { hint: "Rename the folder, or run `mcpx daemon` under your own supervisor" },
  );
}

/** A systemd user unit that runs the daemon and restarts it when it fails. */
export function systemdUnit(spec: ServiceSpec): string {
  refuseControls(spec);
  const lines = [
    "# Written by `mcpx service install`; `mcpx service uninstall` removes it.",
    "[Unit]",
    `Description=mcpx daemon for ${spec.config.replaceAll("%", "%%")}`,
    "",
    "[Service]",
    "Type=simple",
    `WorkingDirectory=${systemdWord(spec.cwd)}`,
    systemdAssignment("MCPX_CONFIG", spec.config),
    ...Object.entries(spec.env).sort(([a], [b]) => a < b ? -1 : 1).map(([n, v]) =>
      systemdAssignment(n, v)
    ),
    `ExecStart=${[spec.command, ...spec.args].map(systemdWord).join(" ")}`,
    "Restart=on-failure",
    "RestartSec=2",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ];
  return lines.join("\n");
}

function xml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

/** A launchd agent that runs the daemon at login and again when it exits on a failure. */
export function launchdPlist(spec: ServiceSpec): string {
  refuseControls(spec);
  const env = { ...spec.env, MCPX_CONFIG: spec.config };
  const strings = (items: string[], indent: string) =>
    items.map((s) => `${indent}<string>${xml(s)}</string>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    "<!-- Written by `mcpx service install`; `mcpx service uninstall` removes it. -->",
    '<plist version="1.0">',
    "<dict>",
    "  <key>Label</key>",
    `  <string>${xml(serviceName("launchd", spec.key))}</string>`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    ...strings([spec.command, ...spec.args], "    "),
    "  </array>",
    "  <key>WorkingDirectory</key>",
    `  <string>${xml(spec.cwd)}</string>`,
    "  <key>EnvironmentVariables</key>",
    "  <dict>",
    ...Object.entries(env).sort(([a], [b]) => a < b ? -1 : 1).flatMap(([n, v]) => [
      `    <key>${xml(n)}</key>`,
      `    <string>${xml(v)}</string>`,
    ]),
    "  </dict>",
    "  <key>RunAtLoad</key>",
    "  <true/>",
    "  <key>KeepAlive</key>",
    "  <dict>",
    "    <key>SuccessfulExit</key>",
    "    <false/>",
    "  </dict>",
    "</dict>",
    "</plist>",
    "",
  ].join("\n");
}

/** The definition for `platform`. */
export function serviceDefinition(platform: ServicePlatform, spec: ServiceSpec): string {
  return platform === "systemd" ? systemdUnit(spec) : launchdPlist(spec);
}

/** The variables a service is given from the installing command's environment, when set. */
export const SERVICE_ENV = [
  "PATH",
  "DENO_DIR",
  "XDG_STATE_HOME",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
];
