/**
 * The client under test for the official suite's client leg, over mcpx's own stack: it writes a
 * configuration declaring the scenario's URL as a remote server (`sut`), and drives the mcpx
 * CLI, whose daemon (in a private state directory) reaches the server through its pool. It
 * refreshes the tool list, calls the tools the scenario expects, answers the server's questions
 * with `mcpx elicit answer`, and where the server wants a sign-in runs `mcpx auth login`, its
 * "browser" a `fetch` of the printed URL (the suite's authorization server approves at once).
 *
 * The suite passes the URL as the last argument, the scenario in MCP_CONFORMANCE_SCENARIO, the
 * revision in MCP_CONFORMANCE_PROTOCOL_VERSION and credentials in MCP_CONFORMANCE_CONTEXT:
 *
 *   deno run -A --no-config npm:@modelcontextprotocol/conformance@0.2.0-alpha.12 client \
 *     --command "deno run -A tools/conformance_client.ts" --scenario tools_call
 *
 * tools/conformance.ts runs every scenario of both revisions this way.
 */
import { join } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const url = Deno.args[Deno.args.length - 1];
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
const revision = Deno.env.get("MCP_CONFORMANCE_PROTOCOL_VERSION") ?? "2025-11-25";
const context = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}");
const NS = "sut";

/** The arguments the scenarios' tools expect, by tool name; others get `{}`. */
const ARGUMENTS: Record<string, Record<string, unknown>> = {
  add_numbers: { a: 5, b: 3 },
};

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 1500);
}

function log(line: string) {
  console.error(`[mcpx-conformance] ${line}`);
}

const dir = await Deno.makeTempDir({ prefix: "mcpx-conformance-client-" });
const env: Record<string, string> = {
  HOME: join(dir, "home"),
  XDG_STATE_HOME: join(dir, "state"),
  XDG_CACHE_HOME: join(dir, "cache"),
  XDG_CONFIG_HOME: join(dir, "config"),
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  NO_COLOR: "1",
  // The configuration is the one this program just wrote.
  MCPX_TRUST_ALL: "1",
  // The suite's servers answer questions at once; the call need not wait long for them.
  MCPX_ELICIT_WAIT: "100ms",
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

const oauth: Record<string, unknown> = context.client_id
  ? {
    clientId: context.client_id,
    ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
  }
  : { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" };
const config = join(work, ".mcpx.json");
await Deno.writeTextFile(
  config,
  JSON.stringify({
    mcpServers: {
      [NS]: {
        url,
        mcpx: {
          protocol: revision === "2026-07-28" ? "force-modern" : "force-legacy",
          oauth,
        },
      },
    },
  }),
);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `mcpx --json args…` in the private world. */
async function mcpx(args: string[]): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", join(ROOT, "deno.json"), join(ROOT, "main.ts"), ...args],
    cwd: work,
    env,
    clearEnv: true,
    stdin: "null",
  }).output();
  const run = {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
  log(`mcpx ${args.join(" ")} -> ${run.code}: ${oneLine(run.stderr)} ${oneLine(run.stdout)}`);
  return run;
}

/** `mcpx auth login sut`, the browser a fetch of the printed URL. */
async function login(): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      join(ROOT, "deno.json"),
      join(ROOT, "main.ts"),
      "auth",
      "login",
      NS,
    ],
    cwd: work,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  let stderr = "";
  let opened = false;
  const decoder = new TextDecoder();
  for await (const chunk of child.stderr) {
    stderr += decoder.decode(chunk, { stream: true });
    const address = /^(https?:\/\/\S+)$/m.exec(stderr)?.[1];
    if (address && !opened) {
      opened = true;
      const response = await fetch(address).catch((e) => {
        log(`browser: ${e.message}`);
        return undefined;
      });
      await response?.body?.cancel();
    }
  }
  const { code } = await child.status;
  log(`mcpx auth login ${NS} -> ${code}: ${stderr.trim()} ${(await stdout).trim()}`);
}

/** Whether a failed run says the server wants a sign-in. */
function wantsLogin(run: Run): boolean {
  return /auth login/.test(run.stderr + run.stdout);
}

/** Runs an operation, signing in (three times at most) while it says to. */
async function withLogin(args: string[]): Promise<Run> {
  for (let attempt = 0;; attempt++) {
    const run = await mcpx(args);
    if (run.code === 0 || !wantsLogin(run) || attempt >= 3) return run;
    await login();
  }
}

/** Answers the questions a call raised until it finishes. */
async function settle(run: Run): Promise<Run> {
  for (let round = 0; run.code === 75 && round < 16; round++) {
    const ticket = /"(elc-[0-9a-f]+)"/.exec(run.stderr + run.stdout)?.[1];
    if (!ticket) break;
    // No words: the requested schema's defaults fill the answer.
    run = await mcpx(["--json", "elicit", "answer", ticket]);
  }
  return run;
}

let failed = false;
try {
  const refreshed = await withLogin(["--json", "refresh"]);
  if (refreshed.code !== 0) failed = true;
  const schema = await mcpx(["--json", "schema", NS, "--format", "mcp"]);
  const tools: { name: string }[] = schema.code === 0
    ? (JSON.parse(schema.stdout).document?.tools ?? [])
    : [];
  if (scenario !== "initialize") {
    for (const { name } of tools) {
      const tool = name.slice(NS.length + 1);
      const args = ARGUMENTS[tool] ?? {};
      const run = await settle(
        await withLogin(["--json", "call", `${NS}.${tool}`, JSON.stringify(args)]),
      );
      if (run.code !== 0 && run.code !== 8) failed = true;
    }
  }
} finally {
  await mcpx(["stop"]);
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
Deno.exit(failed ? 1 : 0);
