/**
 * The client under test for the official suite's auth scenarios, over mcpx's OAuth module alone
 * (lib/mcp/oauth.ts): it connects with the SDK's client and `oauthFetch`, and when refused, signs
 * in as `mcpx auth login` does, its "browser" fetching the printed URL and following the redirect
 * to the loopback listener; then tries again (three sign-ins at most). Not the whole client leg:
 * that runs through the daemon's pool. MODERN=1 pins the 2026-07-28 revision.
 *
 *   deno run -A npm:@modelcontextprotocol/conformance@0.2.0-alpha.12 client --suite auth \
 *     --command "deno run -A tools/conformance_oauth_client.ts"
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { login, oauthFetch, type OAuthUse } from "../lib/mcp/oauth.ts";

const url = Deno.args[Deno.args.length - 1];
const context = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}");
const dir = await Deno.makeTempDir({ prefix: "mcpx-oauth-conformance-" });
const use: OAuthUse = {
  namespace: "conformance",
  url,
  dir,
  client: context.client_id
    ? { clientId: context.client_id, clientSecret: context.client_secret }
    : { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" },
};

async function session(): Promise<void> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: oauthFetch(use, fetch),
  });
  const client = new Client({ name: "mcpx-oauth-conformance", version: "0" }, {
    versionNegotiation: Deno.env.get("MODERN")
      ? { mode: { pin: "2026-07-28" } }
      : { mode: "legacy" },
  });
  await client.connect(transport);
  const { tools } = await client.listTools();
  if (tools[0]) await client.callTool({ name: tools[0].name, arguments: {} });
  await client.close();
}

try {
  for (let attempt = 0;; attempt++) {
    try {
      await session();
      break;
    } catch (error) {
      console.error(`refused: ${(error as Error).message}`);
      if (attempt >= 3) throw error;
      await login(use, {
        say: (line) => console.error(line),
        openBrowser: async (address) => {
          const response = await fetch(address);
          await response.body?.cancel();
        },
      });
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
