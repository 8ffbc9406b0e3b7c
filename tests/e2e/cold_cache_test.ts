/**
 * A first call with an empty Deno cache, from the sources: the daemon the call starts fetches its
 * npm packages into the cache before it can answer, which must not count against
 * daemon.startTimeout, and the wait says what it is for in one line (stderr is no terminal here).
 * And what the wait reads of a daemon's stderr file, Deno's own error included.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { Sandbox } from "../_helpers.ts";
import { DAEMON_LOADING, startOutput } from "../../lib/daemon/start_output.ts";

Deno.test("cold cache: the first call of a new configuration succeeds while the daemon fetches its packages", async () => {
  await using box = await Sandbox.create();
  const cache = join(box.root, "empty-deno-dir");
  Deno.mkdirSync(cache);
  box.env.DENO_DIR = cache;
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  // A timeout well under what fetching takes: it runs only once the modules are in.
  const call = await box.mcpx(["--daemon-start-timeout=4s", "call", "fixture.echo", "text=cold"]);
  assert.equal(call.code, 0, call.stderr);
  assert.equal(call.stdout.trim(), "cold");
  const said = call.stderr.split("\n").filter((l) => l.startsWith("mcpx: starting the daemon"));
  assert.equal(said.length, 1, call.stderr);
  assert.match(
    said[0],
    /Deno is fetching its npm packages into an empty cache, once \(\d+ downloads/,
  );
  const fetched = [...Deno.readDirSync(join(cache, "npm", "registry.npmjs.org"))].map((e) =>
    e.name
  );
  assert.ok(fetched.includes("@modelcontextprotocol"), fetched.join(" "));
  assert.ok(
    !fetched.some((n) => n === "express" || n === "octokit" || n === "@octokit"),
    `test-only packages stay out of the daemon's graph: ${fetched.join(" ")}`,
  );
  // Warm, the same start says nothing.
  assert.equal((await box.mcpx(["stop"])).code, 0);
  const warm = await box.mcpx(["call", "fixture.echo", "text=warm"]);
  assert.equal(warm.code, 0, warm.stderr);
  assert.equal(warm.stderr, "");
});

Deno.test("cold cache: what Deno printed before a daemon's first line is read back: downloads, marks and its error", async () => {
  // Real Deno output: a module that cannot be found, as a moved checkout's daemon meets it.
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", "/nonexistent/mcpx/main.ts", "daemon"],
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "" },
  }).output();
  const text =
    `${DAEMON_LOADING}\n\x1b[0m\x1b[32mDownload\x1b[0m https://registry.npmjs.org/@scope%2fpkg\n` +
    "Download https://registry.npmjs.org/zod/-/zod-4.6.7.tgz\n" +
    new TextDecoder().decode(out.stderr);
  const seen = startOutput(text);
  assert.equal(seen.fetched, 2);
  assert.equal(seen.lastPackage, "zod");
  assert.equal(seen.loading, true);
  assert.equal(seen.loaded, false);
  assert.match(
    seen.lastLine ?? "",
    /^error: Module not found "file:\/\/\/nonexistent\/mcpx\/main\.ts"/,
  );
});
