import assert from "node:assert/strict";
import { join } from "../_path.ts";
import type { McpxError } from "../errors.ts";
import {
  contentHash,
  isUserLocation,
  readTrustStore,
  revokeFile,
  shellWord,
  TRUST_FILE,
  trustFile,
  type TrustOptions,
  trustState,
  unsafeReason,
  untrustedError,
} from "./trust.ts";

async function world(): Promise<
  { root: string; config: string; store: string; options: TrustOptions } & AsyncDisposable
> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "mcpx-trust-" }));
  const state = join(root, "state");
  const config = join(root, "repo", ".mcpx.json");
  await Deno.mkdir(join(root, "repo"));
  await Deno.mkdir(join(root, "home"));
  await Deno.writeTextFile(config, '{"mcpServers":{}}', { mode: 0o644 });
  await Deno.chmod(config, 0o644);
  return {
    root,
    config,
    store: join(state, TRUST_FILE),
    options: {
      env: { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "xdg") },
      stateDir: state,
      explicit: false,
      trustAll: false,
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

Deno.test("trustState() is new, then recorded once trusted, then changed when the text changes", async () => {
  await using w = await world();
  const text = await Deno.readTextFile(w.config);
  assert.deepEqual(await trustState(w.config, text, w.options), { trusted: false, why: "new" });
  const record = await trustFile(w.store, w.config, text, new Date(0));
  assert.deepEqual(record, {
    path: w.config,
    sha256: await contentHash(text),
    trustedAt: "1970-01-01T00:00:00.000Z",
  });
  assert.deepEqual(await trustState(w.config, text, w.options), {
    trusted: true,
    why: "recorded",
  });
  assert.deepEqual(await trustState(w.config, text + " ", w.options), {
    trusted: false,
    why: "changed",
  });
});

Deno.test("trustState() trusts a named file, the user's locations and everything under trust.all", async () => {
  await using w = await world();
  const text = await Deno.readTextFile(w.config);
  assert.deepEqual(await trustState(w.config, text, { ...w.options, explicit: true }), {
    trusted: true,
    why: "named",
  });
  assert.deepEqual(await trustState(w.config, text, { ...w.options, trustAll: true }), {
    trusted: true,
    why: "all",
  });
  const own = join(w.root, "home", ".mcpx.json");
  await Deno.writeTextFile(own, text);
  await Deno.chmod(own, 0o600);
  assert.deepEqual(await trustState(own, text, w.options), { trusted: true, why: "location" });
});

Deno.test("isUserLocation() is the mcpx config folders, the home folder's own files and /etc/mcpx", () => {
  const env = { HOME: "/h", XDG_CONFIG_HOME: "/x" };
  for (const p of ["/x/mcpx/config.json", "/h/.config/mcpx/config.json", "/h/.mcpx.json"]) {
    assert.equal(isUserLocation(p, env), true, p);
  }
  assert.equal(isUserLocation("/h/.mcp.json", env), true);
  assert.equal(isUserLocation("/h/.mcpx/config.json", env), true);
  assert.equal(isUserLocation("/etc/mcpx/config.json", env), true);
  for (const p of ["/h/src/repo/.mcpx.json", "/tmp/.mcpx.json", "/x/other/config.json"]) {
    assert.equal(isUserLocation(p, env), false, p);
  }
});

Deno.test("trustState() never trusts a file others may write, whatever says to", async () => {
  await using w = await world();
  const text = await Deno.readTextFile(w.config);
  await trustFile(w.store, w.config, text);
  for (const mode of [0o666, 0o664, 0o646]) {
    await Deno.chmod(w.config, mode);
    const why = unsafeReason(w.config);
    assert.match(why!, /^group or others may write it \(mode 06\d\d\)$/);
    for (const options of [w.options, { ...w.options, explicit: true, trustAll: true }]) {
      assert.deepEqual(await trustState(w.config, text, options), {
        trusted: false,
        why: "unsafe",
        reason: why,
      });
    }
  }
  await assert.rejects(() => trustFile(w.store, w.config, text), (e: McpxError) => {
    assert.equal(e.code, "CONFIG_UNTRUSTED");
    assert.match(e.message, /^Refusing configuration .*: group or others may write it/);
    return true;
  });
});

Deno.test("trustFile() writes the trust file 0600, one record per path; revokeFile() removes it", async () => {
  await using w = await world();
  await trustFile(w.store, w.config, "a");
  await trustFile(w.store, w.config, "b");
  assert.equal(Deno.statSync(w.store).mode! & 0o777, 0o600);
  const store = readTrustStore(w.store);
  assert.equal(store.trusted.length, 1);
  assert.equal(store.trusted[0].sha256, await contentHash("b"));
  assert.deepEqual(revokeFile(w.store, ["/elsewhere"]), []);
  assert.equal(revokeFile(w.store, [w.config]).length, 1);
  assert.deepEqual(readTrustStore(w.store).trusted, []);
});

Deno.test("readTrustStore() refuses a trust file others may write, or one mcpx did not write", async () => {
  await using w = await world();
  assert.deepEqual(readTrustStore(w.store), { version: 1, trusted: [] }, "absent is empty");
  await trustFile(w.store, w.config, "a");
  await Deno.chmod(w.store, 0o666);
  assert.throws(() => readTrustStore(w.store), (e: McpxError) => {
    assert.equal(e.code, "UNSAFE_PATH");
    assert.match(e.message, /others may write it \(mode 0666\)/);
    return true;
  });
  await Deno.chmod(w.store, 0o600);
  await Deno.writeTextFile(w.store, '{"trusted": "everything"}');
  assert.throws(() => readTrustStore(w.store), (e: McpxError) => e.code === "CONFIG_INVALID");
});

Deno.test("contentHash() is the sha256 of the text", async () => {
  assert.equal(
    await contentHash("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test("untrustedError() names the command that trusts the file, quoted for a shell", () => {
  const e = untrustedError("/r/it's here/.mcpx.json", { trusted: false, why: "new" });
  assert.equal(e.code, "CONFIG_UNTRUSTED");
  assert.ok(e.message.includes("`mcpx trust '/r/it'\\''s here/.mcpx.json'`"), e.message);
  assert.equal(shellWord("/plain/path.json"), "/plain/path.json");
  const changed = untrustedError("/r/.mcpx.json", { trusted: false, why: "changed" });
  assert.match(changed.message, /changed since it was trusted: read it, then run `mcpx trust/);
});
