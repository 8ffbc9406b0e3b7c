import type { Operation } from "./define.ts";
import { configShow } from "./config_show.ts";
import { configImport } from "./config_import.ts";
import { apiCall, apiServe, apiTools } from "./api_ops.ts";
import { configTrust } from "./trust_op.ts";
import { auth } from "./auth_ops.ts";
import { service } from "./service_ops.ts";
import {
  daemonRun,
  daemonsList,
  daemonStart,
  daemonStatus,
  daemonStop,
  daemonUpgrade,
  health,
} from "./daemon_ops.ts";
import { agentsMd, candidates, completion, help, version } from "./misc_ops.ts";
import { namespacesList } from "./ls_op.ts";
import {
  clientWrite,
  toolsCatalog,
  toolsSchema,
  toolsSearch,
  toolsTypes,
} from "./discovery_ops.ts";
import { serversRefresh, serversRestart, sessionsEnd, toolsAdHoc, toolsCall } from "./tool_ops.ts";
import {
  sessionsAttach,
  sessionsClose,
  sessionsCreate,
  sessionsList,
  sessionsSearch,
  sessionsShow,
} from "./session_ops.ts";
import { scriptsExec, scriptsList, scriptsRun } from "./script_ops.ts";
import { mcpServe } from "./serve_op.ts";
import { eventsList } from "./events_op.ts";
import { logShow, statsShow } from "./log_ops.ts";
import { elicitAnswer, elicitDecline, elicitList, elicitShow } from "./elicit_ops.ts";
import { tasksCancel, tasksGet, tasksList, tasksResult } from "./task_ops.ts";
import { openapiShow } from "./openapi_op.ts";
import { adapterCheck, adapterServe } from "./adapter_ops.ts";
import { completionsGet, promptsGet, resourcesRead } from "./feature_ops.ts";
import { doctor } from "./doctor_op.ts";
import { tuiOpen } from "./tui_op.ts";
import { registryAdd, registrySearch, registryShow } from "./registry_ops.ts";
import { exploreRun, scriptsRepl } from "./explore_ops.ts";
import { storageShow, uiOpen } from "./ui_ops.ts";

/** Every operation mcpx has. The CLI, `/v1`, MCP tools and docs/parity.md are functions of it. */
export const OPERATIONS: readonly Operation[] = [
  namespacesList,
  toolsSearch,
  toolsTypes,
  toolsCatalog,
  toolsSchema,
  clientWrite,
  toolsCall,
  toolsAdHoc,
  promptsGet,
  resourcesRead,
  completionsGet,
  scriptsRun,
  scriptsExec,
  scriptsList,
  exploreRun,
  scriptsRepl,
  daemonStatus,
  eventsList,
  serversRestart,
  serversRefresh,
  sessionsEnd,
  sessionsCreate,
  sessionsList,
  sessionsSearch,
  sessionsShow,
  sessionsAttach,
  sessionsClose,
  elicitList,
  elicitShow,
  elicitAnswer,
  elicitDecline,
  tasksList,
  tasksGet,
  tasksResult,
  tasksCancel,
  daemonStart,
  daemonStop,
  daemonsList,
  daemonRun,
  daemonUpgrade,
  mcpServe,
  adapterServe,
  adapterCheck,
  health,
  doctor,
  tuiOpen,
  registrySearch,
  registryShow,
  registryAdd,
  logShow,
  statsShow,
  storageShow,
  uiOpen,
  configShow,
  configImport,
  apiTools,
  apiCall,
  apiServe,
  configTrust,
  auth,
  service,
  openapiShow,
  completion,
  candidates,
  agentsMd,
  help,
  version,
] as unknown as readonly Operation[];
