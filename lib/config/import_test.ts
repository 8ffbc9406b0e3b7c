import assert from "node:assert/strict";
import { join } from "node:path";
import { addToConfig } from "./import.ts";

Deno.test("addToConfig() writes through a symlinked configuration to the file it names", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "mcpx-import-" });
  try {
    const real = join(dir, "real.json");
    const link = join(dir, ".mcpx.json");
    Deno.writeTextFileSync(real, '{ "mcpServers": {} } // mine\n');
    Deno.symlinkSync(real, link);
    const out = await addToConfig(link, [{ name: "z", entry: { command: "true" }, from: "test" }]);
    assert.deepEqual(out.added, ["z"]);
    assert.equal(Deno.lstatSync(link).isSymlink, true, "the link is still a link");
    assert.match(Deno.readTextFileSync(real), /"z"[\s\S]*\/\/ mine/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
