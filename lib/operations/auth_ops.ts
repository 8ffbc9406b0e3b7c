import { defineOperation, type Zod } from "./define.ts";
import { McpxError } from "../errors.ts";
import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import type { AuthStatus, OAuthUse } from "../mcp/oauth.ts";

const NAMESPACE = {
  name: "namespace",
  type: "string",
  positional: true,
  required: true,
  doc: "The remote server's namespace",
} as const;

const statusSchema = (z: Zod) =>
  z.object({
    namespace: z.string(),
    url: z.string(),
    signedIn: z.boolean(),
    issuer: z.string().optional(),
    client: z.enum(["configured", "metadata-document", "dynamic"]).optional(),
    scope: z.string().optional(),
    expiresAt: z.string().optional(),
    refreshable: z.boolean().optional(),
    file: z.string().optional(),
  });

/** Whether OAuth runs in CI mode: the `auth.ci` setting, or CI=true / CI=1 in the environment. */
function ciMode(ctx: Context, setting: boolean): boolean {
  const ci = ctx.io.env.CI;
  return setting || ci === "true" || ci === "1";
}

/** The OAuth details of the remote server `namespace` (or every remote server). */
async function usesOf(ctx: Context, namespace?: string): Promise<OAuthUse[]> {
  const [{ loadConfig }, { serverDefs }, { resolveAuth, oauthClientConfig }, oauth, paths] =
    await Promise.all([
      load<typeof import("../config/load.ts")>("../config/load.ts", import.meta.url),
      load<typeof import("../config/servers.ts")>("../config/servers.ts", import.meta.url),
      load<typeof import("../mcp/auth.ts")>("../mcp/auth.ts", import.meta.url),
      load<typeof import("../mcp/oauth.ts")>("../mcp/oauth.ts", import.meta.url),
      load<typeof import("../paths.ts")>("../paths.ts", import.meta.url),
    ]);
  const settings = await ctx.settings();
  const fp = await ctx.fingerprint();
  const config = await loadConfig(fp.path, fp.text);
  const defs = serverDefs(config, { warnings: [] });
  const picked = namespace === undefined
    ? defs.filter((d) => d.transport !== "stdio")
    : defs.filter((d) => d.namespace === namespace || d.name === namespace);
  if (namespace !== undefined && picked.length === 0) {
    throw new McpxError("SERVER_NOT_FOUND", `No server "${namespace}" in ${fp.path}`);
  }
  const dir = oauth.oauthDir(paths.stateDir(settings, ctx.io.env));
  const ci = ciMode(ctx, settings.get("auth.ci"));
  return picked.map((def) => {
    if (def.transport === "stdio") {
      throw new McpxError(
        "USAGE",
        `Server "${def.namespace}" is a command, which takes credentials from its environment, not OAuth`,
      );
    }
    const env = { ...ctx.io.env };
    const resolved = resolveAuth(def.name, def.entry, { env });
    const client = oauthClientConfig(def.name, def.entry.mcpx?.oauth, env);
    return {
      namespace: def.namespace,
      url: resolved.url ?? "",
      dir,
      ...(client ? { client } : {}),
      ci,
    };
  });
}

/** Opens `url` with the platform's opener where there is a display; false where there is none. */
function browserOpener(ctx: Context): ((url: string) => Promise<void>) | undefined {
  const env = ctx.io.env;
  const os = Deno.build.os;
  const display = os === "darwin" || os === "windows" || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  if (!display) return undefined;
  const command = os === "darwin" ? "open" : os === "windows" ? "explorer" : "xdg-open";
  return async (url) => {
    try {
      const child = new Deno.Command(command, {
        args: [url],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      await child.status;
    } catch {
      // No opener: the URL is printed already.
    }
  };
}

function renderStatus(s: AuthStatus): string {
  if (!s.signedIn) return `${s.namespace}: not signed in (${s.url})\n`;
  const expiry = s.expiresAt ? `, expires ${s.expiresAt}` : "";
  const refresh = s.refreshable ? ", refreshable" : "";
  return `${s.namespace}: signed in at ${s.issuer} (${s.client} client${expiry}${refresh}${
    s.scope ? `, scope "${s.scope}"` : ""
  })\n`;
}

/** `mcpx auth login <ns>`: the OAuth authorization-code flow, tokens stored for the daemon. */
export const authLogin = defineOperation<{ namespace: string }, AuthStatus>({
  id: "auth.login",
  summary: "Sign in to a remote server with OAuth and store its tokens for every mcpx process",
  description:
    "Finds the server's authorization server (its protected-resource metadata, then the issuer's metadata), obtains a client id (the server's mcpx.oauth.clientId, a client ID metadata document, or dynamic registration), prints the URL to open and opens a browser where there is a display, and waits on a loopback listener on 127.0.0.1 for the redirect. The redirect's state and iss are checked. Tokens are stored 0600 in <state>/oauth, one file per issuer, and refreshed when they expire. Refused in CI mode (auth.ci or CI=true).",
  params: [NAMESPACE],
  cli: { command: ["auth", "login"], complete: "namespaces" },
  http: { none: "signing in needs a person with a browser and the caller's own loopback listener" },
  mcp: { expose: false },
  where: "local",
  output: statusSchema,
  async run(input, ctx) {
    const [use] = await usesOf(ctx, input.namespace);
    const oauth = await load<typeof import("../mcp/oauth.ts")>("../mcp/oauth.ts", import.meta.url);
    const settings = await ctx.settings();
    const open = settings.get("auth.browser") ? browserOpener(ctx) : undefined;
    return await oauth.login(use, {
      say: (line) => ctx.io.err(`${line}\n`),
      ...(open ? { openBrowser: open } : {}),
    });
  },
  render: renderStatus,
});

/** `mcpx auth status [ns]`: what is stored, without secrets. */
export const authStatus = defineOperation<{ namespace?: string }, { servers: AuthStatus[] }>({
  id: "auth.status",
  summary: "Show which remote servers have stored OAuth tokens, and until when",
  params: [{ ...NAMESPACE, required: false, doc: "One server; default every remote server" }],
  cli: { command: ["auth", "status"], complete: "namespaces" },
  http: { none: "the token store is read by the caller's own process" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({ servers: z.array(statusSchema(z)) }),
  async run(input, ctx) {
    const uses = await usesOf(ctx, input.namespace);
    const oauth = await load<typeof import("../mcp/oauth.ts")>("../mcp/oauth.ts", import.meta.url);
    return { servers: uses.map((use) => oauth.status(use)) };
  },
  render: (out) =>
    out.servers.length ? out.servers.map(renderStatus).join("") : "no remote servers\n",
});

/** `mcpx auth logout <ns>`: forgets the server's tokens. */
export const authLogout = defineOperation<
  { namespace: string },
  { namespace: string; removed: boolean }
>({
  id: "auth.logout",
  summary: "Forget a remote server's stored OAuth tokens",
  params: [NAMESPACE],
  cli: { command: ["auth", "logout"], complete: "namespaces" },
  http: { none: "the token store is changed by the caller's own process" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({ namespace: z.string(), removed: z.boolean() }),
  async run(input, ctx) {
    const [use] = await usesOf(ctx, input.namespace);
    const oauth = await load<typeof import("../mcp/oauth.ts")>("../mcp/oauth.ts", import.meta.url);
    return { namespace: use.namespace, removed: await oauth.logout(use) };
  },
  render: (out) =>
    out.removed
      ? `${out.namespace}: signed out (stored tokens removed)\n`
      : `${out.namespace}: no stored tokens\n`,
});
