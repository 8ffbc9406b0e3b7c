/**
 * Runs the official MCP conformance suite for each revision: its server leg against
 * `mcpx serve --http` (code mode and gateway mode), and its client leg with
 * tools/conformance_client.ts (mcpx's CLI and daemon) as the client under test. Each is held to
 * its expected-failures baseline (tests/conformance_baseline.json for the server leg,
 * tests/conformance_client_baseline.json for the client leg), which may only shrink: a failing
 * scenario not in it fails, and so does a baseline entry that now passes (remove it).
 *
 *     deno run -A tools/conformance.ts           run, check, write docs/spec/official-suite.md
 *     deno run -A tools/conformance.ts --check   run and check only (a run of the client legs
 *                                                alone rewrites only their part of the file)
 *     --leg=code --leg=gateway --leg=client      only these legs (the tests run one side each);
 *     --leg=client-default                       the client leg as a user configures it
 *                                                (no `protocol` line; `client` pins the revision)
 *     --scenario=auth/dpop                       only these client scenarios (no baseline check)
 *     --keep                                     keep the client leg's results (checks, stderr)
 *
 * MCPX_CONFORMANCE_CONCURRENCY sets how many client scenarios run at once (3).
 *
 * The suite is pinned here (SUITE); `deno run` brings it into an empty DENO_DIR by itself.
 */
import { join } from "node:path";

/** The official suite, pinned. */
export const SUITE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";
export const REVISIONS = ["2025-11-25", "2026-07-28"] as const;
type Revision = typeof REVISIONS[number];

const ROOT = new URL("..", import.meta.url).pathname;
const BASELINE = join(ROOT, "tests", "conformance_baseline.json");
const DOC = join(ROOT, "docs", "spec", "official-suite.md");

/** One scenario's outcome: its checks passed and failed. */
export interface Scenario {
  name: string;
  passed: number;
  failed: number;
  /** Run but not scored for the revision (pending, extension, added after release). */
  unscored?: string;
}

/** The scenarios of the suite's SUMMARY block, and which of them it does not score. */
export function parseSummary(output: string): Scenario[] {
  const text = output.replace(new RegExp(String.fromCharCode(27) + "\\[[0-9;]*m", "g"), "");
  const summary = text.split("=== SUMMARY ===")[1];
  if (summary === undefined) throw new Error("the suite printed no SUMMARY");
  const unscored = new Map<string, string>();
  for (const m of summary.matchAll(/^\s+[✓✗] ([\w-]+) \(([^)]+)\)$/gm)) unscored.set(m[1], m[2]);
  return [...summary.matchAll(/^[✓✗] ([\w-]+): (\d+) passed, (\d+) failed/gm)].map((m) => ({
    name: m[1],
    passed: Number(m[2]),
    failed: Number(m[3]),
    ...(unscored.has(m[1]) ? { unscored: unscored.get(m[1]) } : {}),
  }));
}

/** What the baseline says each revision's failing scenarios are, with the reason. */
export type Baseline = Record<Revision, Record<string, string>>;

/** The baseline file: code mode's at the top, gateway mode's under `gateway`. */
export type BaselineFile = Baseline & { gateway: Baseline; "gateway-modern": Baseline };

/** The ways a run disagrees with the baseline; empty when it agrees. */
export function compare(
  rev: Revision,
  scenarios: Scenario[],
  baseline: Baseline,
  file = "tests/conformance_baseline.json",
): string[] {
  const expected = baseline[rev] ?? {};
  const out: string[] = [];
  for (const s of scenarios) {
    const failing = s.failed > 0;
    if (failing && !(s.name in expected)) {
      out.push(`${rev} ${s.name}: fails (${s.failed} checks) and is not in the baseline`);
    }
    if (!failing && s.name in expected) {
      out.push(`${rev} ${s.name}: passes now; remove it from ${file}`);
    }
  }
  for (const name of Object.keys(expected)) {
    if (!scenarios.some((s) => s.name === name)) {
      out.push(`${rev} ${name}: in the baseline but not run by the suite`);
    }
  }
  return out;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The two legs: code mode, and gateway mode fronting the suite's fixture surface. */
export const LEGS = ["code", "gateway", "gateway-modern"] as const;
export type Leg = typeof LEGS[number];

/**
 * `mcpx serve --http` in a world of its own (HOME, XDG dirs): in code mode fronting one fixture
 * server, in gateway mode (`--expose surface`) fronting tests/fixtures/servers/conformance_surface.ts.
 */
export async function startServe(
  dir: string,
  leg: Leg,
): Promise<{ url: string; stop: () => Promise<void> }> {
  // gateway-modern: the surface spoken to in 2026-07-28 (`"protocol": "force-modern"`).
  const modern = leg === "gateway-modern";
  const env: Record<string, string> = {
    HOME: join(dir, "home"),
    XDG_STATE_HOME: join(dir, "state"),
    XDG_CACHE_HOME: join(dir, "cache"),
    XDG_CONFIG_HOME: join(dir, "config"),
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    NO_COLOR: "1",
    // The configuration is the one this tool just wrote.
    MCPX_TRUST_ALL: "1",
  };
  for (const name of ["DENO_TLS_CA_STORE", "DENO_CERT", "SSL_CERT_FILE"]) {
    const v = Deno.env.get(name);
    if (v !== undefined) env[name] = v;
  }
  // Deno's own cache, kept when HOME moves, so that npm packages are not fetched again.
  env.DENO_DIR = Deno.env.get("DENO_DIR") ?? JSON.parse(
    new TextDecoder().decode(
      (await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stderr: "null" })
        .output()).stdout,
    ),
  ).denoDir;
  const work = join(dir, "work");
  for (const d of [env.HOME, env.XDG_STATE_HOME, env.XDG_CACHE_HOME, env.XDG_CONFIG_HOME, work]) {
    await Deno.mkdir(d, { recursive: true });
  }
  const faulty = join(ROOT, "tests", "fixtures", "servers", "faulty.ts");
  const surface = join(ROOT, "tests", "fixtures", "servers", "conformance_surface.ts");
  await Deno.writeTextFile(
    join(work, ".mcpx.json"),
    JSON.stringify({
      mcpServers: leg === "code"
        ? {
          fixture: {
            command: Deno.execPath(),
            args: ["run", "--quiet", "--no-config", "--no-lock", faulty],
          },
        }
        : {
          surface: {
            command: Deno.execPath(),
            args: ["run", "--quiet", "--config", join(ROOT, "deno.json"), "--frozen", surface],
            // The SDK from Deno's own cache, not fetched into this world's empty HOME.
            env: { DENO_DIR: env.DENO_DIR },
            // The 2026-07-28 run reaches a server spoken to in that revision (a relay of its
            // input_required results as they are); the 2025-11-25 run, one in the 2025 era.
            ...(modern ? { mcpx: { protocol: "force-modern" } } : {}),
          },
        },
    }),
  );
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      join(ROOT, "deno.json"),
      join(ROOT, "main.ts"),
      "serve",
      "--http",
      `127.0.0.1:${port}`,
      // The suite's server leg sends no headers of its own: on a throwaway machine only.
      "--no-auth",
      ...(leg !== "code" ? ["--expose", "surface"] : []),
    ],
    cwd: work,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("MCP at ")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`mcpx serve --http exited: ${seen}`);
    seen += value;
  }
  // Keep reading so that a full pipe never blocks the server.
  const drained = (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await drained.catch(() => {});
      await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--config", join(ROOT, "deno.json"), join(ROOT, "main.ts"), "stop"],
        cwd: work,
        env,
        clearEnv: true,
        stdout: "null",
        stderr: "null",
      }).output();
    },
  };
}

/** Runs the suite for one revision against `url`; returns its scenarios. */
async function runSuite(url: string, rev: Revision): Promise<Scenario[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-config", SUITE, "server", "--url", url, "--requirements", rev],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return parseSummary(text);
}

/** Runs every revision against one leg; resolves to the scenarios of each. */
export async function measure(leg: Leg = "code"): Promise<Record<Revision, Scenario[]>> {
  const results = {} as Record<Revision, Scenario[]>;
  const dir = await Deno.makeTempDir({ prefix: "mcpx-conformance-" });
  const serve = await startServe(dir, leg);
  try {
    for (const rev of REVISIONS) results[rev] = await runSuite(serve.url, rev);
  } finally {
    await serve.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  return results;
}

/** Reads the baseline. */
export function readBaseline(): BaselineFile {
  return JSON.parse(Deno.readTextFileSync(BASELINE)) as BaselineFile;
}

/** One leg's part of the baseline. */
export function legBaseline(file: BaselineFile, leg: Leg): Baseline {
  return leg === "code"
    ? { "2025-11-25": file["2025-11-25"], "2026-07-28": file["2026-07-28"] }
    : file[leg];
}

function count(scenarios: Scenario[]) {
  const scored = scenarios.filter((s) => !s.unscored);
  return {
    scenarios: scored.length,
    passing: scored.filter((s) => s.failed === 0).length,
    checksPassed: scored.reduce((n, s) => n + s.passed, 0),
    checksFailed: scored.reduce((n, s) => n + s.failed, 0),
  };
}

/** docs/spec/official-suite.md for a run of both legs. */
export function renderDoc(
  results: Record<Leg, Record<Revision, Scenario[]>>,
  baseline: BaselineFile,
  commit: string,
  client?: ClientResults,
  clientBaseline?: ClientBaselineFile,
) {
  const lines = [
    "---",
    "summary: The official MCP conformance suite against mcpx per revision, the server leg (mcpx serve) and the client leg (the daemon and its pool)",
    "read_when: changing the MCP surface (lib/surfaces/mcp/) or mcpx's MCP client (lib/mcp/, lib/pool/), or asking how conformant it is",
    "---",
    "",
    "# The official suite",
    "",
    `\`${SUITE.slice(4)}\`, measured at commit \`${commit}\` by \`deno task conformance\`, which`,
    "writes this file: the server leg run two ways, and the client leg (below).",
    "",
    "- **code mode**: against `mcpx serve --http` in code mode (one fixture server configured);",
    "- **gateway mode**: against `mcpx serve --http --expose surface`, fronting",
    "  `tests/fixtures/servers/conformance_surface.ts` (the official SDK's server with the tools,",
    "  prompts and resources the scenarios call), which measures mcpx as a faithful gateway, the",
    "  surface spoken to in the 2025 era (the stdio default: sampling, elicitation and roots are",
    "  server requests, relayed to a 2025-era client, turned into input_required for a 2026 one);",
    "- **gateway-modern mode**: the same with the surface spoken to in 2026-07-28",
    '  (`"protocol": "force-modern"`: its input_required results relayed with their own keys).',
    "",
    "`tests/e2e/conformance_test.ts` runs the same and fails when a scenario outside",
    "`tests/conformance_baseline.json` fails (its top level for code mode, `gateway` and",
    "`gateway-modern` for the gateway legs), or when a baseline entry passes: the baseline only",
    "shrinks. Counts are of the scenarios each revision scores (pending and extension scenarios are",
    "run but listed apart).",
    "",
    "| leg | revision | scenarios passing | scenarios failing | checks passed | checks failed |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const leg of LEGS) {
    for (const rev of REVISIONS) {
      const c = count(results[leg][rev]);
      lines.push(
        `| ${leg} | ${rev} | ${c.passing} | ${
          c.scenarios - c.passing
        } | ${c.checksPassed} | ${c.checksFailed} |`,
      );
    }
  }
  lines.push(
    "",
    "In code mode most failures are not protocol defects: the scenarios call the suite's own fixture",
    "surface (tools such as `test_simple_text`, prompts such as `test_simple_prompt`, resources under",
    "`test://`), which code mode does not serve. The gateway leg serves that surface through mcpx.",
    "",
  );
  for (const leg of LEGS) {
    const base = legBaseline(baseline, leg);
    for (const rev of REVISIONS) {
      lines.push(`## ${leg} mode, ${rev}`, "");
      lines.push("| scenario | checks passed | checks failed | expected failure |");
      lines.push("| --- | --- | --- | --- |");
      for (const s of results[leg][rev]) {
        const why = base[rev]?.[s.name] ?? "";
        const name = s.unscored ? `${s.name} (${s.unscored}, not scored)` : s.name;
        lines.push(`| ${name} | ${s.passed} | ${s.failed} | ${why} |`);
      }
      lines.push("");
    }
  }
  if (client && clientBaseline) lines.push(...renderClient(client, clientBaseline));
  return lines.join("\n");
}

/** The client leg's part of docs/spec/official-suite.md, from its heading to the end. */
export function renderClient(client: ClientResults, baseline: ClientBaselineFile): string[] {
  const lines = [
    "## The client leg",
    "",
    `\`${SUITE.slice(4)}\`, client leg, each revision's requirement set run at that revision's`,
    "wire (`--scenario <name> --spec-version <revision> --force`, a few at a time). The client under",
    "test is `tools/conformance_client.ts`: for each scenario it writes a configuration declaring the",
    "scenario's URL as a remote server (`mcpx.oauth` with the scenario's client credentials, or a",
    "client ID metadata document), and drives the mcpx CLI in a private state directory:",
    "`mcpx refresh` and `mcpx call` through the daemon and its pool, `mcpx elicit answer` for the",
    "questions the server asks, and `mcpx auth login` when the server wants a sign-in (its browser",
    "a `fetch` of the printed URL, which the suite's authorization server approves at once).",
    "It runs two ways:",
    "",
    "- **forced**: `mcpx.protocol` pinned to the revision (`force-legacy` for 2025-11-25,",
    "  `force-modern` for 2026-07-28);",
    "- **default**: no `protocol` line, as a user configures it: mcpx negotiates the revision itself",
    "  (over Streamable HTTP the default is `prefer-modern`,",
    "  [decisions/2026-12-protocol-default.md](../decisions/2026-12-protocol-default.md)).",
    "",
    "`tests/e2e/conformance_client_test.ts` runs both and fails when a scenario outside",
    "`tests/conformance_client_baseline.json` fails (its top level for forced, `default` for",
    "default), or when a baseline entry passes.",
    "",
    "| way | revision | scenarios passing | scenarios failing | checks passed | checks failed |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  const ways = CLIENT_WAYS.filter((w) => client[w]);
  for (const way of ways) {
    for (const rev of REVISIONS) {
      const c = count(client[way]![rev]);
      lines.push(
        `| ${way} | ${rev} | ${c.passing} | ${
          c.scenarios - c.passing
        } | ${c.checksPassed} | ${c.checksFailed} |`,
      );
    }
  }
  lines.push("");
  for (const way of ways) {
    const apart = REVISIONS.map((rev) => {
      const run = client[way]![rev].filter((s) => s.unscored);
      return `${run.filter((s) => s.failed === 0).length} of ${run.length} in ${rev}`;
    });
    lines.push(
      `Run but not scored (extensions, added after release), passing, ${way}: ${apart.join(", ")}.`,
      "",
    );
  }
  for (const way of ways) {
    const base = clientWayBaseline(baseline, way);
    for (const rev of REVISIONS) {
      lines.push(`## client leg, ${way}, ${rev}`, "");
      lines.push("| scenario | checks passed | checks failed | expected failure |");
      lines.push("| --- | --- | --- | --- |");
      for (const s of client[way]![rev]) {
        const why = base[rev]?.[s.name] ?? "";
        const name = s.unscored ? `${s.name} (${s.unscored}, not scored)` : s.name;
        lines.push(`| ${name} | ${s.passed} | ${s.failed} | ${why} |`);
      }
      lines.push("");
    }
  }
  return lines;
}

// ---- The client leg ----------------------------------------------------------------------------

const CLIENT = join(ROOT, "tools", "conformance_client.ts");
const CLIENT_BASELINE = join(ROOT, "tests", "conformance_client_baseline.json");
/**
 * The two ways the client leg runs: `forced` pins `mcpx.protocol` to the scenario's revision,
 * `default` writes no `protocol` line (what a user gets without asking).
 */
export const CLIENT_WAYS = ["forced", "default"] as const;
export type ClientWay = typeof CLIENT_WAYS[number];
/** The client leg's results, per way run. */
export type ClientResults = Partial<Record<ClientWay, Record<Revision, Scenario[]>>>;
/** The client baseline file: the forced way's at the top, the default way's under `default`. */
export type ClientBaselineFile = Baseline & { default: Baseline };
/** How many scenarios run at once: each starts a daemon and several CLI processes. */
const CLIENT_CONCURRENCY = Number(Deno.env.get("MCPX_CONFORMANCE_CONCURRENCY") ?? 3);
/** The suite's per-scenario limit on the client under test (its default is 30 s). */
const CLIENT_TIMEOUT_MS = 90_000;

/** What `conformance list --requirements <rev>` names for the client leg, scored or not. */
export function parseClientList(output: string): { name: string; unscored?: string }[] {
  const out: { name: string; unscored?: string }[] = [];
  const lines = output.split("\n");
  let section: "client" | "other" | "unscored" = "other";
  let reason = "";
  for (const line of lines) {
    if (/^Client scenarios/.test(line)) section = "client";
    else if (/^Server scenarios/.test(line)) section = "other";
    else if (/^Run and reported, but never scored/.test(line)) section = "unscored";
    else if (section === "client") {
      const m = /^\s+- (\S+)$/.exec(line);
      if (m) out.push({ name: m[1] });
    } else if (section === "unscored") {
      const r = /^\s+([\w-]+) \(\d+\):$/.exec(line);
      if (r) reason = r[1];
      const m = /^\s+- (\S+) \[client\]$/.exec(line);
      if (m) out.push({ name: m[1], unscored: reason });
    }
  }
  return out;
}

/** A scenario's checks.json, counted as the suite's summary counts them. */
export function countChecks(name: string, checks: { status: string }[]): Scenario {
  return {
    name,
    passed: checks.filter((c) => c.status === "SUCCESS").length,
    failed: checks.filter((c) => c.status === "FAILURE").length,
  };
}

/** Runs one client scenario at `rev`'s wire with the client under test; its counts. */
async function runClientScenario(
  name: string,
  rev: Revision,
  out: string,
  way: ClientWay,
): Promise<Scenario> {
  const dir = join(out, name.replaceAll("/", "_"));
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-config",
      SUITE,
      "client",
      "--command",
      `${Deno.execPath()} run -A --no-lock ${CLIENT}${
        way === "default" ? " --protocol=default" : ""
      }`,
      "--scenario",
      name,
      "--spec-version",
      rev,
      // What --requirements does: run it at this revision's wire even outside its window.
      "--force",
      "--timeout",
      String(CLIENT_TIMEOUT_MS),
      "-o",
      dir,
    ],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  // The suite writes <dir>/<scenario>-<time>/checks.json (auth/x makes a folder auth).
  const found: string[] = [];
  const walk = (d: string) => {
    try {
      for (const e of Deno.readDirSync(d)) {
        if (e.isDirectory) walk(join(d, e.name));
        else if (e.name === "checks.json") found.push(join(d, e.name));
      }
    } catch { /* the suite wrote nothing */ }
  };
  walk(dir);
  if (found.length !== 1) {
    const text = new TextDecoder().decode(result.stdout) + new TextDecoder().decode(result.stderr);
    console.error(`conformance: ${rev} ${name} left no results:\n${text.slice(-2000)}`);
    return { name, passed: 0, failed: 1 };
  }
  const checks = JSON.parse(Deno.readTextFileSync(found[0]));
  return countChecks(name, checks);
}

/**
 * Runs every client scenario of both revisions (scored and not), at most CLIENT_CONCURRENCY at
 * once; `only` narrows it to some scenarios. Failing checks are printed with `verbose`.
 */
export async function measureClient(
  only?: string[],
  keep = false,
  way: ClientWay = "forced",
): Promise<Record<Revision, Scenario[]>> {
  const out = await Deno.makeTempDir({ prefix: `mcpx-conformance-client-${way}-` });
  if (keep) console.error(`conformance: client-leg results kept in ${out}`);
  try {
    const jobs: { rev: Revision; name: string; unscored?: string; index: number }[] = [];
    for (const rev of REVISIONS) {
      const list = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--no-config", SUITE, "list", "--requirements", rev],
        env: { NO_COLOR: "1" },
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).output();
      const scenarios = parseClientList(new TextDecoder().decode(list.stdout))
        .filter((s) => !only || only.includes(s.name));
      scenarios.forEach((s, index) => jobs.push({ rev, ...s, index }));
    }
    const results = Object.fromEntries(REVISIONS.map((r) => [r, [] as Scenario[]])) as Record<
      Revision,
      Scenario[]
    >;
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const job = jobs[next++];
        const s = await runClientScenario(job.name, job.rev, join(out, job.rev), way);
        if (job.unscored) s.unscored = job.unscored;
        results[job.rev][job.index] = s;
      }
    };
    await Promise.all(Array.from({ length: CLIENT_CONCURRENCY }, worker));
    for (const rev of REVISIONS) results[rev] = results[rev].filter(Boolean);
    return results;
  } finally {
    if (!keep) await Deno.remove(out, { recursive: true }).catch(() => {});
  }
}

/** The client leg's baseline file, both ways. */
export function readClientBaseline(): ClientBaselineFile {
  return JSON.parse(Deno.readTextFileSync(CLIENT_BASELINE)) as ClientBaselineFile;
}

/** One way's part of the client baseline. */
export function clientWayBaseline(file: ClientBaselineFile, way: ClientWay): Baseline {
  return way === "forced"
    ? { "2025-11-25": file["2025-11-25"], "2026-07-28": file["2026-07-28"] }
    : file.default;
}

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  const keep = Deno.args.includes("--keep");
  const named = Deno.args.filter((a) => a.startsWith("--leg=")).map((a) => a.slice(6));
  const scenarios = Deno.args.filter((a) => a.startsWith("--scenario=")).map((a) => a.slice(11));
  const legs = LEGS.filter((l) => !named.length || named.includes(l));
  const clientLeg = (way: ClientWay) => way === "forced" ? "client" : "client-default";
  const ways = CLIENT_WAYS.filter((w) => !named.length || named.includes(clientLeg(w)));
  const all = legs.length === LEGS.length && ways.length === CLIENT_WAYS.length &&
    !scenarios.length;
  const baseline = readBaseline();
  const results = {} as Record<Leg, Record<Revision, Scenario[]>>;
  const problems: string[] = [];
  for (const leg of legs) {
    results[leg] = await measure(leg);
    const base = legBaseline(baseline, leg);
    problems.push(
      ...REVISIONS.flatMap((rev) => compare(rev, results[leg][rev], base)).map((p) =>
        `${leg}: ${p}`
      ),
    );
    for (const rev of REVISIONS) {
      const c = count(results[leg][rev]);
      console.log(
        `${leg} ${rev}: ${c.passing}/${c.scenarios} scenarios pass, ${c.checksPassed} checks passed, ${c.checksFailed} failed`,
      );
    }
  }
  const client: ClientResults = {};
  const clientBaseline = readClientBaseline();
  for (const way of ways) {
    const started = performance.now();
    const got = await measureClient(scenarios.length ? scenarios : undefined, keep, way);
    client[way] = got;
    const tag = way === "forced" ? "client" : "client (default)";
    for (const rev of REVISIONS) {
      const c = count(got[rev]);
      console.log(
        `${tag} ${rev}: ${c.passing}/${c.scenarios} scenarios pass, ${c.checksPassed} checks passed, ${c.checksFailed} failed`,
      );
      for (const s of got[rev]) {
        if (s.failed) console.log(`  failing: ${s.name}${s.unscored ? ` (${s.unscored})` : ""}`);
      }
    }
    console.log(`${tag} leg: ${((performance.now() - started) / 1000).toFixed(0)} s`);
    if (!scenarios.length) {
      const base = clientWayBaseline(clientBaseline, way);
      const file = way === "forced"
        ? "tests/conformance_client_baseline.json"
        : 'tests/conformance_client_baseline.json ("default")';
      problems.push(
        ...REVISIONS.flatMap((rev) => compare(rev, got[rev], base, file)).map((p) =>
          `${clientLeg(way)}: ${p}`
        ),
      );
    }
  }
  const commit = () =>
    new TextDecoder().decode(
      new Deno.Command("git", { args: ["rev-parse", "--short", "HEAD"], cwd: ROOT }).outputSync()
        .stdout,
    ).trim();
  let wrote = false;
  if (!check && all) {
    await Deno.mkdir(join(ROOT, "docs", "spec"), { recursive: true });
    await Deno.writeTextFile(DOC, renderDoc(results, baseline, commit(), client, clientBaseline));
    wrote = true;
  } else if (
    !check && !legs.length && ways.length === CLIENT_WAYS.length && !scenarios.length
  ) {
    // The client legs alone: their part of the file, from its heading on, is replaced.
    const text = await Deno.readTextFile(DOC);
    const at = text.indexOf("## The client leg");
    if (at < 0) throw new Error(`${DOC} has no "## The client leg" section to replace`);
    const part = renderClient(client, clientBaseline);
    part.splice(1, 0, "", `Measured at commit \`${commit()}\`.`);
    await Deno.writeTextFile(DOC, text.slice(0, at) + part.join("\n"));
    wrote = true;
  }
  if (wrote) {
    await new Deno.Command(Deno.execPath(), {
      args: ["fmt", "--config", join(ROOT, "deno.json"), DOC],
      stdout: "null",
      stderr: "null",
    }).output();
    console.log(`wrote ${DOC}`);
  }
  for (const p of problems) console.error(`conformance: ${p}`);
  Deno.exit(problems.length ? 1 : 0);
}
