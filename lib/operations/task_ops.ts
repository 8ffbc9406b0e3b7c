// `mcpx tasks list|get|result|cancel`: the tasks `mcpx call --task` made (lib/tasks/tasks.ts).
// They run in the daemon, which follows each task and keeps its server's process leased until it
// ends or its TTL passes. docs/tasks.md.

import { defineOperation, type Zod } from "./define.ts";
import { McpxError } from "../errors.ts";
import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import type { TaskOutcome, TaskView } from "../tasks/tasks.ts";

async function tasks(ctx: Context) {
  const { tasksOf } = await load<typeof import("../tasks/tasks.ts")>(
    "../tasks/tasks.ts",
    import.meta.url,
  );
  const { daemonTasks } = await load<typeof import("./tool_ops.ts")>(
    "./tool_ops.ts",
    import.meta.url,
  );
  return daemonTasks(ctx, tasksOf);
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

const notFound = (id: string) =>
  Promise.reject(new McpxError("TASK_NOT_FOUND", `No task "${id}": no daemon runs`));

/** `mcpx tasks list`. */
export const tasksList = defineOperation<Record<string, never>, { tasks: TaskView[] }>({
  id: "tasks.list",
  summary: "List the tasks the daemon holds (made by `mcpx call --task`), newest first",
  description:
    "A task is listed until its TTL passes, ended or not. The daemon holds them in memory: a daemon that stops or restarts starts with none, and the tasks of the servers it ran end with their processes.",
  params: [],
  cli: { command: ["tasks", "list"] },
  http: { method: "GET", path: "/v1/tasks" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "running" },
  output: (z) => z.object({ tasks: z.array(taskSchema(z)) }),
  run: async (_input, ctx) => ({ tasks: (await tasks(ctx)).list() }),
  offline: () => Promise.resolve({ tasks: [] }),
  render: (o) => o.tasks.length === 0 ? "no tasks\n" : o.tasks.map(line).join(""),
});

/** `mcpx tasks get <id>`. */
export const tasksGet = defineOperation<{ id: string }, TaskView>({
  id: "tasks.get",
  summary: "Show one task: its status, server and tool, TTL, and whether its process is leased",
  params: [{ name: "id", type: "string", positional: true, required: true, doc: "The task's id" }],
  cli: { command: ["tasks", "get"] },
  http: { method: "GET", path: "/v1/tasks/{id}" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "running" },
  output: taskSchema,
  run: async (input, ctx) => (await tasks(ctx)).get(input.id),
  offline: (input) => notFound(input.id),
  render: renderTask,
});

/** `mcpx tasks result <id>`. */
export const tasksResult = defineOperation<{ id: string }, TaskOutcome & { result: unknown }>({
  id: "tasks.result",
  summary: "Print a task's result, waiting while it runs (as `mcpx call` prints a call's)",
  description:
    "Waits until the task ends (or its TTL passes). A completed task prints its result unwrapped, as `mcpx call` does; with --json it is the task and the result envelope (raw) as the server sent it. A task that failed with a tool error exits 8 with the server's text; a cancelled one exits 5 (TASK_ENDED).",
  params: [{ name: "id", type: "string", positional: true, required: true, doc: "The task's id" }],
  cli: { command: ["tasks", "result"] },
  http: { method: "GET", path: "/v1/tasks/{id}/result" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "running" },
  output: (z) => z.object({ task: taskSchema(z), raw: z.unknown(), result: z.unknown() }),
  async run(input, ctx) {
    const out = await (await tasks(ctx)).result(input.id, ctx.signal);
    const { errorText, unwrapResult } = await load<typeof import("../pool/unwrap.ts")>(
      "../pool/unwrap.ts",
      import.meta.url,
    );
    if (out.raw.isError) {
      throw new McpxError(
        "TOOL_ERROR",
        `${out.task.server}.${out.task.tool} (task ${out.task.id}) failed: ${errorText(out.raw)}`,
        { data: out.raw },
      );
    }
    return { ...out, result: unwrapResult(out.raw) };
  },
  offline: (input) => notFound(input.id),
  render: (o) =>
    typeof o.result === "string" ? `${o.result}\n` : `${JSON.stringify(o.result, null, 2)}\n`,
});

/** `mcpx tasks cancel <id>`. */
export const tasksCancel = defineOperation<{ id: string }, TaskView>({
  id: "tasks.cancel",
  summary: "Cancel a running task on its server (tasks/cancel); its process's lease is freed",
  params: [{ name: "id", type: "string", positional: true, required: true, doc: "The task's id" }],
  cli: { command: ["tasks", "cancel"] },
  http: { method: "POST", path: "/v1/tasks/{id}/cancel" },
  mcp: { expose: true, destructive: true },
  where: { daemon: "running" },
  output: taskSchema,
  run: async (input, ctx) => await (await tasks(ctx)).cancel(input.id),
  offline: (input) => notFound(input.id),
  render: (t) => `${t.id} ${t.status}\n`,
});
