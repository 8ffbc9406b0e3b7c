import assert from "node:assert/strict";
import { join } from "node:path";
import { INDEX_FILE, ingest, type LogIndex, openIndex } from "./index.ts";
import { chain, findRecords, readSql, refusal, stats } from "./query.ts";

function line(i: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    ts: new Date(Date.UTC(2026, 11, 4, 1, 0, 0, i)).toISOString(),
    level: i % 7 === 0 ? "warn" : "info",
    msg: `record ${i} é`, // not ASCII: byte offsets differ from string offsets
    i,
    ...extra,
  }) + "\n";
}

function dump(index: LogIndex): unknown[] {
  return index.db.prepare(
    "SELECT f.path, r.off, r.raw FROM records r JOIN files f USING (fid) ORDER BY f.path, r.off",
  ).all().map((
    r,
  ) => ({
    ...r,
  }));
}

function withIndex<T>(dir: string, fn: (index: LogIndex) => T, warn?: (l: string) => void): T {
  const index = openIndex(dir, warn);
  try {
    return fn(index);
  } finally {
    index.close();
  }
}

Deno.test("logindex: ingest after deleting the index equals ingest from scratch", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const a = join(dir, "runs.jsonl");
    const b = join(dir, "runs.1.jsonl");
    Deno.writeTextFileSync(a, Array.from({ length: 50 }, (_, i) => line(i)).join(""));
    const first = withIndex(dir, (x) => (ingest(x), dump(x)));
    // Grown in steps, with a half-written last line in between.
    Deno.writeTextFileSync(a, line(50), { append: true });
    const half = line(51);
    Deno.writeTextFileSync(b, half.slice(0, 20), { append: true });
    const mid = withIndex(dir, (x) => (ingest(x), dump(x)));
    assert.equal(mid.length, 51, "the half line is not a record yet");
    Deno.writeTextFileSync(b, half.slice(20) + "not json\n" + line(52), { append: true });
    const grown = withIndex(dir, (x) => {
      const report = ingest(x);
      assert.equal(report.bad, 1);
      return dump(x);
    });
    assert.equal(grown.length, 53);
    assert.equal(first.length, 50);
    // Nothing moved: no file is opened.
    withIndex(dir, (x) => assert.equal(ingest(x).read, 0));
    for (const f of [INDEX_FILE, INDEX_FILE + "-wal", INDEX_FILE + "-shm"]) {
      try {
        Deno.removeSync(join(dir, f));
      } catch { /* not there */ }
    }
    const scratch = withIndex(dir, (x) => (ingest(x), dump(x)));
    assert.deepEqual(scratch, grown);
    const vol = withIndex(dir, (x) => stats(x, "volume").disk!);
    assert.equal(vol.badLines, 1);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("logindex: a bulk first read (indexes built at the end) equals a row-by-row one", () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(
      join(dir, "runs.jsonl"),
      Array.from({ length: 300 }, (_, i) => line(i, { id: `run-${i % 7}` })).join(""),
    );
    const rowByRow = withIndex(dir, (x) => (ingest(x, { bulkBytes: Infinity }), dump(x)));
    Deno.removeSync(join(dir, INDEX_FILE));
    const bulk = withIndex(dir, (x) => {
      ingest(x, { bulkBytes: 0 });
      const names = x.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all()
        .map((r) => r.name).filter((n) => String(n).startsWith("records_")).sort();
      assert.deepEqual(names, ["records_calls", "records_id", "records_ts", "records_warn"]);
      assert.equal(
        findRecords(x, { limit: 1000 }).filter((f) => f.record.id === "run-3").length,
        43,
      );
      return dump(x);
    });
    assert.deepEqual(bulk, rowByRow);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("logindex: a truncated or replaced file is read again without duplicates", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const a = join(dir, "daemon-x.jsonl");
    Deno.writeTextFileSync(a, Array.from({ length: 10 }, (_, i) => line(i)).join(""));
    withIndex(dir, (x) => ingest(x));
    Deno.writeTextFileSync(a, line(100) + line(101)); // shorter: rewritten in place
    withIndex(dir, (x) => {
      ingest(x);
      assert.deepEqual(findRecords(x, {}).map((f) => f.record.i), [100, 101]);
    });
    // Replaced by a new file (another inode), longer than before.
    const tmp = join(dir, "tmp");
    Deno.writeTextFileSync(tmp, Array.from({ length: 12 }, (_, i) => line(200 + i)).join(""));
    Deno.renameSync(tmp, a);
    withIndex(dir, (x) => {
      ingest(x);
      const got = findRecords(x, {}).map((f) => f.record.i);
      assert.deepEqual(got, Array.from({ length: 12 }, (_, i) => 200 + i));
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("logindex: a corrupt index.db is set aside and rebuilt with a warning", () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(join(dir, "runs.jsonl"), line(1) + line(2));
    const junk = new Uint8Array(8192);
    crypto.getRandomValues(junk);
    Deno.writeFileSync(join(dir, INDEX_FILE), junk);
    const warnings: string[] = [];
    withIndex(dir, (x) => {
      ingest(x);
      assert.equal(findRecords(x, {}).length, 2);
    }, (l) => warnings.push(l));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /not a usable index.*set aside as .*index\.db\.corrupt-\d+/);
    const aside = [...Deno.readDirSync(dir)].filter((e) => e.name.includes(".corrupt-"));
    assert.equal(aside.length, 1);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("logindex: ingesters in several processes at once never corrupt or duplicate", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const n = 4000;
    for (const stem of ["runs", "daemon-a"]) {
      Deno.writeTextFileSync(
        join(dir, `${stem}.jsonl`),
        Array.from({ length: n }, (_, i) => line(i, { stem })).join(""),
      );
    }
    const code = `import { ingest, openIndex } from ${
      JSON.stringify(import.meta.resolve("./index.ts"))
    };
      const x = openIndex(Deno.args[0]); ingest(x); x.close();`;
    const children = Array.from({ length: 4 }, () =>
      new Deno.Command(Deno.execPath(), {
        args: ["eval", code, dir],
        stdout: "null",
        stderr: "piped",
      }).output());
    for (const out of await Promise.all(children)) {
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    }
    withIndex(dir, (x) => {
      assert.deepEqual({ ...x.db.prepare("PRAGMA integrity_check").get() }, {
        integrity_check: "ok",
      });
      assert.equal(
        (x.db.prepare("SELECT count(*) AS n FROM records").get() as { n: number }).n,
        2 * n,
      );
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("logindex: filters, globs, grep, a chain and exact percentiles", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const rec = (r: Record<string, unknown>) => JSON.stringify(r) + "\n";
    const t = (s: number) => new Date(Date.UTC(2026, 11, 4, 1, 0, s)).toISOString();
    let daemon = rec({ ts: t(0), level: "info", event: "daemon.start", id: "dmn-1", msg: "up" });
    daemon += rec({
      ts: t(1),
      level: "info",
      event: "server.start",
      id: "ins-1",
      parent: "dmn-1",
      server: "fx",
      msg: "start",
    });
    daemon += rec({
      ts: t(1),
      level: "info",
      event: "session.start",
      id: "ses-1",
      parent: "dmn-1",
      session: "s",
      runId: "run-1",
      msg: "began",
    });
    for (let i = 1; i <= 100; i++) {
      daemon += rec({
        ts: t(2),
        level: i === 100 ? "warn" : "info",
        event: "call.end",
        id: `cal-${i}`,
        parent: "run-1",
        instanceId: "ins-1",
        sessionId: "ses-1",
        server: "fx",
        tool: "echo",
        durationMs: i,
        ok: i !== 100,
        msg: i === 100 ? "timed out" : "ok",
      });
    }
    Deno.writeTextFileSync(join(dir, "daemon-a.jsonl"), daemon);
    Deno.writeTextFileSync(
      join(dir, "runs.jsonl"),
      rec({ ts: t(1), level: "info", event: "run.start", id: "run-1", session: "s", msg: "run" }) +
        rec({
          ts: t(3),
          level: "info",
          event: "run.end",
          id: "run-1",
          daemonId: "dmn-1",
          msg: "end",
        }),
    );
    withIndex(dir, (x) => {
      ingest(x);
      assert.deepEqual(findRecords(x, { event: "server.*" }).map((f) => f.record.id), ["ins-1"]);
      assert.deepEqual(findRecords(x, { grep: "timed o+ut" }).map((f) => f.record.id), ["cal-100"]);
      assert.deepEqual(findRecords(x, { level: "warn" }).map((f) => f.record.id), ["cal-100"]);
      assert.equal(findRecords(x, { limit: 3 }).length, 3);
      assert.equal(findRecords(x, { session: "s" }).length, 3);
      const [calls] = stats(x, "calls").rows;
      assert.deepEqual([calls.calls, calls.p50Ms, calls.p95Ms, calls.p99Ms, calls.failed], [
        100,
        50,
        95,
        99,
        1,
      ]);
      const roots = chain(x, "cal-7");
      assert.deepEqual(roots.map((r) => r.id), ["dmn-1"]);
      assert.deepEqual(roots[0].children.map((c) => c.id).sort(), ["ins-1", "run-1", "ses-1"]);
      assert.deepEqual(roots[0].children.find((c) => c.id === "run-1")!.children.map((c) => c.id), [
        "cal-7",
      ]);
      const [run] = stats(x, "sessions").rows;
      assert.deepEqual([run.run, run.session, run.sessionId, run.calls], [
        "run-1",
        "s",
        "ses-1",
        100,
      ]);
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("logindex: log sql refuses anything that is not one read, naming why", () => {
  const cases: [string, RegExp][] = [
    ["DELETE FROM records", /deletes rows/],
    ["ATTACH DATABASE '/tmp/x.db' AS x", /attaches another database/],
    ["PRAGMA writable_schema=1", /PRAGMA/],
    ["VACUUM INTO '/tmp/copy.db'", /VACUUM INTO/],
    ["SELECT load_extension('/tmp/x.so')", /load_extension/],
    ["select 1; drop table x", /more than one statement/],
    ["WITH a AS (SELECT 1) DELETE FROM records", /deletes rows/],
  ];
  for (const [sql, why] of cases) assert.match(refusal(sql) ?? "", why, sql);
  assert.equal(refusal("SELECT 'drop; delete' AS s -- ; delete"), undefined);
  assert.equal(refusal("select 1;"), undefined);
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(join(dir, "runs.jsonl"), line(1));
    withIndex(dir, (x) => ingest(x));
    const path = join(dir, INDEX_FILE);
    assert.throws(
      () => readSql(path, "DELETE FROM records"),
      /Refused "DELETE FROM records".*deletes rows/,
    );
    assert.deepEqual(readSql(path, "SELECT count(*) AS n FROM records"), [{ n: 1 }]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
