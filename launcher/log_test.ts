import assert from "node:assert/strict";
import { createLogger, interpolate, placeholders, renderRecord } from "./log.ts";
import type { LogRecord } from "./protocol.ts";

function capture(level: "debug" | "info" | "warn" | "error" = "info") {
  const records: LogRecord[] = [];
  const log = createLogger({
    write: (r) => records.push(r),
    level,
    inspect: (v) => Deno.inspect(v),
    callSite: () => "/x/script.ts:3:5",
  });
  return { log, records };
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
