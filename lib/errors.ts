/**
 * The one error table: every failure mcpx reports has a code, and each code says
 * which exit status the CLI uses, which HTTP status `/v1` answers with, and
 * (optionally) a hint telling the user how to fix it.
 */
export const ERRORS = {
  INTERNAL: { exit: 1, http: 500, hint: "This is a bug in mcpx; please report it" },
  USAGE: { exit: 2, http: 400, hint: "" },
  CONFIG_NOT_FOUND: { exit: 3, http: 404, hint: "" },
  CONFIG_INVALID: { exit: 3, http: 422, hint: "" },
  SETTING_INVALID: { exit: 3, http: 422, hint: "Run `mcpx config --schema` for every setting" },
  DAEMON_UNAVAILABLE: { exit: 4, http: 503, hint: "" },
  DAEMON_START_FAILED: { exit: 4, http: 503, hint: "" },
  DAEMON_STOPPING: {
    exit: 4,
    http: 503,
    hint: "Run the command again once `mcpx stop` is done: it starts a new daemon",
  },
  SOCKET_FOREIGN: { exit: 4, http: 409, hint: "" },
  UNSAFE_PATH: { exit: 4, http: 409, hint: "" },
  UNAUTHORIZED: { exit: 4, http: 401, hint: "" },
  // A request on the daemon's TCP listener with a Host or Origin not its own (DNS rebinding).
  FORBIDDEN: { exit: 4, http: 403, hint: "" },
  REQUEST_TOO_LARGE: { exit: 2, http: 413, hint: "" },
  NOT_FOUND: { exit: 5, http: 404, hint: "" },
  SERVER_NOT_FOUND: { exit: 5, http: 404, hint: "Run `mcpx status` for the configured namespaces" },
  TOOL_NOT_FOUND: { exit: 5, http: 404, hint: "" },
  INVALID_ARGUMENTS: { exit: 2, http: 400, hint: "" },
  SERVER_START_FAILED: { exit: 6, http: 502, hint: "`mcpx status` shows the server's stderr" },
  SERVER_EXITED: { exit: 6, http: 502, hint: "The next call starts a fresh process" },
  MESSAGE_TOO_LARGE: { exit: 6, http: 502, hint: "" },
  TOOL_TIMEOUT: { exit: 7, http: 504, hint: "Raise callTimeout for this server, or restart it" },
  POOL_BUSY: { exit: 7, http: 503, hint: "`mcpx status` shows who holds the processes" },
  TOOL_ERROR: { exit: 8, http: 422, hint: "" },
  CREDENTIALS_MISSING: { exit: 3, http: 422, hint: "" },
  REGISTRY_UNAVAILABLE: { exit: 6, http: 502, hint: "" },
  SCRIPT_FAILED: { exit: 1, http: 422, hint: "" },
  // Exit 9: the configuration is not trusted (lib/config/trust.ts), so nothing it names was
  // started; `mcpx trust <path>` trusts it. Its own status, so an agent can tell a person.
  CONFIG_UNTRUSTED: { exit: 9, http: 403, hint: "" },
  // Exit 75 (EX_TEMPFAIL): a server asked a question (elicitation, sampling) the call cannot answer
  // itself; `data` carries the ticket and the command that answers it. Not a failure: try again
  // once it is answered.
  INPUT_REQUIRED: { exit: 75, http: 409, hint: "" },
  QUESTION_NOT_FOUND: {
    exit: 5,
    http: 404,
    hint: "`mcpx elicit list` shows the pending questions",
  },
  QUESTION_CLOSED: { exit: 5, http: 409, hint: "" },
  // Asked under another configuration: its daemon answers it (docs/questions.md).
  QUESTION_ELSEWHERE: { exit: 5, http: 409, hint: "" },
  ANSWER_INVALID: { exit: 2, http: 400, hint: "" },
  // Tasks (lib/tasks/tasks.ts, docs/tasks.md).
  TASK_NOT_FOUND: {
    exit: 5,
    http: 404,
    hint: "`mcpx tasks list` shows the tasks the daemon holds",
  },
  TASK_ENDED: { exit: 5, http: 409, hint: "" },
  TASKS_UNSUPPORTED: { exit: 2, http: 400, hint: "Call it without --task" },
  // A named session (docs/sessions.md) of that name is already open: the second is refused.
  SESSION_EXISTS: { exit: 2, http: 409, hint: "" },
  // Exit 10: another caller took the named session over (`mcpx session attach --take`); this
  // caller is no longer its holder. Its own status, so an agent can tell it from a failed call.
  SESSION_TAKEN: { exit: 10, http: 409, hint: "" },
} as const satisfies Record<string, { exit: number; http: number; hint: string }>;

/** A code from {@linkcode ERRORS}. */
export type ErrorCode = keyof typeof ERRORS;

/** A failure mcpx reports to a user: classified where it happens, never by message text. */
export class McpxError extends Error {
  override name = "McpxError";
  readonly code: ErrorCode;
  readonly hint: string;
  readonly data: unknown;
  constructor(
    code: ErrorCode,
    message: string,
    options?: ErrorOptions & { hint?: string; data?: unknown },
  ) {
    super(message, options);
    this.code = code;
    this.hint = options?.hint ?? ERRORS[code].hint;
    this.data = options?.data;
  }
}

/** What a thrown value says: an Error's message, anything else as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether `code` names an entry of the error table. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(ERRORS, code);
}

/** The body of an `application/problem+json` answer for an error. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  hint?: string;
  /** What the failure carries, e.g. a tool's result envelope for TOOL_ERROR. */
  data?: unknown;
}

/** Turns any thrown value into the problem document `/v1` answers with. */
export function toProblem(error: unknown): Problem {
  const e = error instanceof McpxError ? error : new McpxError("INTERNAL", messageOf(error));
  return {
    type: `https://mcpx.dev/errors/${e.code.toLowerCase().replaceAll("_", "-")}`,
    title: e.code,
    status: ERRORS[e.code].http,
    code: e.code,
    detail: e.message,
    ...(e.hint ? { hint: e.hint } : {}),
    ...(e.data !== undefined ? { data: e.data } : {}),
  };
}

/** Rebuilds the error a problem document describes, on the client side of `/v1`. */
export function fromProblem(problem: Partial<Problem>, status: number): McpxError {
  const code = isErrorCode(problem.code) ? problem.code : "INTERNAL";
  return new McpxError(code, problem.detail ?? `The daemon answered HTTP ${status}`, {
    hint: problem.hint,
    data: problem.data,
  });
}
