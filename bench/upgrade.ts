/**
 * Calls during a zero-downtime upgrade (docs/daemon.md, "Upgrading without a restart"): four
 * sessions call a stateful server (tests/fixtures/servers/faulty.ts `bump`) over the daemon's
 * socket as fast as they can while `mcpx daemon upgrade` runs. Each call is put in the window it
 * started in: before the upgrade, during it (from the command's start to its end), after it.
 * Printed: p50 and p99 of each window, the ratio of each to "before", failed calls, whether every
 * session's counter went on without a gap, and the handoff's duration (the daemon's own figure,
 * and the command's wall time).
 *
 *     deno run -A bench/upgrade.ts [--upgrades 5] [--window 2000]
 *
 * The inline rung's cost per command against the socket rung is bench/inline.ts.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { TOKEN_HEADER } from "../lib/daemon/guard.ts";
import { CALLER_HEADER, encodeCaller, wireRequest } from "../lib/daemon/wire.ts";
import {
  ENTRY,
  formatTable,
  interruptible,
  makeIsolated,
  mcpxArgs,
  median,
  percentile,
  runDeno,
  teardown,
  wholeNumber,
} from "./_shared.ts";
import { faultyServer } from "../tests/fixtures/servers.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    upgrades: { type: "string", default: "5" },
    window: { type: "string", default: "2000" },
  },
});
const upgrades = wholeNumber("--upgrades", values.upgrades!, 1);
const windowMs = wholeNumber("--window", values.window!, 100);

const iso = await makeIsolated("mcpx-bench-upgrade-");
const work = join(iso.root, "work");
await Deno.mkdir(work, { recursive: true });
const server = { ...faultyServer(["--bump"]), mcpx: { scope: "session" } };
await Deno.writeTextFile(join(work, ".mcpx.json"), JSON.stringify({ mcpServers: { c: server } }));

interface Sample {
  at: number;
  ms: number;
  ok: boolean;
}

await interruptible(() => teardown(iso.root, iso.env), async (stopIfInterrupted, cleanup) => {
  const health = JSON.parse(await runDeno(mcpxArgs(["--json", "start"]), work, iso.env));
  // The token sits beside the socket: daemons/<short>.sock and daemons/<short>.token.
  const tokenFile = health.socket.replace(/\.sock$/, ".token");
  const token = (await Deno.readTextFile(tokenFile)).trim();
  const sessions = ["s1", "s2", "s3", "s4"];
  const samples: Sample[] = [];
  const counters = new Map<string, number[]>(sessions.map((s) => [s, []]));
  const failures: string[] = [];
  let stop = false;
  const loop = async (session: string) => {
    const headers = {
      [TOKEN_HEADER]: token,
      [CALLER_HEADER]: encodeCaller({ cwd: work, pid: Deno.pid, session }),
    };
    while (!stop) {
      const at = performance.now();
      let ok = false;
      try {
        const res = await wireRequest(health.socket, "POST", "/v1/call/c/bump", {
          body: {},
          headers,
          timeoutMs: 60_000,
        });
        if (res.status === 200) {
          counters.get(session)!.push(Number(JSON.parse(res.text).result));
          ok = true;
        } else failures.push(`${session}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
      } catch (e) {
        failures.push(`${session}: ${e instanceof Error ? e.message : String(e)}`);
      }
      samples.push({ at, ms: performance.now() - at, ok });
    }
  };
  const loops = sessions.map(loop);
  const windows: { before: number[]; during: number[]; after: number[] } = {
    before: [],
    during: [],
    after: [],
  };
  const handoffMs: number[] = [];
  const commandMs: number[] = [];
  try {
    await new Promise((r) => setTimeout(r, 1000)); // every session's process started, warm
    for (let i = 0; i < upgrades; i++) {
      stopIfInterrupted();
      const from = performance.now();
      await new Promise((r) => setTimeout(r, windowMs));
      const start = performance.now();
      const out = JSON.parse(
        await runDeno(mcpxArgs(["--json", "daemon", "upgrade"]), work, iso.env),
      );
      const end = performance.now();
      if (!out.upgraded) throw new Error(`upgrade ${i + 1}: ${JSON.stringify(out)}`);
      handoffMs.push(out.durationMs);
      commandMs.push(end - start);
      await new Promise((r) => setTimeout(r, windowMs));
      for (const s of samples) {
        if (s.at < from || !s.ok) continue;
        if (s.at < start) windows.before.push(s.ms);
        else if (s.at < end) windows.during.push(s.ms);
        else if (s.at < end + windowMs) windows.after.push(s.ms);
      }
      samples.length = 0;
    }
  } finally {
    stop = true;
    await Promise.all(loops);
  }
  const gapless = sessions.every((s) => counters.get(s)!.every((v, i) => v === i + 1));
  const calls = sessions.reduce((n, s) => n + counters.get(s)!.length, 0);
  const base = { p50: percentile(windows.before, 0.5), p99: percentile(windows.before, 0.99) };
  const row = (name: string, xs: number[]) => {
    const p50 = percentile(xs, 0.5), p99 = percentile(xs, 0.99);
    return [
      name,
      String(xs.length),
      `${p50.toFixed(2)} ms`,
      `${p99.toFixed(2)} ms`,
      `${(p50 / base.p50).toFixed(2)}×`,
      `${(p99 / base.p99).toFixed(2)}×`,
    ];
  };
  console.log(
    `calls during an upgrade: 4 sessions, ${upgrades} upgrades, ${windowMs} ms windows (${ENTRY})\n`,
  );
  console.log(formatTable([
    ["window", "calls", "p50", "p99", "p50 vs before", "p99 vs before"],
    row("before the upgrade", windows.before),
    row("during it", windows.during),
    row("after it", windows.after),
  ]));
  console.log(
    `\nhandoff (the daemon's durationMs): median ${median(handoffMs).toFixed(0)} ms, max ${
      Math.max(...handoffMs).toFixed(0)
    } ms; \`mcpx daemon upgrade\` wall time: median ${median(commandMs).toFixed(0)} ms`,
  );
  console.log(
    `calls: ${calls}, failed: ${failures.length}, every counter gapless: ${gapless ? "yes" : "NO"}`,
  );
  for (const f of failures.slice(0, 5)) console.log(`  ${f}`);
  const left = await cleanup();
  if (left.length > 0) console.log(`left running after the bench: ${left.join(", ")}`);
  if (failures.length > 0 || !gapless) Deno.exitCode = 1;
});
