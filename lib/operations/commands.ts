import { load } from "../_load.ts";
import type { Operation } from "./define.ts";
// `ls`, the command agents run most, is part of the CLI's own module graph: a first dynamic
// import costs a start ~0.8 ms however small the module (performance.now() around it), and `ls`
// reads only a summary file besides (lib/discovery/ls_summary.ts).
import { namespacesList } from "./ls_op.ts";

/** A command word's operation, or the operations of a two-word command (`elicit answer`). */
type Load = () => Promise<Operation | readonly Operation[]>;

// One loader per operations module, each naming its module as `tools/build.ts` expects: the build
// turns these into literal imports for its bundle's code splitting.
const discovery = () =>
  load<typeof import("./discovery_ops.ts")>("./discovery_ops.ts", import.meta.url);
const tools = () => load<typeof import("./tool_ops.ts")>("./tool_ops.ts", import.meta.url);
const scripts = () => load<typeof import("./script_ops.ts")>("./script_ops.ts", import.meta.url);
const daemon = () => load<typeof import("./daemon_ops.ts")>("./daemon_ops.ts", import.meta.url);
const events = () => load<typeof import("./events_op.ts")>("./events_op.ts", import.meta.url);
const config = () => load<typeof import("./config_show.ts")>("./config_show.ts", import.meta.url);
const configImports = () =>
  load<typeof import("./config_import.ts")>("./config_import.ts", import.meta.url);
const apis = () => load<typeof import("./api_ops.ts")>("./api_ops.ts", import.meta.url);
const serve = () => load<typeof import("./serve_op.ts")>("./serve_op.ts", import.meta.url);
const trust = () => load<typeof import("./trust_op.ts")>("./trust_op.ts", import.meta.url);
const auth = () => load<typeof import("./auth_ops.ts")>("./auth_ops.ts", import.meta.url);
const services = () => load<typeof import("./service_ops.ts")>("./service_ops.ts", import.meta.url);
const openapi = () => load<typeof import("./openapi_op.ts")>("./openapi_op.ts", import.meta.url);
const features = () => load<typeof import("./feature_ops.ts")>("./feature_ops.ts", import.meta.url);
const misc = () => load<typeof import("./misc_ops.ts")>("./misc_ops.ts", import.meta.url);
const logs = () => load<typeof import("./log_ops.ts")>("./log_ops.ts", import.meta.url);
const doctorOp = () => load<typeof import("./doctor_op.ts")>("./doctor_op.ts", import.meta.url);
const registry = () =>
  load<typeof import("./registry_ops.ts")>("./registry_ops.ts", import.meta.url);
const adapter = () => load<typeof import("./adapter_ops.ts")>("./adapter_ops.ts", import.meta.url);
const tui = () => load<typeof import("./tui_op.ts")>("./tui_op.ts", import.meta.url);
const exploring = () =>
  load<typeof import("./explore_ops.ts")>("./explore_ops.ts", import.meta.url);
const sessions = () => load<typeof import("./session_ops.ts")>("./session_ops.ts", import.meta.url);
const elicit = () => load<typeof import("./elicit_ops.ts")>("./elicit_ops.ts", import.meta.url);
const taskOps = () => load<typeof import("./task_ops.ts")>("./task_ops.ts", import.meta.url);
const web = () => load<typeof import("./ui_ops.ts")>("./ui_ops.ts", import.meta.url);

/** The loader of the operation `name` of the module `module()` loads. */
function from<M>(module: () => Promise<M>, name: keyof M): Load {
  return () => module().then((m) => m[name] as Operation);
}

/**
 * Each command word and how to load only its operation, so that `mcpx ls` does not pay for
 * every other command's module. Derived by hand from {@linkcode OPERATIONS}; a test holds the
 * two equal in both directions.
 */
export const COMMANDS: Record<string, Load> = {
  ls: () => Promise.resolve(namespacesList as unknown as Operation),
  search: from(discovery, "toolsSearch"),
  types: from(discovery, "toolsTypes"),
  catalog: from(discovery, "toolsCatalog"),
  schema: from(discovery, "toolsSchema"),
  client: from(discovery, "clientWrite"),
  call: from(tools, "toolsCall"),
  tools: from(tools, "toolsAdHoc"),
  restart: from(tools, "serversRestart"),
  refresh: from(tools, "serversRefresh"),
  "end-session": from(tools, "sessionsEnd"),
  run: from(scripts, "scriptsRun"),
  exec: from(scripts, "scriptsExec"),
  scripts: from(scripts, "scriptsList"),
  explore: from(exploring, "exploreRun"),
  repl: from(exploring, "scriptsRepl"),
  status: from(daemon, "daemonStatus"),
  events: from(events, "eventsList"),
  start: from(daemon, "daemonStart"),
  stop: from(daemon, "daemonStop"),
  daemons: from(daemon, "daemonsList"),
  daemon: () => daemon().then((m) => [m.daemonRun, m.daemonUpgrade] as unknown as Operation[]),
  serve: from(serve, "mcpServe"),
  prompts: from(features, "promptsGet"),
  resources: from(features, "resourcesRead"),
  complete: from(features, "completionsGet"),
  health: from(daemon, "health"),
  log: from(logs, "logShow"),
  stats: from(logs, "statsShow"),
  storage: from(web, "storageShow"),
  ui: from(web, "uiOpen"),
  config: () =>
    Promise.all([config(), configImports()]).then(([a, b]) =>
      [a.configShow, b.configImport] as unknown as Operation[]
    ),
  trust: from(trust, "configTrust"),
  auth: from(auth, "auth"),
  service: from(services, "service"),
  openapi: from(openapi, "openapiShow"),
  completion: from(misc, "completion"),
  candidates: from(misc, "candidates"),
  "agents-md": from(misc, "agentsMd"),
  help: from(misc, "help"),
  tasks: () =>
    taskOps().then((m) =>
      [m.tasksList, m.tasksGet, m.tasksResult, m.tasksCancel] as unknown as Operation[]
    ),
  elicit: () =>
    elicit().then((m) =>
      [m.elicitList, m.elicitShow, m.elicitAnswer, m.elicitDecline] as unknown as Operation[]
    ),
  session: () =>
    sessions().then((m) =>
      [
        m.sessionsCreate,
        m.sessionsList,
        m.sessionsSearch,
        m.sessionsShow,
        m.sessionsClose,
        m.sessionsAttach,
      ] as unknown as Operation[]
    ),
  doctor: from(doctorOp, "doctor"),
  tui: from(tui, "tuiOpen"),
  registry: () =>
    registry().then((m) =>
      [m.registrySearch, m.registryShow, m.registryAdd] as unknown as Operation[]
    ),
  adapter: () => adapter().then((m) => [m.adapterServe, m.adapterCheck] as unknown as Operation[]),
  version: from(misc, "version"),
  api: () => apis().then((m) => [m.apiTools, m.apiCall, m.apiServe] as unknown as Operation[]),
};
