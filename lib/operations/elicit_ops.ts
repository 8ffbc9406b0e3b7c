// `mcpx elicit list|show|answer|decline`: the questions servers asked (lib/questions/broker.ts).
// They run in the daemon, which holds each server's pending request. docs/questions.md.

import { defineOperation, type Zod } from "./define.ts";
import { ERRORS, isErrorCode, McpxError } from "../errors.ts";
import type { Context } from "../context.ts";
import type { CallWatch, Question } from "../questions/broker.ts";
import { load } from "../_load.ts";

function broker(ctx: Context) {
  const b = ctx.daemon?.registry.questions;
  if (!b) throw new McpxError("INTERNAL", "This operation runs inside the daemon");
  return b;
}

/**
 * Where no daemon runs: the questions kept in `<state>/questions.db` (every configuration's),
 * and the configuration this folder's daemon would serve (undefined without one).
 */
async function kept(ctx: Context) {
  const { readQuestions, elsewhere } = await load<typeof import("../questions/broker.ts")>(
    "../questions/broker.ts",
    import.meta.url,
  );
  const { questionsDb } = await load<typeof import("../paths.ts")>("../paths.ts", import.meta.url);
  const path = questionsDb(await ctx.settings(), ctx.io.env);
  const here = await ctx.fingerprint().then((fp) => fp.path, () => undefined);
  return { read: (filter = {}) => readQuestions(path, filter), here, elsewhere };
}

/** A ticket looked up where no daemon runs: another configuration's is refused naming it. */
async function offlineTicket(id: string, ctx: Context): Promise<never> {
  const { read, here, elsewhere } = await kept(ctx);
  const [q] = read({ id });
  if (q && q.config !== here) throw elsewhere(q, here);
  throw new McpxError("QUESTION_NOT_FOUND", `No question "${id}": no daemon runs`);
}

const questionSchema = (z: Zod) =>
  z.object({
    id: z.string(),
    server: z.string(),
    tool: z.string().nullable(),
    kind: z.enum(["elicit", "sample"]),
    mode: z.enum(["form", "url", "sampling"]),
    message: z.string(),
    request: z.record(z.string(), z.unknown()),
    route: z.enum(["agent", "person"]),
    reason: z.string(),
    createdAt: z.string(),
    deadline: z.string(),
    deadlineBy: z.enum(["mcpx", "server"]),
    withdrawnAfterMs: z.number().optional(),
    state: z.enum(["pending", "answered", "declined", "cancelled", "expired"]),
    config: z.string().nullable(),
    answer: z.unknown().optional(),
    outcome: z.unknown().optional(),
    command: z.string(),
  });

/** What answering or declining a question led to. */
export interface AnswerOutput {
  id: string;
  state: Question["state"];
  /** The call's result, once it finished. */
  result?: unknown;
  /** The call's failure, once it failed. */
  error?: { code: string; message: string };
  /** The call's result envelope, as the server sent it. */
  raw?: unknown;
  /** The next question the same call raised. */
  next?: { ticket: string; command: string; message: string; question: Question };
  exitCode?: number;
}

const answerSchema = (z: Zod) =>
  z.object({
    id: z.string(),
    state: z.string(),
    result: z.unknown().optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    raw: z.unknown().optional(),
    next: z.object({
      ticket: z.string(),
      command: z.string(),
      message: z.string(),
      question: questionSchema(z),
    }).optional(),
    exitCode: z.number().optional(),
  });

/** Waits for what the answered call does next: finish, or ask again. */
async function followUp(
  ctx: Context,
  q: Question,
  watch: CallWatch | undefined,
): Promise<AnswerOutput> {
  const base = { id: q.id, state: q.state };
  if (!watch) return base;
  const b = broker(ctx);
  const seen = watch.tickets.length;
  const aborted = new Promise<void>((resolve) =>
    ctx.signal?.addEventListener("abort", () => resolve(), { once: true })
  );
  while (!watch.outcome && watch.tickets.length === seen && !ctx.signal?.aborted) {
    await Promise.race([watch.changed(), aborted]);
  }
  if (watch.outcome?.error) {
    const code = watch.outcome.error.code;
    return {
      ...base,
      error: watch.outcome.error,
      ...(watch.outcome.raw !== undefined ? { raw: watch.outcome.raw } : {}),
      exitCode: isErrorCode(code) ? ERRORS[code].exit : 1,
    };
  }
  if (watch.outcome) return { ...base, result: watch.outcome.result, raw: watch.outcome.raw };
  const nextId = watch.tickets.at(-1)!;
  if (nextId === q.id) return base;
  const next = b.show(nextId);
  return {
    ...base,
    next: { ticket: next.id, command: next.command, message: next.message, question: next },
    exitCode: 75,
  };
}

function renderAnswer(o: AnswerOutput): string {
  if (o.error) return `${o.id} ${o.state}; the call failed: ${o.error.message}\n`;
  if (o.next) {
    return `${o.id} ${o.state}; the call asks again (${o.next.ticket}): ${o.next.message}\n` +
      `  answer with: ${o.next.command}\n`;
  }
  if ("result" in o) {
    return typeof o.result === "string"
      ? o.result + "\n"
      : JSON.stringify(o.result, null, 2) + "\n";
  }
  return `${o.id} ${o.state}\n`;
}

/** The words after `mcpx elicit answer`: the ticket, then key=value words or one JSON value. */
export function parseAnswerWords(words: readonly string[]): Record<string, unknown> {
  const [id, ...rest] = words;
  if (!id) {
    throw new McpxError("USAGE", '"mcpx elicit answer" needs a ticket', {
      hint: "`mcpx elicit list` shows the pending questions",
    });
  }
  if (rest.length === 1 && /^\s*\{/.test(rest[0])) {
    try {
      return { id, answer: JSON.parse(rest[0]) };
    } catch {
      throw new McpxError("ANSWER_INVALID", `The answer is not JSON: ${rest[0].slice(0, 60)}`);
    }
  }
  return { id, words: rest };
}

/** `mcpx elicit list`. */
export const elicitList = defineOperation<
  { all?: boolean; allConfigs?: boolean },
  { questions: Question[] }
>({
  id: "elicit.list",
  summary:
    "List the questions servers asked under this configuration (pending ones; --all for every one kept)",
  description:
    "Each daemon (each configuration) lists the questions its own servers asked; --all-configs lists every configuration's, each naming the configuration file whose folder answers it.",
  params: [
    { name: "all", type: "boolean", doc: "Every question kept, answered ones too" },
    {
      name: "allConfigs",
      type: "boolean",
      doc: "Every configuration's questions, each with the configuration it was asked under",
    },
  ],
  cli: {
    command: ["elicit", "list"],
    examples: [
      ["mcpx elicit list", "The questions that wait for an answer"],
      ["mcpx elicit list --all", "Every question kept, answered and declined ones too"],
      ["mcpx elicit list --all-configs", "Every configuration's questions, with their owners"],
    ],
  },
  http: { method: "GET", path: "/v1/questions" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "running" },
  output: (z) => z.object({ questions: z.array(questionSchema(z)) }),
  run: (input, ctx) =>
    Promise.resolve({
      questions: broker(ctx).list(input.all ? undefined : "pending", {
        allConfigs: input.allConfigs,
      }),
    }),
  async offline(input, ctx) {
    // No daemon for this folder: nothing of its own is pending, but others' are kept on disk.
    if (!input.allConfigs) return { questions: [] };
    const { read } = await kept(ctx);
    return { questions: read(input.all ? {} : { state: "pending" }) };
  },
  render: (o, _ctx, input) =>
    o.questions.length === 0
      ? "no questions\n"
      : o.questions.map((q) =>
        `${q.id}  ${q.state.padEnd(9)} ${q.server}${
          q.tool ? `.${q.tool}` : ""
        }  ${q.route}  ${q.message}${
          input.allConfigs ? `  (${q.config ?? "configuration unknown"})` : ""
        }\n`
      ).join(""),
});

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

/** Whose deadline `show` prints, and what may come sooner. */
function deadlineNote(q: Question): string {
  if (q.deadlineBy === "server") {
    const waits = Date.parse(q.deadline) - Date.parse(q.createdAt);
    return `the server's own timeout: it gave up on its last question after ${seconds(waits)}`;
  }
  return "elicit.deadline; the server's own request timeout governs when it is sooner, 60 s in the MCP SDKs";
}

/** `mcpx elicit show <ticket>`. */
export const elicitShow = defineOperation<{ id: string }, Question>({
  id: "elicit.show",
  summary:
    "Show one question: what it asks, who should answer and why, the command that answers it",
  params: [{ name: "id", type: "string", positional: true, required: true, doc: "The ticket" }],
  cli: {
    command: ["elicit", "show"],
    examples: [[
      "mcpx elicit show elc-0123456789ab",
      "What it asks, who should answer it, the command that answers it",
    ], [
      "mcpx --json elicit show elc-0123456789ab",
      "Its schema and route as JSON, for a program that answers it",
    ]],
  },
  http: { method: "GET", path: "/v1/questions/{id}" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "running" },
  output: questionSchema,
  run: (input, ctx) => Promise.resolve(broker(ctx).show(input.id)),
  async offline(input, ctx) {
    const { read } = await kept(ctx);
    const [q] = read({ id: input.id });
    if (q) return q;
    throw new McpxError("QUESTION_NOT_FOUND", `No question "${input.id}": no daemon runs`);
  },
  render: (q) =>
    [
      `${q.id}  ${q.state}  (${q.kind}, ${q.mode}) from ${q.server}${q.tool ? `.${q.tool}` : ""}`,
      `  ${q.message}`,
      `  for: ${q.route} (${q.reason})`,
      `  deadline: ${q.deadline} (${deadlineNote(q)})`,
      ...(q.withdrawnAfterMs !== undefined
        ? [`  withdrawn: the server gave up waiting after ${seconds(q.withdrawnAfterMs)}`]
        : []),
      ...(q.config ? [`  asked under: ${q.config} (answered from its folder)`] : []),
      ...(q.mode === "url" && typeof q.request.url === "string"
        ? [`  open: ${q.request.url}`]
        : []),
      ...(q.mode === "form"
        ? [`  schema: ${JSON.stringify(q.request.requestedSchema ?? {})}`]
        : []),
      ...(q.state === "pending"
        ? [`  answer: ${q.command}`, `  decline: mcpx elicit decline ${q.id}`]
        : []),
      ...(q.outcome ? [`  outcome: ${JSON.stringify(q.outcome)}`] : []),
    ].join("\n") + "\n",
});

/** `mcpx elicit answer <ticket> key=value… | json`. */
export const elicitAnswer = defineOperation<
  { id: string; answer?: unknown; words?: string[] },
  AnswerOutput
>({
  id: "elicit.answer",
  summary: "Answer a question (key=value words or one JSON value); prints the call's result",
  description:
    "The answer is checked against the requested schema, defaults and enums applied, and sent to the server at once. The command then waits for what the call that asked does next: it prints the call's result, or the next question (exit 75) when the call asks again. A sampling request is answered with text=… (and model=…), or a JSON CreateMessageResult; role and model are filled when missing.",
  params: [
    { name: "id", type: "string", required: true, doc: "The ticket" },
    { name: "answer", type: "json", doc: "The answer as one JSON value" },
    { name: "words", type: "list", doc: "The answer as key=value words, typed by the schema" },
  ],
  cli: {
    command: ["elicit", "answer"],
    usage: "<ticket> [key=value ... | json]",
    positionals: parseAnswerWords,
    fills: ["id", "answer", "words"],
    example: ["elc-0123456789ab", "repo=me/thing"],
    examples: [[
      "mcpx elicit answer elc-0123456789ab repo=me/thing",
      "Answer with key=value words; prints the call's result",
    ], ["mcpx elicit answer elc-0123456789ab '{\"confirm\": true}'", "Answer with one JSON value"]],
  },
  http: { method: "POST", path: "/v1/questions/{id}/answer" },
  mcp: { expose: true },
  where: { daemon: "running" },
  output: answerSchema,
  async run(input, ctx) {
    const { question, watch } = broker(ctx).answer(input.id, {
      json: input.answer,
      words: input.words,
    });
    return await followUp(ctx, question, watch);
  },
  offline: (input, ctx) => offlineTicket(input.id, ctx),
  render: renderAnswer,
});

/** `mcpx elicit decline <ticket>`. */
export const elicitDecline = defineOperation<{ id: string }, AnswerOutput>({
  id: "elicit.decline",
  summary: "Decline a question; a declined sampling request is an error to the server",
  params: [{ name: "id", type: "string", positional: true, required: true, doc: "The ticket" }],
  cli: {
    command: ["elicit", "decline"],
    examples: [["mcpx elicit decline elc-0123456789ab", "Decline it: the server is told"], [
      "mcpx --json elicit decline elc-0123456789ab",
      "The declined question as JSON",
    ]],
  },
  http: { method: "POST", path: "/v1/questions/{id}/decline" },
  mcp: { expose: true },
  where: { daemon: "running" },
  output: answerSchema,
  async run(input, ctx) {
    const { question, watch } = broker(ctx).decline(input.id);
    return await followUp(ctx, question, watch);
  },
  offline: (input, ctx) => offlineTicket(input.id, ctx),
  render: renderAnswer,
});
