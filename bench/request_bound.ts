/**
 * The daemon's memory against oversized requests (docs/security.md): its resident size at start,
 * then its peak (VmHWM) after a body within daemon.maxRequestBytes and after 100 MB bodies it
 * refuses (declared with Content-Length, and chunked), read from /proc. Then what the checks a
 * command makes before each request (lib/daemon/guard.ts: the socket and the folders above it,
 * the token file) cost, in process: the median of 20 batches of 500.
 *
 *     deno run -A bench/request_bound.ts
 */
import { join } from "node:path";
import { checkSocket, readToken, TOKEN_HEADER } from "../lib/daemon/guard.ts";
import {
  formatTable,
  interruptible,
  makeIsolated,
  mcpxArgs,
  median,
  runDeno,
  teardown,
} from "./_shared.ts";

const MB = 1 << 20;

function memory(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(new RegExp(`^${field}:\\s*(\\d+) kB`, "m").exec(status)![1]) * 1024;
}

/** Posts `total` bytes as the body of one request; resolves to the answer's status. */
async function post(
  socket: string,
  token: string,
  total: number,
  framing: "length" | "chunked",
): Promise<number> {
  const conn = await Deno.connect({ transport: "unix", path: socket });
  const enc = new TextEncoder();
  const reading = (async () => {
    const buf = new Uint8Array(65536);
    let text = "";
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) return text;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
  })();
  // A JSON object with one string field, so that a body within the bound reaches the operation.
  const open = enc.encode('{"text":"');
  const close = enc.encode('"}');
  const filler = new Uint8Array(MB).fill(0x61);
  const pieces: Uint8Array[] = [open];
  for (let n = open.length + close.length; n < total; n += MB) {
    pieces.push(filler.subarray(0, Math.min(MB, total - n)));
  }
  pieces.push(close);
  const length = pieces.reduce((n, p) => n + p.length, 0);
  try {
    await conn.write(enc.encode(
      `POST /v1/call/echo/echo HTTP/1.1\r\nhost: mcpx\r\nconnection: close\r\n` +
        `content-type: application/json\r\n${TOKEN_HEADER}: ${token}\r\n` +
        (framing === "length"
          ? `content-length: ${length}\r\n\r\n`
          : "transfer-encoding: chunked\r\n\r\n"),
    ));
    for (const piece of pieces) {
      const frames = framing === "length"
        ? [piece]
        : [enc.encode(`${piece.length.toString(16)}\r\n`), piece, enc.encode("\r\n")];
      for (const f of frames) for (let w = 0; w < f.length;) w += await conn.write(f.subarray(w));
    }
    if (framing === "chunked") await conn.write(enc.encode("0\r\n\r\n"));
  } catch { /* answered and closed before the whole body was sent */ }
  const text = await reading;
  try {
    conn.close();
  } catch { /* closed */ }
  return Number(text.split(" ")[1]);
}

const base = await makeIsolated("mcpx-bench-bound-");
const project = join(base.root, "project");
await Deno.mkdir(project);
await Deno.writeTextFile(
  join(project, ".mcpx.json"),
  JSON.stringify({ mcpServers: { echo: { command: "true" } } }),
);
await interruptible(() => teardown(base.root, base.env), async (stopIfInterrupted, cleanup) => {
  const health = JSON.parse(await runDeno(mcpxArgs(["--json", "start"]), project, base.env));
  // No token file: a daemon from before tokens (the figures of an older checkout, for comparison).
  // The token beside the socket (`<key>.sock` → `<key>.token`).
  const tokenFile = health.socket.replace(/\.sock$/, ".token");
  const token = (await Deno.readTextFile(tokenFile).catch(() => "")).trim();
  const rows = [["step", "status", "daemon VmRSS MB", "daemon peak (VmHWM) MB", "peak / start"]];
  const start = memory(health.pid, "VmRSS");
  const row = (step: string, status: string) => {
    const peak = memory(health.pid, "VmHWM");
    rows.push([
      step,
      status,
      (memory(health.pid, "VmRSS") / MB).toFixed(1),
      (peak / MB).toFixed(1),
      (peak / start).toFixed(2),
    ]);
  };
  row("at start", "-");
  for (
    const [step, size, framing] of [
      ["10 MB body (within the bound)", 10 * MB, "length"],
      ["100 MB body, Content-Length", 100 * MB, "length"],
      ["100 MB body, chunked", 100 * MB, "chunked"],
    ] as const
  ) {
    stopIfInterrupted();
    row(step, String(await post(health.socket, token, size, framing)));
  }
  console.log(`daemon.maxRequestBytes = 16 MiB (default)\n${formatTable(rows)}`);
  const batches: number[] = [];
  for (let b = 0; b < 20; b++) {
    const start = performance.now();
    for (let i = 0; i < 500; i++) {
      checkSocket(health.socket, { fallback: false });
      readToken(tokenFile);
    }
    batches.push((performance.now() - start) / 500);
  }
  console.log(
    `checks before each request (socket, folders above it, token file): median ${
      (median(batches) * 1000).toFixed(1)
    } µs`,
  );
  for (const p of await cleanup()) console.error(p);
});
