/**
 * Runs the official MCP conformance suite's server leg against `mcpx serve --http` in code mode,
 * for each revision, and holds the result to the expected-failures baseline
 * (tests/conformance_baseline.json), which may only shrink: a failing scenario not in it fails,
 * and so does a baseline entry that now passes (remove it).
 *
 *     deno run -A tools/conformance.ts           run, check, write docs/spec/official-suite.md
 *     deno run -A tools/conformance.ts --check   run and check only (what the test does)
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
export type BaselineFile = Baseline & { gateway: Baseline };

/** The ways a run disagrees with the baseline; empty when it agrees. */
export function compare(rev: Revision, scenarios: Scenario[], baseline: Baseline): string[] {
  const expected = baseline[rev] ?? {};
  const out: string[] = [];
  for (const s of scenarios) {
    const failing = s.failed > 0;
    if (failing && !(s.name in expected)) {
      out.push(`${rev} ${s.name}: fails (${s.failed} checks) and is not in the baseline`);
    }
    if (!failing && s.name in expected) {
      out.push(`${rev} ${s.name}: passes now; remove it from tests/conformance_baseline.json`);
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
export const LEGS = ["code", "gateway"] as const;
export type Leg = typeof LEGS[number];

/**
 * `mcpx serve --http` in a world of its own (HOME, XDG dirs): in code mode fronting one fixture
 * server, in gateway mode (`--expose surface`) fronting tests/fixtures/servers/conformance_surface.ts.
 */
export async function startServe(
  dir: string,
  leg: Leg,
  modern = false,
): Promise<{ url: string; stop: () => Promise<void> }> {
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
      ...(leg === "gateway" ? ["--expose", "surface"] : []),
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
  // Gateway mode fronts a server of the revision being measured: each revision its own world.
  const runs = leg === "gateway" ? REVISIONS.map((rev) => [rev]) : [[...REVISIONS]];
  for (const revs of runs) {
    const dir = await Deno.makeTempDir({ prefix: "mcpx-conformance-" });
    const serve = await startServe(dir, leg, leg === "gateway" && revs[0] === "2026-07-28");
    try {
      for (const rev of revs) results[rev] = await runSuite(serve.url, rev);
    } finally {
      await serve.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
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
    : file.gateway;
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
) {
  const lines = [
    "---",
    "summary: The official MCP conformance suite's server leg against mcpx serve, per revision",
    "read_when: changing the MCP surface (lib/surfaces/mcp.ts, mcp_gateway.ts), or asking how conformant it is",
    "---",
    "",
    "# The official suite",
    "",
    `\`${SUITE.slice(4)}\`, server leg, run two ways and measured at commit \`${commit}\` by`,
    "`deno task conformance`, which writes this file:",
    "",
    "- **code mode**: against `mcpx serve --http` in code mode (one fixture server configured);",
    "- **gateway mode**: against `mcpx serve --http --expose surface`, fronting",
    "  `tests/fixtures/servers/conformance_surface.ts` (the official SDK's server with the tools,",
    "  prompts and resources the scenarios call), which measures mcpx as a faithful gateway. Each",
    "  revision fronts a server spoken to in that revision: 2025-11-25 the stdio default (2025 era:",
    "  sampling and elicitation as server requests, relayed to the client), 2026-07-28 with",
    '  `"protocol": "force-modern"` (its input_required results relayed with their own keys). The',
    "  other pairing, a 2026-07-28 client in front of a 2025-era server, is tests/e2e/gateway_asks_test.ts's.",
    "",
    "`tests/e2e/conformance_test.ts` runs the same and fails when a scenario outside",
    "`tests/conformance_baseline.json` fails (its top level for code mode, `gateway` for gateway",
    "mode), or when a baseline entry passes: the baseline only shrinks. Counts are of the scenarios",
    "each revision scores (pending and extension scenarios are run but listed apart).",
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
  return lines.join("\n");
}

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  const only = LEGS.find((l) => Deno.args.includes(`--leg=${l}`));
  const legs = only ? [only] : [...LEGS];
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
  if (!check && !only) {
    const commit = new TextDecoder().decode(
      (await new Deno.Command("git", { args: ["rev-parse", "--short", "HEAD"], cwd: ROOT })
        .output())
        .stdout,
    ).trim();
    await Deno.mkdir(join(ROOT, "docs", "spec"), { recursive: true });
    await Deno.writeTextFile(DOC, renderDoc(results, baseline, commit));
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
