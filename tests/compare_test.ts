/**
 * The feature register (docs/compare/features.json) names only what mcpx has, and its page
 * (docs/compare/README.md) is what tools/compare.ts renders from it.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { OPERATIONS } from "../lib/operations/mod.ts";
import { SETTINGS } from "../lib/settings/table.ts";
import { loadRegister, renderCompare, STATUSES, validate } from "../tools/compare.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

Deno.test("compare: every mcpx command and setting the register names exists", () => {
  const commands = new Set(OPERATIONS.map((op) => op.cli.command.join(" ")));
  const settings = new Set(Object.keys(SETTINGS));
  const reg = loadRegister();
  assert.ok(reg.features.length > 0);
  for (const f of reg.features) {
    for (const c of f.mcpx.commands ?? []) {
      assert.ok(commands.has(c), `${f.id}: "mcpx ${c}" is no command of OPERATIONS`);
    }
    for (const s of f.mcpx.settings ?? []) {
      assert.ok(settings.has(s), `${f.id}: "${s}" is no setting of SETTINGS`);
    }
  }
  assert.deepEqual(validate(reg), []);
});

Deno.test("compare: a peer's known status names one of that peer's sources", () => {
  const reg = loadRegister();
  for (const f of reg.features) {
    for (const p of reg.peers) {
      const e = f.peers[p.id];
      assert.ok(e, `${f.id}: no entry for ${p.id}`);
      assert.ok((STATUSES as readonly string[]).includes(e.status), `${f.id}: ${p.id}`);
      if (e.status !== "unknown") {
        assert.ok(e.src && p.sources[e.src]?.startsWith("https://"), `${f.id}: ${p.id} source`);
      }
    }
  }
});

Deno.test("compare: validate names what is wrong", () => {
  const reg = loadRegister();
  const broken = structuredClone(reg);
  broken.features[0].mcpx.commands = ["no-such-command"];
  broken.features[0].mcpx.settings = ["no.such"];
  broken.features[1].peers[reg.peers[0].id] = { status: "yes" };
  const problems = validate(broken);
  assert.ok(problems.some((p) => p.includes(`no mcpx command "no-such-command"`)), problems[0]);
  assert.ok(problems.some((p) => p.includes(`no setting "no.such"`)));
  assert.ok(problems.some((p) => p.includes("without a source")));
  assert.throws(() => renderCompare(broken), /no-such-command/);
});

Deno.test("compare: tools/compare.ts --check finds docs/compare/README.md fresh", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tools/compare.ts", "--check"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
});
