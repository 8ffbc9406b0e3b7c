import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { oauthClientConfig, redact, resolveAuth } from "./auth.ts";

const TOKEN = "tok-9f8e7d6c5b4a";
const env = { API_TOKEN: TOKEN, USER_NAME: "ada", USER_PASS: "pa55-w0rd", HOME_DIR: "/home/ada" };

Deno.test("resolveAuth() turns a bearer token into an Authorization header", () => {
  const resolved = resolveAuth("api", {
    url: "https://example.com/mcp",
    headers: { "X-Trace": "on" },
    auth: { type: "bearer", token: "${API_TOKEN}" },
  }, { env });
  assert.deepEqual(resolved, {
    url: "https://example.com/mcp",
    headers: { "X-Trace": "on", Authorization: `Bearer ${TOKEN}` },
    env: {},
    args: [],
  });
});

Deno.test("resolveAuth() applies basic, header and query credentials", () => {
  const basic = resolveAuth("api", {
    url: "https://example.com/mcp",
    auth: { type: "basic", username: "${USER_NAME}", password: "${USER_PASS}" },
  }, { env });
  assert.equal(basic.headers.Authorization, `Basic ${btoa("ada:pa55-w0rd")}`);

  const header = resolveAuth("api", {
    url: "https://example.com/mcp",
    auth: { type: "header", name: "X-Api-Key", value: "${API_TOKEN}" },
  }, { env });
  assert.deepEqual(header.headers, { "X-Api-Key": TOKEN });

  const query = resolveAuth("api", {
    url: "https://example.com/mcp?v=1",
    auth: { type: "query", name: "key", value: "${API_TOKEN}" },
  }, { env });
  assert.equal(query.url, `https://example.com/mcp?v=1&key=${TOKEN}`);
});

Deno.test("resolveAuth() expands references in env, args, headers and url", () => {
  const resolved = resolveAuth("local", {
    command: "server",
    args: ["--root", "${HOME_DIR}/work", "--literal", "$${NOT_EXPANDED}"],
    env: { GREETING: "hi ${USER_NAME}" },
    auth: { type: "env", env: { SERVICE_TOKEN: "${API_TOKEN}" } },
  }, { env });
  assert.deepEqual(resolved, {
    headers: {},
    env: { GREETING: "hi ada", SERVICE_TOKEN: TOKEN },
    args: ["--root", "/home/ada/work", "--literal", "${NOT_EXPANDED}"],
  });
});

Deno.test("resolveAuth() names an unset variable and where it is used", () => {
  assert.throws(
    () =>
      resolveAuth("api", {
        url: "https://example.com/mcp",
        auth: { type: "bearer", token: "${MISSING_TOKEN}" },
      }, { env }),
    (error: unknown) => {
      assert.ok(error instanceof McpxError);
      assert.equal(error.code, "CREDENTIALS_MISSING");
      assert.equal(
        error.message,
        'Server "api" needs ${MISSING_TOKEN} (in auth.token), which is not set',
      );
      assert.equal(
        error.hint,
        "Export it in the environment the daemon starts from, then `mcpx restart api`",
      );
      return true;
    },
  );
  assert.throws(
    () => resolveAuth("api", { command: "x", args: ["${NOPE}"] }, { env }),
    { message: 'Server "api" needs ${NOPE} (in args[0]), which is not set' },
  );
});

Deno.test("resolveAuth() leaves an oauth server's headers alone: the connection adds the stored token", () => {
  const out = resolveAuth("cloud", { url: "https://example.com/mcp", auth: { type: "oauth" } }, {
    env,
  });
  assert.deepEqual(out.headers, {});
  assert.equal(out.url, "https://example.com/mcp");
});

Deno.test("oauthClientConfig() expands ${VAR}, names an unset one, and refuses a malformed block", () => {
  assert.deepEqual(
    oauthClientConfig("hub", { clientId: "id-1", clientSecret: "${HUB_SECRET}", scopes: ["a"] }, {
      HUB_SECRET: "s",
    }),
    { clientId: "id-1", clientSecret: "s", scopes: ["a"] },
  );
  assert.equal(oauthClientConfig("hub", undefined, {}), undefined);
  assert.throws(() => oauthClientConfig("hub", { clientId: "x", clientSecret: "${NOPE}" }, {}), {
    code: "CREDENTIALS_MISSING",
    message: 'Server "hub" needs ${NOPE} (in mcpx.oauth.clientSecret), which is not set',
  });
  assert.throws(() => oauthClientConfig("hub", { clientID: "x" }, {}), { code: "CONFIG_INVALID" });
  assert.throws(() => oauthClientConfig("hub", { scopes: "a b" }, {}), {
    code: "CONFIG_INVALID",
  });
  assert.throws(() => oauthClientConfig("hub", { clientSecret: "s" }, {}), {
    code: "CONFIG_INVALID",
    message: 'Server "hub": "mcpx.oauth.clientSecret" needs a clientId',
  });
});

Deno.test("oauthClientConfig() reads the machine grants and refuses one missing what it needs", () => {
  assert.deepEqual(
    oauthClientConfig("ci", { grant: "jwt_bearer", clientId: "w", assertion: "${JWT}" }, {
      JWT: "eyJ.a.b",
    }),
    { grant: "jwt_bearer", clientId: "w", assertion: "eyJ.a.b" },
  );
  assert.deepEqual(
    oauthClientConfig("ci", {
      grant: "enterprise",
      clientId: "c",
      clientSecret: "s",
      idpTokenEndpoint: "https://idp.example/token",
      idpClientId: "i",
      idToken: "t",
    }, {}),
    {
      grant: "enterprise",
      clientId: "c",
      clientSecret: "s",
      idpTokenEndpoint: "https://idp.example/token",
      idpClientId: "i",
      idToken: "t",
    },
  );
  for (
    const [block, message] of [
      [{ grant: "password" }, /"mcpx.oauth.grant" must be one of "authorization_code"/],
      [{ grant: "client_credentials", clientId: "c" }, /needs a clientId and a clientSecret/],
      [{ grant: "jwt_bearer", clientId: "c" }, /"jwt_bearer" needs a clientId and an assertion/],
      [
        { grant: "enterprise", clientId: "c", idToken: "t" },
        /needs a clientId, an idpTokenEndpoint/,
      ],
      [{ privateKey: 7 }, /"mcpx.oauth.privateKey" must be a string/],
    ] as const
  ) {
    assert.throws(() => oauthClientConfig("ci", block, {}), (e: Error & { code?: string }) => {
      assert.equal(e.code, "CONFIG_INVALID");
      assert.match(e.message, message);
      return true;
    });
  }
});

Deno.test("resolveAuth() rejects malformed or misplaced auth blocks", () => {
  assert.throws(
    () => resolveAuth("api", { url: "https://x/mcp", auth: { type: "magic" } }, { env }),
    { code: "CONFIG_INVALID" },
  );
  assert.throws(
    () => resolveAuth("api", { url: "https://x/mcp", auth: { type: "bearer" } }, { env }),
    { code: "CONFIG_INVALID", message: 'Server "api": "auth.token" must be a string' },
  );
  assert.throws(
    () => resolveAuth("api", { command: "x", auth: { type: "bearer", token: "t" } }, { env }),
    { code: "CONFIG_INVALID" },
  );
  assert.throws(
    () =>
      resolveAuth("api", { url: "https://x/mcp", auth: { type: "bearer", token: "${T}" } }, {
        env: { T: "line\n" },
      }),
    { code: "CONFIG_INVALID" },
  );
});

Deno.test("redact() shows references instead of the secrets they expand to", () => {
  const entry = {
    url: "https://example.com/mcp",
    headers: { "X-Team": "${USER_NAME}" },
    auth: { type: "bearer", token: "${API_TOKEN}" },
  };
  const resolved = resolveAuth("api", entry, { env });
  const shown = redact(resolved, entry);
  assert.deepEqual(shown.headers, {
    "X-Team": "${USER_NAME}",
    Authorization: "Bearer ${API_TOKEN}",
  });
  assert.equal(shown.url, "https://example.com/mcp");
});

Deno.test("redact() never leaks a token, wherever it appears", () => {
  const entries = [
    {
      command: "server",
      args: ["--token", "${API_TOKEN}", `--api-key=${TOKEN}`, `echo ${TOKEN}`],
      env: { GITHUB_TOKEN: TOKEN, PLAIN: `x${TOKEN}y` },
      auth: { type: "env", env: { SERVICE_KEY: TOKEN } },
    },
    { url: "https://example.com/mcp", auth: { type: "query", name: "key", value: TOKEN } },
    { url: `https://example.com/mcp?access_token=${TOKEN}` },
    { url: "https://example.com/mcp", auth: { type: "header", name: "X-Custom", value: TOKEN } },
    { url: "https://example.com/mcp", headers: { Authorization: `Bearer ${TOKEN}` } },
    { url: "https://example.com/mcp", auth: { type: "basic", username: "ada", password: TOKEN } },
    { url: `https://ada:${TOKEN}@example.com/mcp` },
  ];
  for (const entry of entries) {
    const resolved = resolveAuth("api", entry, { env });
    assert.ok(JSON.stringify(resolved).includes(TOKEN) || resolved.headers.Authorization);
    for (const shown of [redact(resolved, entry), redact(resolved)]) {
      const text = JSON.stringify(shown);
      assert.ok(!text.includes(TOKEN), `leaked in ${text}`);
      assert.ok(!text.includes(btoa(`ada:${TOKEN}`)), `leaked in ${text}`);
    }
  }
});

Deno.test("redact() leaves ordinary values readable", () => {
  const shown = redact({
    url: "https://example.com/mcp?v=2",
    headers: { Accept: "application/json" },
    env: { LOG_LEVEL: "debug" },
    args: ["--port", "8080"],
  });
  assert.deepEqual(shown, {
    url: "https://example.com/mcp?v=2",
    headers: { Accept: "application/json" },
    env: { LOG_LEVEL: "debug" },
    args: ["--port", "8080"],
  });
});
