/**
 * The OAuth credential store under `<state>/oauth` (docs/oauth.md): one file per issuer, 0600,
 * holding its endpoints, this machine's client there and tokens by resource; the token request
 * every grant ends in; the status `mcpx auth status` shows and the logout that forgets tokens,
 * both under the file's lock.
 */
import { McpxError } from "../../errors.ts";
import { writeFileAtomic } from "../../_atomic.ts";
import { join } from "../../_path.ts";
import { dpopProof, noteNonce } from "./dpop.ts";

export type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** The `mcpx.oauth` block of a server entry, with `${VAR}` already expanded. */
export interface OAuthClientConfig {
  clientId?: string;
  clientSecret?: string;
  scopes?: string[];
  /** An HTTPS URL serving this client's metadata document, used as its client id where offered. */
  clientMetadataUrl?: string;
  /**
   * A machine client that needs no sign-in, its tokens requested whenever none is usable:
   * `client_credentials` (RFC 6749 section 4.4) with `clientId` and `clientSecret` (or
   * `privateKey`), or `jwt_bearer` (RFC 7523, workload identity) presenting `assertion`.
   */
  grant?: "authorization_code" | "client_credentials" | "jwt_bearer" | "enterprise";
  /** A PKCS#8 PEM private key (EC P-256, ES256) for `private_key_jwt` client authentication. */
  privateKey?: string;
  /** The JWT a `jwt_bearer` client presents (its workload identity token). */
  assertion?: string;
  /**
   * `enterprise` (enterprise-managed authorization): the identity provider's token endpoint, where
   * `idToken` is exchanged (RFC 8693) for an identity assertion grant (ID-JAG) that the
   * authorization server takes with the JWT bearer grant; `idpClientId` and `idpClientSecret` are
   * this client at the identity provider.
   */
  idpTokenEndpoint?: string;
  idpClientId?: string;
  idpClientSecret?: string;
  idToken?: string;
}

/** Whether `use` is a machine client, which gets its tokens without a person. */
export function isMachine(client: OAuthClientConfig | undefined): boolean {
  return client?.grant === "client_credentials" || client?.grant === "jwt_bearer" ||
    client?.grant === "enterprise";
}

/** What the connection and the `auth` commands need to reach one server's credentials. */
export interface OAuthUse {
  namespace: string;
  /** The MCP endpoint: the protected resource. */
  url: string;
  /** `<state>/oauth`. */
  dir: string;
  client?: OAuthClientConfig;
  /** Stored tokens only: no flow is opened, and the message says so. */
  ci?: boolean;
  fetch?: Fetch;
}

/** One resource's tokens. */
export interface StoredTokens {
  namespace: string;
  accessToken: string;
  refreshToken?: string;
  /** Milliseconds since the epoch; absent when the server gave no lifetime. */
  expiresAt?: number;
  scope?: string;
  /** Scopes a server asked for (`insufficient_scope`) beyond these tokens': the next login asks too. */
  wantScope?: string;
  /** `DPoP` for a token bound to the issuer file's `dpopKey`; absent for a bearer token. */
  tokenType?: "DPoP";
}

/** The file of one issuer: its endpoints, this machine's client there, and tokens by resource. */
export interface IssuerFile {
  issuer: string;
  tokenEndpoint: string;
  authMethods?: string[];
  client: { clientId: string; clientSecret?: string; redirectUris?: string[]; how: ClientHow };
  /**
   * This machine's DPoP key at the issuer (RFC 9449), a private JWK (EC P-256), where the issuer
   * offers DPoP: its tokens are bound to it, and every use carries a proof signed with it.
   */
  dpopKey?: JsonWebKey;
  tokens: Record<string, StoredTokens>;
}

/** How the client id was obtained. */
export type ClientHow = "configured" | "metadata-document" | "dynamic";

/** `<state>/oauth`. */
export function oauthDir(state: string): string {
  return join(state, "oauth");
}

/** The file of `issuer` in `dir`. */
export function issuerPath(dir: string, issuer: string): string {
  const slug = new URL(issuer).host.replace(/[^\w.-]/g, "_");
  return join(dir, `${slug}-${shortHash(issuer)}.json`);
}

/** The resource identifier of an MCP endpoint: the URL without fragment. */
export function resourceOf(url: string): string {
  const u = new URL(url);
  u.hash = "";
  return u.href;
}

/**
 * Reads an issuer file, refusing one that group or others may read, or another user owns: a
 * token file is a password, and a looser mode means it was copied or written by something else.
 */
export function readIssuerFile(path: string): IssuerFile {
  const info = Deno.statSync(path);
  const uid = Deno.uid();
  if (uid !== null && info.uid !== null && info.uid !== uid) {
    throw new McpxError(
      "UNSAFE_PATH",
      `Token file "${path}" belongs to another user (uid ${info.uid}), so mcpx will not use it; remove it and run \`mcpx auth login\` again`,
    );
  }
  const mode = (info.mode ?? 0o600) & 0o777;
  if (mode & 0o077) {
    throw new McpxError(
      "UNSAFE_PATH",
      `Token file "${path}" has mode ${
        mode.toString(8).padStart(4, "0")
      }, readable beyond its owner, so mcpx will not use it; run \`chmod 600 ${path}\``,
    );
  }
  return JSON.parse(Deno.readTextFileSync(path)) as IssuerFile;
}

/** Every issuer file in `dir` holding tokens for `resource`. */
export function findCredentials(
  dir: string,
  resource: string,
): { path: string; file: IssuerFile } | undefined {
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.endsWith(".json"))
      .map((e) => e.name).sort();
  } catch {
    return undefined;
  }
  for (const name of names) {
    const path = join(dir, name);
    let text: string;
    try {
      text = Deno.readTextFileSync(path);
    } catch {
      continue;
    }
    if (!text.includes(JSON.stringify(resource))) continue;
    const file = readIssuerFile(path);
    if (file.tokens?.[resource]) return { path, file };
  }
  return undefined;
}

export function writeIssuerFile(path: string, file: IssuerFile): void {
  writeFileAtomic(path, JSON.stringify(file, null, 2) + "\n");
}

export function needLogin(use: OAuthUse, why: string): McpxError {
  const ci = use.ci ? " (CI mode uses stored tokens only and opens no sign-in)" : "";
  return new McpxError(
    "CREDENTIALS_MISSING",
    `Server "${use.namespace}" ${why}${ci}: run \`mcpx auth login ${use.namespace}\``,
  );
}

/** Records the scopes a `403 insufficient_scope` asked for, so that the next login asks for them. */
export async function wantScope(use: OAuthUse, scope: string): Promise<void> {
  const resource = resourceOf(use.url);
  const found = findCredentials(use.dir, resource);
  if (!found) return;
  const lock = await Deno.open(`${found.path}.lock`, { create: true, write: true, mode: 0o600 });
  try {
    await lock.lock(true);
    const file = readIssuerFile(found.path);
    const tokens = file.tokens[resource];
    if (!tokens) return;
    tokens.wantScope = joinScopes(tokens.wantScope, scope);
    writeIssuerFile(found.path, file);
  } finally {
    lock.close();
  }
}

/** The union of space-separated scope lists, in order of first appearance. */
export function joinScopes(...lists: (string | string[] | undefined)[]): string {
  const out = new Set<string>();
  for (const list of lists) {
    const words = Array.isArray(list) ? list : (list ?? "").split(/\s+/);
    for (const w of words) if (w) out.add(w);
  }
  return [...out].join(" ");
}

/** `f`, with a network failure turned into one line naming the address (origin and path). */
export function reaching(f: Fetch): Fetch {
  return async (input, init) => {
    try {
      return await f(input, init);
    } catch (error) {
      if (init?.signal?.aborted) throw error;
      const u = new URL(String(input));
      throw new McpxError(
        "SERVER_START_FAILED",
        `Cannot reach ${u.origin}${u.pathname} (${error instanceof Error ? error.message : error})`,
        { hint: "" },
      );
    }
  };
}

export function authMethods(server: Record<string, unknown>): string[] | undefined {
  const methods = server.token_endpoint_auth_methods_supported;
  return Array.isArray(methods) ? methods.filter((m) => typeof m === "string") : undefined;
}

export interface TokenAnswer {
  access_token: string;
  token_type?: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

export async function tokenRequest(
  f: Fetch,
  file: IssuerFile,
  params: Record<string, string>,
): Promise<TokenAnswer> {
  const form = new URLSearchParams(params);
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  const { clientId, clientSecret } = file.client;
  if (params.client_assertion) {
    form.set("client_id", clientId);
  } else if (clientSecret) {
    const methods = file.authMethods ?? ["client_secret_basic"];
    if (methods.includes("client_secret_basic") || !methods.includes("client_secret_post")) {
      headers.authorization = `Basic ${
        btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`)
      }`;
    } else {
      form.set("client_id", clientId);
      form.set("client_secret", clientSecret);
    }
  } else {
    form.set("client_id", clientId);
  }
  const post = async () => {
    if (file.dpopKey) headers.dpop = await dpopProof(file.dpopKey, "POST", file.tokenEndpoint);
    const response = await f(file.tokenEndpoint, { method: "POST", headers, body: form });
    noteNonce(file.tokenEndpoint, response);
    return { response, body: await response.json().catch(() => ({})) };
  };
  let { response, body } = await post();
  // An authorization server that wants a DPoP nonce (RFC 9449 section 8) is asked again with it.
  if (file.dpopKey && body.error === "use_dpop_nonce" && response.headers.has("dpop-nonce")) {
    ({ response, body } = await post());
  }
  if (!response.ok || typeof body.access_token !== "string") {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `the token endpoint of "${file.issuer}" answered HTTP ${response.status}${
        body.error ? ` "${body.error}"` : ""
      }`,
    );
  }
  return body as TokenAnswer;
}

export function storedTokens(
  namespace: string,
  answer: TokenAnswer,
  before?: StoredTokens,
): StoredTokens {
  const refreshToken = answer.refresh_token ?? before?.refreshToken;
  const scope = answer.scope ?? before?.scope;
  return {
    namespace,
    accessToken: answer.access_token,
    ...(refreshToken ? { refreshToken } : {}),
    ...(typeof answer.expires_in === "number"
      ? { expiresAt: Date.now() + answer.expires_in * 1000 }
      : {}),
    ...(scope ? { scope } : {}),
    ...(answer.token_type?.toLowerCase() === "dpop" ? { tokenType: "DPoP" as const } : {}),
  };
}

/** What `mcpx auth login` and `mcpx auth status` report of one server. */
export interface AuthStatus {
  namespace: string;
  url: string;
  signedIn: boolean;
  issuer?: string;
  client?: ClientHow;
  scope?: string;
  expiresAt?: string;
  refreshable?: boolean;
  file?: string;
}

/** What is stored for `use.url`, without secrets. */
export function status(use: OAuthUse): AuthStatus {
  const found = findCredentials(use.dir, resourceOf(use.url));
  if (!found) return { namespace: use.namespace, url: use.url, signedIn: false };
  return statusOf(use, found.path, found.file);
}

export function statusOf(use: OAuthUse, path: string, file: IssuerFile): AuthStatus {
  const tokens = file.tokens[resourceOf(use.url)];
  return {
    namespace: use.namespace,
    url: use.url,
    signedIn: Boolean(tokens),
    issuer: file.issuer,
    client: file.client.how,
    ...(tokens?.scope ? { scope: tokens.scope } : {}),
    ...(tokens?.expiresAt ? { expiresAt: new Date(tokens.expiresAt).toISOString() } : {}),
    refreshable: Boolean(tokens?.refreshToken),
    file: path,
  };
}

/** Forgets the tokens of `use.url` (the client registration stays); false when there were none. */
export async function logout(use: OAuthUse): Promise<boolean> {
  const resource = resourceOf(use.url);
  const found = findCredentials(use.dir, resource);
  if (!found) return false;
  const lock = await Deno.open(`${found.path}.lock`, { create: true, write: true, mode: 0o600 });
  try {
    await lock.lock(true);
    const file = readIssuerFile(found.path);
    delete file.tokens[resource];
    writeIssuerFile(found.path, file);
    return true;
  } finally {
    lock.close();
  }
}

export function stringField(server: Record<string, unknown>, key: string, issuer: string): string {
  const value = server[key];
  if (typeof value !== "string") {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `Authorization server "${issuer}" publishes no "${key}"`,
    );
  }
  return value;
}

export function shortHash(text: string): string {
  // FNV-1a, 32 bits: a file name, not a secret.
  let h = 0x811c9dc5;
  for (const c of new TextEncoder().encode(text)) h = Math.imul(h ^ c, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}
