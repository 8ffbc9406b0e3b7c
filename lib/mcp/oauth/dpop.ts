/**
 * DPoP (RFC 9449) for the OAuth client (docs/oauth.md): this machine's key at an issuer that offers
 * DPoP, the proof that accompanies each token request and each use of a bound token, the nonces
 * servers hand out, and the ES256 compact JWS that the proofs and client assertions are signed as.
 */

/** The last `DPoP-Nonce` each origin handed out (RFC 9449 section 8 and 9), within this process. */
const dpopNonces = new Map<string, string>();

export function noteNonce(url: string, response: Response): void {
  const nonce = response.headers.get("dpop-nonce");
  if (nonce) dpopNonces.set(new URL(url).origin, nonce);
}

/**
 * The DPoP key to bind tokens to where the authorization server offers DPoP with ES256
 * (`dpop_signing_alg_values_supported`): the issuer file's, else a new one.
 */
export async function dpopKeyOf(
  server: Record<string, unknown>,
  existing: { dpopKey?: JsonWebKey } | undefined,
): Promise<JsonWebKey | undefined> {
  const algs = server.dpop_signing_alg_values_supported;
  if (!Array.isArray(algs) || !algs.includes("ES256")) return undefined;
  return existing?.dpopKey ?? await newDpopKey();
}

/** A fresh DPoP key: a private JWK of an EC P-256 pair. */
async function newDpopKey(): Promise<JsonWebKey> {
  const pair = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["sign", "verify"],
  );
  return await crypto.subtle.exportKey("jwk", pair.privateKey);
}

/**
 * A DPoP proof (RFC 9449 section 4): `htm` and `htu` (the URL without query or fragment), a new
 * `jti`, the origin's last nonce, and `ath` over the access token it accompanies.
 */
export async function dpopProof(
  jwk: JsonWebKey,
  method: string,
  url: string,
  options: { accessToken?: string } = {},
): Promise<string> {
  const key = await crypto.subtle.importKey(
    "jwk",
    jwk,
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  const target = new URL(url);
  const nonce = dpopNonces.get(target.origin);
  const ath = options.accessToken
    ? base64url(
      new Uint8Array(
        await crypto.subtle.digest("SHA-256", new TextEncoder().encode(options.accessToken)),
      ),
    )
    : undefined;
  return await signEs256(key, {
    typ: "dpop+jwt",
    alg: "ES256",
    jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y },
  }, {
    jti: randomToken(),
    htm: method.toUpperCase(),
    htu: `${target.origin}${target.pathname}`,
    iat: Math.floor(Date.now() / 1000),
    ...(nonce ? { nonce } : {}),
    ...(ath ? { ath } : {}),
  });
}

/** A compact JWS with ES256 (the signature as r and s, which is what Web Crypto returns). */
export async function signEs256(
  key: CryptoKey,
  header: unknown,
  payload: unknown,
): Promise<string> {
  const encode = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));
  const input = `${encode(header)}.${encode(payload)}`;
  const signature = await crypto.subtle.sign(
    { name: "ECDSA", hash: "SHA-256" },
    key,
    new TextEncoder().encode(input),
  );
  return `${input}.${base64url(new Uint8Array(signature))}`;
}

export function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
