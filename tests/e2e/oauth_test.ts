// OAuth for remote servers (docs/oauth.md): `mcpx auth login` against an authorization server
// and a protected MCP resource in this process, the browser played by the test fetching the
// printed URL and following the redirect to mcpx's loopback listener; then `mcpx call` through
// the daemon with the stored token, refresh under a lock across two daemons, and the refusals.

import assert from "node:assert/strict";
import { join } from "node:path";
import { Sandbox } from "../_helpers.ts";
import {
  type OAuthServer,
  type OAuthServerOptions,
  startOAuthServer,
} from "../fixtures/oauth_server.ts";

const REPO = new URL("../..", import.meta.url).pathname;

interface Login {
  code: number;
  stdout: string;
  stderr: string;
  /** What the "browser" got back from the loopback listener. */
  landed?: { status: number; text: string };
}

/** Runs `mcpx auth login <ns>`, opening the URL it prints as a browser would. */
async function login(
  box: Sandbox,
  ns: string,
  options: { cwd?: string; env?: Record<string, string>; json?: boolean } = {},
): Promise<Login> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      `${REPO}/deno.json`,
      box.entry,
      ...(options.json ? ["--json"] : []),
      "auth",
      "login",
      ns,
    ],
    cwd: join(box.root, options.cwd ?? "work"),
    env: { ...box.env, ...options.env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  let stderr = "";
  let landed: Login["landed"];
  const decoder = new TextDecoder();
  for await (const chunk of child.stderr) {
    stderr += decoder.decode(chunk, { stream: true });
    const url = /^(http\S+authorize\S*)$/m.exec(stderr)?.[1];
    if (url && !landed) {
      const response = await fetch(url);
      landed = { status: response.status, text: await response.text() };
    }
  }
  const { code } = await child.status;
  return { code, stdout: await stdout, stderr, landed };
}

function config(server: OAuthServer, extra: Record<string, unknown> = {}) {
  return { mcpServers: { remote: { url: server.url, ...extra } } };
}

function tokenFiles(box: Sandbox): string[] {
  const dir = join(box.root, "state", "mcpx", "oauth");
  try {
    return [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".json")).map((e) =>
      join(dir, e.name)
    );
  } catch {
    return [];
  }
}

async function withServer(
  options: OAuthServerOptions,
  fn: (server: OAuthServer, box: Sandbox) => Promise<void>,
): Promise<void> {
  const server = startOAuthServer(options);
  try {
    await using box = await Sandbox.create();
    await fn(server, box);
  } finally {
    await server.close();
  }
}

Deno.test("oauth: before sign-in a call names `mcpx auth login` (beside its sign-in question); after it, the call works with the stored 0600 token", async () => {
  await withServer({}, async (server, box) => {
    await box.write("work/.mcpx.json", config(server));
    const before = await box.mcpx(["call", "remote.echo", "text=hi"]);
    assert.equal(before.code, 75, before.stderr);
    assert.match(before.stderr, /mcpx auth login remote/);
    assert.doesNotMatch(before.stderr, /\n\s+at /, "no stack trace");

    const signed = await login(box, "remote", { json: true });
    assert.equal(signed.code, 0, signed.stderr);
    assert.equal(signed.landed?.status, 200, "the loopback listener took the redirect");
    assert.match(signed.stderr, /Open this URL to sign in to "remote"/);
    const status = JSON.parse(signed.stdout).servers[0];
    assert.equal(status.signedIn, true);
    assert.equal(status.issuer, server.issuer);
    assert.equal(status.client, "dynamic");
    // Once for the daemon's sign-in (the call's question) and once for this one: each listens on
    // a redirect URI of its own.
    assert.equal(server.counts.register, 2, "dynamic registration");

    const [file] = tokenFiles(box);
    assert.equal(Deno.statSync(file).mode! & 0o777, 0o600);
    assert.ok(JSON.parse(Deno.readTextFileSync(file)).issuer === server.issuer, "keyed by issuer");

    // The same daemon: a start that failed for want of a token leaves no cooldown behind.
    const call = await box.json<{ content: { text: string }[] }>([
      "call",
      "remote.echo",
      "text=hi",
    ]);
    assert.equal(call.content[0].text, "protected: hi");

    const shown = await box.json<{ servers: { signedIn: boolean; refreshable: boolean }[] }>([
      "auth",
      "status",
      "remote",
    ]);
    assert.deepEqual(shown.servers.map((s) => [s.signedIn, s.refreshable]), [[true, true]]);
    assert.doesNotMatch(JSON.stringify(shown), /at-|rt-/, "status shows no token");

    const out = await box.json<{ removed: boolean }>(["auth", "logout", "remote"]);
    assert.equal(out.removed, true);
    const after = await box.json<{ servers: { signedIn: boolean }[] }>([
      "auth",
      "status",
      "remote",
    ]);
    assert.equal(after.servers[0].signedIn, false);
  });
});

Deno.test("oauth: an expired token is refreshed once for two daemons calling at the same moment", async () => {
  // The first refresh is held for a while: without the lock, the other daemon refreshes too.
  await withServer({ holdRefreshMs: 3000 }, async (server, box) => {
    await box.write("work/a/.mcpx.json", config(server));
    await box.write("work/b/.mcpx.json", config(server));
    const signed = await login(box, "remote", { cwd: "work/a" });
    assert.equal(signed.code, 0, signed.stderr);
    const first = await box.mcpx(["call", "remote.echo", "text=one"], { cwd: "work/a" });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(server.counts.refresh, 0);

    // Expired on both sides: the server forgets its access tokens, the file says it is past.
    server.expireAll();
    const [file] = tokenFiles(box);
    const stored = JSON.parse(Deno.readTextFileSync(file));
    for (const t of Object.values(stored.tokens) as { expiresAt: number }[]) {
      t.expiresAt = Date.now() - 1000;
    }
    Deno.writeTextFileSync(file, JSON.stringify(stored), { mode: 0o600 });

    const [a, b] = await Promise.all([
      box.mcpx(["call", "remote.echo", "text=a"], { cwd: "work/a" }),
      box.mcpx(["call", "remote.echo", "text=b"], { cwd: "work/b" }),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.match(a.stdout, /protected: a/);
    assert.match(b.stdout, /protected: b/);
    // Refresh tokens rotate here: a second refresh with the same one would have been refused.
    assert.equal(server.counts.refresh, 1, "one refresh between the two daemons");
    assert.equal(Deno.statSync(file).mode! & 0o777, 0o600);
  });
});

Deno.test("oauth: a server with no registration uses the configured client id and secret (${VAR})", async () => {
  await withServer(
    { registration: false, client: { id: "mcpx-preregistered", secret: "s3cret-value" } },
    async (server, box) => {
      await box.write(
        "work/.mcpx.json",
        config(server, {
          mcpx: { oauth: { clientId: "mcpx-preregistered", clientSecret: "${REMOTE_SECRET}" } },
        }),
      );
      const missing = await login(box, "remote");
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /REMOTE_SECRET/, "an unset variable is named");
      assert.equal(server.counts.authorize, 0);

      const signed = await login(box, "remote", {
        json: true,
        env: { REMOTE_SECRET: "s3cret-value" },
      });
      assert.equal(signed.code, 0, signed.stderr);
      assert.equal(JSON.parse(signed.stdout).servers[0].client, "configured");
      assert.equal(server.counts.register, 0);
      const call = await box.mcpx(["call", "remote.echo", "text=pre"]);
      assert.equal(call.code, 0, call.stderr);
      assert.match(call.stdout, /protected: pre/);
    },
  );
});

Deno.test("oauth: without registration or a configured client, login says what to configure", async () => {
  await withServer({ registration: false }, async (server, box) => {
    await box.write("work/.mcpx.json", config(server));
    const r = await login(box, "remote");
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /offers no client registration/);
    assert.match(r.stderr, /"clientId"/);
    assert.equal(server.counts.authorize, 0);
  });
});

Deno.test("oauth: a redirect with the wrong state is refused and nothing is stored", async () => {
  await withServer({ wrongState: true }, async (server, box) => {
    await box.write("work/.mcpx.json", config(server));
    const r = await login(box, "remote");
    assert.notEqual(r.code, 0);
    assert.equal(r.landed?.status, 400);
    assert.match(r.stderr, /different state/);
    assert.equal(server.counts.token, 0, "the code was never exchanged");
    assert.deepEqual(tokenFiles(box), []);
  });
});

Deno.test("oauth: a redirect from another issuer (RFC 9207 iss) is refused, and one without iss too", async () => {
  for (const iss of ["wrong", "none"] as const) {
    await withServer({ iss }, async (server, box) => {
      await box.write("work/.mcpx.json", config(server));
      const r = await login(box, "remote");
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, iss === "wrong" ? /from issuer/ : /no "iss"/);
      assert.equal(server.counts.token, 0);
      assert.deepEqual(tokenFiles(box), []);
    });
  }
});

Deno.test("oauth: a token file readable by others is refused with one line naming the file and the fix", async () => {
  await withServer({}, async (server, box) => {
    await box.write("work/.mcpx.json", config(server));
    const signed = await login(box, "remote");
    assert.equal(signed.code, 0, signed.stderr);
    const [file] = tokenFiles(box);
    Deno.chmodSync(file, 0o644);
    const r = await box.mcpx(["call", "remote.echo", "text=x"]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, new RegExp(`${file.replaceAll(".", "\\.")}.*chmod 600`));
    const s = await box.mcpx(["auth", "status", "remote"]);
    assert.notEqual(s.code, 0);
    assert.match(s.stderr, /mode 0644/);
    // The fix the line names works, in the same daemon, which stayed up.
    Deno.chmodSync(file, 0o600);
    const fixed = await box.mcpx(["call", "remote.echo", "text=fixed"]);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.match(fixed.stdout, /protected: fixed/);
  });
});

Deno.test("oauth: CI mode never opens a flow and names `mcpx auth login <ns>`", async () => {
  await withServer({}, async (server, box) => {
    await box.write("work/.mcpx.json", config(server));
    const r = await login(box, "remote", { env: { CI: "true" } });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /CI mode/);
    assert.match(r.stderr, /mcpx auth login remote/);
    assert.doesNotMatch(r.stderr, /Open this URL/);
    const call = await box.mcpx(["call", "remote.echo", "text=x"], {
      env: { MCPX_AUTH_CI: "1" },
    });
    assert.notEqual(call.code, 0);
    assert.match(call.stderr, /CI mode.*mcpx auth login remote/);
    assert.equal(server.counts.authorize, 0, "no flow was opened");
    assert.equal(server.counts.register, 0);
  });
});

Deno.test("oauth: a machine client (client credentials) needs no sign-in; the daemon gets its token, and a new one when it stops working", async () => {
  await withServer(
    { registration: false, client: { id: "mcpx-machine", secret: "m4chine" } },
    async (server, box) => {
      await box.write(
        "work/.mcpx.json",
        config(server, {
          mcpx: {
            oauth: {
              grant: "client_credentials",
              clientId: "mcpx-machine",
              clientSecret: "${MACHINE_SECRET}",
            },
          },
        }),
      );
      const env = { MACHINE_SECRET: "m4chine", CI: "true" };
      // CI mode too: nobody is asked to sign in.
      const call = await box.mcpx(["call", "remote.echo", "text=m2m"], { env });
      assert.equal(call.code, 0, call.stderr);
      assert.match(call.stdout, /protected: m2m/);
      assert.equal(server.counts.credentials, 1);
      assert.equal(server.counts.authorize, 0, "no authorization-code flow");
      const [file] = tokenFiles(box);
      assert.equal(Deno.statSync(file).mode! & 0o777, 0o600);
      const stored = JSON.parse(Deno.readTextFileSync(file));
      assert.equal(stored.issuer, server.issuer);
      assert.equal(
        Object.values(stored.tokens as Record<string, { refreshToken?: string }>)[0]
          .refreshToken,
        undefined,
      );

      // The server forgets the token: the 401 gets a fresh one the same way, once.
      server.expireAll();
      const again = await box.mcpx(["call", "remote.echo", "text=again"], { env });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /protected: again/);
      assert.equal(server.counts.credentials, 2);
      await box.mcpx(["stop"], { env });
    },
  );
});

Deno.test("oauth: a machine client with the wrong secret fails with one line, and a grant without a secret is a configuration error", async () => {
  await withServer(
    { registration: false, client: { id: "mcpx-machine", secret: "m4chine" } },
    async (server, box) => {
      await box.write(
        "work/.mcpx.json",
        config(server, {
          mcpx: {
            oauth: { grant: "client_credentials", clientId: "mcpx-machine", clientSecret: "nope" },
          },
        }),
      );
      const call = await box.mcpx(["call", "remote.echo", "text=x"]);
      assert.notEqual(call.code, 0);
      assert.match(call.stderr, /token endpoint .* answered HTTP 401 "invalid_client"/);
      assert.doesNotMatch(call.stderr, /\n\s+at /, "no stack trace");
      assert.deepEqual(tokenFiles(box), [], "nothing stored");
      await box.mcpx(["stop"]);

      await box.write(
        "work/.mcpx.json",
        config(server, { mcpx: { oauth: { grant: "client_credentials", clientId: "x" } } }),
      );
      const bad = await box.mcpx(["auth", "login", "remote"]);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /"client_credentials" needs a clientId and a clientSecret/);
    },
  );
});

Deno.test("oauth: a workload (JWT bearer grant) presents its identity token and needs no sign-in; a refused one fails with one line", async () => {
  await withServer(
    { registration: false, workloadJwt: "eyJ.workload.jwt" },
    async (server, box) => {
      await box.write(
        "work/.mcpx.json",
        config(server, {
          mcpx: {
            oauth: { grant: "jwt_bearer", clientId: "workload", assertion: "${WORKLOAD_JWT}" },
          },
        }),
      );
      const call = await box.mcpx(["call", "remote.echo", "text=wif"], {
        env: { WORKLOAD_JWT: "eyJ.workload.jwt" },
      });
      assert.equal(call.code, 0, call.stderr);
      assert.match(call.stdout, /protected: wif/);
      assert.equal(server.counts.credentials, 1);
      assert.equal(server.counts.authorize, 0);
      await box.mcpx(["stop"]);
      for (const file of tokenFiles(box)) Deno.removeSync(file);

      const refused = await box.mcpx(["call", "remote.echo", "text=x"], {
        env: { WORKLOAD_JWT: "eyJ.someone.else" },
      });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /answered HTTP 400 "invalid_grant"/);
      assert.doesNotMatch(refused.stderr, /\n\s+at /, "no stack trace");
      assert.equal(server.counts.credentials, 2, "asked once, not again");
      await box.mcpx(["stop"]);
    },
  );
});

Deno.test("oauth: enterprise-managed authorization exchanges the ID token at the identity provider, then presents the grant; no sign-in", async () => {
  await withServer(
    {
      registration: false,
      client: { id: "mcpx-enterprise", secret: "ent3rprise" },
      idToken: "eyJ.id.token",
    },
    async (server, box) => {
      await box.write(
        "work/.mcpx.json",
        config(server, {
          mcpx: {
            oauth: {
              grant: "enterprise",
              clientId: "mcpx-enterprise",
              clientSecret: "ent3rprise",
              idpTokenEndpoint: `${server.origin}/idp/token`,
              idpClientId: "mcpx-at-idp",
              idToken: "${ID_TOKEN}",
            },
          },
        }),
      );
      const call = await box.mcpx(["call", "remote.echo", "text=ent"], {
        env: { ID_TOKEN: "eyJ.id.token" },
      });
      assert.equal(call.code, 0, call.stderr);
      assert.match(call.stdout, /protected: ent/);
      assert.equal(server.counts.credentials, 1);
      assert.equal(server.counts.authorize, 0);
      await box.mcpx(["stop"]);
      for (const file of tokenFiles(box)) Deno.removeSync(file);

      const refused = await box.mcpx(["call", "remote.echo", "text=x"], {
        env: { ID_TOKEN: "eyJ.not.mine" },
      });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /identity provider's token endpoint .* refused/);
      assert.equal(server.counts.credentials, 1, "nothing presented to the authorization server");
      await box.mcpx(["stop"]);
    },
  );
});

Deno.test("oauth: in the 2026-07-28 era a missing token is a sign-in (not a failed start), and leaves no cooldown", async () => {
  await withServer({}, async (server, box) => {
    await box.write("work/.mcpx.json", config(server, { mcpx: { protocol: "force-modern" } }));
    const call = await box.mcpx(["call", "remote.echo", "text=hi"]);
    assert.equal(call.code, 75, call.stderr);
    assert.match(call.stderr, /remote\.echo needs a sign-in: open http/);
    assert.doesNotMatch(call.stderr, /probe failed|Cannot start server|cooldown/i, call.stderr);
    // While that sign-in waits, another call says so instead of starting a second one.
    const second = await box.mcpx(["call", "remote.echo", "text=hi"]);
    assert.equal(second.code, 3, second.stderr);
    assert.match(second.stderr, /A sign-in to "remote" is already waiting: question "elc-/);
    assert.doesNotMatch(second.stderr, /probe failed|Cannot start server|cooldown/i);
    assert.equal(server.counts.authorize, 0);
    await box.mcpx(["stop"]);
  });
});

Deno.test("oauth: a call without a token starts the sign-in in the daemon and hands the person its URL as a question; answering completes the call", async () => {
  await withServer({}, async (server, box) => {
    await box.write("work/.mcpx.json", config(server));
    const call = await box.mcpx(["--json", "call", "remote.echo", "text=hi"]);
    assert.equal(call.code, 75, call.stderr + call.stdout);
    const problem = JSON.parse(call.stdout).error ?? JSON.parse(call.stdout);
    assert.equal(problem.code, "INPUT_REQUIRED");
    const ticket: string = problem.data.ticket;
    const q = await box.json<{ mode: string; route: string; request: { url: string } }>([
      "elicit",
      "show",
      ticket,
    ]);
    assert.equal(q.mode, "url");
    assert.equal(q.route, "person");
    assert.ok(q.request.url.startsWith(`${server.issuer}/authorize?`), q.request.url);
    assert.deepEqual(tokenFiles(box), [], "nothing stored before the redirect");

    // The person's browser: the authorization server redirects to the daemon's loopback listener.
    const landed = await fetch(q.request.url);
    assert.equal(landed.status, 200, await landed.text());
    const answer = await box.mcpx(["elicit", "answer", ticket]);
    assert.equal(answer.code, 0, answer.stderr);
    assert.match(answer.stdout, /protected: hi/);
    const [file] = tokenFiles(box);
    assert.equal(Deno.statSync(file).mode! & 0o777, 0o600);
    const again = await box.mcpx(["call", "remote.echo", "text=again"]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /protected: again/);
    await box.mcpx(["stop"]);
  });
});

Deno.test("oauth: a declined sign-in question ends the call with one line and stores nothing; CI mode starts none", async () => {
  await withServer({}, async (server, box) => {
    await box.write("work/.mcpx.json", config(server));
    const call = await box.mcpx(["call", "remote.echo", "text=hi"]);
    assert.equal(call.code, 75, call.stderr);
    const ticket = /question "(elc-[0-9a-f]{12})"/.exec(call.stderr)?.[1];
    assert.ok(ticket, call.stderr);
    const declined = await box.mcpx(["elicit", "decline", ticket!]);
    assert.notEqual(declined.code, 75, declined.stderr);
    assert.match(declined.stdout + declined.stderr, /sign-in to "remote" was not done \(decline\)/);
    assert.deepEqual(tokenFiles(box), []);
    await box.mcpx(["stop"]);

    const ci = await box.mcpx(["call", "remote.echo", "text=x"], { env: { CI: "true" } });
    assert.equal(ci.code, 3, ci.stderr);
    assert.match(ci.stderr, /CI mode.*mcpx auth login remote/);
    assert.equal(server.counts.authorize, 0);
    await box.mcpx(["stop"], { env: { CI: "true" } });
  });
});
