import type { McpConnection, ToolInfo } from "../mcp/types.ts";
import type { Instance } from "./pool.ts";
import type { Caller } from "./scope.ts";

/** One tool call, as `/v1` and the CLI ask for it. */
export interface CallRequest {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  caller: Caller;
  raw?: boolean;
  /**
   * `key=value` words as they were typed, given their types here by the tool's input schema
   * (lib/pool/words.ts), over `arguments`.
   */
  words?: readonly string[];
  /** Hears the call's progress (`notifications/progress`); a progress token is sent with it. */
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
  /** How long a question waits for an inline answer before INPUT_REQUIRED (elicit.wait). */
  elicitWaitMs?: number;
  /**
   * Hands the leased connection to a task (lib/tasks/tasks.ts) instead of calling the tool: the
   * arguments are checked and curated as a call's are. Once it resolves, the lease is the task's
   * to release (`hold.release()`, when the task ends or its TTL passes); its value is the
   * output's `result`.
   */
  asTask?: (hold: TaskHold) => Promise<unknown>;
}

/** What a task is handed by {@linkcode CallRequest.asTask}. */
export interface TaskHold {
  conn: McpConnection;
  /** The namespace, the tool as listed and its name on the server (curation may rename it). */
  namespace: string;
  tool: ToolInfo;
  serverTool: string;
  arguments: Record<string, unknown>;
  instance: { id: string; pid: number | null; key: string };
  /** How long one request to the server may take (the server's callTimeout). */
  callTimeoutMs: number;
  /** Frees the lease; once only, later calls do nothing. */
  release(): void;
}

/** One tool call's answer. */
export interface CallOutput {
  server: string;
  tool: string;
  result: unknown;
  raw?: unknown;
  instance: { id: string; pid: number | null; key: string };
  durationMs: number;
  /**
   * The process that served this session before was stopped to make room, or exited, and this
   * call ran on a fresh one: whatever state the old one held (a page, a login) is gone.
   */
  restarted?: true;
  /** Why the old process went, when `restarted`. */
  restartReason?: string;
  /**
   * Set when a server known to keep per-caller state, leased per session by default (the caller
   * chose nothing), found no session and ran on a process of this call's own, stopped as it
   * ended: what would fix it.
   */
  alone?: string;
}

/** A call that finished, answered or not, as the registry tells it (`RegistryDeps.called`). */
export interface CallFinished {
  server: string;
  tool: string;
  instance: string;
  durationMs: number;
  ok: boolean;
  error?: string;
  session?: string;
  arguments?: string;
  result?: string;
}

/** What a call learnt on its way to a process: the server, the instance, the session's log id. */
export interface Served {
  instance?: Instance;
  server?: string;
  /** The tool's function name (what a user calls), and its name on the server when another. */
  tool?: string;
  serverTool?: string;
  sessionId?: string;
  /** Why a named session's processes start fresh (its servers did not survive a restart). */
  note?: string;
  /** What would have given the call a session's process: {@linkcode CallOutput.alone}. */
  alone?: string;
}
