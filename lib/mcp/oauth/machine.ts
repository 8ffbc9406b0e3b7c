/**
 * OAuth machine clients (docs/oauth.md), which get their tokens without a person: the client
 * credentials grant (with a `private_key_jwt` client assertion where a private key is configured),
 * the JWT bearer grant (workload identity), and enterprise-managed authorization, where the
 * identity provider exchanges the user's ID token for an identity assertion grant (ID-JAG).
 */
import { McpxError } from "../../errors.ts";
import { dpopKeyOf, randomToken, signEs256 } from "./dpop.ts";
import {
  authMethods,
  type Fetch,
  type IssuerFile,
  issuerPath,
  type OAuthUse,
  reaching,
  readIssuerFile,
  resourceOf,
  storedTokens,
  stringField,
  type TokenAnswer,
  tokenRequest,
  writeIssuerFile,
} from "./store.ts";
import { discover } from "./discover.ts";

const machineTokens = new Map<string, Promise<string>>();

/**
 * A token for a machine client (`mcpx.oauth.grant`): discovery as for a sign-in, then a token
 * request, `client_credentials` authenticated by the configured secret (or a `private_key_jwt`
 * assertion signed with `privateKey`) or `jwt_bearer` presenting the configured assertion,
 * stored like any other. No person is involved, so the daemon does it
 * itself, once at a time per resource within a process.
 */
export function machineToken(use: OAuthUse): Promise<string> {
  const resource = resourceOf(use.url);
  let pending = machineTokens.get(resource);
  if (!pending) {
    pending = (async () => {
      const client = use.client;
      if (!client?.clientId) {
        throw new McpxError(
          "CONFIG_INVALID",
          `Server "${use.namespace}": "mcpx.oauth.grant" "${client?.grant}" needs a clientId`,
        );
      }
      const f = reaching(use.fetch ?? fetch);
      const found = await discover(use);
      const path = issuerPath(use.dir, found.issuer);
      const latest = (() => {
        try {
          return readIssuerFile(path);
        } catch (error) {
          if (error instanceof Deno.errors.NotFound) return undefined;
          throw error;
        }
      })();
      const dpopKey = await dpopKeyOf(found.server, latest);
      const file: IssuerFile = {
        issuer: found.issuer,
        tokenEndpoint: stringField(found.server, "token_endpoint", found.issuer),
        authMethods: authMethods(found.server),
        client: {
          clientId: client.clientId,
          ...(client.clientSecret ? { clientSecret: client.clientSecret } : {}),
          how: "configured",
        },
        ...(dpopKey ? { dpopKey } : {}),
        tokens: { ...latest?.tokens },
      };
      const answer = await clientCredentialsRequest(
        use,
        f,
        file,
        found.resource,
        found.scopes?.join(" "),
      );
      file.tokens[resource] = storedTokens(use.namespace, answer);
      writeIssuerFile(path, file);
      return file.tokens[resource].accessToken;
    })().finally(() => machineTokens.delete(resource));
    machineTokens.set(resource, pending);
  }
  return pending;
}

/**
 * The token request of a machine client: the client credentials grant (with a JWT client
 * assertion where a private key is configured), or the JWT bearer grant with its assertion.
 */
export async function clientCredentialsRequest(
  use: OAuthUse,
  f: Fetch,
  file: IssuerFile,
  resource: string,
  scope: string | undefined,
): Promise<TokenAnswer> {
  const bearer = use.client?.grant === "jwt_bearer" || use.client?.grant === "enterprise";
  const assertion = use.client?.grant === "enterprise"
    ? await identityAssertion(use, f, file.issuer, resource, scope)
    : use.client?.assertion ?? "";
  const params: Record<string, string> = bearer
    ? { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion, resource }
    : { grant_type: "client_credentials", resource };
  if (scope) params.scope = scope;
  if (!bearer && use.client?.privateKey) {
    params.client_assertion_type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
    params.client_assertion = await clientAssertion(
      use,
      file.client.clientId,
      file.issuer,
      use.client.privateKey,
    );
  }
  return await tokenRequest(f, file, params);
}

/**
 * Enterprise-managed authorization: the identity provider exchanges the user's ID token (RFC 8693
 * token exchange) for an identity assertion authorization grant (ID-JAG) for `issuer` and
 * `resource`, which the authorization server then takes as a JWT bearer assertion.
 */
async function identityAssertion(
  use: OAuthUse,
  f: Fetch,
  issuer: string,
  resource: string,
  scope: string | undefined,
): Promise<string> {
  const c = use.client ?? {};
  const form = new URLSearchParams({
    grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
    requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
    subject_token: c.idToken ?? "",
    subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
    audience: issuer,
    resource,
    ...(scope ? { scope } : {}),
  });
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  if (c.idpClientSecret) {
    headers.authorization = `Basic ${
      btoa(`${encodeURIComponent(c.idpClientId ?? "")}:${encodeURIComponent(c.idpClientSecret)}`)
    }`;
  } else if (c.idpClientId) form.set("client_id", c.idpClientId);
  const response = await f(c.idpTokenEndpoint ?? "", { method: "POST", headers, body: form });
  const body = await response.json().catch(() => ({}));
  if (!response.ok || typeof body.access_token !== "string") {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `The identity provider's token endpoint ${c.idpTokenEndpoint} refused to exchange the ID token for server "${use.namespace}" (HTTP ${response.status}${
        body.error ? ` "${body.error}"` : ""
      })`,
    );
  }
  return body.access_token;
}

/** A `private_key_jwt` client assertion (RFC 7523): ES256 over iss = sub = the client id. */
async function clientAssertion(
  use: OAuthUse,
  clientId: string,
  audience: string,
  pem: string,
): Promise<string> {
  const der = (() => {
    try {
      const body = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "").replace(/\s+/g, "");
      return Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
    } catch {
      return undefined;
    }
  })();
  const key = der && await crypto.subtle.importKey(
    "pkcs8",
    der,
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  ).catch(() => undefined);
  if (!key) {
    throw new McpxError(
      "CONFIG_INVALID",
      `Server "${use.namespace}": "mcpx.oauth.privateKey" is not a PKCS#8 PEM EC P-256 private key`,
    );
  }
  const now = Math.floor(Date.now() / 1000);
  return await signEs256(key, { alg: "ES256", typ: "JWT" }, {
    iss: clientId,
    sub: clientId,
    aud: audience,
    iat: now,
    exp: now + 300,
    jti: randomToken(),
  });
}
