import { load } from "../_load.ts";
import type { Operation } from "./define.ts";

type Load = () => Promise<Operation>;

/** The loader of one operation, exported as `name` by the module `specifier`. */
function from(specifier: string, name: string): Load {
  return () =>
    load<Record<string, Operation>>(specifier, import.meta.url).then((module) => module[name]);
}

const DISCOVERY = "./discovery_ops.ts";
const TOOLS = "./tool_ops.ts";
const SCRIPTS = "./script_ops.ts";
const DAEMON = "./daemon_ops.ts";
const MISC = "./misc_ops.ts";

/**
 * Each command word and how to load only its operation, so that `mcpx ls` does not pay for
 * every other command's module. Derived by hand from {@linkcode OPERATIONS}; a test holds the
 * two equal in both directions.
 */
export const COMMANDS: Record<string, Load> = {
  ls: from(DISCOVERY, "namespacesList"),
  search: from(DISCOVERY, "toolsSearch"),
  types: from(DISCOVERY, "toolsTypes"),
  catalog: from(DISCOVERY, "toolsCatalog"),
  schema: from(DISCOVERY, "toolsSchema"),
  client: from(DISCOVERY, "clientWrite"),
  call: from(TOOLS, "toolsCall"),
  restart: from(TOOLS, "serversRestart"),
  refresh: from(TOOLS, "serversRefresh"),
  "end-session": from(TOOLS, "sessionsEnd"),
  run: from(SCRIPTS, "scriptsRun"),
  exec: from(SCRIPTS, "scriptsExec"),
  scripts: from(SCRIPTS, "scriptsList"),
  status: from(DAEMON, "daemonStatus"),
  start: from(DAEMON, "daemonStart"),
  stop: from(DAEMON, "daemonStop"),
  daemons: from(DAEMON, "daemonsList"),
  daemon: from(DAEMON, "daemonRun"),
  health: from(DAEMON, "health"),
  config: from("./config_show.ts", "configShow"),
  completion: from(MISC, "completion"),
  "agents-md": from(MISC, "agentsMd"),
  version: from(MISC, "version"),
};
