import assert from "node:assert/strict";
import { join } from "node:path";
import { translateBundle } from "./mcpb.ts";
import { sha256 } from "./registry.ts";
import { McpxError } from "../errors.ts";
import { archive } from "../../tests/fixtures/zip.ts";

const MANIFEST = new TextEncoder().encode(
  JSON.stringify({ server: { type: "node", entry_point: "server/index.js" } }),
);

/** What installing a bundle of these extra files ends in: its folder's files, or the refusal. */
async function install(extra: { name: string; mode?: number }[]): Promise<string[] | McpxError> {
  const bytes = archive([
    { name: "manifest.json", data: MANIFEST, method: 0, mode: 0o100644 },
    ...extra.map((e) => ({ ...e, data: new TextEncoder().encode("x"), method: 8 as const })),
  ]);
  const state = Deno.makeTempDirSync({ prefix: "mcpx-mcpb-" });
  try {
    const bundle = await translateBundle(
      { name: "io.example/b" },
      {
        registryType: "mcpb",
        identifier: "https://example.invalid/b.mcpb",
        fileSha256: await sha256(bytes),
      },
      {
        stateDir: join(state, "state"),
        fetcher: () => Promise.resolve(new Response(bytes as Uint8Array<ArrayBuffer>)),
      },
    );
    bundle.install();
    return [...Deno.readDirSync(bundle.dir)].map((e) => e.name).sort();
  } catch (e) {
    if (e instanceof McpxError) return e;
    throw e;
  } finally {
    Deno.removeSync(state, { recursive: true });
  }
}

Deno.test("an MCP bundle unpacks into its own folder, and one naming a path outside it is refused", async () => {
  assert.deepEqual(await install([{ name: "server/index.js" }]), [
    ".mcpx-bundle-sha256",
    "manifest.json",
    "server",
  ]);
  for (const name of ["../escaped", "server/../../escaped", "/tmp/escaped", "a\\..\\escaped"]) {
    const refused = await install([{ name }]);
    assert.ok(refused instanceof McpxError, `${name}: ${refused}`);
    assert.equal(refused.code, "REGISTRY_UNAVAILABLE");
    assert.match(refused.message, /a path outside its own folder/);
  }
  const link = await install([{ name: "server/index.js", mode: 0o120777 }]);
  assert.ok(link instanceof McpxError);
  assert.match(link.message, /"server\/index.js" is a symbolic link/);
});
