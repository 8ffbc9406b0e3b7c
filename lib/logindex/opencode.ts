/**
 * `mcpx stats --opencode`: read-only reports over opencode's own database
 * (`$XDG_DATA_HOME/opencode/opencode.db`, else `~/.local/share/opencode/opencode.db`).
 *
 * The database belongs to a program that may be running, so it is opened read-only (never
 * immutable, which could read a torn page from a live writer). Its schema is not mcpx's: every
 * report asks which columns exist first, and a column that has moved costs that number (empty
 * or null), not the command. JSON columns are decoded here rather than with json_extract.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { parseTime } from "./query.ts";

type Row = Record<string, unknown>;

export const OPENCODE_REPORTS = [
  "overview",
  "agents",
  "models",
  "projects",
  "sessions",
  "activity",
  "mcpx",
] as const;
export type OpencodeReport = (typeof OPENCODE_REPORTS)[number];

/** Where opencode keeps its database for this environment. */
export function opencodeDbPath(env: Record<string, string | undefined>): string {
  const data = env.XDG_DATA_HOME || join(env.HOME ?? "/tmp", ".local", "share");
  return join(data, "opencode", "opencode.db");
}

interface Msg {
  session: string;
  time: number;
  role?: string;
  agent?: string;
  model?: string;
  tokensIn: number;
  tokensOut: number;
  cacheRead: number;
  cost: number;
}

interface ToolPart {
  session: string;
  time: number;
  tool: string;
  command?: string;
  status?: string;
  ms?: number;
  outBytes: number;
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};
function json(text: unknown): Record<string, unknown> {
  if (typeof text !== "string") return {};
  try {
    return obj(JSON.parse(text));
  } catch {
    return {};
  }
}

/** The model a message names: `providerID/modelID`, or the JSON `model` object's pair. */
function modelName(d: Record<string, unknown>): string | undefined {
  const m = typeof d.model === "string" ? json(d.model) : obj(d.model);
  const provider = d.providerID ?? m.providerID;
  const model = d.modelID ?? m.modelID ?? m.id;
  if (typeof model !== "string") return undefined;
  return typeof provider === "string" ? `${provider}/${model}` : model;
}

/** The mcpx subcommand a shell command runs (`call`, `ls`, or `ns.tool`), if it runs mcpx. */
export function mcpxCommand(command: string): string | undefined {
  const m = /(?:^|[\s;&|(`])(?:\S*\/)?mcpx\s+(?:-\S+\s+)*([^\s;&|)]+)(?:\s+([^\s;&|)]+))?/.exec(
    command,
  );
  if (!m) return undefined;
  if ((m[1] === "call" || m[1] === "run") && m[2]) return `${m[1]} ${m[2]}`;
  return m[1];
}

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] : null;

/** Opens opencode's database read-only and answers one report; undefined when there is none. */
export function opencodeStats(
  path: string,
  report: OpencodeReport,
  opts: { since?: string; limit?: number } = {},
): Row[] | undefined {
  try {
    if (!Deno.statSync(path).isFile) return undefined;
  } catch {
    return undefined;
  }
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return answer(db, report, opts.since ? parseTime(opts.since) : -Infinity, opts.limit ?? 20);
  } finally {
    db.close();
  }
}

function answer(db: DatabaseSync, report: OpencodeReport, since: number, limit: number): Row[] {
  const cols = (table: string) =>
    new Set(
      (db.prepare(`PRAGMA table_info("${table}")`).all() as Row[]).map((r) => String(r.name)),
    );
  const sessionCols = cols("session");
  const messageCols = cols("message");
  const partCols = cols("part");
  const projectCols = cols("project");

  const sessions = new Map<string, Row>();
  if (sessionCols.has("id")) {
    const pick = ["id", "project_id", "parent_id", "title", "directory", "time_created"]
      .filter((c) => sessionCols.has(c));
    for (const r of db.prepare(`SELECT ${pick.join(", ")} FROM session`).all() as Row[]) {
      sessions.set(String(r.id), r);
    }
  }
  const projects = new Map<string, string>();
  if (projectCols.has("id") && projectCols.has("worktree")) {
    for (const r of db.prepare(`SELECT id, worktree FROM project`).all() as Row[]) {
      projects.set(String(r.id), String(r.worktree));
    }
  }

  const msgs: Msg[] = [];
  if (messageCols.has("session_id") && messageCols.has("data")) {
    const t = messageCols.has("time_created") ? "time_created" : "NULL";
    for (const r of db.prepare(`SELECT session_id, ${t} AS t, data FROM message`).all() as Row[]) {
      const d = json(r.data);
      const time = num(r.t) || num(obj(d.time).created);
      if (time && time < since) continue;
      const tokens = obj(d.tokens);
      msgs.push({
        session: String(r.session_id),
        time,
        role: typeof d.role === "string" ? d.role : undefined,
        agent: typeof d.agent === "string"
          ? d.agent
          : typeof d.mode === "string"
          ? d.mode
          : undefined,
        model: modelName(d),
        tokensIn: num(tokens.input),
        tokensOut: num(tokens.output) + num(tokens.reasoning),
        cacheRead: num(obj(tokens.cache).read),
        cost: num(d.cost),
      });
    }
  }

  const tools: ToolPart[] = [];
  if (partCols.has("data") && (partCols.has("session_id") || partCols.has("message_id"))) {
    const sessionOf = partCols.has("session_id")
      ? "p.session_id"
      : "(SELECT m.session_id FROM message m WHERE m.id = p.message_id)";
    const t = partCols.has("time_created") ? "p.time_created" : "NULL";
    const rows = db.prepare(
      `SELECT ${sessionOf} AS s, ${t} AS t, p.data AS data FROM part p WHERE p.data LIKE '%"tool"%'`,
    ).all() as Row[];
    for (const r of rows) {
      const d = json(r.data);
      if (d.type !== "tool" || typeof d.tool !== "string") continue;
      const state = obj(d.state);
      const st = obj(state.time);
      const time = num(r.t) || num(st.start);
      if (time && time < since) continue;
      const input = obj(state.input);
      const out = typeof state.output === "string" ? state.output : "";
      tools.push({
        session: String(r.s),
        time,
        tool: d.tool,
        command: typeof input.command === "string" ? input.command : undefined,
        status: typeof state.status === "string" ? state.status : undefined,
        ms: num(st.end) && num(st.start) ? num(st.end) - num(st.start) : undefined,
        outBytes: new TextEncoder().encode(out).length,
      });
    }
  }
  /** A tool part that ran mcpx: a shell command naming it, or a tool mcpx serves over MCP. */
  const mcpxOf = (p: ToolPart) =>
    p.command !== undefined
      ? mcpxCommand(p.command)
      : p.tool.startsWith("mcpx_")
      ? p.tool.slice(5)
      : undefined;
  const mcpxCalls = tools.filter((p) => mcpxOf(p) !== undefined);

  const sum = (xs: Msg[], k: "tokensIn" | "tokensOut" | "cacheRead" | "cost") =>
    xs.reduce((a, m) => a + m[k], 0);
  const money = (x: number) => Math.round(x * 10000) / 10000;
  const group = <T>(xs: T[], key: (x: T) => string | undefined) => {
    const g = new Map<string, T[]>();
    for (const x of xs) {
      const k = key(x) ?? "(unknown)";
      g.set(k, [...(g.get(k) ?? []), x]);
    }
    return g;
  };
  const totals = (ms: Msg[]) => ({
    messages: ms.length,
    tokensIn: sum(ms, "tokensIn"),
    tokensOut: sum(ms, "tokensOut"),
    cacheRead: sum(ms, "cacheRead"),
    cost: money(sum(ms, "cost")),
  });
  const byCost = (a: Row, b: Row) =>
    num(b.cost) - num(a.cost) || num(b.tokensOut) - num(a.tokensOut);
  const assistant = msgs.filter((m) => m.role === "assistant");

  switch (report) {
    case "overview": {
      const seen = new Set(msgs.map((m) => m.session));
      const times = msgs.map((m) => m.time).filter(Boolean);
      return [{
        sessions: seen.size,
        subagentSessions: [...seen].filter((s) => sessions.get(s)?.parent_id).length,
        ...totals(msgs),
        assistantMessages: assistant.length,
        toolCalls: tools.length,
        mcpxCalls: mcpxCalls.length,
        first: times.length ? new Date(Math.min(...times)).toISOString() : null,
        last: times.length ? new Date(Math.max(...times)).toISOString() : null,
      }];
    }
    case "agents":
      return [...group(assistant, (m) => m.agent)].map(([agent, ms]) => ({
        agent,
        sessions: new Set(ms.map((m) => m.session)).size,
        ...totals(ms),
      })).sort(byCost).slice(0, limit);
    case "models":
      return [...group(assistant, (m) => m.model)].map(([model, ms]) => ({
        model,
        sessions: new Set(ms.map((m) => m.session)).size,
        ...totals(ms),
      })).sort(byCost).slice(0, limit);
    case "projects":
      return [...group(msgs, (m) => {
        const s = sessions.get(m.session);
        const p = s?.project_id === undefined ? undefined : projects.get(String(s.project_id));
        return p ?? (s?.directory as string | undefined);
      })].map(([project, ms]) => ({
        project,
        sessions: new Set(ms.map((m) => m.session)).size,
        ...totals(ms),
      })).sort(byCost).slice(0, limit);
    case "sessions":
      return [...group(msgs, (m) => m.session)].map(([id, ms]) => {
        const s = sessions.get(id);
        return {
          session: id,
          title: s?.title ?? null,
          parent: s?.parent_id ?? null,
          ...totals(ms),
          mcpxCalls: mcpxCalls.filter((p) => p.session === id).length,
        };
      }).sort(byCost).slice(0, limit);
    case "activity":
      return [
        ...group(msgs, (m) => m.time ? new Date(m.time).toISOString().slice(0, 10) : undefined),
      ]
        .map(([day, ms]) => ({
          day,
          sessions: new Set(ms.map((m) => m.session)).size,
          ...totals(ms),
          mcpxCalls:
            mcpxCalls.filter((p) => p.time && new Date(p.time).toISOString().slice(0, 10) === day)
              .length,
        })).sort((a, b) => String(a.day).localeCompare(String(b.day)));
    case "mcpx":
      return [...group(mcpxCalls, mcpxOf)].map(([command, ps]) => {
        const ms = ps.map((p) => p.ms).filter((x): x is number => x !== undefined).sort((a, b) =>
          a - b
        );
        return {
          command,
          calls: ps.length,
          errors: ps.filter((p) => p.status === "error").length,
          sessions: new Set(ps.map((p) => p.session)).size,
          outputBytes: ps.reduce((a, p) => a + p.outBytes, 0),
          p50ms: pct(ms, 0.5),
          p95ms: pct(ms, 0.95),
          totalMs: ms.reduce((a, b) => a + b, 0),
        };
      }).sort((a, b) => b.calls - a.calls || a.command.localeCompare(b.command)).slice(0, limit);
  }
}
