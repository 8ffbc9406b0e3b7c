/**
 * What a script's `log` costs per call, in microseconds: a `log.debug` below the threshold, an
 * emitted `log.info` (the record built, encoded and handed to a write, as the launcher does
 * behind U+001E), and a traced `log.warn` (the same plus its call site from a stack trace).
 * Medians over batches of a large loop. The reference measured 0.026 / 0.10 / 5 µs.
 *
 *     deno run -A bench/logging.ts [--calls 100000] [--batches 21]
 */
import { createLogger } from "../launcher/log.ts";
import { siteText, userFrame } from "../launcher/failure.ts";
import { errorFrames, installStackTraces, isRuntimeFrame } from "../launcher/frames.ts";
import { RECORD_MARK } from "../launcher/protocol.ts";

function flag(name: string, fallback: number): number {
  const i = Deno.args.indexOf(`--${name}`);
  const n = i >= 0 ? Number(Deno.args[i + 1]) : fallback;
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} takes a whole number >= 1`);
  return n;
}

const CALLS = flag("calls", 100_000);
const BATCHES = flag("batches", 21);
const here = new URL(import.meta.url).pathname;
const launcherDir = new URL("../launcher", import.meta.url).pathname;

// What the launcher's write does, minus the write(2) itself: one line behind the record mark.
let bytes = 0;
let last: Record<string, unknown> = {};
const write = (line: Record<string, unknown>) => {
  bytes += (RECORD_MARK + JSON.stringify(line) + "\n").length;
  last = line;
};
// The frames hook the launcher installs, and its call site, as launcher/runtime.ts has them.
installStackTraces({ hide: (f) => isRuntimeFrame(f) || f.file!.startsWith(launcherDir + "/") });
const log = createLogger({
  write,
  level: "info",
  source: "warn",
  inspect: (v) => Deno.inspect(v),
  callSite: (sites) => siteText(sites, { script: here, launcherDir }),
});

// Baselines measured in the same run, so that figures taken under different load compare as
// ratios: an empty call, JSON.stringify of a record-sized object, and the call site read the way
// the launcher read it before (the stack captured two deep and rendered through the frames hook).
const noop = (_i: number) => {};
let sink = 0;
const small = (i: number) => {
  sink += JSON.stringify({
    ts: "2026-01-01T00:00:00.000Z",
    level: "info",
    msg: "fetched 3 pages",
    template: "fetched {count} pages",
    count: i,
    url: "u",
  }).length;
};
const E = Error as unknown as { stackTraceLimit: number };
const hooked = () => {
  const limit = E.stackTraceLimit;
  E.stackTraceLimit = 2;
  const holder = {};
  Error.captureStackTrace(holder, hooked);
  E.stackTraceLimit = limit;
  const at = userFrame(errorFrames(holder), { script: here, launcherDir });
  sink += at?.line ?? 0;
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Microseconds per call of `body`: the median over batches, and the least disturbed batch. */
function measure(calls: number, body: (i: number) => void): [number, number] {
  for (let i = 0; i < Math.min(calls, 20_000); i++) body(i); // warm up
  const per: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) body(i);
    per.push(((performance.now() - t0) * 1000) / calls);
  }
  return [median(per), Math.min(...per)];
}

const filtered = measure(CALLS, (i) => log.debug("state {i}", { i }));
const emitted = measure(CALLS, (i) => log.info("fetched {count} pages", { count: i, url: "u" }));
const traced = measure(Math.max(1, Math.floor(CALLS / 20)), (i) => log.warn("slow {i}", { i }));
// The baselines come after the logger's rows, so that those are measured first, as they always
// were (a later body finds measure() already compiled for other bodies).
const empty = measure(CALLS, noop);
const stringify = measure(CALLS, small);
const viaHook = measure(Math.max(1, Math.floor(CALLS / 20)), hooked);
if (sink === 0) throw new Error("the baselines did nothing");
if (bytes === 0) throw new Error("nothing was written");
if (!/logging\.ts:\d+:\d+$/.test(String(last.source))) {
  throw new Error(`the traced record has no call site here: ${last.source}`);
}

const rows: [string, [number, number], number | string][] = [
  ["filtered log.debug", filtered, 0.026],
  ["emitted log.info", emitted, 0.10],
  ["traced log.warn", traced, 5],
  ["baseline: empty call", empty, "-"],
  ["baseline: stringify", stringify, "-"],
  ["site via frames hook", viaHook, "-"],
];
console.log(
  `logging: µs per call, median of ${BATCHES} batches (${CALLS} calls; traced ${
    Math.max(1, Math.floor(CALLS / 20))
  })`,
);
console.log("call                   median µs   best batch µs   reference µs");
for (const [name, [us, best], ref] of rows) {
  console.log(
    `${name.padEnd(22)} ${us.toFixed(4).padStart(9)}   ${best.toFixed(4).padStart(13)}   ${ref}`,
  );
}
const ratio = (a: [number, number], b: [number, number]) => (a[0] / b[0]).toFixed(2);
console.log(
  `ratios (medians): emitted log.info / stringify ${ratio(emitted, stringify)}; traced log.warn /` +
    ` emitted log.info ${ratio(traced, emitted)}; site via frames hook / traced log.warn ${
      ratio(viaHook, traced)
    }`,
);
