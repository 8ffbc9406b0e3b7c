/**
 * The client under test for the official suite's client leg, over mcpx's own stack: it writes a
 * configuration declaring the scenario's URL as a remote server (`sut`), and drives the mcpx
 * CLI, whose daemon (in a private state directory) reaches the server through its pool. It
 * refreshes the tool list, calls the tools the scenario expects, answers the server's questions
 * with `mcpx elicit answer`, and where the server wants a sign-in runs `mcpx auth login` (before
 * the tools are listed) or answers the daemon's own sign-in question (a call's), its "browser" a
 * `fetch` of the URL (the suite's authorization server approves at once).
 *
 * The suite passes the URL as the last argument, the scenario in MCP_CONFORMANCE_SCENARIO, the
 * revision in MCP_CONFORMANCE_PROTOCOL_VERSION and credentials in MCP_CONFORMANCE_CONTEXT:
 *
 *   deno run -A --no-config npm:@modelcontextprotocol/conformance@0.2.0-alpha.12 client \
 *     --command "deno run -A tools/conformance_client.ts" --scenario tools_call
 *
 * tools/conformance.ts runs every scenario of both revisions this way, twice: with the server's
 * `mcpx.protocol` pinned to the revision (`force-legacy` or `force-modern`), and with
 * `--protocol=default` before the URL, as a user configures it, with no `protocol` line at all.
 */
import { join } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const url = Deno.args[Deno.args.length - 1];
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
const revision = Deno.env.get("MCP_CONFORMANCE_PROTOCOL_VERSION") ?? "2025-11-25";
const context = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}");
/** `--protocol=default`: no `protocol` line, what mcpx negotiates by itself; else pinned. */
const asConfigured = Deno.args.includes("--protocol=default");
const NS = "sut";

/** The arguments the scenarios' tools expect, by tool name. */
const ARGUMENTS: Record<string, Record<string, unknown>> = {
  add_numbers: { a: 5, b: 3 },
};

interface Tool {
  name: string;
  inputSchema: { properties?: Record<string, { type?: string }>; required?: string[] };
}

/** A value of a property's type, for a required argument no scenario names. */
function sample(type: string | undefined): unknown {
  switch (type) {
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "object":
      return {};
    case "array":
      return [];
    default:
      return "conformance";
  }
}

/**
 * The calls a scenario asks for: the suite's own list (MCP_CONFORMANCE_CONTEXT `toolCalls`) when
 * it gives one, the schema round trip of json-schema-2020-12-preservation (the schema as mcpx's
 * cache kept it, sent back), and otherwise every tool listed, with the known arguments or a value
 * for each required one.
 */
function plan(tools: Tool[]): { name: string; args: Record<string, unknown> }[] {
  if (scenario === "initialize") return [];
  if (Array.isArray(context.toolCalls)) {
    // mcpx checks arguments against the tool's schema, which refuses a null where it says
    // boolean; the suite's null means "not provided" (its check: the header is then omitted),
    // so a null-valued argument is left out.
    return context.toolCalls.map((c: { name: string; arguments?: Record<string, unknown> }) => ({
      name: c.name,
      args: Object.fromEntries(Object.entries(c.arguments ?? {}).filter(([, v]) => v !== null)),
    }));
  }
  const echo = tools.find((t) => t.name === "json_schema_echo");
  const focal = tools.find((t) => t.name === "json_schema_2020_12_tool");
  if (echo && focal) return [{ name: echo.name, args: { schema: focal.inputSchema } }];
  return tools.map((t) => ({
    name: t.name,
    args: ARGUMENTS[t.name] ?? Object.fromEntries(
      (t.inputSchema.required ?? []).map((k) => [k, sample(t.inputSchema.properties?.[k]?.type)]),
    ),
  }));
}

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

/**
 * The server's `mcpx.oauth` block as a person would write it for the scenario: the suite's
 * pre-registered client, a machine client (client credentials, with a secret or a private key)
 * for the client-credentials scenarios, else a client ID metadata document.
 */
function oauthBlock(): Record<string, unknown> {
  if (!context.client_id) {
    return { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" };
  }
  return {
    clientId: context.client_id,
    ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
    ...(context.private_key_pem ? { privateKey: context.private_key_pem } : {}),
    ...(scenario.startsWith("auth/client-credentials") ? { grant: "client_credentials" } : {}),
    // A workload's identity token, presented with the JWT bearer grant.
    ...(context.valid_jwt ? { grant: "jwt_bearer", assertion: context.valid_jwt } : {}),
    // Enterprise-managed: the ID token exchanged at the identity provider.
    ...(context.idp_id_token
      ? {
        grant: "enterprise",
        idpTokenEndpoint: context.idp_token_endpoint,
        idpClientId: context.idp_client_id,
        idToken: context.idp_id_token,
      }
      : {}),
  };
}
const oauth = oauthBlock();
const config = join(work, ".mcpx.json");
await Deno.writeTextFile(
  config,
  JSON.stringify({
    mcpServers: {
      [NS]: {
        url,
        mcpx: {
          ...(asConfigured
            ? {}
            : { protocol: revision === "2026-07-28" ? "force-modern" : "force-legacy" }),
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

/**
 * Runs an operation, signing in (three times at most) while it says to; a question (exit 75,
 * the daemon's own sign-in among them) is left to settle(). A machine client's
 * daemon gets its own tokens: it is not signed in again after a refusal.
 */
async function withLogin(args: string[]): Promise<Run> {
  for (let attempt = 0;; attempt++) {
    const run = await mcpx(args);
    if (run.code === 0 || run.code === 75 || !wantsLogin(run) || attempt >= 3 || oauth.grant) {
      return run;
    }
    await login();
  }
}

/** The question a run that exited 75 names (its --json problem document), if any. */
function questionOf(run: Run): { id: string; mode: string; request: { url?: string } } | undefined {
  try {
    const doc = JSON.parse(run.stdout);
    const problem = doc.error ?? doc.next ?? doc;
    return problem.data?.question ?? problem.question;
  } catch {
    return undefined;
  }
}

/**
 * Answers the questions a call raised until it finishes: a form with no words (the requested
 * schema's defaults fill it), a URL-mode one (the daemon's own sign-in, or the server's) once its
 * "browser" has fetched the URL.
 */
async function settle(run: Run): Promise<Run> {
  for (let round = 0; run.code === 75 && round < 16; round++) {
    const q = questionOf(run);
    const ticket = q?.id ?? /"(elc-[0-9a-f]+)"/.exec(run.stderr + run.stdout)?.[1];
    if (!ticket) break;
    if (q?.mode === "url" && q.request.url) {
      const response = await fetch(q.request.url).catch((e) => {
        log(`browser: ${e.message}`);
        return undefined;
      });
      await response?.body?.cancel();
    }
    run = await mcpx(["--json", "elicit", "answer", ticket]);
  }
  return run;
}

/** Stops this world's daemon and removes it. */
async function cleanUp(): Promise<void> {
  await mcpx(["stop"]);
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

// The suite ends a client that runs past its timeout with SIGTERM: leave no daemon behind.
Deno.addSignalListener("SIGTERM", () => {
  cleanUp().finally(() => Deno.exit(1));
});

let failed = false;
try {
  const refreshed = await withLogin(["--json", "refresh"]);
  if (refreshed.code !== 0) failed = true;
  const schema = await mcpx(["--json", "schema", NS, "--format", "mcp"]);
  const listed: Tool[] = schema.code === 0 ? (JSON.parse(schema.stdout).document?.tools ?? []) : [];
  const tools = listed.map((t) => ({ ...t, name: t.name.slice(NS.length + 1) }));
  for (const { name, args } of plan(tools)) {
    const run = await settle(
      await withLogin(["--json", "call", `${NS}.${name}`, JSON.stringify(args)]),
    );
    if (run.code !== 0 && run.code !== 8) failed = true;
  }
} finally {
  await cleanUp();
}
Deno.exit(failed ? 1 : 0);
