/**
 * `mcpx auth login` for a remote MCP server (docs/oauth.md): a client id (configured, client ID
 * metadata document, dynamic registration), then the authorization-code flow with PKCE and a
 * loopback redirect on 127.0.0.1; a machine client signs in by itself.
 */
import { McpxError } from "../../errors.ts";
import { base64url, dpopKeyOf, randomToken } from "./dpop.ts";
import {
  authMethods,
  type AuthStatus,
  type Fetch,
  findCredentials,
  isMachine,
  type IssuerFile,
  issuerPath,
  joinScopes,
  type OAuthUse,
  reaching,
  readIssuerFile,
  resourceOf,
  status,
  statusOf,
  storedTokens,
  stringField,
  tokenRequest,
  writeIssuerFile,
} from "./store.ts";
import { discover, type Discovery } from "./discover.ts";
import { machineToken } from "./machine.ts";

/** How long `mcpx auth login` waits for the browser to come back. */
export const LOGIN_WAIT_MS = 5 * 60_000;

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
  const plan = await prepareSignIn(use);
  const { server, issuer } = plan.found;

  const state = randomToken();
  const verifier = randomToken() + randomToken();
  const challenge = await s256(verifier);
  const { listener, waiting } = redirectListener(state, io.signal);
  try {
    const redirectUri = `http://127.0.0.1:${listener.addr.port}/callback`;
    const client = await clientFor(
      use,
      f,
      server,
      issuer,
      redirectUri,
      plan.existing,
      plan.found.scopes,
    );
    const url = authorizationUrl(plan, client.clientId, redirectUri, challenge, state);
    io.say(`Open this URL to sign in to "${use.namespace}" (waiting on ${redirectUri}):`);
    io.say(url.href);
    await io.openBrowser?.(url.href);

    const params = await redirected(use, waiting, io.waitMs);
    checkRedirect(use, params, state, server, issuer);
    return await storeSignIn(use, f, plan, client, {
      code: params.get("code") ?? "",
      redirectUri,
      verifier,
    });
  } finally {
    await listener.shutdown();
  }
}

/** What a sign-in learns of its authorization server before it opens the loopback listener. */
interface SignIn {
  found: Discovery;
  authorize: string;
  tokenEndpoint: string;
  /** The issuer's file. */
  path: string;
  /** What the issuer's file holds already: its client and DPoP key are kept. */
  existing: IssuerFile | undefined;
}

/**
 * Discovery for a sign-in: an authorization server offering PKCE with S256 and publishing both
 * endpoints, the scopes to ask for (with those a server asked for since), and the issuer's file.
 */
async function prepareSignIn(use: OAuthUse): Promise<SignIn> {
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
  return { found, authorize, tokenEndpoint, path, existing };
}

/**
 * The loopback listener on 127.0.0.1 that the browser is redirected to, and the wait for that
 * redirect's parameters, which an abort of `signal` ends.
 */
function redirectListener(state: string, signal: AbortSignal | undefined) {
  const waiting = Promise.withResolvers<URLSearchParams>();
  waiting.promise.catch(() => {});
  // Aborting ends the wait, and the listener is shut down below (not through the signal: an abort
  // after the sign-in ended would shut down a listener that is already gone).
  signal?.addEventListener(
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
  return { listener, waiting };
}

/** The authorization request: the code flow with PKCE (S256) for the resource, with its scopes. */
function authorizationUrl(
  plan: SignIn,
  clientId: string,
  redirectUri: string,
  challenge: string,
  state: string,
): URL {
  const url = new URL(plan.authorize);
  const q = url.searchParams;
  q.set("response_type", "code");
  q.set("client_id", clientId);
  q.set("redirect_uri", redirectUri);
  q.set("code_challenge", challenge);
  q.set("code_challenge_method", "S256");
  q.set("state", state);
  q.set("resource", plan.found.resource);
  if (plan.found.scopes?.length) q.set("scope", plan.found.scopes.join(" "));
  return url;
}

/** The redirect's parameters, or a timeout after `waitMs` ({@linkcode LOGIN_WAIT_MS} by default). */
async function redirected(
  use: OAuthUse,
  waiting: PromiseWithResolvers<URLSearchParams>,
  waitMs: number | undefined,
): Promise<URLSearchParams> {
  const timer = setTimeout(() => waiting.reject(timeoutError(use)), waitMs ?? LOGIN_WAIT_MS);
  try {
    return await waiting.promise;
  } finally {
    clearTimeout(timer);
  }
}

/** Exchanges the redirect's code for tokens and stores them in the issuer's file. */
async function storeSignIn(
  use: OAuthUse,
  f: Fetch,
  plan: SignIn,
  client: IssuerFile["client"],
  grant: { code: string; redirectUri: string; verifier: string },
): Promise<AuthStatus> {
  const { found: { server, issuer }, tokenEndpoint, path } = plan;
  const dpopKey = await dpopKeyOf(server, plan.existing);
  const answer = await tokenRequest(f, {
    issuer,
    tokenEndpoint,
    authMethods: authMethods(server),
    client,
    ...(dpopKey ? { dpopKey } : {}),
    tokens: {},
  }, {
    grant_type: "authorization_code",
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
    resource: plan.found.resource,
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
