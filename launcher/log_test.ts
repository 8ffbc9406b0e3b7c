import assert from "node:assert/strict";
import {
  createLogger,
  errorRecord,
  interpolate,
  LEVELS,
  makeRecord,
  placeholders,
  renderRecord,
  type SourceLevel,
  sourceLevel,
} from "./log.ts";
import type { Level, LogRecord } from "./protocol.ts";

function capture(level: Level = "info", source?: SourceLevel) {
  const records: LogRecord[] = [];
  let sites = 0;
  const log = createLogger({
    write: (r) => records.push(r),
    level,
    ...(source ? { source } : {}),
    inspect: (v) => Deno.inspect(v),
    callSite: (captured) => {
      sites++;
      assert.match(String(captured[0]?.getFileName()), /log_test\.ts$/, "sites start above it");
      return "/x/script.ts:3:5";
    },
  });
  return { log, records, sites: () => sites };
}

Deno.test("interpolate() fills placeholders, keeps {{literal}} and leaves missing ones visible", () => {
  assert.deepEqual(interpolate("fetched {count} pages in {ms}ms", { count: 3, ms: 412 }), {
    msg: "fetched 3 pages in 412ms",
    templated: true,
  });
  assert.equal(interpolate("{{x}} is {x}", { x: 1 }).msg, "{x} is 1");
  assert.equal(interpolate("hello {who}", {}).msg, "hello {who}");
  assert.equal(interpolate("user {u.id}", { u: { id: 7 } }).msg, "user 7");
  assert.equal(interpolate("plain", {}).templated, false);
  assert.deepEqual(placeholders("{a} and {b.c} and {{d}}"), ["a", "b"]);
});

Deno.test("createLogger() records attributes, args, errors, bindings, call sites and the threshold", () => {
  const { log, records } = capture();
  log("starting");
  log.debug("dropped below the threshold");
  log.info("searching for {query}", { query: "flake.nix", url: "u" }, "extra", 42);
  log.error("upload failed", new Error("reset"));
  log.with({ run: 1 }).warn("scoped {run}", { level: "shadowed" });
  assert.equal(records.length, 4);
  assert.deepEqual(records[0], { ts: records[0].ts, level: "info", msg: "starting" });
  assert.deepEqual(
    { ...records[1], ts: "" },
    {
      ts: "",
      level: "info",
      msg: "searching for flake.nix",
      template: "searching for {query}",
      query: "flake.nix",
      url: "u",
      args: ["extra", 42],
    },
  );
  const err = (records[2].args as Record<string, unknown>[])[0];
  assert.equal(err.name, "Error");
  assert.equal(err.message, "reset");
  assert.equal(records[2].source, "/x/script.ts:3:5", "warn and above record the call site");
  assert.equal(records[3].msg, "scoped 1");
  assert.equal(records[3]._level, "shadowed", "an attribute named like a field gets a _");
  assert.equal(log.level, "info");
});

Deno.test("renderRecord() prints time, padded level, message and unconsumed attributes", () => {
  const ts = new Date(2026, 8, 27, 19, 44, 45, 911).toISOString();
  assert.equal(
    renderRecord({
      ts,
      level: "info",
      msg: "fetched 3 pages in 412ms",
      template: "fetched {count} pages in {ms}ms",
      count: 3,
      ms: 412,
      url: "https://example.com",
    }),
    "19:44:45.911 INFO  fetched 3 pages in 412ms url=https://example.com",
  );
  assert.equal(
    renderRecord({ ts, level: "warn", msg: "a b", note: "two words", source: "x.ts:1:2" }),
    '19:44:45.911 WARN  a b note="two words" source=x.ts:1:2',
  );
  assert.equal(
    renderRecord({ ts, level: "error", msg: "oops 1", args: ["oops", 1], console: true }),
    "19:44:45.911 ERROR oops 1",
    "a console record's message already holds its arguments",
  );
});

Deno.test("createLogger() keeps each of the six levels from the threshold up, and no other", () => {
  for (const threshold of LEVELS) {
    const { log, records } = capture(threshold, "off");
    for (const level of LEVELS) log[level](level);
    const kept = LEVELS.slice(LEVELS.indexOf(threshold));
    assert.deepEqual(records.map((r) => r.msg), kept, `threshold ${threshold}`);
    assert.deepEqual(records.map((r) => r.level), kept);
  }
  const { log, records } = capture("warn");
  log("plain log() is info");
  assert.equal(records.length, 0, "log() is log.info(), below warn");
});

Deno.test("createLogger() below the threshold neither builds a record nor asks for the call site", () => {
  const { log, records, sites } = capture("info", "trace");
  let touched = 0;
  const probe = {
    get x() {
      return ++touched;
    },
  };
  log.debug("never {x}", probe);
  log.trace("never");
  assert.equal(records.length, 0);
  assert.equal(touched, 0, "the attributes are not read");
  assert.equal(sites(), 0, "no stack is taken");
});

Deno.test("createLogger() records call sites from warn by default, from --log-source's level, or never", () => {
  const run = (source?: SourceLevel) => {
    const { log, records, sites } = capture("trace", source);
    for (const level of LEVELS) log[level](level);
    return { traced: records.filter((r) => r.source).map((r) => r.level), sites: sites() };
  };
  assert.deepEqual(run(), { traced: ["warn", "error", "fatal"], sites: 3 });
  assert.deepEqual(run("trace").traced, [...LEVELS]);
  assert.deepEqual(run("error").traced, ["error", "fatal"]);
  assert.deepEqual(run("off"), { traced: [], sites: 0 });
  assert.equal(sourceLevel("true"), "trace");
  assert.equal(sourceLevel(""), "trace", "--log-source alone");
  assert.equal(sourceLevel("false"), "off");
  assert.equal(sourceLevel("error"), "error");
});

Deno.test("createLogger() takes a plain object as attributes, anything else as args", () => {
  const { log, records } = capture();
  class Point {
    x = 1;
  }
  log.info("a", new Point(), { y: 2 });
  log.info("b", [1, 2]);
  log.info("c", null, "s");
  log.info("d", Object.assign(Object.create(null), { z: 3 }));
  assert.deepEqual(records[0].args, [{ x: 1 }, { y: 2 }], "a class instance is not attributes");
  assert.equal(records[0].y, undefined);
  assert.deepEqual(records[1].args, [[1, 2]]);
  assert.deepEqual(records[2].args, [null, "s"]);
  assert.equal(records[3].z, 3, "a null-prototype object is attributes");
  assert.equal(records[3].args, undefined);
});

Deno.test("createLogger() keeps template and message, consumed attributes stored once, reserved names kept apart", () => {
  const { log, records } = capture();
  log.info("fetched {count} pages in {ms}ms, {{literal}}, {missing}", {
    count: 3,
    ms: 412,
    url: "u",
    id: "mine",
    event: "e",
    parent: "p",
  });
  const r = records[0];
  assert.equal(r.msg, "fetched 3 pages in 412ms, {literal}, {missing}");
  assert.equal(r.template, "fetched {count} pages in {ms}ms, {{literal}}, {missing}");
  assert.equal(r.count, 3, "the stored record keeps every attribute, for queries");
  assert.equal(r.id, undefined, "a script cannot pose as the id of what it happened inside");
  assert.equal(r._id, "mine");
  assert.equal(r._event, "e");
  assert.equal(r._parent, "p");
  assert.equal(
    renderRecord({ ...r, ts: new Date(2026, 0, 1, 1, 2, 3, 4).toISOString() }),
    "01:02:03.004 INFO  fetched 3 pages in 412ms, {literal}, {missing} url=u _id=mine _event=e _parent=p",
    "consumed attributes are not repeated on the line",
  );
});

Deno.test("errorRecord() captures name, message, stack, own fields and the cause chain", () => {
  const root = new TypeError("socket closed");
  const mid = Object.assign(new Error("fetch failed", { cause: root }), { code: "E_FETCH" });
  const top = new Error("upload failed", { cause: mid });
  const data = errorRecord(top);
  assert.equal(data.name, "Error");
  assert.equal(data.message, "upload failed");
  assert.match(String(data.stack), /upload failed\n\s+at /);
  const cause = data.cause as Record<string, unknown>;
  assert.equal(cause.message, "fetch failed");
  assert.equal(cause.code, "E_FETCH");
  assert.deepEqual(
    { ...(cause.cause as Record<string, unknown>), stack: "" },
    { name: "TypeError", message: "socket closed", stack: "" },
  );
  const { log, records } = capture();
  log.error("upload failed", top);
  log.error(top);
  assert.equal((records[0].args as Record<string, unknown>[])[0].message, "upload failed");
  assert.equal(records[1].msg, "Error: upload failed", "an Error as the message is named");
  assert.equal(
    ((records[1].args as Record<string, unknown>[])[0].cause as { message: string }).message,
    "fetch failed",
  );
  const inAttrs = makeRecord("warn", "x {err}", [{ err: mid }]);
  assert.equal(inAttrs.msg, "x Error: fetch failed");
  assert.equal((inAttrs.err as Record<string, unknown>).code, "E_FETCH");
});

Deno.test("Logger.with() binds attributes to every record, call attributes winning, and nests", () => {
  const { log, records } = capture();
  const scoped = log.with({ run: 1, phase: "scan" });
  scoped.info("in {phase}");
  scoped.with({ phase: "write", file: "a" }).warn("now {phase}", { file: "b" });
  log.info("unbound");
  assert.deepEqual([records[0].msg, records[0].run], ["in scan", 1]);
  assert.deepEqual([records[1].msg, records[1].run, records[1].file], ["now write", 1, "b"]);
  assert.equal(records[1].source, "/x/script.ts:3:5", "a bound logger traces like its parent");
  assert.equal(records[2].run, undefined, "binding never leaks into the parent");
  assert.equal(scoped.level, "info");
});

Deno.test("renderRecord() renders logfmt and JSON, and colours levels only when asked", () => {
  const r: LogRecord = {
    ts: "2026-01-01T00:00:00.000Z",
    level: "error",
    event: "call.end",
    id: "cal-1",
    msg: "a b",
    note: 'say "hi"',
    n: 2,
  };
  assert.equal(
    renderRecord(r, { format: "logfmt" }),
    'ts=2026-01-01T00:00:00.000Z level=error event=call.end id=cal-1 msg="a b" note="say \\"hi\\"" n=2',
  );
  assert.deepEqual(JSON.parse(renderRecord(r, { format: "json" })), r);
  const plain = renderRecord(r);
  assert.ok(!plain.includes("\x1b"), "no escape codes unless asked");
  assert.match(plain, / ERROR a b note="say \\"hi\\"" n=2 event=call.end$/);
  const coloured = renderRecord(r, { color: true });
  assert.ok(coloured.includes(" \x1b[31mERROR\x1b[0m a b "), coloured);
  assert.equal(
    renderRecord({ ts: r.ts, level: "info", msg: "shown", fileOnly: true }, { format: "logfmt" }),
    "ts=2026-01-01T00:00:00.000Z level=info msg=shown",
  );
});

Deno.test("createLogger() hands callSite the call sites from the caller's frame, for log() too", () => {
  const seen: { file: string; line: number | null; n: number }[] = [];
  const log = createLogger({
    write: () => {},
    level: "trace",
    source: "trace",
    inspect: (v) => Deno.inspect(v),
    callSite: (sites) => {
      seen.push({
        file: String(sites[0].getFileName()),
        line: sites[0].getLineNumber(),
        n: sites.length,
      });
      return undefined;
    },
  });
  const lineOf = (text: string) => Number(/log_test\.ts:(\d+):\d+/.exec(text)?.[1]);
  // deno-fmt-ignore
  const calls = [() => log.warn("w"), () => log("plain"), () => log.with({ a: 1 }).error("e")];
  const line = lineOf(new Error().stack!.split("\n")[1]) - 1;
  for (const call of calls) call();
  assert.equal(seen.length, 3);
  for (const site of seen) {
    assert.match(site.file, /log_test\.ts$/);
    assert.equal(site.line, line, JSON.stringify(site));
    assert.ok(site.n >= 1 && site.n <= 2, "a few call sites, not the whole stack");
  }
});

Deno.test("createLogger() reads call sites without the frames hook, and puts the hook back", () => {
  const E = Error as unknown as { prepareStackTrace?: unknown; stackTraceLimit: number };
  const previous = E.prepareStackTrace;
  let hooked = 0;
  const hook = (_e: unknown, sites: unknown[]) => {
    hooked++;
    return `rendered ${sites.length}`;
  };
  E.prepareStackTrace = hook;
  const limit = E.stackTraceLimit;
  try {
    const records: LogRecord[] = [];
    const log = createLogger({
      write: (r) => records.push(r),
      level: "info",
      inspect: (v) => Deno.inspect(v),
      callSite: (sites) => `${sites[0].getFileName()}:${sites[0].getLineNumber()}`,
    });
    log.warn("slow");
    assert.equal(hooked, 0, "no stack text rendered for a call site");
    assert.match(String(records[0].source), /log_test\.ts:\d+$/);
    assert.equal(E.prepareStackTrace, hook);
    assert.equal(E.stackTraceLimit, limit);
    assert.match(String(new Error("x").stack), /^rendered \d+$/, "errors still go through it");
    assert.equal(hooked, 1);
  } finally {
    E.prepareStackTrace = previous;
  }
});
