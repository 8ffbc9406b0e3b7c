/**
 * The official MCP conformance suite's client leg, with tools/conformance_client.ts (the mcpx CLI
 * and its daemon's pool) as the client under test, for both revisions, held to
 * tests/conformance_client_baseline.json in both directions (tools/conformance.ts). It runs two
 * ways: with the server's `protocol` pinned to the revision, and as a user configures it (no
 * `protocol` line, so the default negotiates the revision).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  CLIENT_WAYS,
  clientWayBaseline,
  countChecks,
  parseClientList,
  readClientBaseline,
  REVISIONS,
} from "../../tools/conformance.ts";

Deno.test("parseClientList() reads a requirement set's client scenarios, scored and not", () => {
  const text = [
    "Required for 2025-11-25 (3 scenarios, frozen; run at the 2025-11-25 wire):",
    "",
    "Server scenarios (test against a server):",
    "  - ping",
    "",
    "Client scenarios (test against a client):",
    "  - initialize",
    "  - auth/metadata-default",
    "",
    "Run and reported, but never scored:",
    "  extension (2):",
    "    - auth/dpop [client]",
    "    - tasks-lifecycle [server]",
    "  added-after-release (1):",
    "    - json-schema-2020-12-preservation [client]",
  ].join("\n");
  assert.deepEqual(parseClientList(text), [
    { name: "initialize" },
    { name: "auth/metadata-default" },
    { name: "auth/dpop", unscored: "extension" },
    { name: "json-schema-2020-12-preservation", unscored: "added-after-release" },
  ]);
});

Deno.test("countChecks() counts as the suite's summary does: warnings and skips are neither", () => {
  assert.deepEqual(
    countChecks("x", [
      { status: "SUCCESS" },
      { status: "FAILURE" },
      { status: "WARNING" },
      { status: "SKIPPED" },
      { status: "SUCCESS" },
    ]),
    { name: "x", passed: 2, failed: 1 },
  );
});

Deno.test("the client baseline names a reason for every expected failure", () => {
  const baseline = readClientBaseline();
  for (const way of CLIENT_WAYS) {
    for (const rev of REVISIONS) {
      for (const [name, why] of Object.entries(clientWayBaseline(baseline, way)[rev])) {
        assert.ok(why.trim().length > 10, `${way} ${rev} ${name} has a reason`);
      }
    }
  }
});

for (const way of CLIENT_WAYS) {
  const leg = way === "forced" ? "client" : "client-default";
  const tag = way === "forced" ? "client" : "client \\(default\\)";
  const how = way === "forced" ? "with the protocol pinned" : "with no protocol line";
  Deno.test(`mcpx's client (CLI, daemon, pool) meets the official suite's client leg ${how}, as the baseline expects`, async () => {
    const tool = fileURLToPath(new URL("../../tools/conformance.ts", import.meta.url));
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", tool, "--check", `--leg=${leg}`],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, text.split("\n").filter((l) => !l.includes("Download")).join("\n"));
    for (const rev of REVISIONS) {
      assert.match(text, new RegExp(`${tag} ${rev}: \\d+/\\d+ scenarios pass`));
    }
  });
}
