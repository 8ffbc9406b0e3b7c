// Questions over the log index: `mcpx log` filters, `--chain`, `log sql`'s guard and `mcpx stats`.

import { DatabaseSync } from "node:sqlite";
import { McpxError } from "../errors.ts";
import type { LogIndex } from "./index.ts";

type Row = Record<string, unknown>;

/** A `--since`/`--until` value: a duration back from `now` (`90s`, `15m`, `2h`, `7d`) or a time. */
export function parseTime(value: string, now = Date.now()): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(value.trim());
  if (m) {
    const unit = { ms: 1, s: 1e3, m: 6e4, h: 36e5, d: 864e5, w: 6048e5 }[m[2]]!;
    return now - Number(m[1]) * unit;
  }
  const t = Date.parse(value);
  if (Number.isNaN(t)) {
    throw new McpxError("USAGE", `Cannot read "${value}" as a time`, {
      hint: "Give a duration such as 15m, 2h or 7d, or a time such as 2026-09-27T19:00:00Z",
    });
  }
  return t;
}

/** A glob (`server.*`) as a regular expression. */
export function globRegex(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

/** What `mcpx log` filters on. */
export interface LogFilter {
  since?: string;
  until?: string;
  level?: string;
  event?: string;
  server?: string;
  session?: string;
  grep?: string;
  limit?: number;
  /** Only records ingested after this one (`-f`). */
  afterSeq?: number;
}

const LEVEL_NAMES = ["trace", "debug", "info", "warn", "error", "fatal"];
const RANK: Record<string, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, fatal: 5 };

/** One matching record, with its place in the index. */
export interface Found {
  seq: number;
  record: Row;
}

/** The records matching `filter`: the newest `limit`, oldest first. */
export function findRecords(index: LogIndex, filter: LogFilter): Found[] {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (filter.since) where.push("tsms >= ?"), params.push(parseTime(filter.since));
  if (filter.until) where.push("tsms <= ?"), params.push(parseTime(filter.until));
  if (filter.level) {
    const rank = RANK[filter.level];
    if (rank === undefined) {
      throw new McpxError("USAGE", `Unknown level "${filter.level}"`, {
        hint: "One of trace, debug, info, warn, error, fatal",
      });
    }
    where.push("lrank >= ?"), params.push(rank);
  }
  if (filter.event) {
    if (/[*?]/.test(filter.event)) {
      where.push("event GLOB ?"), params.push(filter.event);
    } else where.push("event = ?"), params.push(filter.event);
  }
  if (filter.server) {
    where.push(
      "(server = ? OR id IN (SELECT id FROM records WHERE server = ? AND id LIKE 'ins-%'))",
    );
    params.push(filter.server, filter.server);
  }
  if (filter.session) {
    where.push(
      "(session = ? OR id IN (SELECT id FROM records WHERE session = ? AND id IS NOT NULL))",
    );
    params.push(filter.session, filter.session);
  }
  if (filter.afterSeq !== undefined) where.push("seq > ?"), params.push(filter.afterSeq);
  let regex: RegExp | undefined;
  if (filter.grep) {
    try {
      regex = new RegExp(filter.grep);
    } catch (e) {
      throw new McpxError("USAGE", `Cannot read "${filter.grep}" as a regular expression`, {
        hint: (e as Error).message,
      });
    }
  }
  const follow = filter.afterSeq !== undefined;
  const sql = `SELECT seq, raw FROM records ${where.length ? "WHERE " + where.join(" AND ") : ""}
    ORDER BY ${follow ? "seq" : "tsms DESC, seq DESC"}`;
  const limit = filter.limit ?? Infinity;
  const out: Found[] = [];
  for (const row of index.db.prepare(sql).iterate(...params) as Iterable<Row>) {
    const record = JSON.parse(row.raw as string) as Row;
    if (regex) {
      const { ts: _ts, level: _l, id: _i, parent: _p, ...rest } = record;
      if (!regex.test(String(record.msg ?? "")) && !regex.test(JSON.stringify(rest))) continue;
    }
    out.push({ seq: row.seq as number, record });
    if (!follow && out.length >= limit) break;
  }
  return follow ? out : out.reverse();
}

/** The highest `seq` in the index (where `-f` starts). */
export function lastSeq(index: LogIndex): number {
  const row = index.db.prepare("SELECT max(seq) AS s FROM records").get() as Row;
  return (row.s as number | null) ?? 0;
}

/** One node of a chain: an id, its records oldest first, what it led to. */
export interface ChainNode {
  id: string;
  records: Row[];
  children: ChainNode[];
}

/**
 * From `id` back through what led to it: a call → the run that made it (its `parent`), the
 * instance that served it (`instanceId`) and the session it was part of (`sessionId`) → the
 * daemon (the instance's and the session's `parent`, the run's `daemonId`). The roots, oldest first, each with its descendants on the way to `id`.
 */
export function chain(index: LogIndex, id: string): ChainNode[] {
  const byId = index.db.prepare("SELECT raw FROM records WHERE id = ? ORDER BY tsms, seq");
  const nodes = new Map<string, ChainNode>();
  const up = new Map<string, string>();
  const visit = (at: string, depth: number) => {
    if (nodes.has(at) || depth > 32) return;
    const records = (byId.all(at) as Row[]).map((r) => JSON.parse(r.raw as string) as Row);
    nodes.set(at, { id: at, records, children: [] });
    const links: string[] = [];
    for (const r of records) {
      if (typeof r.parent === "string") links.push(r.parent);
      if (typeof r.instanceId === "string") links.push(r.instanceId);
      if (typeof r.sessionId === "string") links.push(r.sessionId);
      if (typeof r.daemonId === "string") links.push(r.daemonId);
    }
    for (const link of links) {
      if (link === at) continue;
      visit(link, depth + 1);
      // The tree: a call sits under its run, an instance under its daemon, a run under the daemon
      // that served it; the instance that served a call is shown beside the run, under the daemon.
      if (!up.has(at) && nodes.get(link)!.records.length + 1 > 0) {
        // So is the session a call (or an instance) happened inside: beside, under its daemon.
        const beside = (at.startsWith("cal-") && link.startsWith("ins-")) ||
          link.startsWith("ses-");
        if (!beside) up.set(at, link);
      }
    }
  };
  visit(id, 0);
  if (nodes.get(id)!.records.length === 0) {
    throw new McpxError("NOT_FOUND", `No record has the id "${id}"`, {
      hint:
        "Ids look like cal-…, run-…, ses-…, ins-…, dmn-…; `mcpx stats slowest` lists calls with theirs",
    });
  }
  const roots: ChainNode[] = [];
  for (const node of nodes.values()) {
    const parent = up.get(node.id);
    if (parent && nodes.has(parent)) nodes.get(parent)!.children.push(node);
    else roots.push(node);
  }
  const first = (n: ChainNode) => String(n.records[0]?.ts ?? "");
  const sort = (list: ChainNode[]) => {
    list.sort((a, b) => first(a) < first(b) ? -1 : first(a) > first(b) ? 1 : 0);
    for (const n of list) sort(n.children);
  };
  sort(roots);
  return roots;
}

const WRITE_WORDS = new Map<string, string>([
  ["insert", "it writes rows"],
  ["update", "it writes rows"],
  ["delete", "it deletes rows"],
  ["replace", "it writes rows"],
  ["drop", "it drops a table"],
  ["create", "it creates a table"],
  ["alter", "it changes a table"],
  ["attach", "it attaches another database"],
  ["detach", "it detaches a database"],
  ["pragma", "a PRAGMA can change the database"],
  ["vacuum", "VACUUM rewrites the database (VACUUM INTO writes a file)"],
  ["reindex", "it rewrites an index"],
  ["analyze", "it writes statistics"],
  ["begin", "it opens a transaction"],
  ["commit", "it ends a transaction"],
  ["rollback", "it ends a transaction"],
  ["savepoint", "it opens a transaction"],
  ["release", "it ends a transaction"],
  ["load_extension", "load_extension loads code into the process"],
  ["writefile", "writefile writes a file"],
]);

/** The words of a statement, strings, quoted names and comments taken out. */
function sqlWords(sql: string): { words: string[]; statements: number } {
  const words: string[] = [];
  let statements = 0;
  let sawWord = false;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "-" && sql[i + 1] === "-") {
      const nl = sql.indexOf("\n", i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === "'" || c === '"' || c === "`" || c === "[") {
      const close = c === "[" ? "]" : c;
      let j = i + 1;
      for (; j < sql.length; j++) {
        if (sql[j] === close) {
          if (sql[j + 1] === close && close !== "]") j++;
          else break;
        }
      }
      i = j + 1;
      if (!sawWord) sawWord = true;
    } else if (c === ";") {
      if (sawWord) statements++;
      sawWord = false;
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < sql.length && /[A-Za-z0-9_$]/.test(sql[j])) j++;
      words.push(sql.slice(i, j).toLowerCase());
      sawWord = true;
      i = j;
    } else {
      if (!/\s/.test(c)) sawWord = true;
      i++;
    }
  }
  if (sawWord) statements++;
  return { words, statements };
}

/** Why `sql` is not a read, or undefined when it is one statement that only reads. */
export function refusal(sql: string): string | undefined {
  const { words, statements } = sqlWords(sql);
  if (statements === 0) return "it is empty";
  if (statements > 1) return "it is more than one statement";
  if (!["select", "with", "values", "explain"].includes(words[0])) {
    return WRITE_WORDS.get(words[0]) ?? `it starts with "${words[0]}", not SELECT`;
  }
  for (const w of words) {
    const why = WRITE_WORDS.get(w);
    if (why) return why;
  }
  return undefined;
}

/**
 * Runs a read over the index, opened read-only; anything else is refused before it runs. More
 * than `maxRows` rows (when given) is refused as it is read, before the rest are computed.
 */
export function readSql(path: string, sql: string, maxRows?: number): Row[] {
  const why = refusal(sql);
  if (why) {
    throw new McpxError(
      "USAGE",
      `Refused "${sql.trim().slice(0, 60)}": only a read is run, and ${why}`,
      {
        hint: "mcpx log sql runs one SELECT (or WITH … SELECT); see `mcpx log sql --schema`",
      },
    );
  }
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    db.exec("PRAGMA busy_timeout = 15000");
    const rows: Row[] = [];
    for (const r of db.prepare(sql).iterate() as Iterable<Row>) {
      if (maxRows !== undefined && maxRows > 0 && rows.length >= maxRows) {
        throw new McpxError(
          "USAGE",
          `The query gives more than ${maxRows} rows (logging.sqlMaxRows); the rest were not read`,
          { hint: "Add a LIMIT or narrow the WHERE, or raise logging.sqlMaxRows" },
        );
      }
      rows.push({ ...r });
    }
    return rows;
  } catch (e) {
    if (e instanceof McpxError) throw e;
    throw new McpxError("USAGE", `The query failed: ${(e as Error).message}`);
  } finally {
    db.close();
  }
}

/** The kinds of `mcpx stats`. */
export const STATS = [
  "calls",
  "slowest",
  "servers",
  "instances",
  "errors",
  "sessions",
  "volume",
] as const;
/** One kind of `mcpx stats`. */
export type StatsKind = (typeof STATS)[number];

function plain(rows: unknown[]): Row[] {
  return (rows as Row[]).map((r) => ({ ...r }));
}

/** The answer of `mcpx stats <kind>`: rows, plus (for volume) what the files cost on disk. */
export function stats(
  index: LogIndex,
  kind: StatsKind,
  opts: { since?: string; limit?: number } = {},
): { kind: StatsKind; rows: Row[]; disk?: Row } {
  const db = index.db;
  const since = opts.since ? parseTime(opts.since) : -Infinity;
  const sinceSql = opts.since ? `AND tsms >= ${Math.floor(since)}` : "";
  const limit = opts.limit ?? 20;
  switch (kind) {
    case "calls": {
      const groups = plain(
        db.prepare(
          `SELECT server, tool, count(*) AS calls, sum(ok = 0) AS failed, count(duration) AS timed,
             round(avg(duration), 1) AS meanMs, max(duration) AS maxMs
           FROM records INDEXED BY records_calls WHERE event = 'call.end' ${sinceSql}
           GROUP BY server, tool ORDER BY calls DESC`,
        ).all(),
      );
      // Exact nearest-rank percentiles: the value of the call at rank ceil(p·n), read from the
      // (server, tool, duration) index.
      const at = db.prepare(
        `SELECT duration FROM records INDEXED BY records_calls
         WHERE event = 'call.end' AND server IS ? AND tool IS ? AND duration IS NOT NULL ${sinceSql}
         ORDER BY duration LIMIT 1 OFFSET ?`,
      );
      for (const g of groups) {
        const n = g.timed as number;
        for (const [name, p] of [["p50Ms", 0.5], ["p95Ms", 0.95], ["p99Ms", 0.99]] as const) {
          g[name] = n
            ? (at.get(
              g.server as string,
              g.tool as string,
              Math.max(0, Math.ceil(p * n) - 1),
            ) as Row)
              .duration
            : null;
        }
        delete g.timed;
      }
      return { kind, rows: groups };
    }
    case "slowest":
      return {
        kind,
        rows: plain(
          db.prepare(
            `SELECT ts, server, tool, duration AS durationMs, ok, id, parent, instance
             FROM records WHERE event = 'call.end' AND duration IS NOT NULL ${sinceSql}
             ORDER BY duration DESC LIMIT ?`,
          ).all(limit),
        ),
      };
    case "servers":
      return {
        kind,
        rows: plain(
          db.prepare(
            `SELECT server,
               sum(event = 'server.start') AS starts, sum(event = 'server.ready') AS ready,
               sum(event = 'server.start_failed') AS failedStarts,
               sum(event = 'server.exited') AS exited, sum(event = 'server.stop') AS stopped,
               sum(event = 'server.evicted') AS evicted, max(ts) AS last
             FROM records WHERE event GLOB 'server.*' AND server IS NOT NULL ${sinceSql}
             GROUP BY server ORDER BY server`,
          ).all(),
        ),
      };
    case "instances":
      return {
        kind,
        rows: plain(
          db.prepare(
            `SELECT i.id, max(i.server) AS server, min(i.ts) AS started,
               max(CASE WHEN i.event = 'server.ready' THEN i.ts END) AS ready,
               max(CASE WHEN i.event IN ('server.exited','server.stop','server.evicted','server.start_failed') THEN i.ts END) AS ended,
               (SELECT CASE WHEN json_extract(e.raw, '$.reason') IS NOT NULL
                         THEN substr(e.event, 8) || ': ' || json_extract(e.raw, '$.reason')
                         ELSE e.event || ': ' || json_extract(e.raw, '$.msg') END
                  FROM records e WHERE e.id = i.id
                  AND e.event IN ('server.exited','server.stop','server.evicted','server.start_failed')
                  ORDER BY e.tsms DESC, e.seq DESC LIMIT 1) AS why,
               (SELECT count(*) FROM records c WHERE c.event = 'call.end' AND c.instance = i.id) AS calls,
               max(i.parent) AS daemon
             FROM records i WHERE i.id >= 'ins-' AND i.id < 'ins.' ${
              sinceSql.replace("tsms", "i.tsms")
            }
             GROUP BY i.id ORDER BY started DESC LIMIT ?`,
          ).all(limit),
        ),
      };
    case "errors":
      return {
        kind,
        rows: plain(
          db.prepare(
            `SELECT coalesce(json_extract(raw, '$.template'), json_extract(raw, '$.msg')) AS template, max(level) AS level, count(*) AS count,
               min(ts) AS first, max(ts) AS last, max(id) AS exampleId
             FROM records INDEXED BY records_warn WHERE lrank >= 3 ${sinceSql}
             GROUP BY 1 ORDER BY count DESC LIMIT ?`,
          ).all(limit),
        ),
      };
    case "sessions":
      return {
        kind,
        rows: plain(
          db.prepare(
            `SELECT r.id AS run, max(CASE WHEN r.event = 'run.start' THEN json_extract(r.raw, '$.script') END) AS script,
               max(r.session) AS session,
               (SELECT s.id FROM records s WHERE s.event = 'session.start'
                  AND json_extract(s.raw, '$.runId') = r.id ORDER BY s.seq LIMIT 1) AS sessionId,
               min(r.ts) AS started,
               max(CASE WHEN r.event = 'run.end' THEN r.duration END) AS durationMs,
               max(CASE WHEN r.event = 'run.end' THEN json_extract(r.raw, '$.exitCode') END) AS exitCode,
               count(*) AS records,
               (SELECT count(*) FROM records c WHERE c.event = 'call.end' AND c.parent = r.id) AS calls,
               (SELECT sum(c.ok = 0) FROM records c WHERE c.event = 'call.end' AND c.parent = r.id) AS failedCalls
             FROM records r WHERE r.id >= 'run-' AND r.id < 'run.' ${
              sinceSql.replace("tsms", "r.tsms")
            }
             GROUP BY r.id ORDER BY started DESC LIMIT ?`,
          ).all(limit),
        ),
      };
    case "volume": {
      const rows = plain(
        db.prepare(
          `SELECT tsms / 3600000 AS h, lrank, count(*) AS records
           FROM records INDEXED BY records_ts WHERE tsms IS NOT NULL ${sinceSql}
           GROUP BY h, lrank ORDER BY h, lrank`,
        ).all(),
      ).map((r) => ({
        hour: new Date((r.h as number) * 3600000).toISOString().slice(0, 16),
        level: LEVEL_NAMES[r.lrank as number] ?? null,
        records: r.records,
      }));
      const files = db.prepare(
        "SELECT count(*) AS files, coalesce(sum(offset), 0) AS jsonlBytes, coalesce(sum(bad), 0) AS badLines FROM files",
      ).get() as Row;
      let indexBytes = 0;
      for (const extra of ["", "-wal"]) {
        try {
          indexBytes += Deno.statSync(index.path + extra).size;
        } catch { /* none */ }
      }
      const total = (db.prepare("SELECT count(*) AS n FROM records").get() as Row).n;
      return { kind, rows, disk: { ...files, indexBytes, records: total } };
    }
  }
}
