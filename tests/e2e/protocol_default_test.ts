// The default `protocol` (issue 33, item 10): a user who writes no `protocol` line gets the
// newest revision both sides speak over Streamable HTTP. A real daemon reaches the SDK's own
// server package (tests/fixtures/servers/asking.ts) over HTTP: in its 2026-07-28-only mode (it
// refuses `initialize`, so a call works only if mcpx negotiated 2026-07-28), and in its 2025 mode
// (the `server/discover` probe is refused and mcpx falls back to `initialize`). `force-legacy`
// still pins the 2025 handshake, which the 2026-only server refuses.

import assert from "node:assert/strict";
import { startAskingHttp } from "../fixtures/servers.ts";
import { cacheModern } from "../../lib/mcp/_testing.ts";
import { Sandbox } from "../_helpers.ts";

Deno.test("a Streamable HTTP server with no protocol line is spoken to in the newest revision both sides speak", async () => {
  await cacheModern();
  await using stack = new AsyncDisposableStack();
  const modern = stack.use(await startAskingHttp("modern"));
  const legacy = stack.use(await startAskingHttp("legacy"));
  const box = stack.use(await Sandbox.create());
  await box.write("work/.mcpx.json", {
    mcpServers: {
      modern: { url: modern.url },
      old: { url: legacy.url },
      pinned: { url: modern.url, mcpx: { protocol: "force-legacy" } },
    },
  });

  const onModern = await box.mcpx(["call", "modern.heard"]);
  assert.equal(onModern.code, 0, onModern.stderr + onModern.stdout);
  assert.match(onModern.stdout, /"cancelled"/);

  const onOld = await box.mcpx(["call", "old.heard"]);
  assert.equal(onOld.code, 0, onOld.stderr + onOld.stdout);
  assert.match(onOld.stdout, /"cancelled"/);

  // A user who needs the 2025 handshake still gets it, and a 2026-only server refuses it.
  const onPinned = await box.mcpx(["call", "pinned.heard"]);
  assert.equal(onPinned.code, 6, onPinned.stderr + onPinned.stdout);
  assert.match(onPinned.stderr, /Cannot start server "pinned"/);
});
