import assert from "node:assert/strict";
import { McpxError } from "../../errors.ts";
import { discover, metadataUrls, parseChallenge } from "./discover.ts";
import { accessToken, oauthFetch } from "./fetch.ts";
import { login } from "./login.ts";
import { type IssuerFile, issuerPath, type OAuthUse, readIssuerFile } from "./store.ts";

const ORIGIN = "https://mcp.example.test";
const ISSUER = "https://auth.example.test/tenant";

Deno.test("parseChallenge() reads quoted and bare parameters of a Bearer challenge", () => {
  assert.deepEqual(
    parseChallenge(
      'Bearer error="invalid_token", resource_metadata="https://x/.well-known/a\\"b", scope=files:read',
    ),
    {
      error: "invalid_token",
      resource_metadata: 'https://x/.well-known/a"b',
      scope: "files:read",
    },
  );
  assert.deepEqual(parseChallenge('Basic realm="x"'), {});
});

Deno.test("metadataUrls() follows RFC 8414 then OpenID Connect, with and without a path", () => {
  assert.deepEqual(metadataUrls("https://a.test"), [
    "https://a.test/.well-known/oauth-authorization-server",
    "https://a.test/.well-known/openid-configuration",
  ]);
  assert.deepEqual(metadataUrls("https://a.test/tenant/"), [
    "https://a.test/.well-known/oauth-authorization-server/tenant",
    "https://a.test/.well-known/openid-configuration/tenant",
    "https://a.test/tenant/.well-known/openid-configuration",
  ]);
});

/** A fetch answering from a table of URL → JSON (or a function), counting requests by URL. */
function fakeFetch(
  routes: Record<string, (init?: RequestInit) => Response | Promise<Response>>,
): { fetch: OAuthUse["fetch"]; seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    fetch: (input, init) => {
      const url = String(input);
      seen.push(url);
      const route = routes[url];
      return Promise.resolve(route ? route(init) : new Response("no", { status: 404 }));
    },
  };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) => () =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

const AS_METADATA = {
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/authorize`,
  token_endpoint: `${ISSUER}/token`,
  code_challenge_methods_supported: ["S256"],
  client_id_metadata_document_supported: true,
  authorization_response_iss_parameter_supported: true,
};

Deno.test("discover() falls back to the well-known URLs and takes scopes from the challenge", async () => {
  const { fetch, seen } = fakeFetch({
    [`${ORIGIN}/mcp`]: json({}, 401, { "www-authenticate": 'Bearer scope="a b"' }),
    [`${ORIGIN}/.well-known/oauth-protected-resource`]: json({
      resource: `${ORIGIN}/mcp`,
      authorization_servers: [ISSUER],
      scopes_supported: ["c"],
    }),
    // Only the third issuer URL answers: OpenID Connect discovery below the issuer's path.
    [`${ISSUER}/.well-known/openid-configuration`]: json(AS_METADATA),
  });
  const found = await discover({ namespace: "x", url: `${ORIGIN}/mcp`, dir: "/nowhere", fetch });
  assert.equal(found.issuer, ISSUER);
  assert.deepEqual(found.scopes, ["a", "b"]);
  assert.ok(seen.includes(`${ORIGIN}/.well-known/oauth-protected-resource/mcp`), "path first");
});

Deno.test("discover() refuses metadata for another issuer, or for another resource", async () => {
  const base = {
    [`${ORIGIN}/mcp`]: json({}, 401, {
      "www-authenticate": `Bearer resource_metadata="${ORIGIN}/prm"`,
    }),
  };
  const wrongIssuer = fakeFetch({
    ...base,
    [`${ORIGIN}/prm`]: json({ resource: `${ORIGIN}/mcp`, authorization_servers: [ISSUER] }),
    "https://auth.example.test/.well-known/oauth-authorization-server/tenant": json({
      ...AS_METADATA,
      issuer: "https://evil.test",
    }),
  });
  await assert.rejects(
    discover({ namespace: "x", url: `${ORIGIN}/mcp`, dir: "/n", fetch: wrongIssuer.fetch }),
    /publishes metadata for issuer "https:\/\/evil.test"/,
  );
  const wrongResource = fakeFetch({
    ...base,
    [`${ORIGIN}/prm`]: json({
      resource: "https://other.test/mcp",
      authorization_servers: [ISSUER],
    }),
  });
  await assert.rejects(
    discover({ namespace: "x", url: `${ORIGIN}/mcp`, dir: "/n", fetch: wrongResource.fetch }),
    /names resource "https:\/\/other.test\/mcp"/,
  );
});

function issuerFile(overrides: Partial<IssuerFile["tokens"][string]> = {}): IssuerFile {
  return {
    issuer: ISSUER,
    tokenEndpoint: `${ISSUER}/token`,
    client: { clientId: "c1", how: "dynamic" },
    tokens: {
      [`${ORIGIN}/mcp`]: {
        namespace: "x",
        accessToken: "old",
        refreshToken: "r1",
        expiresAt: Date.now() - 1000,
        ...overrides,
      },
    },
  };
}

Deno.test("readIssuerFile() refuses a file readable beyond its owner, naming it and the fix", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = issuerPath(dir, ISSUER);
    Deno.writeTextFileSync(path, JSON.stringify(issuerFile()), { mode: 0o600 });
    assert.equal(readIssuerFile(path).issuer, ISSUER);
    Deno.chmodSync(path, 0o640);
    assert.throws(() => readIssuerFile(path), (e: unknown) => {
      assert.ok(e instanceof McpxError);
      assert.equal(e.code, "UNSAFE_PATH");
      assert.equal(
        e.message,
        `Token file "${path}" has mode 0640, readable beyond its owner, so mcpx will not use it; run \`chmod 600 ${path}\``,
      );
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("accessToken(): concurrent callers in one process share one refresh; the file stays 0600", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = issuerPath(dir, ISSUER);
    Deno.writeTextFileSync(path, JSON.stringify(issuerFile()), { mode: 0o600 });
    let refreshes = 0;
    const { fetch } = fakeFetch({
      [`${ISSUER}/token`]: (init) => {
        refreshes++;
        const form = new URLSearchParams(String(init?.body));
        assert.equal(form.get("grant_type"), "refresh_token");
        assert.equal(form.get("refresh_token"), "r1");
        assert.equal(form.get("client_id"), "c1");
        return json({ access_token: "new", refresh_token: "r2", expires_in: 3600 })();
      },
    });
    const use = { namespace: "x", url: `${ORIGIN}/mcp`, dir, fetch };
    const tokens = await Promise.all([accessToken(use), accessToken(use), accessToken(use)]);
    assert.deepEqual(tokens, ["new", "new", "new"]);
    assert.equal(refreshes, 1);
    assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
    const stored = readIssuerFile(path).tokens[`${ORIGIN}/mcp`];
    assert.equal(stored.refreshToken, "r2");
    // Fresh now: no further request.
    assert.equal(await accessToken(use), "new");
    assert.equal(refreshes, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("accessToken(): an expired token with no refresh token names `mcpx auth login`", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = issuerFile({ refreshToken: undefined });
    Deno.writeTextFileSync(issuerPath(dir, ISSUER), JSON.stringify(file), { mode: 0o600 });
    await assert.rejects(
      accessToken({ namespace: "x", url: `${ORIGIN}/mcp`, dir, ci: true }),
      {
        code: "CREDENTIALS_MISSING",
        message:
          'Server "x" has an OAuth token that expired and cannot be refreshed (CI mode uses stored tokens only and opens no sign-in): run `mcpx auth login x`',
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("login() uses a client ID metadata document where the server supports one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const documentUrl = "https://mcpx.example.test/client.json";
    let exchanged: URLSearchParams | undefined;
    const { fetch, seen } = fakeFetch({
      [`${ORIGIN}/mcp`]: json({}, 401, {
        "www-authenticate": `Bearer resource_metadata="${ORIGIN}/prm"`,
      }),
      [`${ORIGIN}/prm`]: json({ resource: `${ORIGIN}/mcp`, authorization_servers: [ISSUER] }),
      "https://auth.example.test/.well-known/oauth-authorization-server/tenant": json(AS_METADATA),
      [`${ISSUER}/token`]: (init) => {
        exchanged = new URLSearchParams(String(init?.body));
        return json({ access_token: "a", expires_in: 60 })();
      },
    });
    const lines: string[] = [];
    const browser = async (url: string) => {
      const q = new URL(url).searchParams;
      assert.equal(q.get("client_id"), documentUrl);
      assert.equal(q.get("code_challenge_method"), "S256");
      assert.equal(q.get("resource"), `${ORIGIN}/mcp`);
      const back = new URL(q.get("redirect_uri")!);
      assert.equal(back.hostname, "127.0.0.1");
      back.searchParams.set("code", "the-code");
      back.searchParams.set("state", q.get("state")!);
      back.searchParams.set("iss", ISSUER);
      const landed = await globalThis.fetch(back);
      assert.equal(landed.status, 200);
      await landed.body?.cancel();
    };
    const status = await login(
      {
        namespace: "x",
        url: `${ORIGIN}/mcp`,
        dir,
        fetch,
        client: { clientMetadataUrl: documentUrl },
      },
      { say: (line) => lines.push(line), openBrowser: browser },
    );
    assert.equal(status.client, "metadata-document");
    assert.equal(exchanged?.get("client_id"), documentUrl);
    assert.equal(exchanged?.get("code"), "the-code");
    assert.ok(exchanged?.get("code_verifier"));
    assert.ok(!seen.some((u) => u.includes("register")), "no registration");
    assert.match(lines.join("\n"), /Open this URL to sign in to "x"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("oauthFetch() sends the token, refreshes once on a 401, and names the scope a 403 asks for", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const later = Date.now() + 3_600_000;
    Deno.writeTextFileSync(
      issuerPath(dir, ISSUER),
      JSON.stringify(issuerFile({ accessToken: "stale", expiresAt: later })),
      { mode: 0o600 },
    );
    const sent: (string | null)[] = [];
    const { fetch: tokenFetch } = fakeFetch({
      [`${ISSUER}/token`]: json({ access_token: "renewed", expires_in: 3600 }),
    });
    const resource = (_input: string | URL, init?: RequestInit) => {
      const auth = new Headers(init?.headers).get("authorization");
      sent.push(auth);
      if (auth === "Bearer renewed") return Promise.resolve(new Response("{}", { status: 200 }));
      if (auth === "Bearer scoped") {
        return Promise.resolve(
          new Response("{}", {
            status: 403,
            headers: { "www-authenticate": 'Bearer error="insufficient_scope", scope="admin"' },
          }),
        );
      }
      return Promise.resolve(
        new Response("{}", { status: 401, headers: { "www-authenticate": "Bearer" } }),
      );
    };
    const use = { namespace: "x", url: `${ORIGIN}/mcp`, dir, fetch: tokenFetch };
    const f = oauthFetch(use, resource);
    const response = await f(`${ORIGIN}/mcp`, { method: "POST", body: "{}" });
    assert.equal(response.status, 200);
    await response.body?.cancel();
    assert.deepEqual(sent, ["Bearer stale", "Bearer renewed"]);

    const file = readIssuerFile(issuerPath(dir, ISSUER));
    file.tokens[`${ORIGIN}/mcp`].accessToken = "scoped";
    Deno.writeTextFileSync(issuerPath(dir, ISSUER), JSON.stringify(file), { mode: 0o600 });
    await assert.rejects(oauthFetch(use, resource)(`${ORIGIN}/mcp`, { method: "POST" }), {
      code: "CREDENTIALS_MISSING",
      message:
        'Server "x" needs scope "admin", which its OAuth token lacks (the next sign-in asks for it): run `mcpx auth login x`',
    });
    const wanted = readIssuerFile(issuerPath(dir, ISSUER)).tokens[`${ORIGIN}/mcp`].wantScope;
    assert.equal(wanted, "admin", "kept for the next login");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
