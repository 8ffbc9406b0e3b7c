// Questions a server asks (elicitation/create, sampling/createMessage) are state, not blocked
// calls: each gets a ticket, a deadline and a row in `<state>/questions.db` (node:sqlite, 0600).
// The server's request stays pending in the daemon until the question is answered, declined or
// expires; expiry answers cancel (never decline) and is noticed when a question is read, so there
// is no sweeper. docs/questions.md.

import { DatabaseSync } from "node:sqlite";
import { dirname } from "node:path";
import { McpxError } from "../errors.ts";
import { pidAlive } from "../_proc.ts";
import { exists } from "../_fs.ts";
import { answerFromWords, checkAnswer, type FormSchema } from "./answer.ts";
import { RequestWithdrawn } from "../mcp/withdrawn.ts";
import type { LogSink } from "../log/daemon.ts";

/** A question's kind: a form or URL elicitation, or a sampling request. */
export type QuestionKind = "elicit" | "sample";
/** Where a question stands. */
export type QuestionState = "pending" | "answered" | "declined" | "cancelled" | "expired";

/** One question as `mcpx elicit list|show` prints it. */
export interface Question {
  id: string;
  server: string;
  tool: string | null;
  kind: QuestionKind;
  mode: "form" | "url" | "sampling";
  message: string;
  /** The requested schema (form), URL (url) or the sampling request's parameters. */
  request: Record<string, unknown>;
  /** Who should answer, and why: the recorded routing rule. */
  route: "agent" | "person";
  reason: string;
  createdAt: string;
  /**
   * The time to answer by: mcpx's own (`elicit.deadline`), or the server's when it is known to
   * give up sooner (it withdrew an earlier question after less time).
   */
  deadline: string;
  /** Whose the deadline is: mcpx's `elicit.deadline`, or the server's own request timeout. */
  deadlineBy: "mcpx" | "server";
  /** Set when the server withdrew the question (cancelled it): how long it had waited. */
  withdrawnAfterMs?: number;
  state: QuestionState;
  /**
   * The configuration file of the daemon that asked it: only that daemon (run from that
   * configuration's folder) lists and answers it. Null on a row older than the column.
   */
  config: string | null;
  answer?: unknown;
  /** The call's result or error, once the call that raised it has finished. */
  outcome?: { result?: unknown; raw?: unknown; error?: { code: string; message: string } };
  /** The command that answers it. */
  command: string;
}

/** The largest question stored: a bigger request (10 MB of sampling messages) is refused. */
export const MAX_QUESTION_BYTES = 1024 * 1024;

/**
 * Who answers a call's server requests in its place: a gateway session relays them to its own MCP
 * client. It returns the answer's promise, or undefined when it cannot answer that request (its
 * client did not declare the capability): the question is then stored as any other.
 */
export type Answerer = (
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<unknown> | undefined;

/** What a call in flight learns: a question it raised, and how it ended. */
export class CallWatch {
  readonly server: string;
  readonly tool: string;
  /** The answerer of this call's server requests, when the caller has one. */
  answer?: Answerer;
  /**
   * Held until its client answers what it asked (a gateway's 2026-07-28 client between rounds):
   * its server waits on that answer, so a question meanwhile is another call's.
   */
  parked = false;
  /** Tickets of the questions this call raised, oldest first. */
  readonly tickets: string[] = [];
  outcome?: NonNullable<Question["outcome"]>;
  #listeners = new Set<() => void>();
  constructor(server: string, tool: string) {
    this.server = server;
    this.tool = tool;
  }
  /** Resolves at the next change: a question raised or the call's end. */
  changed(): Promise<void> {
    return new Promise((resolve) => {
      const fire = () => {
        this.#listeners.delete(fire);
        resolve();
      };
      this.#listeners.add(fire);
    });
  }
  notify(): void {
    for (const l of [...this.#listeners]) l();
  }
}

interface Held {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  watch?: CallWatch;
  kind: QuestionKind;
}

/** An error a server request is answered with (its JSON-RPC code). */
export class RequestRefused extends Error {
  readonly rpcCode: number;
  constructor(message: string, rpcCode = -1) {
    super(message);
    this.rpcCode = rpcCode;
  }
}

/** Options of {@linkcode Broker}. */
export interface BrokerOptions {
  /** The database file; created 0600. */
  path: string;
  /**
   * The configuration file of the daemon the broker is part of: every daemon shares the file,
   * and each lists and answers its own questions only.
   */
  config: string;
  deadlineMs: number;
  /** How many questions may be pending at once, and how many one call may raise. */
  maxPending: number;
  /** A clock, for tests. */
  now?: () => number;
  log?: LogSink;
  /** Told of each question raised and answered (the event bus, where there is one). */
  publish?: (type: string, data: unknown) => void;
}

/** The daemon's questions: the table, the requests held, the calls that raised them. */
export class Broker {
  readonly #db: DatabaseSync;
  readonly #opts: BrokerOptions;
  readonly #held = new Map<string, Held>();
  /**
   * Per connection: the calls in flight on it. A question is a call's when that call is the only
   * one in flight that is not waiting on an answer already (a 2025-era request names no call it
   * belongs to); with several, it is stored and listed but no call is handed its ticket.
   */
  readonly #current = new WeakMap<object, Set<CallWatch>>();

  constructor(opts: BrokerOptions) {
    this.#opts = opts;
    Deno.mkdirSync(dirname(opts.path), { recursive: true, mode: 0o700 });
    const fresh = !exists(opts.path);
    if (fresh) Deno.writeFileSync(opts.path, new Uint8Array(), { mode: 0o600 });
    Deno.chmodSync(opts.path, 0o600);
    this.#db = new DatabaseSync(opts.path);
    this.#db.exec(`PRAGMA journal_mode=WAL; PRAGMA busy_timeout=2000;
      CREATE TABLE IF NOT EXISTS questions (
        id TEXT PRIMARY KEY, server TEXT NOT NULL, tool TEXT, kind TEXT NOT NULL,
        mode TEXT NOT NULL, message TEXT NOT NULL, request TEXT NOT NULL, route TEXT NOT NULL,
        reason TEXT NOT NULL, created INTEGER NOT NULL, deadline INTEGER NOT NULL,
        state TEXT NOT NULL, answer TEXT, outcome TEXT, daemon INTEGER NOT NULL, config TEXT,
        withdrawn INTEGER, server_deadline INTEGER)`);
    // A file an older mcpx made lacks the later columns.
    const columns = this.#db.prepare("PRAGMA table_info(questions)").all() as { name: string }[];
    for (
      const [name, type] of [["config", "TEXT"], ["withdrawn", "INTEGER"], [
        "server_deadline",
        "INTEGER",
      ]]
    ) {
      if (!columns.some((c) => c.name === name)) {
        this.#db.exec(`ALTER TABLE questions ADD COLUMN ${name} ${type}`);
      }
    }
    // A question a daemon that is gone was holding can no longer reach its server; another
    // daemon's (another configuration's) are left alone.
    const holders = this.#db.prepare(
      "SELECT DISTINCT daemon FROM questions WHERE state = 'pending'",
    ).all() as { daemon: number }[];
    for (const { daemon } of holders) {
      if (daemon !== Deno.pid && pidAlive(daemon)) continue;
      this.#db.prepare(
        "UPDATE questions SET state = 'cancelled' WHERE state = 'pending' AND daemon = ?",
      )
        .run(daemon);
    }
  }

  /**
   * The one call in flight on `conn` that can be asking, whose question this is; undefined when
   * not exactly one. A call parked between a client's rounds, or with a question of its own still
   * unanswered, is waiting on that answer (its server's handler awaits it), so a question meanwhile
   * is another call's: a CLI call left at exit 75 never takes a gateway call's question.
   */
  #owner(conn: object): CallWatch | undefined {
    const calls = this.#current.get(conn);
    if (!calls) return undefined;
    if (calls.size === 1) return [...calls][0];
    const asking = [...calls].filter((c) => !c.parked && this.pendingOf(c) === 0);
    return asking.length === 1 ? asking[0] : undefined;
  }

  #now(): number {
    return this.#opts.now?.() ?? Date.now();
  }

  /**
   * Marks `conn`'s call in flight; its questions are this call's until `done`. With `answer`,
   * its server's requests go to that answerer first (a gateway session's client).
   */
  watch(
    conn: object,
    server: string,
    tool: string,
    answer?: Answerer,
  ): { watch: CallWatch; done: () => void } {
    const watch = new CallWatch(server, tool);
    if (answer) watch.answer = answer;
    let calls = this.#current.get(conn);
    if (!calls) this.#current.set(conn, calls = new Set());
    calls.add(watch);
    return { watch, done: () => calls.delete(watch) };
  }

  /**
   * A server request handed to the answerer of the one call in flight on `conn` (`roots/list`
   * too); undefined when there is none or it cannot answer it.
   */
  relay(
    conn: object,
    method: string,
    params: unknown,
    signal: AbortSignal,
  ): Promise<unknown> | undefined {
    const answer = this.#owner(conn)?.answer;
    return answer?.(method, (params ?? {}) as Record<string, unknown>, signal);
  }

  /** How many of a call's questions are still waiting for an answer. */
  pendingOf(watch: CallWatch): number {
    return watch.tickets.filter((id) => this.#held.has(id)).length;
  }

  /** Records how a watched call ended, on the call's questions' rows. */
  finish(watch: CallWatch, outcome: NonNullable<Question["outcome"]>): void {
    watch.outcome = outcome;
    // The row keeps the unwrapped result or the error; the envelope goes to the answerer only.
    const text = JSON.stringify({ ...outcome, raw: undefined });
    const stmt = this.#db.prepare("UPDATE questions SET outcome = ? WHERE id = ?");
    for (const id of watch.tickets) stmt.run(text, id);
    watch.notify();
  }

  /**
   * A server's request on `conn`, as the connection's `onServerRequest` hands it over: stored
   * and held until answered. Refused without storing anything when it is too large or too many
   * are pending.
   */
  ask(
    conn: object,
    server: string,
    method: string,
    params: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    const kind: QuestionKind | undefined = method === "elicitation/create"
      ? "elicit"
      : method === "sampling/createMessage"
      ? "sample"
      : undefined;
    if (!kind) return Promise.reject(new RequestRefused(`Method not found: ${method}`, -32601));
    const relayed = this.relay(conn, method, params, signal);
    if (relayed) return relayed;
    const p = (params ?? {}) as Record<string, unknown>;
    const text = JSON.stringify(p);
    if (text.length > MAX_QUESTION_BYTES) {
      this.#say(
        "warn",
        "question.refused",
        `A ${method} request of ${text.length} bytes from "${server}" was refused: over ${MAX_QUESTION_BYTES}`,
        { server },
      );
      return kind === "elicit"
        ? Promise.resolve({ action: "cancel" })
        : Promise.reject(new RequestRefused(`The request is over ${MAX_QUESTION_BYTES} bytes`));
    }
    this.#expire();
    if (this.#held.size >= this.#opts.maxPending) {
      this.#say(
        "warn",
        "question.refused",
        `"${server}" asked a question with ${this.#held.size} already pending: cancelled`,
        { server },
      );
      return kind === "elicit"
        ? Promise.resolve({ action: "cancel" })
        : Promise.reject(new RequestRefused("Too many questions are pending"));
    }
    const watching = this.#owner(conn);
    if (watching && watching.tickets.length >= this.#opts.maxPending) {
      this.#say(
        "warn",
        "question.refused",
        `"${server}" asked question ${watching.tickets.length + 1} within one call: cancelled`,
        { server },
      );
      return kind === "elicit"
        ? Promise.resolve({ action: "cancel" })
        : Promise.reject(new RequestRefused("Too many questions within one call"));
    }
    const mode = kind === "sample" ? "sampling" : p.mode === "url" ? "url" : "form";
    const message = typeof p.message === "string"
      ? p.message
      : kind === "sample"
      ? "A model completion is asked for"
      : "";
    const { route, reason } = routeOf(kind, mode, p);
    const id = `elc-${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const watch = watching;
    const now = this.#now();
    // How long this server waited before withdrawing its last question, if it ever did: it will
    // give up on this one as soon (the SDKs' request timeout is 60 s), whatever mcpx allows.
    const learned = this.#db.prepare(
      `SELECT withdrawn FROM questions WHERE server = ? AND config IS ? AND withdrawn IS NOT NULL
        ORDER BY created DESC LIMIT 1`,
    ).get(server, this.#opts.config) as { withdrawn: number } | undefined;
    this.#db.prepare(
      `INSERT INTO questions (id, server, tool, kind, mode, message, request, route, reason,
        created, deadline, state, daemon, config, server_deadline)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
    ).run(
      id,
      server,
      watch?.tool ?? null,
      kind,
      mode,
      message,
      text,
      route,
      reason,
      now,
      now + this.#opts.deadlineMs,
      Deno.pid,
      this.#opts.config,
      learned ? now + learned.withdrawn : null,
    );
    const answered = new Promise<unknown>((resolve, reject) => {
      this.#held.set(id, { resolve, reject, watch, kind });
    });
    signal.addEventListener("abort", () => {
      // The server gave up on it (its own timeout, most often): kept as cancelled, with how long
      // it waited, so the next question from it shows the deadline the server keeps.
      if (signal.reason instanceof RequestWithdrawn && this.#held.has(id)) {
        this.#db.prepare("UPDATE questions SET withdrawn = ? WHERE id = ? AND state = 'pending'")
          .run(Math.max(0, this.#now() - now), id);
        this.#say("info", "question.withdrawn", `"${server}" withdrew question ${id}`, {
          id,
          server,
          waitedMs: this.#now() - now,
        });
      }
      this.#close(id, "cancelled", undefined);
    }, { once: true });
    // The deadline answers cancel even when nobody reads the question meanwhile.
    const timer = setTimeout(() => this.#expire(), this.#opts.deadlineMs + 10);
    Deno.unrefTimer(timer);
    answered.finally(() => clearTimeout(timer)).catch(() => {});
    this.#say("info", "question.raised", `"${server}" asked question ${id} (${route}: ${reason})`, {
      id,
      server,
      kind,
      route,
    });
    this.#opts.publish?.("question.raised", { id, server, kind, route, reason });
    if (watch) {
      watch.tickets.push(id);
      watch.notify();
    }
    return answered;
  }

  /**
   * This daemon's questions (every configuration's with `allConfigs`), newest first; overdue
   * ones are expired as they are read.
   */
  list(state?: QuestionState, options: { allConfigs?: boolean } = {}): Question[] {
    this.#expire();
    return selectQuestions(this.#db, {
      state,
      ...(options.allConfigs ? {} : { config: this.#opts.config }),
    });
  }

  /** One question. @throws {McpxError} QUESTION_NOT_FOUND */
  show(id: string): Question {
    this.#expire();
    const row = this.#db.prepare("SELECT * FROM questions WHERE id = ?").get(id);
    if (!row) throw new McpxError("QUESTION_NOT_FOUND", `No question "${id}"`);
    return toQuestion(row as unknown as Row);
  }

  /**
   * Answers a pending question: JSON or `key=value` words, checked against the requested schema
   * with defaults and enums applied. The server's request is answered at once.
   *
   * @throws {McpxError} QUESTION_NOT_FOUND, QUESTION_CLOSED, ANSWER_INVALID
   */
  answer(id: string, input: { json?: unknown; words?: readonly string[] }): {
    question: Question;
    watch?: CallWatch;
  } {
    const q = this.#open(id);
    let value: unknown;
    if (q.kind === "sample") {
      value = samplingResult(input);
    } else if (q.mode === "url") {
      value = { action: "accept" };
    } else {
      const schema =
        (q.request.requestedSchema ?? { type: "object", properties: {} }) as FormSchema;
      const raw = input.json !== undefined
        ? input.json
        : answerFromWords(schema, input.words ?? []);
      value = { action: "accept", content: checkAnswer(schema, raw, id) };
    }
    const watch = this.#held.get(id)?.watch;
    this.#close(id, "answered", value);
    return { question: this.show(id), watch };
  }

  /** Declines a pending question; a declined sampling request is an error to the server. */
  decline(id: string): { question: Question; watch?: CallWatch } {
    this.#open(id);
    const watch = this.#held.get(id)?.watch;
    this.#close(id, "declined", { action: "decline" });
    return { question: this.show(id), watch };
  }

  /** Cancels every held question (the daemon stops). */
  close(): void {
    for (const id of [...this.#held.keys()]) this.#close(id, "cancelled", undefined);
    this.#db.close();
  }

  #open(id: string): Question {
    const q = this.show(id);
    // Another configuration's daemon holds it: refused here, and left as it is for its owner.
    if (q.config !== this.#opts.config) throw elsewhere(q, this.#opts.config);
    if (q.state !== "pending") {
      throw new McpxError("QUESTION_CLOSED", `Question "${id}" is already ${q.state}`);
    }
    if (!this.#held.has(id)) {
      // Pending on disk but held by nobody: the daemon that held it is gone.
      this.#db.prepare("UPDATE questions SET state = 'cancelled' WHERE id = ?").run(id);
      throw new McpxError("QUESTION_CLOSED", `Question "${id}" can no longer reach its server`);
    }
    return q;
  }

  #close(id: string, state: QuestionState, value: unknown): void {
    const held = this.#held.get(id);
    if (!held) return;
    this.#held.delete(id);
    this.#db.prepare(
      "UPDATE questions SET state = ?, answer = ? WHERE id = ? AND state = 'pending'",
    ).run(state, value === undefined ? null : JSON.stringify(value), id);
    this.#say("info", "question.answered", `Question ${id} ${state}`, { id, state });
    this.#opts.publish?.("question.answered", { id, state });
    if (held.kind === "sample") {
      if (state === "answered") held.resolve(value);
      else held.reject(new RequestRefused(`The sampling request was ${state}`));
    } else {held.resolve(
        state === "answered" || state === "declined" ? value : { action: "cancel" },
      );}
  }

  /** Overdue questions expire: their server is answered cancel. */
  #expire(): void {
    const now = this.#now();
    // Another configuration's overdue questions are its own daemon's to expire (its timer does).
    const overdue = this.#db.prepare(
      "SELECT id FROM questions WHERE state = 'pending' AND deadline <= ? AND config IS ?",
    ).all(now, this.#opts.config) as { id: string }[];
    for (const { id } of overdue) {
      if (this.#held.has(id)) this.#close(id, "expired", undefined);
      else this.#db.prepare("UPDATE questions SET state = 'expired' WHERE id = ?").run(id);
    }
  }

  #say: LogSink = (level, event, msg, attrs) => this.#opts.log?.(level, event, msg, attrs);
}

/**
 * The questions in `db`, newest first: in one `state`, of one `config`, or all. Read by the
 * broker, and by `mcpx elicit list --all-configs` where no daemon runs.
 */
function selectQuestions(
  db: DatabaseSync,
  filter: { state?: QuestionState; config?: string },
): Question[] {
  const where: string[] = [];
  const values: string[] = [];
  if (filter.state) where.push("state = ?"), values.push(filter.state);
  if (filter.config !== undefined) where.push("config IS ?"), values.push(filter.config);
  const sql = `SELECT * FROM questions${
    where.length ? ` WHERE ${where.join(" AND ")}` : ""
  } ORDER BY created DESC`;
  return db.prepare(sql).all(...values).map((r) => toQuestion(r as unknown as Row));
}

/**
 * The questions kept in the file at `path` without a daemon: every configuration's (`config`
 * undefined) or one's; none when there is no file. A pending one past its deadline reads as
 * expired, as its daemon would say.
 */
export function readQuestions(
  path: string,
  filter: { state?: QuestionState; config?: string; id?: string } = {},
  now = Date.now(),
): Question[] {
  if (!exists(path)) return [];
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    db.exec("PRAGMA busy_timeout=2000");
    const columns = db.prepare("PRAGMA table_info(questions)").all() as { name: string }[];
    if (columns.length === 0) return [];
    const all = selectQuestions(db, { config: filter.config }).map((q) =>
      q.state === "pending" && Date.parse(q.deadline) <= now
        ? { ...q, state: "expired" as const }
        : q
    );
    return all.filter((q) =>
      (!filter.state || q.state === filter.state) && (!filter.id || q.id === filter.id)
    );
  } finally {
    db.close();
  }
}

/** The refusal of an answer given from a folder whose daemon did not ask `q`. */
export function elsewhere(q: Question, here: string | undefined): McpxError {
  const owner = q.config ?? "another configuration";
  const folder = q.config ? dirname(q.config) : undefined;
  return new McpxError(
    "QUESTION_ELSEWHERE",
    `Question "${q.id}" was asked under ${owner}${
      here ? `, not ${here}` : ""
    }: it is answered from that configuration's folder`,
    {
      hint: folder
        ? `Run it there: cd ${folder} && ${q.command}`
        : "`mcpx elicit list --all-configs` names each question's configuration",
    },
  );
}

interface Row {
  id: string;
  server: string;
  tool: string | null;
  kind: QuestionKind;
  mode: Question["mode"];
  message: string;
  request: string;
  route: Question["route"];
  reason: string;
  created: number;
  deadline: number;
  state: QuestionState;
  answer: string | null;
  outcome: string | null;
  config?: string | null;
  withdrawn?: number | null;
  server_deadline?: number | null;
}

/** The earlier of mcpx's deadline and the server's known one, and whose it is. */
function deadlineOf(r: Row): Pick<Question, "deadline" | "deadlineBy"> {
  const server = r.server_deadline;
  return typeof server === "number" && server < r.deadline
    ? { deadline: new Date(server).toISOString(), deadlineBy: "server" }
    : { deadline: new Date(r.deadline).toISOString(), deadlineBy: "mcpx" };
}

function toQuestion(r: Row): Question {
  return {
    id: r.id,
    server: r.server,
    tool: r.tool,
    kind: r.kind,
    mode: r.mode,
    message: r.message,
    request: JSON.parse(r.request),
    route: r.route,
    reason: r.reason,
    createdAt: new Date(r.created).toISOString(),
    ...deadlineOf(r),
    ...(typeof r.withdrawn === "number" ? { withdrawnAfterMs: r.withdrawn } : {}),
    state: r.state,
    config: r.config ?? null,
    ...(r.answer !== null ? { answer: JSON.parse(r.answer) } : {}),
    ...(r.outcome !== null ? { outcome: JSON.parse(r.outcome) } : {}),
    command: commandFor(r),
  };
}

/** The command that answers a question, as `elicit show` and the waiting call print it. */
export function commandFor(q: { id: string; kind: string; mode: string; request: string }): string {
  if (q.kind === "sample") return `mcpx elicit answer ${q.id} text='…'`;
  if (q.mode === "url") return `mcpx elicit answer ${q.id}   # once the URL's flow is done`;
  let props: Record<string, unknown> = {};
  try {
    props = (JSON.parse(q.request).requestedSchema?.properties ?? {}) as Record<string, unknown>;
  } catch { /* shown without words */ }
  const words = Object.keys(props).map((k) => `${k}=…`);
  return ["mcpx elicit answer", q.id, ...words].join(" ");
}

const SECRET = /pass(word|phrase)?|secret|token|api[-_]?key|credential|private[-_]?key|otp/i;

/**
 * The routing rule: the agent by default (it made the call and has the context); a person for a
 * credential, a URL-mode flow (a browser) and a bare confirmation (consent is not the agent's).
 */
export function routeOf(
  kind: QuestionKind,
  mode: string,
  p: Record<string, unknown>,
): { route: "agent" | "person"; reason: string } {
  if (kind === "sample") {
    return { route: "agent", reason: "a model completion: whoever drives mcpx holds a model" };
  }
  if (mode === "url") return { route: "person", reason: "a URL-mode flow opens a browser" };
  const schema = (p.requestedSchema ?? {}) as FormSchema;
  const props = Object.entries(schema.properties ?? {});
  const secret = props.find(([name, s]) =>
    SECRET.test(name) || (s as { format?: string }).format === "password"
  );
  if (secret) return { route: "person", reason: `it asks for a credential ("${secret[0]}")` };
  if (props.length === 0 || (props.length === 1 && props[0][1].type === "boolean")) {
    return { route: "person", reason: "a bare confirmation: consent is not the agent's to give" };
  }
  return { route: "agent", reason: "the agent made the call and has its context" };
}

/** A sampling answer as the server receives it: role and model filled when missing. */
export function samplingResult(input: { json?: unknown; words?: readonly string[] }): unknown {
  let value: Record<string, unknown>;
  if (input.json !== undefined) {
    if (typeof input.json === "string") value = { content: { type: "text", text: input.json } };
    else if (input.json && typeof input.json === "object" && !Array.isArray(input.json)) {
      value = { ...(input.json as Record<string, unknown>) };
    } else throw new McpxError("ANSWER_INVALID", "A sampling answer is an object or a text");
  } else {
    const words = Object.fromEntries((input.words ?? []).map((w) => {
      const at = w.indexOf("=");
      if (at <= 0) throw new McpxError("ANSWER_INVALID", `Expected key=value, got "${w}"`);
      return [w.slice(0, at), w.slice(at + 1)];
    }));
    if (typeof words.text !== "string") {
      throw new McpxError("ANSWER_INVALID", "A sampling answer needs text=…", {
        hint: "e.g. mcpx elicit answer <ticket> text='the completion' [model=name]",
      });
    }
    value = {
      content: { type: "text", text: words.text },
      ...(words.model ? { model: words.model } : {}),
    };
  }
  if (typeof value.text === "string" && value.content === undefined) {
    value = { ...value, content: { type: "text", text: value.text } };
    delete value.text;
  }
  if (value.content === undefined) {
    throw new McpxError("ANSWER_INVALID", "A sampling answer needs content or text");
  }
  return { role: "assistant", model: "mcpx-answer", ...value };
}
