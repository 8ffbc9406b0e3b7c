import assert from "node:assert/strict";
import { join } from "./_path.ts";
import { BUNDLE_RUN_FLAGS, selfCommandFor, selfForm } from "./_self.ts";

const REPO = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("self: the sources start themselves with deno run, their deno.json and the V8 flags", () => {
  const form = selfForm();
  assert.deepEqual(form, { kind: "source", exec: Deno.execPath(), root: REPO });
  assert.deepEqual(selfCommandFor(form, ["daemon"], ["--a", "--b"]), {
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      "--v8-flags=--a,--b",
      "--config",
      `${REPO}/deno.json`,
      `${REPO}/main.ts`,
      "daemon",
    ],
  });
});

Deno.test("self: a bundle starts its own main.js with the flags its bin/mcpx uses", () => {
  const main = "file:///opt/mcpx-cli/cli/main.js";
  assert.deepEqual(selfCommandFor({ kind: "bundle", exec: "/x/deno", main }, ["daemon"], ["--a"]), {
    command: "/x/deno",
    args: ["run", ...BUNDLE_RUN_FLAGS, "--v8-flags=--a", "/opt/mcpx-cli/cli/main.js", "daemon"],
  });
});

Deno.test("self: a compiled binary is started as itself with the program's arguments only, and a stand-in for it runs", async () => {
  // A stand-in for a `deno compile` binary: an executable whose arguments are mcpx's own.
  const dir = await Deno.makeTempDir({ prefix: "mcpx-self-" });
  try {
    const standIn = join(dir, "mcpx");
    await Deno.writeTextFile(
      standIn,
      `#!/bin/sh\nexec "${Deno.execPath()}" run -A --config "${REPO}/deno.json" "${REPO}/main.ts" "$@"\n`,
      { mode: 0o755 },
    );
    const self = selfCommandFor({ kind: "compiled", exec: standIn }, ["--json", "version"], [
      "--max-semi-space-size=1",
    ]);
    assert.deepEqual(self, { command: standIn, args: ["--json", "version"] });
    const out = await new Deno.Command(self.command, {
      args: self.args,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.match(new TextDecoder().decode(out.stdout), /"version": "\d+\.\d+\.\d+"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
