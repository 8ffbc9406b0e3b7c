/**
 * Protocol negotiation benchmark: what the default `protocol` costs a call, against `legacy`
 * (the plain 2025 `initialize` handshake), over Streamable HTTP and stdio.
 *
 *     deno run -A bench/protocol.ts [--runs 10] [--warm 50] [--json]
 *
 * For each server and each `protocol`, interleaved round by round:
 * - cold: `connectServer()` (spawn or reach, the handshake: under `prefer-modern` the
 *   `server/discover` probe first) and one `echo` call, from nothing to the result;
 * - warm: one `echo` call on the connection that is already open (the median of `--warm` calls).
 *
 * Servers: server-everything over Streamable HTTP (a 2025 server: the probe buys nothing there),
 * server-everything over stdio (the same), and the SDK v2 fixture over stdio
 * (lib/mcp/testdata/modern_server.ts, which speaks both eras: the probe buys 2026-07-28). The
 * default is `prefer-modern` over HTTP and `legacy` over stdio (lib/config/servers.ts,
 * docs/decisions/2026-12-protocol-default.md); the stdio rows measure `prefer-modern` as the
 * candidate that decision turned down. Ratios are `prefer-modern` over `legacy`, of medians.
 * Each mode is connected once untimed first, so that loading the SDK's client (which `legacy`
 * on stdio never loads) is not in the first cold figure; what that load costs a daemon is in
 * docs/transports.md.
 */
import { parseArgs } from "node:util";
import { connectServer } from "../lib/mcp/connect.ts";
import {
  cacheModern,
  EVERYTHING,
  HAVE_EVERYTHING,
  MODERN,
  spec,
  startHttpEverything,
} from "../lib/mcp/_testing.ts";
import type { ServerSpec } from "../lib/mcp/types.ts";

const MODES = ["legacy", "prefer-modern"] as const;
type Mode = typeof MODES[number];

interface Target {
  label: string;
  /** The default `protocol` for this transport. */
  defaultMode: Mode;
  spec: (protocol: Mode) => ServerSpec;
  args: Record<string, unknown>;
}

interface Row {
  server: string;
  protocol: Mode;
  isDefault: boolean;
  negotiated: string;
  coldMs: number;
  warmMs: number;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function wholeNumber(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} takes a whole number >= 1`);
  return n;
}

const START = { startTimeoutMs: 30_000 };

/** One cold start and call; resolves to its time and the revision the handshake agreed. */
async function cold(target: Target, mode: Mode): Promise<{ ms: number; negotiated: string }> {
  const started = performance.now();
  const conn = await connectServer(target.spec(mode), START);
  try {
    await conn.callTool("echo", target.args, { timeoutMs: 10_000 });
    return { ms: performance.now() - started, negotiated: conn.protocolVersion ?? "?" };
  } finally {
    await conn.close();
  }
}

/** The median of `n` calls on one open connection. */
async function warm(target: Target, mode: Mode, n: number): Promise<number> {
  const conn = await connectServer(target.spec(mode), START);
  try {
    await conn.callTool("echo", target.args, { timeoutMs: 10_000 });
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await conn.callTool("echo", target.args, { timeoutMs: 10_000 });
      samples.push(performance.now() - started);
    }
    return median(samples);
  } finally {
    await conn.close();
  }
}

async function measure(target: Target, runs: number, warmCalls: number): Promise<Row[]> {
  for (const mode of MODES) await cold(target, mode);
  const colds: Record<Mode, number[]> = { legacy: [], "prefer-modern": [] };
  const negotiated: Record<Mode, string> = { legacy: "", "prefer-modern": "" };
  for (let i = 0; i < runs; i++) {
    // Alternate which mode goes first, so neither always meets a warmer machine.
    const order = i % 2 ? [...MODES].reverse() : MODES;
    for (const mode of order) {
      const c = await cold(target, mode);
      colds[mode].push(c.ms);
      negotiated[mode] = c.negotiated;
    }
  }
  const rows: Row[] = [];
  for (const mode of MODES) {
    rows.push({
      server: target.label,
      protocol: mode,
      isDefault: mode === target.defaultMode,
      negotiated: negotiated[mode],
      coldMs: median(colds[mode]),
      warmMs: await warm(target, mode, warmCalls),
    });
  }
  return rows;
}

async function main() {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      runs: { type: "string", default: "10" },
      warm: { type: "string", default: "50" },
      json: { type: "boolean", default: false },
    },
  });
  const runs = wholeNumber("runs", values.runs!);
  const warmCalls = wholeNumber("warm", values.warm!);
  if (!HAVE_EVERYTHING) {
    console.error(
      "bench/protocol.ts needs server-everything: run `npm ci --prefix tests/npm` first",
    );
    Deno.exit(1);
  }
  await cacheModern();
  const http = await startHttpEverything("streamableHttp");
  const rows: Row[] = [];
  try {
    const targets: Target[] = [
      {
        label: "server-everything, Streamable HTTP",
        defaultMode: "prefer-modern",
        spec: (protocol) =>
          spec({ name: "everything", transport: "http", url: http.url, protocol }),
        args: { message: "x" },
      },
      {
        label: "server-everything, stdio",
        defaultMode: "legacy",
        spec: (protocol) => spec({ name: "everything", command: EVERYTHING, protocol }),
        args: { message: "x" },
      },
      {
        label: "SDK v2 fixture (both eras), stdio",
        defaultMode: "legacy",
        spec: (protocol) => spec({ name: "modern", ...MODERN, protocol }),
        args: { text: "x" },
      },
    ];
    for (const target of targets) rows.push(...await measure(target, runs, warmCalls));
  } finally {
    await http[Symbol.asyncDispose]();
  }
  if (values.json) {
    console.log(JSON.stringify({ runs, warmCalls, rows }));
    return;
  }
  console.log(
    `protocol negotiation: cold = connect + first call (median of ${runs}), warm = one call on an open connection (median of ${warmCalls})`,
  );
  const table = [["server", "protocol", "speaks", "cold ms", "warm ms"]];
  for (const r of rows) {
    table.push([
      r.server,
      r.protocol + (r.isDefault ? " (default)" : ""),
      r.negotiated,
      r.coldMs.toFixed(1),
      r.warmMs.toFixed(2),
    ]);
  }
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  for (const row of table) console.log(row.map((c, i) => c.padEnd(widths[i])).join("  "));
  console.log("");
  console.log("ratios, prefer-modern / legacy:");
  for (let i = 0; i < rows.length; i += 2) {
    const [legacy, modern] = [rows[i], rows[i + 1]];
    console.log(
      `  ${legacy.server}: cold ${(modern.coldMs / legacy.coldMs).toFixed(2)}x, warm ${
        (modern.warmMs / legacy.warmMs).toFixed(2)
      }x`,
    );
  }
}

await main();
