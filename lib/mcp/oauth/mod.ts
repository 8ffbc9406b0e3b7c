/**
 * OAuth 2.1 for remote MCP servers (docs/oauth.md), the names the rest of mcpx uses. The pieces:
 * `discover.ts` (the protected resource's and the authorization server's metadata), `login.ts`
 * (client registration, the authorization-code flow with PKCE and a loopback redirect),
 * `machine.ts` (client credentials, JWT bearer, enterprise ID-JAG, client assertions), `dpop.ts`
 * (DPoP proofs), `store.ts` (the credential store under `<state>/oauth`, one file per issuer,
 * 0600) and `fetch.ts` (the token in use, refreshed under a lock so that the daemon and one-shot
 * CLIs refresh once between them).
 */
export {
  type AuthStatus,
  findCredentials,
  isMachine,
  logout,
  type OAuthClientConfig,
  oauthDir,
  type OAuthUse,
  resourceOf,
  status,
} from "./store.ts";
export { login } from "./login.ts";
export { oauthFetch } from "./fetch.ts";
