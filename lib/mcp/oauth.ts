/**
 * OAuth 2.1 for remote MCP servers (docs/oauth.md): discovery of the protected resource's and
 * the authorization server's metadata, client registration (configured, client ID metadata
 * document, dynamic), the authorization-code flow with PKCE and a loopback redirect, and the
 * credential store under `<state>/oauth`, one file per issuer, 0600, refreshed under a lock so
 * that the daemon and one-shot CLIs refresh once between them.
 */
import { McpxError } from "../errors.ts";
import { base64url, dpopKeyOf, dpopProof, noteNonce, randomToken } from "./oauth/dpop.ts";
import {
  authMethods,
  type AuthStatus,
  type Fetch,
  findCredentials,
  isMachine,
  type IssuerFile,
  issuerPath,
  joinScopes,
  needLogin,
  type OAuthUse,
  reaching,
  readIssuerFile,
  resourceOf,
  status,
  statusOf,
  type StoredTokens,
  storedTokens,
  stringField,
  tokenRequest,
  wantScope,
  writeIssuerFile,
} from "./oauth/store.ts";
import { discover, parseChallenge, rememberChallenge, wwwAuthenticate } from "./oauth/discover.ts";
import { clientCredentialsRequest, machineToken } from "./oauth/machine.ts";
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

/** Tokens this close to expiry are refreshed before use. */
const EXPIRY_MARGIN_MS = 30_000;
/** How long `mcpx auth login` waits for the browser to come back. */
export const LOGIN_WAIT_MS = 5 * 60_000;

const refreshing = new Map<string, Promise<string>>();

/**
 * The access token for `use.url`: the stored one while fresh, else a refreshed one. A refresh
 * holds `<file>.lock` (flock) and reads the file again inside it, so that of several processes
 * refreshing at once one asks the server and the rest take its answer. `rejected` is a token
 * the server just refused: it is refreshed even if not yet expired.
 * @throws {McpxError} CREDENTIALS_MISSING naming `mcpx auth login <ns>` when there is no usable token
 */
export async function accessToken(use: OAuthUse, rejected?: string): Promise<string | undefined> {
  const resource = resourceOf(use.url);
  const found = findCredentials(use.dir, resource);
  if (!found) return undefined;
  const tokens = found.file.tokens[resource];
  if (tokens.accessToken !== rejected && fresh(tokens)) return tokens.accessToken;
  const key = `${found.path}\n${resource}`;
  let pending = refreshing.get(key);
  if (!pending) {
    pending = refreshUnderLock(use, found.path, resource, rejected).finally(() =>
      refreshing.delete(key)
    );
    refreshing.set(key, pending);
  }
  return await pending;
}

async function refreshUnderLock(
  use: OAuthUse,
  path: string,
  resource: string,
  rejected: string | undefined,
): Promise<string> {
  const lock = await Deno.open(`${path}.lock`, { create: true, write: true, mode: 0o600 });
  try {
    await lock.lock(true);
    const file = readIssuerFile(path);
    const tokens = file.tokens[resource];
    if (!tokens) throw needLogin(use, "has no stored OAuth token");
    if (tokens.accessToken !== rejected && fresh(tokens)) return tokens.accessToken;
    const machine = isMachine(use.client);
    if (!tokens.refreshToken && !machine) {
      throw needLogin(use, "has an OAuth token that expired and cannot be refreshed");
    }
    const f = reaching(use.fetch ?? fetch);
    const answer = await (tokens.refreshToken
      ? tokenRequest(f, file, {
        grant_type: "refresh_token",
        refresh_token: tokens.refreshToken,
        resource,
      })
      : clientCredentialsRequest(use, f, file, resource, tokens.scope)).catch((error) => {
        throw error instanceof McpxError && error.code === "CREDENTIALS_MISSING"
          ? needLogin(use, `could not refresh its OAuth token (${error.message})`)
          : error;
      });
    file.tokens[resource] = storedTokens(tokens.namespace, answer, tokens);
    writeIssuerFile(path, file);
    return file.tokens[resource].accessToken;
  } finally {
    lock.close();
  }
}

function fresh(tokens: StoredTokens): boolean {
  return tokens.expiresAt === undefined || tokens.expiresAt - EXPIRY_MARGIN_MS > Date.now();
}

/**
 * `fetch` for an HTTP transport that carries the stored access token, refreshes it when it has
 * expired or the server refuses it (once), and turns a challenge with no usable token into one
 * line naming `mcpx auth login <ns>`.
 */
export function oauthFetch(use: OAuthUse, base: Fetch): Fetch {
  let current: string | undefined;
  let loaded = false;
  // The DPoP key of the token last sent, looked up once per token.
  let bound: { token: string; key: JsonWebKey | undefined } | undefined;
  const keyOf = (token: string) => {
    if (bound?.token !== token) bound = { token, key: dpopKeyFor(use, token) };
    return bound.key;
  };
  return async (input, init) => {
    if (!loaded) {
      current = await accessToken(use);
      loaded = true;
    }
    const send = async (token: string | undefined) => {
      const headers = new Headers(init?.headers);
      const key = token ? keyOf(token) : undefined;
      if (token && key) {
        headers.set("authorization", `DPoP ${token}`);
        headers.set(
          "dpop",
          await dpopProof(key, init?.method ?? "GET", String(input), { accessToken: token }),
        );
      } else if (token) headers.set("authorization", `Bearer ${token}`);
      const response = await base(input, { ...init, headers });
      noteNonce(String(input), response);
      // A resource that wants a DPoP nonce (RFC 9449 section 9) is asked again with it, once.
      if (
        key && response.status === 401 &&
        parseChallenge(wwwAuthenticate(response)).error === "use_dpop_nonce" &&
        response.headers.has("dpop-nonce")
      ) {
        await response.body?.cancel();
        headers.set(
          "dpop",
          await dpopProof(key, init?.method ?? "GET", String(input), { accessToken: token }),
        );
        const again = await base(input, { ...init, headers });
        noteNonce(String(input), again);
        return again;
      }
      return response;
    };
    let response = await send(current);
    if (response.status === 403 && current) {
      const challenge = parseChallenge(wwwAuthenticate(response));
      if (challenge.error === "insufficient_scope") {
        await response.body?.cancel();
        const scope = challenge.scope ?? "";
        if (scope) await wantScope(use, scope);
        // The next request reads the store again: a sign-in with the scope may come meanwhile.
        loaded = false;
        throw needLogin(
          use,
          `needs scope "${
            scope || "?"
          }", which its OAuth token lacks (the next sign-in asks for it)`,
        );
      }
    }
    if (response.status !== 401 || !/^\s*(bearer|dpop)\b/i.test(wwwAuthenticate(response))) {
      return response;
    }
    if (!current && isMachine(use.client)) {
      rememberChallenge(use, wwwAuthenticate(response));
      await response.body?.cancel();
      current = await machineToken(use);
      return await send(current);
    }
    if (!current) {
      rememberChallenge(use, wwwAuthenticate(response));
      await response.body?.cancel();
      loaded = false;
      throw needLogin(use, "requires OAuth and has no stored token");
    }
    await response.body?.cancel();
    current = await accessToken(use, current);
    if (!current) throw needLogin(use, "requires OAuth and has no stored token");
    response = await send(current);
    if (response.status === 401) {
      await response.body?.cancel();
      throw needLogin(use, "refused its OAuth token");
    }
    return response;
  };
}

/** The DPoP key a stored token is bound to, if it is a DPoP token. */
function dpopKeyFor(use: OAuthUse, token: string): JsonWebKey | undefined {
  const resource = resourceOf(use.url);
  const found = findCredentials(use.dir, resource);
  const tokens = found?.file.tokens[resource];
  return tokens?.accessToken === token && tokens.tokenType === "DPoP"
    ? found?.file.dpopKey
    : undefined;
}

/** How `login` talks to the person signing in. */
export interface LoginIo {
  /** Prints one line to the person (stderr). */
  say(line: string): void;
  /** Opens the URL in a browser; absent on a headless machine. */
  openBrowser?: (url: string) => void | Promise<void>;
  signal?: AbortSignal;
  /** Milliseconds to wait for the redirect; {@linkcode LOGIN_WAIT_MS} by default. */
  waitMs?: number;
}

/**
 * Signs in to `use.url`: discovery, a client id, then the authorization-code flow with PKCE
 * (S256) through a loopback listener on 127.0.0.1. The redirect's `state` must be the one sent
 * and its `iss` (RFC 9207) the issuer's; the tokens are stored in the issuer's file.
 */
export async function login(use: OAuthUse, io: LoginIo): Promise<AuthStatus> {
  if (isMachine(use.client)) {
    // A machine client signs in by itself: no browser, no person, allowed in CI mode.
    await machineToken(use);
    return status(use);
  }
  if (use.ci) {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `CI mode uses stored tokens only and opens no sign-in: run \`mcpx auth login ${use.namespace}\` where a person can sign in, and keep ${use.dir}`,
    );
  }
  const f = reaching(use.fetch ?? fetch);
  const found = await discover(use);
  const { server, issuer } = found;
  const methods = server.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes("S256")) {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `Authorization server "${issuer}" does not offer PKCE with S256, which MCP requires`,
    );
  }
  const authorize = stringField(server, "authorization_endpoint", issuer);
  const tokenEndpoint = stringField(server, "token_endpoint", issuer);
  const path = issuerPath(use.dir, issuer);
  const before = findCredentials(use.dir, resourceOf(use.url))?.file.tokens[resourceOf(use.url)];
  if (before?.wantScope) {
    const scopes = joinScopes(found.scopes, before.scope, before.wantScope);
    found.scopes = scopes.split(" ");
  }
  const existing = (() => {
    try {
      return readIssuerFile(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
  })();

  const state = randomToken();
  const verifier = randomToken() + randomToken();
  const challenge = await s256(verifier);
  const waiting = Promise.withResolvers<URLSearchParams>();
  waiting.promise.catch(() => {});
  // Aborting ends the wait, and the listener is shut down below (not through the signal: an abort
  // after the sign-in ended would shut down a listener that is already gone).
  io.signal?.addEventListener(
    "abort",
    () => waiting.reject(new McpxError("CREDENTIALS_MISSING", "The sign-in was cancelled")),
    { once: true },
  );
  const listener = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, (request) => {
    const u = new URL(request.url);
    if (u.pathname !== "/callback") return new Response("Not found", { status: 404 });
    waiting.resolve(u.searchParams);
    const ok = u.searchParams.get("state") === state && u.searchParams.has("code");
    return new Response(
      ok ? "Signed in to mcpx; you may close this window." : "mcpx refused this sign-in.",
      { status: ok ? 200 : 400, headers: { "content-type": "text/plain; charset=utf-8" } },
    );
  });
  try {
    const redirectUri = `http://127.0.0.1:${listener.addr.port}/callback`;
    const client = await clientFor(use, f, server, issuer, redirectUri, existing, found.scopes);
    const url = new URL(authorize);
    const q = url.searchParams;
    q.set("response_type", "code");
    q.set("client_id", client.clientId);
    q.set("redirect_uri", redirectUri);
    q.set("code_challenge", challenge);
    q.set("code_challenge_method", "S256");
    q.set("state", state);
    q.set("resource", found.resource);
    if (found.scopes?.length) q.set("scope", found.scopes.join(" "));
    io.say(`Open this URL to sign in to "${use.namespace}" (waiting on ${redirectUri}):`);
    io.say(url.href);
    await io.openBrowser?.(url.href);

    const timer = setTimeout(() => waiting.reject(timeoutError(use)), io.waitMs ?? LOGIN_WAIT_MS);
    let params: URLSearchParams;
    try {
      params = await waiting.promise;
    } finally {
      clearTimeout(timer);
    }
    checkRedirect(use, params, state, server, issuer);
    const dpopKey = await dpopKeyOf(server, existing);
    const answer = await tokenRequest(f, {
      issuer,
      tokenEndpoint,
      authMethods: authMethods(server),
      client,
      ...(dpopKey ? { dpopKey } : {}),
      tokens: {},
    }, {
      grant_type: "authorization_code",
      code: params.get("code") ?? "",
      redirect_uri: redirectUri,
      code_verifier: verifier,
      resource: found.resource,
    });
    // Read again: another resource of the same issuer may have signed in meanwhile.
    const latest = (() => {
      try {
        return readIssuerFile(path);
      } catch {
        return undefined;
      }
    })();
    const file: IssuerFile = {
      issuer,
      tokenEndpoint,
      authMethods: authMethods(server),
      client,
      ...(dpopKey ? { dpopKey } : {}),
      tokens: { ...latest?.tokens, [resourceOf(use.url)]: storedTokens(use.namespace, answer) },
    };
    writeIssuerFile(path, file);
    return statusOf(use, path, file);
  } finally {
    await listener.shutdown();
  }
}

function timeoutError(use: OAuthUse): McpxError {
  return new McpxError(
    "CREDENTIALS_MISSING",
    `Sign-in to "${use.namespace}" did not come back within ${
      Math.round(LOGIN_WAIT_MS / 60_000)
    } minutes; nothing was stored`,
  );
}

function checkRedirect(
  use: OAuthUse,
  params: URLSearchParams,
  state: string,
  server: Record<string, unknown>,
  issuer: string,
): void {
  const refuse = (why: string) =>
    new McpxError(
      "UNAUTHORIZED",
      `Sign-in to "${use.namespace}" refused: ${why}; nothing was stored`,
    );
  if (params.get("state") !== state) {
    throw refuse("the redirect carried a different state than was sent");
  }
  const iss = params.get("iss");
  if (iss !== null && iss !== issuer) {
    throw refuse(`the redirect came from issuer "${iss}", not "${issuer}"`);
  }
  if (iss === null && server.authorization_response_iss_parameter_supported === true) {
    throw refuse(`the redirect carried no "iss", which "${issuer}" promises`);
  }
  const error = params.get("error");
  if (error) {
    const description = params.get("error_description");
    throw refuse(
      `the authorization server answered "${error}"${description ? ` (${description})` : ""}`,
    );
  }
  if (!params.get("code")) throw refuse("the redirect carried no code");
}

async function clientFor(
  use: OAuthUse,
  f: Fetch,
  server: Record<string, unknown>,
  issuer: string,
  redirectUri: string,
  existing: IssuerFile | undefined,
  scopes: string[] | undefined,
): Promise<IssuerFile["client"]> {
  const configured = use.client;
  if (configured?.clientId) {
    return {
      clientId: configured.clientId,
      ...(configured.clientSecret ? { clientSecret: configured.clientSecret } : {}),
      how: "configured",
    };
  }
  if (configured?.clientMetadataUrl && server.client_id_metadata_document_supported === true) {
    return { clientId: configured.clientMetadataUrl, how: "metadata-document" };
  }
  const registration = server.registration_endpoint;
  if (
    existing?.client.how === "dynamic" && existing.client.redirectUris?.includes(redirectUri)
  ) {
    return existing.client;
  }
  if (typeof registration !== "string") {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `Authorization server "${issuer}" offers no client registration: register mcpx there (redirect URI http://127.0.0.1/callback, any port) and set "mcpx": { "oauth": { "clientId": "…", "clientSecret": "\${SECRET}" } } on server "${use.namespace}"`,
    );
  }
  const response = await f(registration, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({
      client_name: "mcpx",
      // A command-line program with a loopback redirect is a native application (SEP-837).
      application_type: "native",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(scopes?.length ? { scope: scopes.join(" ") } : {}),
    }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok || typeof body.client_id !== "string") {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `Authorization server "${issuer}" refused to register mcpx (HTTP ${response.status}${
        body.error ? `, ${body.error}` : ""
      })`,
    );
  }
  return {
    clientId: body.client_id,
    ...(typeof body.client_secret === "string" ? { clientSecret: body.client_secret } : {}),
    redirectUris: [redirectUri],
    how: "dynamic",
  };
}

async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}
