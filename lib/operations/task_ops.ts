// `mcpx tasks list|get|result|cancel`: the tasks `mcpx call --task` made (lib/tasks/tasks.ts).
// They run in the daemon, which follows each task and keeps its server's process leased until it
// ends or its TTL passes. docs/tasks.md.

import { defineOperation, type Zod } from "./define.ts";
import { McpxError } from "../errors.ts";
import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import type { CallRequest } from "../pool/registry.ts";
import type { TaskOutcome, Tasks, tasksOf as TasksOf, TaskView } from "../tasks/tasks.ts";

async function tasks(ctx: Context) {
  const { tasksOf } = await load<typeof import("../tasks/tasks.ts")>(
    "../tasks/tasks.ts",
    import.meta.url,
  );
  return await daemonTasks(ctx, tasksOf);
}

/** What `call --task` hands the registry: the TTL checked, then the daemon's tasks start it. */
export async function taskStarter(
  ttl: string | undefined,
  ctx: Context,
): Promise<NonNullable<CallRequest["asTask"]>> {
  const { parseDuration } = await load<typeof import("../duration.ts")>(
    "../duration.ts",
    import.meta.url,
  );
  const { checkTtl, tasksOf } = await load<typeof import("../tasks/tasks.ts")>(
    "../tasks/tasks.ts",
    import.meta.url,
  );
  const ms = ttl === undefined ? (await ctx.settings()).get("tasks.ttl") : parseDuration(ttl);
  if (ms === undefined) {
    throw new McpxError("USAGE", `The task TTL "${ttl}" is not a duration`, {
      hint: "Write it like 30s, 10m or 2h (from 1s to 24h)",
    });
  }
  checkTtl(ms, ttl);
  const tasks = await daemonTasks(ctx, tasksOf);
  return (hold) => tasks.start(hold, ms);
}

/**
 * The daemon's tasks: one store per daemon, reporting on its bus and in its log, kept in its
 * tasks file across a restart (only when the files this request resolves are the daemon's own).
 */
export async function daemonTasks(
  ctx: Context,
  tasksOf: typeof TasksOf,
): Promise<Tasks> {
  const d = ctx.daemon;
  if (!d) throw new McpxError("INTERNAL", "This operation runs inside the daemon");
  const paths = await ctx.paths().catch(() => undefined);
  return tasksOf(d.registry, {
    ...(paths && paths.socket === d.socket ? { file: paths.tasks } : {}),
    publish: d.events ? (type, data) => void d.events!.publish(type, data) : undefined,
    log: d.log ? (level, event, msg, attrs) => d.log!.write(level, event, msg, attrs) : undefined,
  });
}

const taskSchema = (z: Zod) =>
  z.object({
    id: z.string(),
    server: z.string(),
    tool: z.string(),
    status: z.enum(["working", "input_required", "completed", "failed", "cancelled"]),
    statusMessage: z.string().optional(),
    createdAt: z.string(),
    lastUpdatedAt: z.string(),
    ttlMs: z.number(),
    expiresAt: z.string(),
    pollIntervalMs: z.number().optional(),
    serverTaskId: z.string(),
    revision: z.string(),
    leased: z.boolean(),
    instance: z.object({ id: z.string(), pid: z.number().nullable(), key: z.string() }),
  });

/** A task in one line: id, status, server.tool, TTL left. */
function line(t: TaskView): string {
  const left = Math.max(0, Math.round((Date.parse(t.expiresAt) - Date.now()) / 1000));
  return `${t.id}  ${t.status.padEnd(9)} ${t.server}.${t.tool}  ttl ${
    Math.round(t.ttlMs / 1000)
  }s (${left}s left)${t.statusMessage ? `  ${t.statusMessage}` : ""}\n`;
}

/** What `mcpx call --task` and `mcpx tasks get` print. */
export function renderTask(t: TaskView): string {
  return line(t) +
    (t.status === "working" || t.status === "input_required"
      ? `  result: mcpx tasks result ${t.id}    cancel: mcpx tasks cancel ${t.id}\n`
      : "");
}

/** The tasks the last daemon kept (lib/tasks/tasks.ts `keptTasks`): what is known with none. */
async function kept(ctx: Context) {
  const { keptTasks } = await load<typeof import("../tasks/tasks.ts")>(
    "../tasks/tasks.ts",
    import.meta.url,
  );
  return keptTasks((await ctx.paths()).tasks);
}

async function keptOne(ctx: Context, id: string) {
  const found = (await kept(ctx)).find((t) => t.view.id === id);
  if (!found) throw new McpxError("TASK_NOT_FOUND", `No task "${id}": no daemon runs`);
  return found;
}

/** The result of `tasks result`, from the task's outcome: its value, or the error it ended in. */
async function resultOf(
  out: { task: TaskView; raw?: TaskOutcome["raw"]; failure?: { code?: number; message?: string } },
): Promise<TaskOutcome & { result: unknown }> {
  const { task, raw, failure } = out;
  if (!raw) {
    throw failure
      ? new McpxError(
        "TOOL_ERROR",
        `${task.server}.${task.tool} (task ${task.id}) failed: ${failure.message ?? "no message"}`,
        { data: { rpcCode: failure.code, error: failure } },
      )
      : new McpxError(
        "TASK_ENDED",
        `Task "${task.id}" ended ${task.status} without a result${
          task.statusMessage ? `: ${task.statusMessage}` : ""
        }`,
      );
  }
  const { errorText, unwrapResult } = await load<typeof import("../pool/unwrap.ts")>(
    "../pool/unwrap.ts",
    import.meta.url,
  );
  if (raw.isError) {
    throw new McpxError(
      "TOOL_ERROR",
      `${task.server}.${task.tool} (task ${task.id}) failed: ${errorText(raw)}`,
      { data: raw },
    );
  }
  return { task, raw, result: unwrapResult(raw) };
}

/** `mcpx tasks list`. */
export const tasksList = defineOperation<Record<string, never>, { tasks: TaskView[] }>({
  id: "tasks.list",
  summary: "List the tasks the daemon holds (made by `mcpx call --task`), newest first",
  description:
    "A task is listed until its TTL passes, ended or not. The daemon keeps them in its tasks file: after a restart a finished task keeps its result, and one that was running is failed (its server process ended with the old daemon); with no daemon running the file answers.",
  params: [],
  cli: {
    command: ["tasks", "list"],
    examples: [["mcpx tasks list", "The tasks the daemon holds, newest first"], [
      "mcpx --json tasks list",
      "The same as JSON",
    ]],
  },
  http: { method: "GET", path: "/v1/tasks" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "running" },
  output: (z) => z.object({ tasks: z.array(taskSchema(z)) }),
  run: async (_input, ctx) => ({ tasks: (await tasks(ctx)).list() }),
  offline: async (_input, ctx) => ({ tasks: (await kept(ctx)).map((t) => t.view).reverse() }),
  render: (o) => o.tasks.length === 0 ? "no tasks\n" : o.tasks.map(line).join(""),
});

/** `mcpx tasks get <id>`. */
export const tasksGet = defineOperation<{ id: string }, TaskView>({
  id: "tasks.get",
  summary: "Show one task: its status, server and tool, TTL, and whether its process is leased",
  params: [{ name: "id", type: "string", positional: true, required: true, doc: "The task's id" }],
  cli: {
    command: ["tasks", "get"],
    examples: [["mcpx tasks get task_3f2a9c1d0b7e4a55", "Its status, server, tool and TTL"], [
      "mcpx --json tasks get task_3f2a9c1d0b7e4a55",
      "The same as JSON",
    ]],
  },
  http: { method: "GET", path: "/v1/tasks/{id}" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "running" },
  output: taskSchema,
  run: async (input, ctx) => (await tasks(ctx)).get(input.id),
  offline: async (input, ctx) => (await keptOne(ctx, input.id)).view,
  render: renderTask,
});

/** `mcpx tasks result <id>`. */
export const tasksResult = defineOperation<{ id: string }, TaskOutcome & { result: unknown }>({
  id: "tasks.result",
  summary: "Print a task's result, waiting while it runs (as `mcpx call` prints a call's)",
  description:
    "Waits until the task ends (or its TTL passes). A completed task prints its result unwrapped, as `mcpx call` does; with --json it is the task and the result envelope (raw) as the server sent it. A task that failed with a tool error exits 8 with the server's text; a cancelled one exits 5 (TASK_ENDED).",
  params: [{ name: "id", type: "string", positional: true, required: true, doc: "The task's id" }],
  cli: {
    command: ["tasks", "result"],
    examples: [[
      "mcpx tasks result task_3f2a9c1d0b7e4a55",
      "Wait for its result and print it as `mcpx call` would",
    ], ["mcpx --json tasks result task_3f2a9c1d0b7e4a55", "The MCP result envelope"]],
  },
  http: { method: "GET", path: "/v1/tasks/{id}/result" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "running" },
  output: (z) => z.object({ task: taskSchema(z), raw: z.unknown(), result: z.unknown() }),
  run: async (input, ctx) => await resultOf(await (await tasks(ctx)).result(input.id, ctx.signal)),
  offline: async (input, ctx) => {
    const t = await keptOne(ctx, input.id);
    return await resultOf({ task: t.view, raw: t.envelope, failure: t.failure });
  },
  render: (o) =>
    typeof o.result === "string" ? `${o.result}\n` : `${JSON.stringify(o.result, null, 2)}\n`,
});

/** `mcpx tasks cancel <id>`. */
export const tasksCancel = defineOperation<{ id: string }, TaskView>({
  id: "tasks.cancel",
  summary: "Cancel a running task on its server (tasks/cancel); its process's lease is freed",
  params: [{ name: "id", type: "string", positional: true, required: true, doc: "The task's id" }],
  cli: {
    command: ["tasks", "cancel"],
    examples: [[
      "mcpx tasks cancel task_3f2a9c1d0b7e4a55",
      "Cancel it on its server and free its process",
    ], [
      "mcpx --json tasks cancel task_3f2a9c1d0b7e4a55",
      "The task as it stands after the cancel, as JSON",
    ]],
  },
  http: { method: "POST", path: "/v1/tasks/{id}/cancel" },
  mcp: { expose: true, destructive: true },
  where: { daemon: "running" },
  output: taskSchema,
  run: async (input, ctx) => await (await tasks(ctx)).cancel(input.id),
  offline: async (input, ctx) => {
    const t = await keptOne(ctx, input.id);
    throw new McpxError("TASK_ENDED", `Task "${input.id}" has already ended (${t.view.status})`);
  },
  render: (t) => `${t.id} ${t.status}\n`,
});
