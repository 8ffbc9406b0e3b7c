import { strict as assert } from "node:assert";
import { candidates, explore, type ExploreDeps, RECENT_TRACES, splitWords } from "./explore.ts";
import { History } from "./history.ts";
import type { Field } from "./arguments.ts";

const NAMES = {
  namespaces: ["everything", "memory"],
  tools: ["everything.echo", "everything.get_annotated_message", "memory.read_graph"],
};

const ANNOTATED = {
  type: "object",
  properties: {
    includeImage: { type: "boolean", description: "Whether to include an example image" },
    messageType: { type: "string", enum: ["error", "success", "debug"] },
  },
  required: ["messageType"],
};

/** The loop driven by typed lines and answers; what it ran and printed. */
async function drive(lines: (string | undefined)[], answers: (string | undefined)[] = []) {
  const ran: string[][] = [];
  const asked: Field[] = [];
  let out = "";
  const dir = await Deno.makeTempDir();
  const history = new History(`${dir}/explore_history`);
  const deps: ExploreDeps = {
    prompter: {
      line: () => Promise.resolve(lines.shift()),
      field: (f) => {
        asked.push(f);
        return Promise.resolve(answers.shift());
      },
    },
    history,
    run: (args) => {
      ran.push([...args]);
      return Promise.resolve(0);
    },
    out: (t) => void (out += t),
    names: () => Promise.resolve(NAMES),
    schema: (target) =>
      target === "everything.get_annotated_message"
        ? Promise.resolve(ANNOTATED)
        : Promise.reject(new Error(`No tool "${target}"`)),
    flags: ["--config=mcpx.json"],
  };
  await explore(deps);
  await Deno.remove(dir, { recursive: true });
  return { ran, asked, out, history: history.lines };
}

Deno.test("explore() shows a bare namespace's signatures, with the command in the footer", async () => {
  const r = await drive(["memory", "memory.read_graph"]);
  assert.deepEqual(r.ran, [
    ["--config=mcpx.json", "types", "memory"],
    ["--config=mcpx.json", "types", "memory.read_graph"],
  ]);
  assert.match(r.out, /^mcpx explore: 2 namespaces \(everything, memory\)\. Type help/);
  assert.match(r.out, /→ mcpx --config=mcpx\.json types memory\n/);
  assert.match(r.out, /→ mcpx --config=mcpx\.json types memory\.read_graph\n/);
  assert.deepEqual(r.history, ["memory", "memory.read_graph"]);
});

Deno.test("explore() call asks required arguments first and calls with what was answered", async () => {
  const r = await drive(["call everything.get_annotated_message"], ["success", ""]);
  assert.deepEqual(r.asked.map((f) => [f.name, f.required, f.choices]), [
    ["messageType", true, ["error", "success", "debug"]],
    ["includeImage", false, ["true", "false"]],
  ]);
  assert.deepEqual(r.ran, [[
    "--config=mcpx.json",
    "call",
    "everything.get_annotated_message",
    '{"messageType":"success"}',
  ]]);
  assert.match(
    r.out,
    /→ mcpx --config=mcpx\.json call everything\.get_annotated_message '\{"messageType":"success"\}'\n/,
  );
});

Deno.test("explore() call cancelled at a question calls nothing and goes on", async () => {
  const r = await drive(["call everything.get_annotated_message", "status"], [undefined]);
  assert.deepEqual(r.ran, [["--config=mcpx.json", "status"]]);
  assert.match(r.out, /Call cancelled/);
});

Deno.test("explore() chain lists recent traces, chain <id> one of them", async () => {
  const r = await drive(["chain", "chain cal-1"]);
  assert.deepEqual(r.ran, [
    ["--config=mcpx.json", "log", "sql", RECENT_TRACES],
    ["--config=mcpx.json", "log", "--chain", "cal-1"],
  ]);
});

Deno.test("explore() runs log, stats and status, and stops at quit", async () => {
  const r = await drive(["log", "stats --since 1h", "status", "quit", "memory"]);
  assert.deepEqual(r.ran.map((a) => a.slice(1)), [
    ["log", "-n", "20"],
    ["stats", "--since", "1h"],
    ["status"],
  ]);
});

Deno.test("explore() names the nearest word for one it does not know", async () => {
  const r = await drive(["memroy"]);
  assert.deepEqual(r.ran, []);
  assert.match(
    r.out,
    /"memroy" is not a namespace or a command: did you mean "memory"\? Type help\n/,
  );
  // A word near nothing ends its sentence itself.
  const far = await drive(["qqqqqqqq"]);
  assert.match(far.out, /"qqqqqqqq" is not a namespace or a command\. Type help\n/);
});

Deno.test("candidates() completes command words, namespaces and tools", () => {
  assert.deepEqual(candidates("me", NAMES), ["memory", "memory.read_graph"]);
  assert.deepEqual(candidates("ev", NAMES), [
    "everything",
    "everything.echo",
    "everything.get_annotated_message",
  ]);
  assert.deepEqual(candidates("memory", NAMES), ["memory", "memory.read_graph"]);
  assert.deepEqual(candidates("call everything.", NAMES), [
    "call everything.echo",
    "call everything.get_annotated_message",
  ]);
  assert.deepEqual(candidates("st", NAMES), ["stats", "status"]);
});

Deno.test("splitWords() reads quotes as a shell does", () => {
  assert.deepEqual(splitWords(`search "read file" x`), ["search", "read file", "x"]);
  assert.deepEqual(splitWords(`log --grep 'a b'`), ["log", "--grep", "a b"]);
  assert.deepEqual(splitWords("  "), []);
});
