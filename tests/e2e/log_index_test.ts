/**
 * `mcpx log` and `mcpx stats` over the index of the real log: a daemon and four scripts writing
 * while `mcpx log` ingests lose no record, `--chain` from a real tool call reaches its instance
 * and the daemon, `-f` shows what another process writes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { alive, daemonLog, Sandbox, until } from "../_helpers.ts";
import { wireRequest } from "../../lib/daemon/wire.ts";

type Rec = Record<string, unknown>;

const BUSY = `export default async function main(args: string[]) {
  for (let i = 0; i < 150; i++) {
    log.info("record {i} of {tag}", { i, tag: args[0], fill: "x".repeat(i * 29) });
    if (i % 30 === 0) await fixture.echo({ text: args[0] + i });
  }
  return args[0];
}
`;

async function box(): Promise<Sandbox> {
  const b = await Sandbox.create();
  await b.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  await b.write("work/busy.ts", BUSY);
  await b.write(
    "work/say.ts",
    `export default function main(args: string[]) { log.info("said {word}", { word: args[0] }); }\n`,
  );
  const refresh = await b.mcpx(["refresh"]);
  assert.equal(refresh.code, 0, refresh.stderr);
  return b;
}

function fileRecords(b: Sandbox): Rec[] {
  const dir = join(b.root, "state", "mcpx", "logs");
  const out: Rec[] = [];
  for (const e of Deno.readDirSync(dir)) {
    if (!e.name.endsWith(".jsonl")) continue;
    for (const l of Deno.readTextFileSync(join(dir, e.name)).split("\n")) {
      if (l.trim()) out.push(JSON.parse(l));
    }
  }
  return out;
}

const key = (r: Rec) => JSON.stringify(r);

Deno.test("log index: a daemon and four scripts writing while mcpx log ingests lose no record", async () => {
  await using b = await box();
  const env = { MCPX_LOGGING_MAX_BYTES: "131072" };
  const readers = (async () => {
    // Ingesting while the runs write: what is read half-written is finished next time.
    for (let i = 0; i < 4; i++) {
      const r = await b.mcpx(["log", "--limit", "1"]);
      assert.equal(r.code, 0, r.stderr);
    }
  })();
  const runs = await Promise.all(
    ["a", "b", "c", "d"].map((tag) => b.mcpx(["run", "./busy.ts", tag], { env })),
  );
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  await readers;
  const listed = await b.mcpx(["--json", "log", "--limit", "1000000"]);
  assert.equal(listed.code, 0, listed.stderr);
  const indexed = (JSON.parse(listed.stdout) as { records: Rec[] }).records;
  const onDisk = fileRecords(b);
  assert.ok(onDisk.length > 600, `${onDisk.length} records`);
  assert.deepEqual(indexed.map(key).sort(), onDisk.map(key).sort());
  for (const tag of ["a", "b", "c", "d"]) {
    assert.equal(indexed.filter((r) => r.tag === tag).length, 150, tag);
  }
  const calls = await b.mcpx(["--json", "stats", "calls"]);
  assert.equal(calls.code, 0, calls.stderr);
  const rows = (JSON.parse(calls.stdout) as { rows: Rec[] }).rows;
  assert.equal(rows.find((r) => r.server === "fixture" && r.tool === "echo")?.calls, 20);
});

Deno.test("log index: --chain from a real tool call reaches its instance and the daemon", async () => {
  await using b = await box();
  const run = await b.mcpx(["run", "./busy.ts", "z"]);
  assert.equal(run.code, 0, run.stderr);
  const slow = await b.mcpx(["--json", "stats", "slowest", "--limit", "1"]);
  assert.equal(slow.code, 0, slow.stderr);
  const [call] = (JSON.parse(slow.stdout) as { rows: Rec[] }).rows;
  assert.match(String(call.id), /^cal-/);
  const res = await b.mcpx(["--json", "log", "--chain", String(call.id)]);
  assert.equal(res.code, 0, res.stderr);
  type Node = { id: string; records: Rec[]; children: Node[] };
  const { chain } = JSON.parse(res.stdout) as { chain: Node[] };
  const ids: string[] = [];
  const walk = (n: Node, path: string[]) => {
    ids.push([...path, n.id].join(">"));
    n.children.forEach((c) => walk(c, [...path, n.id]));
  };
  chain.forEach((n) => walk(n, []));
  assert.equal(chain.length, 1, ids.join(" "));
  assert.match(chain[0].id, /^dmn-/);
  assert.ok(chain[0].records.some((r) => r.event === "daemon.start"));
  assert.ok(ids.some((p) => /^dmn-\w+>ins-\w+$/.test(p)), ids.join(" "));
  assert.ok(ids.some((p) => new RegExp(`^dmn-\\w+>run-\\w+>${call.id}$`).test(p)), ids.join(" "));
  const text = await b.mcpx(["log", "--chain", String(call.id)]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^dmn-\w+\n/);
  assert.match(text.stdout, new RegExp(`\\n    ${call.id}\\n`));

  const missing = await b.mcpx(["log", "--chain", "cal-0000"]);
  assert.equal(missing.code, 5);
  assert.match(missing.stderr, /^mcpx: No record has the id "cal-0000"/);
});

Deno.test("log index: stats instances says why each process stopped, in a few words", async () => {
  await using b = await box();
  const call = await b.mcpx(["call", "fixture.echo", "text=hi"]);
  assert.equal(call.code, 0, call.stderr);
  const restart = await b.mcpx(["restart", "fixture"]);
  assert.equal(restart.code, 0, restart.stderr);
  const res = await b.mcpx(["--json", "stats", "instances"]);
  assert.equal(res.code, 0, res.stderr);
  const whys = (JSON.parse(res.stdout) as { rows: Rec[] }).rows.map((r) => r.why);
  // The reason itself, after the event's last word: not "server.stop: Stopping server instance: …".
  assert.ok(whys.includes("stop: restart"), JSON.stringify(whys));
  assert.ok(!whys.some((w) => String(w).includes("Stopping server instance")), whys.join("; "));
  await b.mcpx(["stop"]);
});

Deno.test("log index: -f shows a record another process writes", async () => {
  await using b = await box();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      join(import.meta.dirname!, "../../deno.json"),
      b.entry,
      "log",
      "-f",
      "--format",
      "json",
    ],
    cwd: join(b.root, "work"),
    env: b.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  const seen: string[] = [];
  try {
    const dec = new TextDecoder();
    let buf = "";
    const deadline = AbortSignal.timeout(60_000);
    const more = async () => {
      const next = await Promise.race([
        reader.read(),
        new Promise<never>((_, no) =>
          deadline.addEventListener("abort", () => no(new Error(`not shown: ${buf}`)), {
            once: true,
          })
        ),
      ]);
      if (next.done) throw new Error(`ended: ${buf}`);
      buf += dec.decode(next.value);
    };
    // First the records already there (the refresh's daemon): -f is following from here on.
    while (!buf.includes("\n")) await more();
    const word = `w${crypto.randomUUID().slice(0, 8)}`;
    assert.ok(!buf.includes(word));
    const said = await b.mcpx(["run", "./say.ts", word]);
    assert.equal(said.code, 0, said.stderr);
    while (!buf.includes(`"said ${word}"`)) await more();
    seen.push(...buf.trim().split("\n"));
    const rec = seen.map((l) => JSON.parse(l) as Rec).find((r) => r.msg === `said ${word}`)!;
    assert.equal(rec.word, word);
    assert.match(String(rec.id), /^run-/);
  } finally {
    child.kill("SIGTERM");
    await reader.cancel().catch(() => {});
    await child.status;
  }
});

Deno.test("log index: the same answers over /v1", async () => {
  await using b = await box();
  const run = await b.mcpx(["run", "./busy.ts", "v"]);
  assert.equal(run.code, 0, run.stderr);
  const health = await b.json<{ socket: string }>(["health"]);
  const token = b.daemonToken(health);
  const ask = async (method: "GET" | "POST", path: string, body?: unknown) => {
    const res = await wireRequest(health.socket, method, path, {
      ...(body === undefined ? {} : { body }),
      headers: { "x-mcpx-token": token },
    });
    return { status: res.status, body: JSON.parse(res.text) };
  };
  const calls = await ask("GET", "/v1/stats?kind=calls");
  assert.equal(calls.status, 200, JSON.stringify(calls.body));
  const cli = await b.json<{ rows: Rec[] }>(["stats", "calls"]);
  assert.deepEqual(calls.body.rows, cli.rows);
  const one = await ask("GET", "/v1/log?event=call.end&limit=1");
  assert.equal(one.status, 200, JSON.stringify(one.body));
  assert.equal(one.body.records.length, 1);
  assert.equal(one.body.records[0].event, "call.end");
  const sql = "SELECT count(*) AS n FROM records WHERE event = 'call.end'";
  const n = await ask("GET", `/v1/log?sql=${encodeURIComponent(sql)}`);
  assert.equal(n.status, 200, JSON.stringify(n.body));
  assert.equal(n.body.rows[0].n, 5);
  const refused = await ask("GET", `/v1/log?sql=${encodeURIComponent("DELETE FROM records")}`);
  assert.equal(refused.status, 400);
  assert.match(JSON.stringify(refused.body), /only a read is run, and it deletes rows/);
});

/** Pids of the sandbox's processes running `mcpx log sql` (the daemon's query processes). */
function sqlProcesses(b: Sandbox): number[] {
  return b.processes().filter((pid) => {
    try {
      const argv = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0");
      const i = argv.indexOf("log");
      return i > 0 && argv[i + 1] === "sql";
    } catch {
      return false;
    }
  });
}

Deno.test("log index: a query over /v1 never holds the daemon, stops when its client goes, and is bounded", async () => {
  await using b = await box();
  const health = await b.json<{ socket: string; pid: number }>(["health"]);
  const token = b.daemonToken(health);
  const headers = { "x-mcpx-token": token };
  // Never ends on its own: before the fix this held the daemon's one thread for good.
  const endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) " +
    "SELECT count(*) AS n FROM c";
  const conn = await Deno.connect({ transport: "unix", path: health.socket });
  await conn.write(
    new TextEncoder().encode(
      `GET /v1/log?sql=${encodeURIComponent(endless)} HTTP/1.1\r\nHost: mcpx\r\n` +
        `x-mcpx-token: ${token}\r\n\r\n`,
    ),
  );
  try {
    // The query runs in a process of its own …
    assert.ok(await until(() => sqlProcesses(b).length === 1), "no query process");
    const [query] = sqlProcesses(b);
    // … while a call is answered by the daemon meanwhile.
    const call = await wireRequest(health.socket, "POST", "/v1/tools/call", {
      body: { server: "fixture", tool: "echo", arguments: { text: "meanwhile" } },
      headers,
    });
    assert.equal(call.status, 200, call.text);
    assert.match(call.text, /meanwhile/);
    assert.ok(alive(query), "the query ended on its own");
    // The client goes: the query is stopped, and the daemon says so.
    conn.close();
    assert.ok(await until(() => !alive(query)), "the query outlived its client");
    const stops = (await daemonLog(b)).filter((r) => r.event === "log.sql_stopped");
    assert.equal(stops.length, 1);
    assert.equal(stops[0].why, "client gone");
  } finally {
    try {
      conn.close();
    } catch { /* closed above */ }
  }
  // Rows are bounded as they are read: an endless list of rows is refused, not collected.
  const rows = await wireRequest(
    health.socket,
    "GET",
    `/v1/log?sql=${
      encodeURIComponent(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c",
      )
    }`,
    { headers },
  );
  assert.equal(rows.status, 400, rows.text);
  assert.match(rows.text, /more than 10000 rows \(logging\.sqlMaxRows\)/);
  // Time is bounded: with logging.sqlTimeout at 1s (the configuration, reloaded in place), the
  // endless count is stopped and the answer says which setting stopped it.
  await b.write("work/.mcpx.json", {
    mcpServers: { fixture: faultyServer() },
    logging: { sqlTimeout: "1s" },
  });
  const slow = await wireRequest(
    health.socket,
    "GET",
    `/v1/log?sql=${encodeURIComponent(endless)}`,
    { headers },
  );
  assert.equal(slow.status, 400, slow.text);
  assert.match(slow.text, /ran longer than 1000 ms \(logging\.sqlTimeout\) and was stopped/);
  assert.equal(sqlProcesses(b).length, 0);
  const after = await b.json<{ pid: number }>(["health"]);
  assert.equal(after.pid, health.pid);
});
