/**
 * OAuth 2.1 for remote MCP servers (docs/oauth.md): discovery of the protected resource's and
 * the authorization server's metadata, client registration (configured, client ID metadata
 * document, dynamic), the authorization-code flow with PKCE and a loopback redirect, and the
 * credential store under `<state>/oauth`, one file per issuer, 0600, refreshed under a lock so
 * that the daemon and one-shot CLIs refresh once between them.
 */

export {
  type AuthStatus,
  type ClientHow,
  findCredentials,
  isMachine,
  type IssuerFile,
  issuerPath,
  logout,
  type OAuthClientConfig,
  oauthDir,
  type OAuthUse,
  readIssuerFile,
  resourceOf,
  status,
  type StoredTokens,
} from "./oauth/store.ts";
export { discover, type Discovery, metadataUrls, parseChallenge } from "./oauth/discover.ts";
export { machineToken } from "./oauth/machine.ts";
export { login, LOGIN_WAIT_MS, type LoginIo } from "./oauth/login.ts";
export { accessToken, oauthFetch } from "./oauth/fetch.ts";
