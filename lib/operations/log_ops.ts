import { defineOperation } from "./define.ts";
import type { Context } from "../context.ts";
import { McpxError } from "../errors.ts";
import { load } from "../_load.ts";
import { logsDir } from "../paths.ts";
import type { LogFilter } from "../logindex/query.ts";

type Row = Record<string, unknown>;

// Each loader in the literal form tools/build.ts rewrites into an import of its bundle.
const loadIndex = () =>
  load<typeof import("../logindex/index.ts")>("../logindex/index.ts", import.meta.url);
const loadQuery = () =>
  load<typeof import("../logindex/query.ts")>("../logindex/query.ts", import.meta.url);
const loadApart = () =>
  load<typeof import("../logindex/sql_apart.ts")>("../logindex/sql_apart.ts", import.meta.url);
const loadLog = () =>
  load<typeof import("../../launcher/log.ts")>("../../launcher/log.ts", import.meta.url);

/** Opens the index of this state folder's logs and brings it up to date. */
async function fresh(ctx: Context) {
  const { openIndex, ingest } = await loadIndex();
  const index = openIndex(logsDir(ctx.boot, ctx.io.env), (line) => ctx.io.err(line + "\n"));
  try {
    ingest(index);
  } catch (e) {
    index.close();
    throw e;
  }
  return index;
}

const FORMATS = ["text", "logfmt", "json"] as const;

/** `mcpx log`'s input: the filter (`-f` keeps its own place), then what to show and how. */
interface LogInput extends Omit<LogFilter, "afterSeq"> {
  follow?: boolean;
  chain?: string;
  format?: (typeof FORMATS)[number];
  sql?: string;
  schema?: boolean;
  path?: boolean;
}

interface ChainNode {
  id: string;
  records: Row[];
  children: ChainNode[];
}

interface LogOutput {
  records?: Row[];
  chain?: ChainNode[];
  rows?: Row[];
  schema?: string;
  path?: string;
}

/** The words after `mcpx log`: none, or `sql` and at most one query. */
function logWords(words: readonly string[]): Record<string, unknown> {
  if (words.length === 0) return {};
  if (words[0] === "sql" && words.length <= 2) return { sql: words[1] ?? "" };
  throw new McpxError(
    "USAGE",
    `Unexpected argument "${words[words.length > 2 ? 2 : 0]}" for "mcpx log"`,
    {
      hint: "mcpx log [options], or mcpx log sql '<select>' [--schema | --path]",
    },
  );
}

const POLL_MS = 150;

async function render(records: Row[], ctx: Context, format: LogInput["format"]): Promise<string> {
  const { renderRecord } = await loadLog();
  const color = ctx.io.isTerminal && !ctx.io.env.NO_COLOR;
  return records.map((r) => renderRecord(r as never, { format, color }) + "\n").join("");
}

/** `mcpx log`: records from the index, filtered; `--chain`; `-f`. */
export const logShow = defineOperation<LogInput, LogOutput>({
  id: "log.show",
  summary: "Show log records: filtered, followed, or a call's chain",
  description:
    "Reads the JSONL log of the daemon and of every script run through `index.db` beside it, brought up to date first (docs/log.md). Without --limit the newest 100 are shown, oldest first.",
  params: [
    { name: "since", type: "string", doc: "Records from this long ago (15m, 2h, 7d) or this time" },
    { name: "until", type: "string", doc: "Records up to this long ago or this time" },
    {
      name: "level",
      type: "enum",
      values: ["trace", "debug", "info", "warn", "error", "fatal"],
      doc: "This level and above",
    },
    { name: "event", type: "string", doc: "Records of this event; a glob such as server.*" },
    { name: "server", type: "string", doc: "Records of this server (its calls and instances)" },
    { name: "session", type: "string", doc: "Records of this session (its calls and runs)" },
    { name: "grep", type: "string", doc: "A regular expression over the message and attributes" },
    {
      name: "limit",
      type: "integer",
      short: "n",
      doc: "At most this many, the newest (default 100)",
    },
    {
      name: "follow",
      type: "boolean",
      short: "f",
      doc: "Keep printing records as any writer adds them",
    },
    { name: "chain", type: "string", doc: "An id (cal-…, run-…) and what led to it, as a tree" },
    { name: "format", type: "enum", values: FORMATS, doc: "text, logfmt or json lines" },
    {
      name: "sql",
      type: "string",
      doc: "`mcpx log sql '<select>'`: one read over the index (refused unless it only reads)",
    },
    { name: "schema", type: "boolean", doc: "With sql: print the index's tables" },
    { name: "path", type: "boolean", doc: "With sql: print the index's file" },
  ],
  cli: {
    command: ["log"],
    usage: "[sql ['<select>']] [options]",
    positionals: logWords,
    fills: ["sql"],
    example: ["sql", "SELECT count(*) FROM records"],
    examples: [["mcpx log --server memory -n 3", "The newest three records of one server"], [
      "mcpx log --level warn --since 10m -f",
      "Warnings and worse of the last ten minutes, then follow",
    ], ["mcpx log sql 'SELECT count(*) FROM records'", "One read-only query over the log index"]],
  },
  http: { method: "GET", path: "/v1/log" },
  mcp: { expose: true, readOnly: true, hidden: ["follow"] },
  where: "local",
  output: (z) =>
    z.object({
      records: z.array(z.record(z.string(), z.unknown())).optional(),
      chain: z.array(z.unknown()).optional(),
      rows: z.array(z.record(z.string(), z.unknown())).optional(),
      schema: z.string().optional(),
      path: z.string().optional(),
    }),
  async run(input, ctx) {
    if (input.sql !== undefined || input.schema || input.path) return await runSql(input, ctx);
    const index = await fresh(ctx);
    try {
      const q = await loadQuery();
      if (input.chain) return { records: [], chain: q.chain(index, input.chain) };
      const filter = {
        since: input.since,
        until: input.until,
        level: input.level,
        event: input.event,
        server: input.server,
        session: input.session,
        grep: input.grep,
      };
      if (!input.follow) {
        const found = q.findRecords(index, { ...filter, limit: input.limit ?? 100 });
        return { records: found.map((f) => f.record) };
      }
      if (ctx.daemon) {
        throw new McpxError("USAGE", "Following the log is for the command line", {
          hint: "Run `mcpx log -f`",
        });
      }
      // -f: what matches now (the newest --limit, 10 by default), then every new record from
      // any writer, polling the files' sizes; until interrupted.
      const start = q.findRecords(index, { ...filter, limit: input.limit ?? 10 });
      let seq = q.lastSeq(index);
      const { ingest } = await loadIndex();
      const json = ctx.json;
      const emit = async (records: Row[]) => {
        if (!records.length) return;
        ctx.io.out(
          json || input.format === "json"
            ? records.map((r) => JSON.stringify(r) + "\n").join("")
            : await render(records, ctx, input.format),
        );
      };
      await emit(start.map((f) => f.record));
      while (!ctx.signal?.aborted) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        ingest(index);
        const next = q.findRecords(index, { ...filter, afterSeq: seq });
        if (next.length) seq = next[next.length - 1].seq;
        else seq = Math.max(seq, q.lastSeq(index));
        await emit(next.map((f) => f.record));
      }
      return { records: [] };
    } finally {
      index.close();
    }
  },
  async render(out, ctx, input) {
    if (out.schema !== undefined) return out.schema + "\n";
    if (out.path !== undefined) return out.path + "\n";
    if (out.rows) return table(out.rows);
    if (out.chain) {
      const { renderRecord } = await loadLog();
      const lines: string[] = [];
      const walk = (node: ChainNode, indent: string) => {
        lines.push(`${indent}${node.id}`);
        for (const r of node.records) {
          lines.push(`${indent}  ${renderRecord(r as never, { format: input.format })}`);
        }
        for (const child of node.children) walk(child, indent + "  ");
      };
      for (const root of out.chain) walk(root, "");
      return lines.join("\n") + "\n";
    }
    return await render(out.records ?? [], ctx, input.format);
  },
});

/** `mcpx log sql '<select>'`: one read over the index, opened read-only; `--schema`, `--path`. */
async function runSql(input: LogInput, ctx: Context): Promise<LogOutput> {
  const { SCHEMA } = await loadIndex();
  if (input.schema) return { schema: SCHEMA };
  const index = await fresh(ctx);
  index.close();
  if (input.path) return { path: index.path };
  if (!input.sql) {
    throw new McpxError("USAGE", "Give a query, --schema or --path", {
      hint: `mcpx log sql 'SELECT event, count(*) FROM records GROUP BY event'`,
    });
  }
  const settings = await ctx.settings();
  const maxRows = settings.get("logging.sqlMaxRows");
  // In the daemon a query must never hold its one thread: it runs in a process of its own.
  if (ctx.daemon) {
    const { readSqlApart } = await loadApart();
    const rows = await readSqlApart(input.sql, {
      maxRows,
      timeoutMs: settings.get("logging.sqlTimeout"),
      env: ctx.io.env,
      configPath: ctx.daemon.configPath,
      signal: ctx.signal,
      onStop: (why, pid) =>
        ctx.daemon?.log?.write("warn", "log.sql_stopped", `Stopped a log sql query: ${why}`, {
          why,
          queryPid: pid,
        }),
    });
    return { rows };
  }
  const { readSql } = await loadQuery();
  return { rows: readSql(index.path, input.sql, maxRows) };
}

/** Rows as aligned columns, a header first. */
function table(rows: Row[]): string {
  if (!rows.length) return "";
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) =>
    v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
  const cells = rows.map((r) => cols.map((c) => cell(r[c])));
  const widths = cols.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i].length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i])).join("  ").trimEnd();
  return [line(cols), ...cells.map(line)].join("\n") + "\n";
}

const KINDS = ["calls", "slowest", "servers", "instances", "errors", "sessions", "volume"] as const;
/** Reports over opencode's database (`--opencode`); `sessions` names one in both lists. */
const OPENCODE_KINDS = ["overview", "agents", "models", "projects", "activity", "mcpx"] as const;
const loadOpencode = () =>
  load<typeof import("../logindex/opencode.ts")>("../logindex/opencode.ts", import.meta.url);

/** `mcpx stats <kind>`. */
export const statsShow = defineOperation<
  {
    kind?: (typeof KINDS)[number] | (typeof OPENCODE_KINDS)[number];
    since?: string;
    limit?: number;
    opencode?: boolean;
  },
  { kind: string; rows: Row[]; disk?: Row; source?: string; missing?: string }
>({
  id: "log.stats",
  summary: "Aggregate the log: calls, slowest, servers, instances, errors, sessions, volume",
  description:
    "calls: by server and tool with exact p50/p95/p99; slowest: single calls with their ids (for `mcpx log --chain`); servers and instances: lifecycle; errors: warn and above by template; sessions: what each script run did; volume: records per level per hour and the bytes on disk. With --opencode, read-only reports over opencode's database instead: overview (the default), agents, models, projects, sessions (busiest by cost), activity (per day) and mcpx (the mcpx commands opencode's shell ran, with counts, output bytes and durations).",
  params: [
    {
      name: "kind",
      type: "enum",
      values: [...KINDS, ...OPENCODE_KINDS],
      positional: true,
      doc: "What to aggregate (default calls; overview with --opencode)",
    },
    {
      name: "opencode",
      type: "boolean",
      doc:
        "Report over opencode's database ($XDG_DATA_HOME/opencode/opencode.db), opened read-only",
    },
    { name: "since", type: "string", doc: "Records from this long ago (15m, 2h, 7d) or this time" },
    {
      name: "limit",
      type: "integer",
      short: "n",
      doc: "At most this many rows (default 20; not calls, volume)",
    },
  ],
  cli: {
    command: ["stats"],
    examples: [["mcpx stats", "Calls per tool: count, failures, latencies"], [
      "mcpx stats slowest --since 1d",
      "The slowest calls of the last day",
    ], ["mcpx stats errors -n 10", "Warnings and errors by template, the ten most frequent"]],
  },
  http: { method: "GET", path: "/v1/stats" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  output: (z) =>
    z.object({
      kind: z.string(),
      rows: z.array(z.record(z.string(), z.unknown())),
      disk: z.record(z.string(), z.unknown()).optional(),
      source: z.string().optional(),
      missing: z.string().optional(),
    }),
  async run(input, ctx) {
    if (input.opencode) {
      const kind = input.kind ?? "overview";
      const { opencodeStats, opencodeDbPath, OPENCODE_REPORTS } = await loadOpencode();
      if (!(OPENCODE_REPORTS as readonly string[]).includes(kind)) {
        throw new McpxError("USAGE", `"${kind}" is not a report over opencode's database`, {
          hint: `One of: ${OPENCODE_REPORTS.join(", ")}`,
        });
      }
      const path = opencodeDbPath(ctx.io.env);
      const rows = opencodeStats(path, kind as never, { since: input.since, limit: input.limit });
      return rows ? { kind, rows, source: path } : { kind, rows: [], missing: path };
    }
    const kind = input.kind ?? "calls";
    if ((OPENCODE_KINDS as readonly string[]).includes(kind)) {
      throw new McpxError("USAGE", `"${kind}" is a report over opencode's database`, {
        hint: `mcpx stats --opencode ${kind}`,
      });
    }
    const index = await fresh(ctx);
    try {
      const { stats } = await loadQuery();
      return stats(index, kind as never, { since: input.since, limit: input.limit });
    } finally {
      index.close();
    }
  },
  render(out) {
    if (out.missing) return `no opencode database at ${out.missing}\n`;
    let text = table(out.rows);
    if (out.disk) {
      const d = out.disk;
      text += `${
        text ? "\n" : ""
      }${d.records} records in ${d.files} files: ${d.jsonlBytes} bytes of JSONL, ${d.indexBytes} of index; ${d.badLines} lines not JSON, skipped\n`;
    }
    return text || "no records\n";
  },
});
