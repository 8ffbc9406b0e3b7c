/**
 * Discovery benchmark: what `mcpx ls`, `search`, `types` and `catalog` cost an agent, in tokens
 * and in wall-clock time, against four real servers (server-everything, server-filesystem,
 * server-memory and chrome-devtools-mcp), and proof that none of them starts a server.
 *
 *     deno run -A bench/discovery.ts [--runs 20] [--json]
 *
 * 1. Tokens, by the documented estimator (`estimateTokens`: UTF-8 bytes / 4, rounded up), of the
 *    human output an agent reads. `mcpx types <ns>` is set against the raw `tools/list` JSON of
 *    the same server, fetched here straight from the server over stdio (see {@linkcode rawTools}),
 *    beside the share of that JSON which is description text (which `mcpx types <ns>` cuts to
 *    first paragraphs or sentences; bench/context.ts prints what that saves) and the
 *    declarations' ratio with no layout at all.
 * 2. Whole process: `mcpx ls`, `mcpx search screenshot click` and `mcpx types chrome_devtools`
 *    with no daemon running, then again with a warm daemon, each batch interleaved with `deno run`
 *    of an empty module (as bench/startup.ts does); `--runs` rounds after 3 untimed ones.
 * 3. Server processes: /proc is scanned before and after each batch, after every timed run and
 *    throughout one more (untimed) run of each command, for processes of this run's HOME whose
 *    command line is one of the four servers (or Chromium). Any count above 0 is a failure: these
 *    commands answer from the schema cache. Daemons are counted too: none may appear in the
 *    no-daemon batch, and the warm batch keeps exactly its one.
 *
 * The cache is filled once, untimed, by `mcpx refresh`, and its daemon stopped.
 */
import { rawToolsList } from "../tests/fixtures/raw_tools_list.ts";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { estimateTokens } from "../lib/codegen/catalog.ts";
import { functionNames, toNamespace } from "../lib/names.ts";
import { npmServer } from "../tests/_helpers.ts";
import { chromeServerConfig } from "../tests/fixtures/chrome.ts";
import {
  emptyArgs,
  ENTRY,
  formatTable,
  interruptible,
  type Isolated,
  makeIsolated,
  mcpxArgs,
  median,
  percentile,
  processesOf,
  runDeno,
  teardown,
  timeRun,
  wholeNumber,
} from "./_shared.ts";

/** Untimed rounds of each timing batch before the timed ones. */
const WARMUP_ROUNDS = 3;
const CATALOG_BUDGET = 2000;
/** `mcpx types <ns>` should take at most this share of the raw `tools/list` JSON's tokens. */
const TYPES_RATIO_TARGET = 0.6;
const SEARCHES = [["screenshot", "click"], ["file"]];
/** How long one server may take to answer `initialize` and `tools/list` when fetched directly. */
const RAW_TIMEOUT_MS = 30_000;

interface Options {
  runs: number;
  json: boolean;
}

function options(): Options {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      runs: { type: "string", default: "20" },
      json: { type: "boolean", default: false },
    },
  });
  return { runs: wholeNumber("runs", values.runs, 1), json: values.json };
}

/** A server entry of the configuration, as written to `.mcpx.json`. */
interface ServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** The isolated user, its project and the four servers its configuration names. */
interface Environment extends Isolated {
  project: string;
  /** Configuration key → entry. */
  servers: Record<string, ServerEntry>;
}

async function makeEnvironment(): Promise<Environment> {
  const isolated = await makeIsolated("mcpx-bench-discovery-");
  const project = join(isolated.root, "project");
  const files = join(isolated.root, "files");
  await Deno.mkdir(project);
  await Deno.mkdir(files);
  const servers: Record<string, ServerEntry> = {
    everything: npmServer("server-everything"),
    filesystem: npmServer("server-filesystem", [files]),
    memory: {
      ...npmServer("server-memory"),
      env: { MEMORY_FILE_PATH: join(isolated.root, "memory.jsonl") },
    },
    "chrome-devtools": chromeServerConfig(),
  };
  await Deno.writeTextFile(
    join(project, ".mcpx.json"),
    JSON.stringify({ mcpServers: servers }, null, 2),
  );
  return { ...isolated, project, servers };
}

const mcpx = (e: Environment, args: string[]) => runDeno(mcpxArgs(args), e.project, e.env);
const mcpxJson = async <T>(e: Environment, args: string[]) =>
  JSON.parse(await mcpx(e, ["--json", ...args])) as T;

// --- Server processes ----------------------------------------------------------------------------

const SERVER_ARG = /server-everything|server-filesystem|server-memory|chrome-devtools-mcp/;

/** This run's processes, by kind: MCP servers (and Chromium) and mcpx daemons. */
function scan(e: Environment): { servers: number[]; daemons: number[] } {
  const servers: number[] = [];
  const daemons: number[] = [];
  for (const pid of processesOf(e.root)) {
    let argv: string[];
    try {
      argv = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0").filter((a) => a !== "");
    } catch {
      continue; // gone
    }
    if (argv.length === 0) continue; // a zombie: it has no command line left
    if (argv.some((a) => SERVER_ARG.test(a)) || /^chrom(e|ium)/.test(basename(argv[0]))) {
      servers.push(pid);
    } else if (argv.at(-1) === "daemon") daemons.push(pid);
  }
  return { servers, daemons };
}

/** Waits up to `ms` for this run's server processes to be gone; resolves to those left. */
async function serversGone(e: Environment, ms = 10_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = scan(e).servers;
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = scan(e).servers;
  }
  return left;
}

// --- 1. Tokens -----------------------------------------------------------------------------------

/**
 * A server's `tools/list`, asked for directly: spawned with its configuration entry (its `env`
 * over the isolated one, in the project), then `initialize` (no client capabilities, as mcpx
 * declares none) → `notifications/initialized` → `tools/list` (every page) over newline-delimited
 * JSON-RPC on stdio, as tests/testdata/codegen/capture.ts does. Tools are sorted by name, also as
 * there, so the figure is the one docs/codegen.md tabulates.
 */
async function rawTools(e: Environment, key: string): Promise<{ name: string }[]> {
  const server = e.servers[key];
  return await rawToolsList(key, server.command, {
    args: server.args,
    cwd: e.project,
    env: { ...e.env, ...server.env },
    clearEnv: true,
    timeoutMs: RAW_TIMEOUT_MS,
  });
}

interface Piece {
  /** A namespace, or a search hit's function. */
  name: string;
  tokens: number;
}

interface Listing {
  command: string;
  tokens: number;
  /** One per table row: the row's line (with its newline). */
  rows: Piece[];
  /** Search only: whether every word matched (`all`) or only some (`any`). */
  mode?: string;
}

interface TypesRow {
  namespace: string;
  tools: number;
  rawJsonTokens: number;
  typesTokens: number;
  ratio: number;
  met: boolean;
  /** The share of the raw JSON's bytes that are description text (tools' and schemas'). */
  descriptionShare: number;
  /** `mcpx types` with no layout (each line trimmed, the lines joined by one space) vs the raw. */
  unlaidRatio: number;
}

/** UTF-8 bytes of every `description` string in `value`, at any depth. */
function descriptionBytes(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + descriptionBytes(v), 0);
  if (value === null || typeof value !== "object") return 0;
  let n = 0;
  for (const [key, v] of Object.entries(value)) {
    n += key === "description" && typeof v === "string"
      ? new TextEncoder().encode(v).length
      : descriptionBytes(v);
  }
  return n;
}

interface Tokens {
  ls: Listing;
  searches: Listing[];
  types: TypesRow[];
  typesTotal: { rawJsonTokens: number; typesTokens: number; ratio: number };
  oneTool: { command: string; tokens: number };
  catalog: { command: string; tokens: number; reportedTokens: number; budget: number };
}

/** The token cost of each named row of a table: the line whose first column is the name. */
function rowTokens(command: string, text: string, names: string[]): Piece[] {
  const lines = text.split("\n");
  return names.map((name) => {
    const line = lines.find((l) => l.split(/\s+/, 1)[0] === name);
    if (line === undefined) throw new Error(`\`${command}\` printed no row for ${name}:\n${text}`);
    return { name, tokens: estimateTokens(line + "\n") };
  });
}

async function tokens(e: Environment, problems: string[]): Promise<Tokens> {
  const lsText = await mcpx(e, ["ls"]);
  const lsJson = await mcpxJson<{ namespaces: { namespace: string; tools: number | null }[] }>(
    e,
    ["ls"],
  );
  const namespaces = lsJson.namespaces.map((n) => n.namespace);
  const ls: Listing = {
    command: "mcpx ls",
    tokens: estimateTokens(lsText),
    rows: rowTokens("mcpx ls", lsText, namespaces),
  };

  const searches: Listing[] = [];
  for (const words of SEARCHES) {
    const command = `mcpx search ${words.join(" ")}`;
    const text = await mcpx(e, ["search", ...words]);
    const out = await mcpxJson<{ mode: string; hits: { fn: string }[] }>(e, ["search", ...words]);
    searches.push({
      command,
      tokens: estimateTokens(text),
      rows: rowTokens(command, text, out.hits.map((h) => h.fn)),
      mode: out.mode,
    });
  }

  const types: TypesRow[] = [];
  for (const key of Object.keys(e.servers)) {
    const ns = toNamespace(key);
    const raw = await rawTools(e, key);
    // The cache must hold the same tools the server lists, or the comparison means nothing.
    const viaMcpx = await mcpxJson<{ document: { tools: { name: string }[] } }>(
      e,
      ["schema", "--format", "mcp", ns],
    );
    const cachedNames = viaMcpx.document.tools.map((t) => t.name.slice(ns.length + 1)).sort();
    const fns = functionNames(raw);
    const rawNames = raw.map((t) => fns.get(t.name)!).sort();
    if (JSON.stringify(cachedNames) !== JSON.stringify(rawNames)) {
      problems.push(
        `${ns}: the server lists ${rawNames.join(",")} but mcpx's cache ${cachedNames.join(",")}`,
      );
    }
    const rawJson = JSON.stringify(raw);
    const rawJsonTokens = estimateTokens(rawJson);
    const declarations = await mcpx(e, ["types", ns]);
    const typesTokens = estimateTokens(declarations);
    const ratio = typesTokens / rawJsonTokens;
    const unlaid = declarations.split("\n").map((l) => l.trim()).filter(Boolean).join(" ");
    types.push({
      namespace: ns,
      tools: raw.length,
      rawJsonTokens,
      typesTokens,
      ratio,
      met: ratio <= TYPES_RATIO_TARGET,
      descriptionShare: descriptionBytes(raw) / new TextEncoder().encode(rawJson).length,
      unlaidRatio: estimateTokens(unlaid) / rawJsonTokens,
    });
  }
  // The direct fetches above were this run's own servers: let them go before anything is counted.
  const left = await serversGone(e);
  if (left.length) problems.push(`servers fetched directly still running: ${left.join(", ")}`);
  const rawSum = types.reduce((n, t) => n + t.rawJsonTokens, 0);
  const typesSum = types.reduce((n, t) => n + t.typesTokens, 0);

  const oneTool = {
    command: "mcpx types chrome_devtools.click",
    tokens: estimateTokens(await mcpx(e, ["types", "chrome_devtools.click"])),
  };

  const budgetArgs = ["catalog", "--budget", String(CATALOG_BUDGET)];
  const catalogText = await mcpx(e, budgetArgs);
  const catalogJson = await mcpxJson<{ tokens: number }>(e, budgetArgs);
  const catalog = {
    command: `mcpx ${budgetArgs.join(" ")}`,
    tokens: estimateTokens(catalogText),
    reportedTokens: catalogJson.tokens,
    budget: CATALOG_BUDGET,
  };
  if (catalog.tokens > CATALOG_BUDGET || catalog.reportedTokens > CATALOG_BUDGET) {
    problems.push(
      `${catalog.command} is ${catalog.tokens} tokens (it reports ${catalog.reportedTokens}), over ${CATALOG_BUDGET}`,
    );
  }

  return {
    ls,
    searches,
    types,
    typesTotal: { rawJsonTokens: rawSum, typesTokens: typesSum, ratio: typesSum / rawSum },
    oneTool,
    catalog,
  };
}

// --- 2. Whole process, 3. server processes ------------------------------------------------------

interface TimedCase {
  name: string;
  /** Arguments to the deno binary. */
  args: string[];
  cwd: string;
  maxRatio?: number;
  aimRatio?: number;
}

interface TimedRow {
  name: string;
  medianMs: number;
  p90Ms: number;
  minMs: number;
  ratio: number;
  target?: { text: string; met: boolean };
  samplesMs: number[];
}

interface ProcessCheck {
  /**
   * Server processes of this run before the batch; the most seen after any timed run or while
   * one more run of each command was watched; after it.
   */
  serversBefore: number;
  serversMaxDuring: number;
  serversAfter: number;
  /** mcpx daemons of this run, the same three ways. */
  daemonsBefore: number;
  daemonsMaxDuring: number;
  daemonsAfter: number;
}

interface Batch {
  name: string;
  baselineMedianMs: number;
  rows: TimedRow[];
  processes: ProcessCheck;
}

function timedCases(e: Environment, suffix: string): TimedCase[] {
  return [
    { name: "empty deno run (baseline)", args: emptyArgs(e.root), cwd: e.root },
    {
      name: `mcpx ls${suffix}`,
      args: mcpxArgs(["ls"]),
      cwd: e.project,
      maxRatio: 1.5,
      aimRatio: 1.2,
    },
    {
      name: `mcpx search screenshot click${suffix}`,
      args: mcpxArgs(["search", "screenshot", "click"]),
      cwd: e.project,
      maxRatio: 2.0,
    },
    {
      name: `mcpx types chrome_devtools${suffix}`,
      args: mcpxArgs(["types", "chrome_devtools"]),
      cwd: e.project,
      maxRatio: 2.0,
    },
  ];
}

async function batch(
  e: Environment,
  opts: Options,
  name: string,
  all: TimedCase[],
  stopIfInterrupted: () => void,
): Promise<Batch> {
  const before = scan(e);
  let serversMax = 0;
  let daemonsMax = 0;
  const samples = all.map(() => [] as number[]);
  // Round-robin: every round runs each case once, so machine noise lands on all of them alike.
  for (let round = 0; round < WARMUP_ROUNDS + opts.runs; round++) {
    for (const [i, c] of all.entries()) {
      stopIfInterrupted();
      const ms = await timeRun(c.args, c.cwd, e.env);
      if (round >= WARMUP_ROUNDS) samples[i].push(ms);
      const now = scan(e);
      serversMax = Math.max(serversMax, now.servers.length);
      daemonsMax = Math.max(daemonsMax, now.daemons.length);
    }
  }
  // A server that a command started and took down with it would be gone before the scan after
  // the run: once more each, untimed, with /proc watched for as long as the command runs.
  for (const c of all.slice(1)) {
    stopIfInterrupted();
    const seen = await watchRun(e, c);
    serversMax = Math.max(serversMax, seen.servers);
    daemonsMax = Math.max(daemonsMax, seen.daemons);
  }
  const after = scan(e);
  const base = median(samples[0]);
  const rows = all.map((c, i): TimedRow => {
    const s = samples[i];
    const medianMs = median(s);
    const ratio = medianMs / base;
    const aim = c.aimRatio === undefined ? "" : ` (aim ${c.aimRatio.toFixed(1)}x)`;
    return {
      name: c.name,
      medianMs,
      p90Ms: percentile(s, 0.9),
      minMs: Math.min(...s),
      ratio,
      target: c.maxRatio === undefined
        ? undefined
        : { text: `<= ${c.maxRatio.toFixed(1)}x empty${aim}`, met: ratio <= c.maxRatio },
      samplesMs: s,
    };
  });
  return {
    name,
    baselineMedianMs: base,
    rows,
    processes: {
      serversBefore: before.servers.length,
      serversMaxDuring: serversMax,
      serversAfter: after.servers.length,
      daemonsBefore: before.daemons.length,
      daemonsMaxDuring: daemonsMax,
      daemonsAfter: after.daemons.length,
    },
  };
}

/** Runs a case once, scanning /proc until it exits; resolves to the most processes seen at once. */
async function watchRun(
  e: Environment,
  c: TimedCase,
): Promise<{ servers: number; daemons: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: c.args,
    cwd: c.cwd,
    env: e.env,
    clearEnv: true,
    stdout: "null",
    stderr: "null",
  }).spawn();
  let done = false;
  const status = child.status.finally(() => void (done = true));
  let servers = 0;
  let daemons = 0;
  while (!done) {
    const now = scan(e);
    servers = Math.max(servers, now.servers.length);
    daemons = Math.max(daemons, now.daemons.length);
    await new Promise((r) => setTimeout(r, 1));
  }
  if (!(await status).success) throw new Error(`${c.name} failed while watched`);
  return { servers, daemons };
}

/** What a batch's process counts must show; empty when they hold. */
function processProblems(b: Batch, daemons: number): string[] {
  const p = b.processes;
  const problems: string[] = [];
  if (p.serversBefore || p.serversMaxDuring || p.serversAfter) {
    problems.push(
      `${b.name}: server processes before/during/after: ${p.serversBefore}/${p.serversMaxDuring}/${p.serversAfter}, not 0`,
    );
  }
  if (p.daemonsBefore !== daemons || p.daemonsMaxDuring !== daemons || p.daemonsAfter !== daemons) {
    problems.push(
      `${b.name}: daemons before/during/after: ${p.daemonsBefore}/${p.daemonsMaxDuring}/${p.daemonsAfter}, not ${daemons}`,
    );
  }
  return problems;
}

// --- Report --------------------------------------------------------------------------------------

function report(
  opts: Options,
  t: Tokens,
  batches: Batch[],
  control: number,
  problems: string[],
): void {
  if (opts.json) {
    console.log(JSON.stringify(
      {
        runs: opts.runs,
        warmup: WARMUP_ROUNDS,
        deno: Deno.version.deno,
        estimator: "estimateTokens: ceil(utf8 bytes / 4)",
        rawJson: "JSON.stringify of tools/list's tools, fetched from each server over stdio",
        tokens: t,
        batches,
        controlServers: control,
        problems,
      },
      null,
      2,
    ));
    return;
  }
  const ratio = (r: number) => `${Math.round(r * 100)}%`;
  const ms1 = (n: number) => n.toFixed(1);
  console.log(
    `runs: ${opts.runs} (+${WARMUP_ROUNDS} warmup), deno ${Deno.version.deno}, ${ENTRY}, servers: ${
      t.types.map((r) => `${r.namespace} ${r.tools}`).join(", ")
    } tools; tokens = ceil(UTF-8 bytes / 4) of the human output`,
  );

  console.log(`\n1. tokens`);
  for (const l of [t.ls, ...t.searches]) {
    const rest = l.tokens - l.rows.reduce((n, r) => n + r.tokens, 0);
    const mode = l.mode === undefined
      ? ""
      : l.mode === "all"
      ? ", every word matched"
      : ", no tool matched every word";
    console.log(
      `\n${l.command}: ${l.tokens} tokens, ${l.rows.length} ${
        l.mode === undefined ? "rows" : "hits"
      }${mode}; header and footer ~${rest}`,
    );
    console.log(formatTable([
      [l.mode === undefined ? "namespace" : "hit", "tokens", ""],
      ...l.rows.map((r) => [r.name, String(r.tokens), ""]),
    ]));
  }
  console.log(
    `\nmcpx types <ns> vs the raw tools/list JSON (JSON.stringify of the tools, each server asked ` +
      `directly over stdio; same tools as mcpx's cache); descriptions: the share of the raw ` +
      `JSON that is description text; no_layout: the declarations with every line trimmed and ` +
      `joined by one space, vs the raw`,
  );
  console.log(formatTable([
    ["namespace", "tools", "raw_json", "types", "ratio", "target", "descriptions", "no_layout"],
    ...t.types.map((r) => [
      r.namespace,
      String(r.tools),
      String(r.rawJsonTokens),
      String(r.typesTokens),
      ratio(r.ratio),
      `<= ${ratio(TYPES_RATIO_TARGET)}: ${r.met ? "met" : "MISSED"}`,
      ratio(r.descriptionShare),
      ratio(r.unlaidRatio),
    ]),
    [
      "all four",
      String(t.types.reduce((n, r) => n + r.tools, 0)),
      String(t.typesTotal.rawJsonTokens),
      String(t.typesTotal.typesTokens),
      ratio(t.typesTotal.ratio),
      "",
      "",
      "",
    ],
  ]));
  console.log(`\n${t.oneTool.command}: ${t.oneTool.tokens} tokens`);
  const c = t.catalog;
  console.log(
    `${c.command}: ${c.tokens} tokens (it reports ${c.reportedTokens}); <= ${c.budget}: ${
      c.tokens <= c.budget && c.reportedTokens <= c.budget ? "ok" : "FAILED"
    }`,
  );

  console.log(`\n2. whole process: ${opts.runs} runs each, interleaved within each batch`);
  for (const b of batches) {
    console.log(`\n${b.name}: baseline (empty deno run) median ${ms1(b.baselineMedianMs)} ms`);
    console.log(formatTable([
      ["case", "median_ms", "p90_ms", "min_ms", "ratio_vs_empty", "target"],
      ...b.rows.map((r) => [
        r.name,
        ms1(r.medianMs),
        ms1(r.p90Ms),
        ms1(r.minMs),
        `${r.ratio.toFixed(2)}x`,
        r.target ? `${r.target.text}: ${r.target.met ? "met" : "MISSED"}` : "",
      ]),
    ]));
  }

  console.log(
    `\n3. processes of this run (/proc, by HOME): before the batch / most seen after any run ` +
      `or while one more run of each command was watched / after`,
  );
  console.log(formatTable([
    ["batch", "servers", "daemons", "check"],
    ...batches.map((b, i) => {
      const p = b.processes;
      return [
        b.name,
        `${p.serversBefore}/${p.serversMaxDuring}/${p.serversAfter}`,
        `${p.daemonsBefore}/${p.daemonsMaxDuring}/${p.daemonsAfter}`,
        processProblems(b, i === 0 ? 0 : 1).length
          ? "FAILED"
          : `ok: no server started${i === 0 ? ", no daemon" : ""}`,
      ];
    }),
  ]));
  console.log(
    `control: after \`mcpx call everything.echo message=x\` on the warm daemon the scan sees ` +
      `${control} server${control === 1 ? "" : "s"} (expected 1)`,
  );
  for (const p of problems) console.log(`problem: ${p}`);
}

// --- Main ----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const opts = options();
  const e = await makeEnvironment();
  await interruptible(() => teardown(e.root, e.env), async (stopIfInterrupted, cleanup) => {
    const problems: string[] = [];
    // Fill the schema cache (this starts the daemon and every server), then stop it all.
    await mcpx(e, ["refresh"]);
    await mcpx(e, ["stop"]);
    const left = await serversGone(e);
    if (left.length) throw new Error(`servers still running after \`mcpx stop\`: ${left}`);
    stopIfInterrupted();

    const t = await tokens(e, problems);
    stopIfInterrupted();

    const cold = await batch(e, opts, "no daemon", timedCases(e, ""), stopIfInterrupted);
    problems.push(...processProblems(cold, 0));
    stopIfInterrupted();

    await mcpx(e, ["start"]);
    const warm = await batch(
      e,
      opts,
      "warm daemon",
      timedCases(e, " (warm daemon)"),
      stopIfInterrupted,
    );
    problems.push(...processProblems(warm, 1));
    // The control: the scan does see a server once one runs, so its zeros above mean something.
    await mcpx(e, ["call", "everything.echo", "message=x"]);
    const control = scan(e).servers.length;
    if (control !== 1) {
      problems.push(`after \`mcpx call everything.echo\` the scan saw ${control} servers, not 1`);
    }
    await mcpx(e, ["stop"]);
    stopIfInterrupted();

    problems.push(...await cleanup());
    report(opts, t, [cold, warm], control, problems);
    if (problems.length) Deno.exitCode = 1;
  });
}

await main();
