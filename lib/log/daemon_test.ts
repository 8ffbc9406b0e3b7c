import assert from "node:assert/strict";
import { join } from "../_path.ts";
import { DaemonLog } from "./daemon.ts";
import { RunLog, wantsColor } from "./run_log.ts";

function read(path: string): Record<string, unknown>[] {
  return Deno.readTextFileSync(path).split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

Deno.test("DaemonLog stamps its own id, another thing's id when given, and a parent only when given", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const shown: string[] = [];
    const log = new DaemonLog({
      dir,
      stem: "daemon-x",
      level: "info",
      maxBytes: 0,
      problem: () => {},
      render: { write: (l) => shown.push(l), format: "logfmt" },
    }, { pid: 7 });
    log.write("info", "daemon.start", "Daemon starting", { config: "/c.json" });
    log.write("debug", "noise", "below the threshold");
    log.write("info", "server.start", "Starting {not a template}", {
      id: "ins-1",
      parent: log.id,
    });
    log.write("warn", "server.exited", "Server instance ended", {
      id: "ins-1",
      serverPid: 222,
      pid: 333,
    });
    log.close();
    const [start, inst, exited] = read(join(dir, "daemon-x.jsonl"));
    assert.match(log.id, /^dmn-[0-9a-f]{16}$/);
    assert.deepEqual(
      [start.event, start.id, start.parent, start.pid, start.config],
      ["daemon.start", log.id, undefined, 7, "/c.json"],
    );
    assert.deepEqual([inst.id, inst.parent], ["ins-1", log.id]);
    assert.equal(inst.msg, "Starting {not a template}", "daemon messages are not templates");
    assert.equal(inst.template, undefined);
    assert.deepEqual([exited.id, exited.parent, exited.level], ["ins-1", undefined, "warn"]);
    assert.deepEqual([exited.pid, exited.serverPid], [7, 222], "pid stays the daemon's");
    assert.equal(shown.length, 3);
    assert.match(
      shown[0],
      /^ts=\S+ level=info event=daemon\.start id=dmn-\S+ msg="Daemon starting" pid=7/,
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("RunLog stores the run's events and the script's records under one run id", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const run = new RunLog({ dir, stem: "runs", maxBytes: 0, problem: () => {} });
    run.event("info", "run.start", "Script run starting", { script: "/s.ts" });
    run.record({
      ts: "2026-01-01T00:00:00.000Z",
      level: "warn",
      msg: "hi",
      n: 1,
      source: "s.ts:1:1",
    });
    run.event("info", "run.end", "Script run ended", { exitCode: 0 });
    run.close();
    const [start, rec, end] = read(join(dir, "runs.jsonl"));
    assert.match(run.id, /^run-[0-9a-f]{16}$/);
    assert.deepEqual([start.event, start.id, start.script], ["run.start", run.id, "/s.ts"]);
    assert.deepEqual(Object.keys(rec), ["ts", "level", "id", "msg", "n", "source"]);
    assert.equal(rec.id, run.id);
    assert.deepEqual([end.event, end.id, end.exitCode], ["run.end", run.id, 0]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("wantsColor() colours only a terminal's stderr, and never under NO_COLOR", () => {
  assert.equal(wantsColor({ errIsTerminal: true, env: {} }), true);
  assert.equal(wantsColor({ errIsTerminal: true, env: { NO_COLOR: "1" } }), false);
  assert.equal(wantsColor({ errIsTerminal: false, env: {} }), false);
  assert.equal(wantsColor({ env: {} }), false);
});
