/**
 * The durable log end to end: a real script run making a real tool call through a real daemon
 * leaves records whose ids link the call to its run, its server instance and the daemon; a
 * log that cannot be written (a malformed file, a folder without write permission, a full disk)
 * costs one line on stderr and nothing else.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { Sandbox } from "../_helpers.ts";

type Rec = Record<string, unknown>;

const SCRIPT = `export default async function main() {
  log.info("asking for {text}", { text: "hi" });
  log.debug("below the threshold");
  const answer = await fixture.echo({ text: "hi" });
  log.warn("answered");
  return { answer: String(answer) };
}
`;

async function logBox(): Promise<Sandbox> {
  const box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { fixture: faultyServer() },
  });
  await box.write("work/ask.ts", SCRIPT);
  const refresh = await box.mcpx(["refresh"]);
  assert.equal(refresh.code, 0, refresh.stderr);
  return box;
}

function logsOf(box: Sandbox): string {
  return join(box.root, "state", "mcpx", "logs");
}

/** A log file's stem and segment number: `runs.2.jsonl` is `["runs", 2]`. */
function segmentOf(name: string): [string, number] {
  const m = /^(.*?)(?:\.(\d+))?\.jsonl$/.exec(name)!;
  return [m[1], Number(m[2] ?? 0)];
}

/**
 * Every record of every JSONL file in the sandbox's log folder, each stem's segments oldest
 * first (a malformed line throws).
 */
function records(box: Sandbox): Rec[] {
  const out: Rec[] = [];
  const names = [...Deno.readDirSync(logsOf(box))].map((e) => e.name)
    .filter((n) => n.endsWith(".jsonl"))
    .sort((a, b) => {
      const [sa, na] = segmentOf(a);
      const [sb, nb] = segmentOf(b);
      return sa === sb ? na - nb : sa < sb ? -1 : 1;
    });
  for (const name of names) {
    for (const line of Deno.readTextFileSync(join(logsOf(box), name)).split("\n")) {
      if (line) out.push(JSON.parse(line));
    }
  }
  return out;
}

Deno.test("logging: a run's tool call links to its run, its server instance and the daemon", async () => {
  await using box = await logBox();
  const r = await box.mcpx(["run", "./ask.ts"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { answer: "hi" });
  assert.match(r.stderr, /INFO {2}asking for hi\n/);
  assert.match(r.stderr, /WARN {2}answered source=ask\.ts:5:7/);
  assert.doesNotMatch(r.stderr, /below the threshold/);

  const all = records(box);
  const byId = (id: unknown, event: string) =>
    all.find((x) => x.id === id && x.event === event) as Rec;
  const call = all.find((x) => x.event === "call.end" && x.tool === "echo") as Rec;
  assert.ok(call, JSON.stringify(all.map((x) => x.event)));
  assert.match(String(call.id), /^cal-[0-9a-f]{16}$/);
  assert.equal(call.ok, true);

  // The call was made by the run: its parent is the run's id, which the run's own records carry.
  const runStart = byId(call.parent, "run.start");
  assert.ok(runStart, `no run.start for ${call.parent}`);
  assert.equal(runStart.parent, undefined, "a run is created by nothing logged");
  const logged = all.filter((x) => x.id === call.parent && !x.event);
  assert.deepEqual(logged.map((x) => x.msg), ["asking for hi", "answered"]);
  assert.equal(logged[0].template, "asking for {text}");
  const runEnd = byId(call.parent, "run.end");
  assert.equal(runEnd.exitCode, 0);
  assert.equal(runEnd.parent, undefined, "only the creating record carries a parent");

  // Served by an instance, which the daemon created; the run used that same daemon.
  const instance = byId(call.instanceId, "server.start");
  assert.ok(instance, `no server.start for ${call.instanceId}`);
  assert.match(String(instance.id), /^ins-/);
  const ready = byId(call.instanceId, "server.ready");
  assert.equal(ready.parent, undefined);
  const daemon = byId(instance.parent, "daemon.start");
  assert.ok(daemon, `no daemon.start for ${instance.parent}`);
  assert.equal(daemon.parent, undefined);
  assert.equal(runEnd.daemonId, daemon.id);
  const health = await box.json<{ logId: string }>(["health"]);
  assert.equal(health.logId, daemon.id);

  // The --json envelope names the run's id, where a chain starts.
  const env = await box.json<{ runId: string; logs: Rec[] }>(["run", "./ask.ts"]);
  assert.match(env.runId, /^run-[0-9a-f]{16}$/);
  const again = records(box);
  assert.ok(again.some((x) => x.event === "call.end" && x.parent === env.runId));
  assert.deepEqual(env.logs.map((x) => x.msg), ["asking for hi", "answered"]);
});

Deno.test("logging: a call inside a session links to the session, which the daemon created, and to its instance", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { sess: { ...faultyServer(), mcpx: { sharing: "exclusive", scope: "session" } } },
  });
  await box.write(
    "work/s.ts",
    `export default async () => String(await sess.echo({ text: "a" })) + String(await sess.echo({ text: "b" }));\n`,
  );
  const first = await box.mcpx(["run", "./s.ts"]);
  assert.equal(first.code, 0, first.stderr);
  const all = records(box);
  const byId = (id: unknown, event: string) =>
    all.filter((x) => x.id === id && x.event === event) as Rec[];
  const calls = all.filter((x) => x.event === "call.end" && x.server === "sess");
  assert.equal(calls.length, 2, JSON.stringify(all.map((x) => x.event)));
  const [call] = calls;
  assert.match(String(call.sessionId), /^ses-[0-9a-f]{16}$/);
  assert.equal(calls[1].sessionId, call.sessionId, "one session, one id");

  // call → session → daemon: one session.start, created by the daemon, naming the key and the run.
  const [start, ...more] = byId(call.sessionId, "session.start");
  assert.ok(start, `no session.start for ${call.sessionId}`);
  assert.equal(more.length, 0);
  assert.equal(start.session, call.session);
  assert.equal(start.runId, call.parent);
  assert.equal(start.minted, true);
  const [daemon] = byId(start.parent, "daemon.start");
  assert.ok(daemon, `no daemon.start for ${start.parent}`);
  // The run minted the session, so it ended with the run: a session.end without a parent.
  const [end] = byId(call.sessionId, "session.end");
  assert.ok(end, `no session.end for ${call.sessionId}`);
  assert.equal(end.parent, undefined, "only the creating record carries a parent");
  assert.equal(end.stopped, 1);

  // call → instance: the session-scoped instance names the same session, and the same daemon.
  const [instance] = byId(call.instanceId, "server.start");
  assert.ok(instance, `no server.start for ${call.instanceId}`);
  assert.equal(instance.sessionId, call.sessionId);
  assert.equal(instance.parent, daemon.id);
  assert.equal(instance.key, `session:${call.session}`);

  // A chain from the call shows its session beside its instance and its run, under the daemon.
  const chained = await box.json<{ chain: { id: string; children: { id: string }[] }[] }>([
    "log",
    "--chain",
    String(call.id),
  ]);
  assert.deepEqual(chained.chain.map((n) => n.id), [daemon.id]);
  assert.deepEqual(
    chained.chain[0].children.map((c) => c.id).sort(),
    [call.instanceId, call.parent, call.sessionId].map(String).sort(),
  );

  // Another run mints another session: another id, another session.start.
  const second = await box.mcpx(["run", "./s.ts"]);
  assert.equal(second.code, 0, second.stderr);
  const later = records(box).filter((x) => x.event === "call.end" && x.server === "sess");
  assert.equal(later.length, 4);
  assert.notEqual(later[3].sessionId, call.sessionId);
  assert.equal(records(box).filter((x) => x.event === "session.start").length, 2);
});

const BUSY = `export default async function main(args: string[]) {
  for (let i = 0; i < 200; i++) {
    log.info("record {i} of {tag}", { i, tag: args[0], fill: "x".repeat(i * 37) });
    if (i % 40 === 0) await fixture.echo({ text: args[0] + i });
  }
  return args[0];
}
`;

Deno.test("logging: the daemon and four runs writing at once, rotating, lose and interleave no record", async () => {
  await using box = await logBox();
  await box.write("work/busy.ts", BUSY);
  const runs = await Promise.all(
    ["a", "b", "c", "d"].map((tag) =>
      box.mcpx(["run", "./busy.ts", tag], { env: { MCPX_LOGGING_MAX_BYTES: "262144" } })
    ),
  );
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  const names = [...Deno.readDirSync(logsOf(box))].map((e) => e.name);
  assert.ok(names.includes("runs.1.jsonl"), `the runs rotated as they wrote: ${names}`);
  for (const name of names.filter((n) => n.startsWith("runs"))) {
    assert.match(name, /^runs(\.[1-9]\d*)?\.jsonl$/);
  }
  const all = records(box); // every line of every file parses
  for (const tag of ["a", "b", "c", "d"]) {
    const logged = all.filter((x) => x.tag === tag);
    assert.deepEqual(logged.map((x) => x.i), Array.from({ length: 200 }, (_, i) => i), tag);
    const id = logged[0].id;
    assert.ok(logged.every((x) => x.id === id), "one run, one id");
    assert.equal(all.filter((x) => x.event === "call.end" && x.parent === id).length, 5);
    assert.equal(all.filter((x) => x.id === id && x.event === "run.end").length, 1);
  }
});

Deno.test("logging: --format, --log-level and --log-source govern what a run shows", async () => {
  await using box = await logBox();
  const json = await box.mcpx(["run", "--format", "json", "--log-level", "debug", "./ask.ts"]);
  assert.equal(json.code, 0, json.stderr);
  const lines = json.stderr.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.msg), ["asking for hi", "below the threshold", "answered"]);
  assert.equal(lines[0].text, "hi");

  const logfmt = await box.mcpx(["run", "--format=logfmt", "--log-source=false", "./ask.ts"], {
    env: { MCPX_LOG_LEVEL: "warn" },
  });
  assert.equal(logfmt.code, 0, logfmt.stderr);
  assert.match(logfmt.stderr, /^ts=\S+ level=warn msg=answered\n$/);

  const traced = await box.mcpx(["run", "--log-source", "./ask.ts"], {
    env: { MCPX_LOGGING_FORMAT: "logfmt" },
  });
  assert.match(traced.stderr, /msg="asking for hi" .*source=ask\.ts:2:7/);
});

Deno.test("logging: a malformed line in the log is left alone and the next record starts clean", async () => {
  await using box = await logBox();
  const before = await box.mcpx(["run", "./ask.ts"]);
  assert.equal(before.code, 0, before.stderr);
  const runs = join(logsOf(box), "runs.jsonl");
  const earlier = Deno.readTextFileSync(runs);
  // A hand edit that left half a line, no newline.
  Deno.writeTextFileSync(runs, '{"ts": "not closed', { append: true });
  const r = await box.mcpx(["run", "./ask.ts"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { answer: "hi" });
  const said = r.stderr.split("\n").filter((l) => l.startsWith("mcpx:"));
  assert.equal(said.length, 1, r.stderr);
  assert.match(said[0], /the last line of .*runs\.jsonl is not a whole JSON record/);
  const text = Deno.readTextFileSync(runs);
  assert.ok(text.startsWith(earlier + '{"ts": "not closed\n'), "earlier records are untouched");
  const after = text.slice(earlier.length).split("\n").slice(1).filter(Boolean);
  assert.ok(after.length >= 4);
  for (const line of after) JSON.parse(line);
});

/** Runs `cmd` as root without the power to ignore file permissions (as any other user). */
function asUnprivileged(): string[] {
  return Deno.uid() === 0
    ? ["setpriv", "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override"]
    : [];
}

Deno.test("logging: a log folder without write permission costs one line, not the run", async () => {
  await using box = await logBox();
  await box.mcpx(["run", "./ask.ts"]);
  const earlier = Deno.readTextFileSync(join(logsOf(box), "runs.jsonl"));
  await box.mcpx(["stop"]);
  Deno.chmodSync(logsOf(box), 0o500);
  Deno.chmodSync(join(logsOf(box), "runs.jsonl"), 0o400);
  try {
    const wrap = asUnprivileged();
    const out = await new Deno.Command(wrap[0] ?? Deno.execPath(), {
      args: [
        ...wrap.slice(1),
        ...(wrap.length ? [Deno.execPath()] : []),
        "run",
        "-A",
        "--config",
        new URL("../../deno.json", import.meta.url).pathname,
        box.entry,
        "run",
        "./ask.ts",
      ],
      cwd: join(box.root, "work"),
      env: box.env,
      clearEnv: true,
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), { answer: "hi" });
    const said = stderr.split("\n").filter((l) => l.startsWith("mcpx:"));
    assert.equal(said.length, 1, stderr);
    assert.match(said[0], /^mcpx: cannot store log records in .*logs.*: .*denied/i);
  } finally {
    Deno.chmodSync(logsOf(box), 0o700);
  }
  assert.equal(Deno.readTextFileSync(join(logsOf(box), "runs.jsonl")), earlier);
});

Deno.test("logging: a full disk costs one line, not the run, and earlier records stay whole", async () => {
  await using box = await logBox();
  await box.mcpx(["run", "./ask.ts"]);
  await box.mcpx(["stop"]);
  // A tiny filesystem of its own for the log folder, holding the records written so far.
  const logs = logsOf(box);
  const saved = new Map<string, string>();
  for (const e of Deno.readDirSync(logs)) {
    saved.set(e.name, Deno.readTextFileSync(join(logs, e.name)));
  }
  const mount = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", logs],
  }).output();
  assert.equal(mount.code, 0, new TextDecoder().decode(mount.stderr));
  try {
    for (const [name, text] of saved) Deno.writeTextFileSync(join(logs, name), text);
    // tmpfs gives space by the page: end runs.jsonl on a page boundary (with one more whole
    // record), so that the next record needs a page there is none of.
    const runs = join(logs, "runs.jsonl");
    const size = Deno.statSync(runs).size;
    let room = 4096 - (size % 4096);
    if (room < 80) room += 4096;
    const head = '{"ts":"2026-01-01T00:00:00.000Z","level":"info","msg":"pad","pad":"';
    const pad = head + "x".repeat(room - head.length - 3) + '"}\n';
    Deno.writeTextFileSync(runs, pad, { append: true });
    saved.set("runs.jsonl", saved.get("runs.jsonl") + pad);
    // Fill what is left, in a file of its own.
    const filler = Deno.openSync(join(logs, "filler"), { write: true, create: true });
    try {
      const block = new Uint8Array(4096);
      for (;;) filler.writeSync(block);
    } catch { /* full */ }
    try {
      for (;;) filler.writeSync(new Uint8Array(1));
    } catch { /* full to the byte */ }
    filler.close();
    const r = await box.mcpx(["run", "./ask.ts"]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { answer: "hi" });
    const said = r.stderr.split("\n").filter((l) => l.startsWith("mcpx:"));
    assert.equal(said.length, 1, r.stderr);
    assert.match(said[0], /^mcpx: cannot store log records in .*runs\.jsonl: .*(space|full)/i);
    await box.mcpx(["stop"]);
    assert.equal(Deno.readTextFileSync(runs), saved.get("runs.jsonl"), "nothing more fitted");
    for (const [name, text] of saved) {
      const now = Deno.readTextFileSync(join(logs, name));
      assert.ok(now.startsWith(text), `${name}: earlier records untouched`);
      for (const line of now.split("\n")) if (line) JSON.parse(line);
    }
  } finally {
    await new Deno.Command("umount", { args: ["-l", logs] }).output();
  }
});

Deno.test("logging: call sites and errors with causes, under the worker, deno and node", async () => {
  await using box = await logBox();
  await box.write(
    "work/site.ts",
    `export default function main() {
  log.info("a {x}", { x: 1 });
  const e = new Error("outer", { cause: new TypeError("inner") });
  log.warn("failed", e);
  return 1;
}
`,
  );
  for (const runtime of ["worker", "deno", "node"]) {
    const r = await box.mcpx([
      "run",
      "--runtime",
      runtime,
      "--log-source",
      "--format",
      "json",
      "./site.ts",
    ]);
    assert.equal(r.code, 0, `${runtime}: ${r.stderr}`);
    const [info, warn] = r.stderr.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(info.source, "site.ts:2:7", runtime);
    assert.equal(warn.source, "site.ts:4:7", runtime);
    assert.equal(warn.args[0].message, "outer");
    assert.deepEqual([warn.args[0].cause.name, warn.args[0].cause.message], [
      "TypeError",
      "inner",
    ]);
    assert.match(warn.args[0].stack, /site\.ts:3:/, runtime);
  }
});

Deno.test("logging: what a script prints with console is stored and found by log --grep, under the worker, deno and node", async () => {
  await using box = await logBox();
  await box.write(
    "work/say.ts",
    `export default function main(args: string[]) {
  console.log("printed-" + args[0]);
  console.table([{ a: 1 }]);
}
`,
  );
  for (const runtime of ["worker", "deno", "node"]) {
    const r = await box.mcpx(["run", "--runtime", runtime, "./say.ts", runtime]);
    assert.equal(r.code, 0, `${runtime}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^printed-${runtime}\n`), runtime);
    assert.equal(r.stderr.includes(`printed-${runtime}`), false, `${runtime}: not shown again`);
    const stored = records(box).filter((x) => x.msg === `printed-${runtime}`);
    assert.equal(stored.length, 1, `${runtime}: one stored record`);
    assert.equal(stored[0].console, "log");
    assert.match(String(stored[0].id), /^run-/);
    const found = await box.mcpx(["--json", "log", "--grep", `printed-${runtime}`]);
    assert.equal(found.code, 0, found.stderr);
    const hits = (JSON.parse(found.stdout) as { records: Rec[] }).records;
    assert.deepEqual(hits.map((h) => [h.msg, h.console]), [[`printed-${runtime}`, "log"]]);
  }
});
