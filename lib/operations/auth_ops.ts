import { defineOperation, type Zod } from "./define.ts";
import { McpxError } from "../errors.ts";
import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import type { AuthStatus, OAuthUse } from "../mcp/oauth/mod.ts";

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
      load<typeof import("../mcp/oauth/mod.ts")>("../mcp/oauth/mod.ts", import.meta.url),
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
  const display = os === "darwin" || os === "windows" ||
    Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
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

interface AuthOutput {
  action: "login" | "status" | "logout";
  servers: AuthStatus[];
  /** logout: whether there were tokens to remove. */
  removed?: boolean;
}

/** `mcpx auth login|status|logout <ns>`: OAuth sign-in, what is stored, and signing out. */
export const auth = defineOperation<
  { action: "login" | "status" | "logout"; namespace?: string },
  AuthOutput
>({
  id: "auth.oauth",
  summary:
    "Sign in to a remote server with OAuth (login), show stored tokens (status), forget them (logout)",
  description:
    "login finds the server's authorization server (its protected-resource metadata, then the issuer's metadata), obtains a client id (the server's mcpx.oauth.clientId and clientSecret, a client ID metadata document, or dynamic registration), prints the URL to open, opens a browser where there is a display, and waits on a loopback listener on 127.0.0.1 for the redirect, whose state and iss are checked. Tokens are stored 0600 in <state>/oauth, one file per issuer, shared by the daemon and every CLI, and refreshed when they expire (one refresh at a time, under a lock). login is refused in CI mode (auth.ci, CI=true). status shows no secret; with no namespace it lists every remote server. logout forgets the server's tokens.",
  params: [
    {
      name: "action",
      type: "enum",
      values: ["login", "status", "logout"],
      positional: true,
      required: true,
      doc: "login, status or logout",
    },
    { ...NAMESPACE, required: false, doc: "The remote server's namespace (status: default all)" },
  ],
  cli: {
    command: ["auth"],
    examples: [["mcpx auth login github", "Sign in to the remote server github with OAuth"], [
      "mcpx auth status",
      "The stored tokens",
    ], ["mcpx auth logout github", "Forget github's tokens"]],
  },
  http: { none: "signing in needs a person with a browser and the caller's own loopback listener" },
  mcp: { expose: false },
  where: "local",
  output: (z) =>
    z.object({
      action: z.enum(["login", "status", "logout"]),
      servers: z.array(statusSchema(z)),
      removed: z.boolean().optional(),
    }),
  async run(input, ctx) {
    if (input.action !== "status" && input.namespace === undefined) {
      throw new McpxError("USAGE", `\`mcpx auth ${input.action}\` needs a namespace`, {
        hint: "`mcpx auth status` lists the remote servers",
      });
    }
    const uses = await usesOf(ctx, input.namespace);
    const oauth = await load<typeof import("../mcp/oauth/mod.ts")>(
      "../mcp/oauth/mod.ts",
      import.meta.url,
    );
    if (input.action === "status") {
      return { action: "status", servers: uses.map((use) => oauth.status(use)) };
    }
    const [use] = uses;
    if (input.action === "logout") {
      const removed = await oauth.logout(use);
      return { action: "logout", servers: [oauth.status(use)], removed };
    }
    const settings = await ctx.settings();
    const open = settings.get("auth.browser") ? browserOpener(ctx) : undefined;
    const signed = await oauth.login(use, {
      say: (line) => ctx.io.err(`${line}\n`),
      ...(open ? { openBrowser: open } : {}),
    });
    return { action: "login", servers: [signed] };
  },
  render(out) {
    if (out.action === "logout") {
      const ns = out.servers[0].namespace;
      return out.removed
        ? `${ns}: signed out (stored tokens removed)\n`
        : `${ns}: no stored tokens\n`;
    }
    return out.servers.length ? out.servers.map(renderStatus).join("") : "no remote servers\n";
  },
});
