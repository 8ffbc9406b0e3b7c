import assert from "node:assert/strict";
import { isLoopback, parseEndpoint, parseHostPort, refuseOnListener } from "./listen.ts";

Deno.test("parseHostPort() reads host:port and [v6]:port, and refuses the rest", () => {
  assert.deepEqual(parseHostPort("127.0.0.1:0", "--listen"), { hostname: "127.0.0.1", port: 0 });
  assert.deepEqual(parseHostPort("[::1]:7300", "--listen"), { hostname: "::1", port: 7300 });
  assert.deepEqual(parseHostPort("box.lan:80", "--listen"), { hostname: "box.lan", port: 80 });
  for (const bad of ["7300", "host:", "host:70000", "http://h:1", "a b:1"]) {
    assert.throws(() => parseHostPort(bad, "--listen"), /--listen takes host:port/, bad);
  }
});

Deno.test("parseEndpoint() takes http://host:port and unix:///path only", () => {
  assert.deepEqual(parseEndpoint("http://10.0.0.5:7300"), {
    kind: "tcp",
    hostname: "10.0.0.5",
    port: 7300,
  });
  assert.deepEqual(parseEndpoint("unix:///run/mcpx.sock"), {
    kind: "unix",
    path: "/run/mcpx.sock",
  });
  assert.throws(() => parseEndpoint("https://h:1"), /takes http:\/\/host:port or unix/);
  assert.throws(() => parseEndpoint("unix://rel.sock"), /absolute path/);
  assert.throws(() => parseEndpoint("http://h:1/v1"), /takes http/);
});

Deno.test("isLoopback() knows this machine's names", () => {
  for (const h of ["127.0.0.1", "127.1.2.3", "::1", "localhost", "LOCALHOST"]) {
    assert.ok(isLoopback(h), h);
  }
  for (const h of ["0.0.0.0", "10.0.0.1", "example.com", "::"]) assert.ok(!isLoopback(h), h);
});

Deno.test("refuseOnListener(): Host, then Origin (403), then the token (401)", async () => {
  const listen = { hostname: "box.lan", port: 7300 };
  const token = "t".repeat(64);
  const ask = (headers: Record<string, string>) =>
    refuseOnListener(new Request("http://x/v1/health", { headers }), listen, token);
  const bearer = { authorization: `Bearer ${token}` };
  assert.equal(ask({ host: "box.lan:7300", ...bearer }), undefined);
  assert.equal(ask({ host: "10.0.0.5:7300", ...bearer }), undefined);
  assert.equal(ask({ host: "[::1]:7300", ...bearer }), undefined);
  assert.equal(ask({ host: "localhost:7300", "x-mcpx-token": token }), undefined);
  assert.equal(ask({ host: "box.lan:7300", origin: "http://box.lan:7300", ...bearer }), undefined);
  const status = async (r: Response | undefined) => [r?.status, (await r?.json())?.code];
  assert.deepEqual(await status(ask({ host: "evil.example:7300", ...bearer })), [403, "FORBIDDEN"]);
  assert.deepEqual(
    await status(ask({ host: "box.lan:7300", origin: "http://evil.example", ...bearer })),
    [403, "FORBIDDEN"],
  );
  // A foreign Origin is refused even with no token: 403 comes first, and says nothing more.
  assert.deepEqual(await status(ask({ host: "box.lan:7300", origin: "null" })), [403, "FORBIDDEN"]);
  assert.deepEqual(await status(ask({ host: "box.lan:7300" })), [401, "UNAUTHORIZED"]);
  assert.deepEqual(await status(ask({ host: "box.lan:7300", authorization: "Bearer nope" })), [
    401,
    "UNAUTHORIZED",
  ]);
  assert.deepEqual(await status(ask({ host: "box.lan:7300", authorization: token })), [
    401,
    "UNAUTHORIZED",
  ]);
});
