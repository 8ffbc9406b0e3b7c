/**
 * The official MCP conformance suite's server leg against `mcpx serve --http` in code mode and in
 * gateway mode (`--expose`, fronting tests/fixtures/servers/conformance_surface.ts), both held to
 * the expected-failures baseline in both directions (tools/conformance.ts).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  compare,
  legBaseline,
  LEGS,
  parseSummary,
  readBaseline,
  REVISIONS,
} from "../../tools/conformance.ts";

Deno.test("compare() fails a new failure and a baseline entry that passes", () => {
  const baseline = { "2025-11-25": { old: "why" }, "2026-07-28": {} };
  assert.deepEqual(compare("2025-11-25", [{ name: "old", passed: 1, failed: 1 }], baseline), []);
  assert.equal(compare("2025-11-25", [{ name: "old", passed: 2, failed: 0 }], baseline).length, 1);
  assert.equal(
    compare("2025-11-25", [
      { name: "old", passed: 1, failed: 1 },
      { name: "new", passed: 0, failed: 1 },
    ], baseline).length,
    1,
  );
  assert.equal(compare("2025-11-25", [], baseline).length, 1, "an entry the suite no longer runs");
});

Deno.test("parseSummary() reads the suite's summary block", () => {
  const text = [
    "noise",
    "=== SUMMARY ===",
    "\x1b[32m✓ ping: 2 passed, 0 failed\x1b[0m",
    "✗ tasks-lifecycle: 1 passed, 8 failed",
    "",
    "Total: 3 passed, 8 failed",
    "Not scored for 2026-07-28: 1 scenario(s) run, 1 failing.",
    "  ✗ tasks-lifecycle (extension)",
  ].join("\n");
  assert.deepEqual(parseSummary(text), [
    { name: "ping", passed: 2, failed: 0 },
    { name: "tasks-lifecycle", passed: 1, failed: 8, unscored: "extension" },
  ]);
  assert.throws(() => parseSummary("no summary"));
});

Deno.test("the baseline names a reason for every expected failure", () => {
  const file = readBaseline();
  for (const leg of LEGS) {
    const baseline = legBaseline(file, leg);
    for (const rev of REVISIONS) {
      for (const [name, why] of Object.entries(baseline[rev])) {
        assert.ok(why.trim().length > 10, `${leg} ${rev} ${name} has a reason`);
      }
    }
  }
});

Deno.test("mcpx serve meets the official suite's server leg in both modes, as the baseline expects", async () => {
  const tool = fileURLToPath(new URL("../../tools/conformance.ts", import.meta.url));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", tool, "--check", "--leg=code", "--leg=gateway"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, text.split("\n").filter((l) => !l.includes("Download")).join("\n"));
  for (const leg of LEGS) {
    for (const rev of REVISIONS) {
      assert.match(text, new RegExp(`${leg} ${rev}: \\d+/\\d+ scenarios pass`));
    }
  }
});
