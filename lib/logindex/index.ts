// The SQLite index of the JSONL log (docs/log.md): `index.db` beside the files, built by reading
// them, never by a background thread. The JSONL files stay the record of truth; this file can be
// deleted at any time and costs a rescan.

import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { join } from "../_path.ts";
import { messageOf } from "../errors.ts";

/** The index's file name, in the logs folder. */
export const INDEX_FILE = "index.db";

const SCHEMA_VERSION = 3;

/** The tables, as `mcpx log sql --schema` prints them. */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (
  fid INTEGER PRIMARY KEY,
  path TEXT UNIQUE,       -- the JSONL file
  size INTEGER,           -- its size when last read
  mtime INTEGER,          -- its mtime (ms) when last read
  ino INTEGER,            -- its inode: another inode is another file, read from the start
  offset INTEGER,         -- the byte after the last whole line read
  bad INTEGER             -- lines that were not JSON records, skipped
);
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY, -- order of ingest
  fid INTEGER NOT NULL,    -- files.fid
  off INTEGER NOT NULL,    -- byte offset of the line in its file: read once, never twice
  ts TEXT, tsms INTEGER, level TEXT, lrank INTEGER, event TEXT, id TEXT, parent TEXT,
  server TEXT, tool TEXT, session TEXT, instance TEXT, duration REAL, ok INTEGER,
  raw TEXT NOT NULL        -- the line itself; json_extract(raw, '$.msg') and any attribute
);
CREATE INDEX IF NOT EXISTS records_ts ON records (tsms, lrank);
CREATE INDEX IF NOT EXISTS records_id ON records (id);
CREATE INDEX IF NOT EXISTS records_warn ON records (lrank) WHERE lrank >= 3;
CREATE INDEX IF NOT EXISTS records_calls ON records (server, tool, duration, tsms, ok)
  WHERE event = 'call.end';
`.trim();

const INDEXES = ["records_ts", "records_id", "records_warn", "records_calls"];

const LEVEL_RANK: Record<string, number> = {
  trace: 0,
  debug: 1,
  info: 2,
  warn: 3,
  error: 4,
  fatal: 5,
};

/** What an ingest did. */
export interface IngestReport {
  files: number;
  /** Files opened (their size, mtime or inode moved). */
  read: number;
  records: number;
  bad: number;
  /** A corrupt index.db set aside (its new name), when there was one. */
  setAside?: string;
}

/** An open index over one logs folder. */
export interface LogIndex {
  readonly db: DatabaseSync;
  readonly dir: string;
  readonly path: string;
  close(): void;
}

function init(db: DatabaseSync): void {
  db.exec("PRAGMA busy_timeout = 15000");
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  const version = (() => {
    try {
      const row = db.prepare("SELECT value FROM meta WHERE key = 'version'").get() as
        | { value: string }
        | undefined;
      return row ? Number(row.value) : undefined;
    } catch {
      return undefined;
    }
  })();
  if (version === SCHEMA_VERSION) return;
  db.exec("BEGIN IMMEDIATE");
  try {
    db.exec("DROP TABLE IF EXISTS records; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS meta");
    db.exec(SCHEMA);
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('version', ?)").run(
      String(SCHEMA_VERSION),
    );
    db.exec("COMMIT");
  } catch (e) {
    db.exec("ROLLBACK");
    throw e;
  }
}

/**
 * Opens (creating) `<dir>/index.db`. One that is not a SQLite database (random bytes, a cut
 * file) is renamed to `index.db.corrupt-<ms>` and rebuilt; `warn` is told in one line.
 */
export function openIndex(
  dir: string,
  warn: (line: string) => void = () => {},
  setAside: { path?: string } = {},
): LogIndex {
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, INDEX_FILE);
  const open = () => {
    // Made 0600 before SQLite opens it; its -wal and -shm files take the same mode.
    try {
      Deno.writeFileSync(path, new Uint8Array(), { mode: 0o600, createNew: true });
    } catch { /* there already */ }
    Deno.chmodSync(path, 0o600);
    const db = new DatabaseSync(path);
    try {
      init(db);
      db.prepare("SELECT count(*) FROM files").get();
      return db;
    } catch (e) {
      try {
        db.close();
      } catch { /* already unusable */ }
      throw e;
    }
  };
  let db: DatabaseSync;
  try {
    db = open();
  } catch (e) {
    const why = messageOf(e);
    if (!/not a database|malformed|disk image|file is encrypted/i.test(why)) throw e;
    const aside = `${path}.corrupt-${Date.now()}`;
    Deno.renameSync(path, aside);
    for (const extra of ["-wal", "-shm"]) {
      try {
        Deno.removeSync(path + extra);
      } catch { /* none */ }
    }
    warn(`mcpx: ${path} was not a usable index (${why}); set aside as ${aside} and rebuilt`);
    setAside.path = aside;
    db = open();
  }
  return { db, dir, path, close: () => db.close() };
}

/** The JSONL files of a logs folder, each stem's segments oldest first. */
export function logFiles(dir: string): string[] {
  const names: string[] = [];
  try {
    for (const e of Deno.readDirSync(dir)) {
      if (e.isFile && e.name.endsWith(".jsonl")) names.push(e.name);
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  const key = (name: string) => {
    const m = /^(.*?)(?:\.(\d+))?\.jsonl$/.exec(name)!;
    return [m[1], Number(m[2] ?? 0)] as const;
  };
  names.sort((a, b) => {
    const [sa, na] = key(a);
    const [sb, nb] = key(b);
    return sa < sb ? -1 : sa > sb ? 1 : na - nb;
  });
  return names.map((n) => join(dir, n));
}

interface FileRow {
  fid: number;
  path: string;
  size: number;
  mtime: number;
  ino: number;
  offset: number;
  bad: number;
}

interface Seen {
  path: string;
  size: number;
  mtime: number;
  ino: number;
}

function statAll(dir: string): Seen[] {
  const out: Seen[] = [];
  for (const path of logFiles(dir)) {
    try {
      const st = Deno.statSync(path);
      out.push({ path, size: st.size, mtime: st.mtime?.getTime() ?? 0, ino: st.ino ?? 0 });
    } catch { /* gone since the listing */ }
  }
  return out;
}

const CHUNK = 8 << 20;
const BATCH = 64;
const decoder = new TextDecoder();

function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

/** The files the index has read, by path. */
function known(db: DatabaseSync): Map<string, FileRow> {
  const map = new Map<string, FileRow>();
  for (const row of db.prepare("SELECT * FROM files").all() as unknown as FileRow[]) {
    map.set(row.path, row);
  }
  return map;
}

/** Whether a file moved (its size, mtime or inode) since the index read it, or was never read. */
function moved(seen: Seen, row: FileRow | undefined): boolean {
  return !row || row.size !== seen.size || row.mtime !== seen.mtime || row.ino !== seen.ino;
}

/**
 * Reads what is new in every JSONL file of the folder into the index, in one transaction
 * (`BEGIN IMMEDIATE`: a second ingester waits, then finds nothing left to do). A file whose
 * size, mtime and inode have not moved is not opened; a file shorter than what was read, or with
 * another inode, is read again from the start, its old rows replaced. A last line without its
 * newline is left for the next ingest; a line that is not a JSON object is counted and skipped.
 */
export function ingest(
  index: LogIndex,
  options: {
    /** New bytes past which, when they outweigh what is held, indexes are rebuilt at the end. */
    bulkBytes?: number;
  } = {},
): IngestReport {
  const { db } = index;
  const report: IngestReport = { files: 0, read: 0, records: 0, bad: 0 };
  const seen = statAll(index.dir);
  report.files = seen.length;
  const rows = known(db);
  if (!seen.some((s) => moved(s, rows.get(s.path)))) return report;

  db.exec("PRAGMA cache_size = -65536");
  // The index is derived data: a transaction lost to a power cut is read again from the JSONL
  // (its files rows roll back with its records), and an index left unusable is set aside and
  // rebuilt. So the ingest does not wait for the disk at commit; the connection's other
  // writes keep NORMAL.
  db.exec("PRAGMA synchronous = OFF");
  try {
    return ingestLocked(index, options, report);
  } finally {
    db.exec("PRAGMA synchronous = NORMAL");
  }
}

function ingestLocked(
  index: LogIndex,
  options: { bulkBytes?: number },
  report: IngestReport,
): IngestReport {
  const { db } = index;
  let seen: Seen[];
  let rows: Map<string, FileRow>;
  db.exec("BEGIN IMMEDIATE");
  try {
    rows = known(db);
    seen = statAll(index.dir);
    report.files = seen.length;
    // Rows go in BATCH at a time, one statement each: one call into SQLite per batch rather
    // than per row. What is left at the end of a file goes in one row at a time.
    const COLS = `INSERT INTO records (fid, off, ts, tsms, level, lrank, event, id, parent, server,
      tool, session, instance, duration, ok, raw) VALUES `;
    const ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    const insert = db.prepare(COLS + ROW);
    const insertBatch = db.prepare(COLS + Array(BATCH).fill(ROW).join(", "));
    const batch: SQLInputValue[] = [];
    const flush = () => {
      for (let i = 0; i < batch.length; i += 16) insert.run(...batch.slice(i, i + 16));
      batch.length = 0;
    };
    const add = db.prepare(
      `INSERT INTO files (path, size, mtime, ino, offset, bad) VALUES (?, -1, 0, 0, 0, 0)
       RETURNING fid`,
    );
    const save = db.prepare(
      `UPDATE files SET size = ?, mtime = ?, ino = ?, offset = ?, bad = ? WHERE fid = ?`,
    );
    const forget = db.prepare("DELETE FROM records WHERE fid = ?");
    // A big first read (an index deleted, a large log met for the first time): the secondary
    // indexes are built once at the end, sorted, rather than row by row.
    let pending = 0;
    for (const s of seen) {
      const row = rows.get(s.path);
      if (moved(s, row)) pending += s.size - (row && s.size >= row.offset ? row.offset : 0);
    }
    const held = (db.prepare("SELECT count(*) AS n FROM records").get() as { n: number }).n;
    const rebuild = pending > (options.bulkBytes ?? 32 << 20) && pending / 256 > held;
    if (rebuild) {
      for (const name of INDEXES) db.exec(`DROP INDEX IF EXISTS ${name}`);
    }
    for (const s of seen) {
      const row = rows.get(s.path);
      if (!moved(s, row)) continue;
      const fid = row ? row.fid : (add.get(s.path) as { fid: number }).fid;
      let offset = row?.offset ?? 0;
      let bad = row?.bad ?? 0;
      if (row && (row.ino !== s.ino || s.size < row.offset)) {
        // Another file under the name, or one cut shorter: its rows go, it is read from the start.
        forget.run(fid);
        offset = 0;
        bad = 0;
      }
      report.read++;
      let file: Deno.FsFile;
      try {
        file = Deno.openSync(s.path, { read: true });
      } catch {
        continue;
      }
      try {
        file.seekSync(offset, Deno.SeekMode.Start);
        const buf = new Uint8Array(CHUNK);
        let carry = new Uint8Array(0);
        let carryStart = offset;
        let end = s.size;
        for (;;) {
          const n = file.readSync(buf);
          if (n === null || n === 0) break;
          let bytes = buf.subarray(0, n);
          if (carry.length) {
            const joined = new Uint8Array(carry.length + n);
            joined.set(carry);
            joined.set(bytes, carry.length);
            bytes = joined;
          }
          const last = bytes.lastIndexOf(10);
          if (last < 0) {
            carry = bytes.slice();
            continue;
          }
          const whole = bytes.subarray(0, last + 1);
          const text = decoder.decode(whole);
          const ascii = text.length === whole.length;
          let pos = carryStart;
          let from = 0;
          let bytePos = 0;
          while (from < text.length) {
            const nl = text.indexOf("\n", from);
            const line = text.slice(from, nl);
            const lineBytes = ascii ? line.length : new TextEncoder().encode(line).length;
            const lineOff = pos;
            pos += lineBytes + 1;
            bytePos += lineBytes + 1;
            from = nl + 1;
            if (line.trim() === "") continue;
            let r: Record<string, unknown>;
            try {
              r = JSON.parse(line);
              if (r === null || typeof r !== "object" || Array.isArray(r)) throw 0;
            } catch {
              bad++;
              report.bad++;
              continue;
            }
            const ts = str(r.ts);
            const level = str(r.level);
            const dur = r.durationMs;
            const ok = r.ok;
            batch.push(
              fid,
              lineOff,
              ts,
              ts ? Date.parse(ts) : null,
              level,
              level ? LEVEL_RANK[level] ?? null : null,
              str(r.event),
              str(r.id),
              str(r.parent),
              str(r.server),
              str(r.tool),
              str(r.session),
              str(r.instanceId),
              typeof dur === "number" ? dur : null,
              typeof ok === "boolean" ? (ok ? 1 : 0) : null,
              line,
            );
            if (batch.length === BATCH * 16) {
              insertBatch.run(...batch);
              batch.length = 0;
            }
            report.records++;
          }
          carryStart += bytePos;
          carry = bytes.slice(last + 1);
        }
        flush();
        offset = carryStart;
        // What was read may be more than the size seen (a writer appended meanwhile): remember
        // the size at the last whole line only when it is past what was seen.
        end = Math.max(s.size, offset);
        save.run(end === s.size ? s.size : -1, s.mtime, s.ino, offset, bad, fid);
      } finally {
        file.close();
      }
    }
    if (rebuild) db.exec(SCHEMA);
    db.exec("COMMIT");
  } catch (e) {
    try {
      db.exec("ROLLBACK");
    } catch { /* no transaction left */ }
    throw e;
  }
  return report;
}
