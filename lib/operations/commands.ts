import type { Operation } from "./define.ts";

type Load = () => Promise<Operation>;
// deno-lint-ignore no-explicit-any
const op = (p: Promise<any>, name: string): Promise<Operation> => p.then((m) => m[name]);

/**
 * Each command word and how to load only its operation, so that `mcpx ls` does not pay for
 * every other command's module. Derived by hand from {@linkcode OPERATIONS}; a test holds the
 * two equal in both directions.
 */
export const COMMANDS: Record<string, Load> = {
  ls: () => op(import("./discovery_ops.ts"), "namespacesList"),
  search: () => op(import("./discovery_ops.ts"), "toolsSearch"),
  types: () => op(import("./discovery_ops.ts"), "toolsTypes"),
  catalog: () => op(import("./discovery_ops.ts"), "toolsCatalog"),
  schema: () => op(import("./discovery_ops.ts"), "toolsSchema"),
  client: () => op(import("./discovery_ops.ts"), "clientWrite"),
  call: () => op(import("./tool_ops.ts"), "toolsCall"),
  restart: () => op(import("./tool_ops.ts"), "serversRestart"),
  refresh: () => op(import("./tool_ops.ts"), "serversRefresh"),
  "end-session": () => op(import("./tool_ops.ts"), "sessionsEnd"),
  run: () => op(import("./script_ops.ts"), "scriptsRun"),
  exec: () => op(import("./script_ops.ts"), "scriptsExec"),
  scripts: () => op(import("./script_ops.ts"), "scriptsList"),
  status: () => op(import("./daemon_ops.ts"), "daemonStatus"),
  start: () => op(import("./daemon_ops.ts"), "daemonStart"),
  stop: () => op(import("./daemon_ops.ts"), "daemonStop"),
  daemons: () => op(import("./daemon_ops.ts"), "daemonsList"),
  daemon: () => op(import("./daemon_ops.ts"), "daemonRun"),
  health: () => op(import("./daemon_ops.ts"), "health"),
  config: () => op(import("./config_show.ts"), "configShow"),
  completion: () => op(import("./misc_ops.ts"), "completion"),
  "agents-md": () => op(import("./misc_ops.ts"), "agentsMd"),
  version: () => op(import("./misc_ops.ts"), "version"),
};
