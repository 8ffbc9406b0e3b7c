import { McpxError, messageOf } from "../errors.ts";
import type { ServerDef } from "../config/servers.ts";
import type { CallToolEnvelope, ToolInfo } from "../mcp/types.ts";
import { traceAttrs } from "../log/trace_ids.ts";
import { newId } from "../log/ids.ts";
import { didYouMean } from "../near.ts";
import { functionNames } from "../names.ts";
import type { Instance, Lease } from "./pool.ts";
import type { CallFinished, CallOutput, CallRequest, Served } from "./call_types.ts";
import { summarize, summarizeResult, unwrapResult } from "./unwrap.ts";
import { checkKeys, validateArguments } from "./validate.ts";
import { typeWords } from "./words.ts";

// The steps of one call that need no registry: the tool found by either of its names, the
// arguments typed and checked, the answer shaped, and the records of the finished call.

/**
 * Function names per namespace and listed tools array (an instance's list is replaced, never
 * mutated), so a call does not recompute them.
 */
const NAMES = new WeakMap<ServerDef, WeakMap<ToolInfo[], Map<string, string>>>();

/** Finds a tool by its real name or by its identifier form (`fancy-name` as `fancy_name`). */
export function findTool(def: ServerDef, all: ToolInfo[], name: string): ToolInfo {
  return findNamedTool(def, all, name).tool;
}

/**
 * {@linkcode findTool}, with the function name the tool is called by (`get_sum` for the listed
 * `get-sum`): the one name errors, log records and `mcpx stats` show.
 */
export function findNamedTool(
  def: ServerDef,
  all: ToolInfo[],
  name: string,
): { tool: ToolInfo; fn: string } {
  const server = def.namespace;
  const tools = def.curateTools(all.filter((t) => def.showsTool(t.name)));
  let byList = NAMES.get(def);
  if (!byList) NAMES.set(def, byList = new WeakMap());
  let fn = byList.get(all);
  if (!fn) byList.set(all, fn = functionNames(tools));
  const tool = tools.find((t) => t.name === name) ?? tools.find((t) => fn.get(t.name) === name);
  if (tool) return { tool, fn: fn.get(tool.name) ?? tool.name };
  const names = tools.map((t) => fn.get(t.name)!);
  throw new McpxError(
    "TOOL_NOT_FOUND",
    `Server "${server}" has no tool "${name}"${didYouMean(name, names)}`,
    { hint: `It has: ${names.slice(0, 12).join(", ")}${names.length > 12 ? ", …" : ""}` },
  );
}

/**
 * A call's arguments, before the configuration's fixed ones join them: `key=value`
 * words typed by the tool's schema, and refused when they name a parameter the configuration
 * fixes or hides (`hidden`), has no such key, or breaks the schema.
 */
export function checkedArguments(
  def: ServerDef,
  tool: ToolInfo,
  fn: string,
  req: CallRequest,
  hidden: readonly string[],
): Record<string, unknown> {
  const args = req.words
    ? typeWords(tool.inputSchema, req.words, `${def.namespace}.${fn}`, req.arguments)
    : req.arguments;
  const unwanted = hidden.filter((k) => Object.hasOwn(args, k));
  if (unwanted.length) {
    throw new McpxError(
      "INVALID_ARGUMENTS",
      `Invalid arguments for ${def.namespace}.${fn}: ${
        unwanted.map((k) => `"${k}"`).join(", ")
      } is not a parameter here (the configuration fixes or hides it)`,
      { hint: `\`mcpx types ${def.namespace}.${fn}\` shows the accepted fields` },
    );
  }
  checkKeys(def.namespace, fn, tool.inputSchema, args);
  validateArguments(def.namespace, fn, tool.inputSchema, args);
  return args;
}

/**
 * A call's answer: its result unwrapped (and the envelope, when `raw`), the instance that served
 * it, and what the caller should know of its session's process (`alone`, `restarted`).
 */
export function outputOf(
  def: ServerDef,
  fn: string,
  lease: Lease,
  envelope: CallToolEnvelope,
  req: CallRequest,
  served: Served,
  durationMs: number,
): CallOutput {
  return {
    server: def.namespace,
    tool: fn,
    result: unwrapResult(envelope),
    ...(req.raw ? { raw: envelope } : {}),
    instance: {
      id: lease.instance.id,
      pid: lease.instance.pid ?? null,
      key: lease.instance.key,
    },
    durationMs,
    ...(served.alone !== undefined ? { alone: served.alone } : {}),
    ...(lease.restarted
      ? { restarted: true, restartReason: lease.restarted }
      : served.note
      ? { restarted: true, restartReason: served.note }
      : {}),
  };
}

/** The finished call told to `RegistryDeps.called`, answered (`envelope`) or failed (`error`). */
export function finishedCall(
  def: ServerDef,
  tool: string,
  inst: Instance,
  started: number,
  error: string | undefined,
  req: CallRequest,
  args: Record<string, unknown>,
  envelope?: CallToolEnvelope,
): CallFinished {
  const session = req.caller.session;
  return {
    server: def.namespace,
    tool,
    instance: inst.id,
    durationMs: Math.round((performance.now() - started) * 100) / 100,
    ok: error === undefined,
    ...(error === undefined ? {} : { error }),
    // What a watcher of the session sees (`mcpx session attach --watch`).
    ...(session === undefined ? {} : {
      session,
      arguments: summarize(args),
      ...(envelope && error === undefined ? { result: summarizeResult(envelope) } : {}),
    }),
  };
}

/**
 * The attributes of a call's `call.end` record, the creating record of its `cal-…` id: made by
 * the run that asked (or the daemon, `logParent`), served by an instance (`instanceId`).
 */
export function callEnd(
  req: CallRequest,
  served: Served,
  started: number,
  failure: unknown,
  logParent: string | undefined,
): Record<string, unknown> {
  const inst = served.instance;
  // One name per tool: the function name a user calls, whichever spelling reached it, so that
  // `mcpx stats` groups `get_sum` and `get-sum` as one; the server's own name rides beside.
  const tool = served.tool ?? req.tool;
  return {
    id: newId("cal"),
    parent: req.caller.runId ?? logParent,
    server: served.server ?? req.server,
    tool,
    ...(served.serverTool && served.serverTool !== tool ? { serverTool: served.serverTool } : {}),
    ...(inst ? { instanceId: inst.logId, instance: inst.id } : {}),
    ...(req.caller.session ? { session: req.caller.session } : {}),
    ...(served.sessionId ? { sessionId: served.sessionId } : {}),
    durationMs: Math.round((performance.now() - started) * 100) / 100,
    ok: !failure,
    ...(failure ? { error: messageOf(failure) } : {}),
    ...traceAttrs(req.caller.ids),
  };
}
