/**
 * The stored OAuth tokens in use (docs/oauth.md): the `fetch` an HTTP transport sends through, which
 * carries the access token (as a DPoP-bound one where it is), and its refresh under the issuer
 * file's lock, so that the daemon and one-shot CLIs refresh once between them.
 */
import { McpxError } from "../../errors.ts";
import { dpopProof, noteNonce } from "./dpop.ts";
import {
  type Fetch,
  findCredentials,
  isMachine,
  needLogin,
  type OAuthUse,
  reaching,
  readIssuerFile,
  resourceOf,
  type StoredTokens,
  storedTokens,
  tokenRequest,
  wantScope,
  writeIssuerFile,
} from "./store.ts";
import { parseChallenge, rememberChallenge, wwwAuthenticate } from "./discover.ts";
import { clientCredentialsRequest, machineToken } from "./machine.ts";

/** Tokens this close to expiry are refreshed before use. */
const EXPIRY_MARGIN_MS = 30_000;

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
