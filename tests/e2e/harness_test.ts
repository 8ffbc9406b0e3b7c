// The harness supplies session identity (docs/harness.md): the opencode plugin
// and the Claude Code hook in integrations/ run against a stand-in of their harness, and the
// variables they set reach a real daemon, which leases by them and records them as id.<key>.

import assert from "node:assert/strict";
import { join } from "node:path";
import { Sandbox } from "../_helpers.ts";
import { namesServer } from "../fixtures/servers.ts";
import { McpxSession } from "../../integrations/opencode/mcpx-session.ts";

const HOOK = new URL("../../integrations/claude-code/mcpx-session.mjs", import.meta.url).pathname;

type Rec = Record<string, unknown>;

/** The records of `event` in the sandbox's log, oldest first. */
async function records(box: Sandbox, event: string): Promise<Rec[]> {
  const r = await box.mcpx(["log", "--event", event, "--format", "json", "--limit", "100"]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

/** An attribute of a record, wherever the log keeps attributes. */
function attr(rec: Rec, key: string): unknown {
  return rec[key] ?? (rec.attrs as Rec | undefined)?.[key];
}

Deno.test("the opencode plugin names the session, its parent, the worktree and the call on every shell command", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { names: { ...namesServer(), mcpx: { scope: "session" } } },
  });
  const asked: string[] = [];
  const hooks = await McpxSession({
    worktree: join(box.root, "work"),
    client: {
      session: {
        get: ({ path }) => {
          asked.push(path.id);
          return Promise.resolve({ data: path.id === "ses_child" ? { parentID: "ses_lead" } : {} });
        },
      },
    },
  });
  const output = { env: {} as Record<string, string> };
  await hooks["shell.env"]({ cwd: box.root, sessionID: "ses_child", callID: "call_7" }, output);
  await hooks["shell.env"]({ cwd: box.root, sessionID: "ses_child", callID: "call_8" }, {
    env: {},
  });
  assert.deepEqual(asked, ["ses_child"], "a session's parent is asked for once");
  assert.equal(output.env.MCPX_SESSION_ID, "ses_child");
  assert.equal(output.env.MCPX_PARENT_SESSION_ID, "ses_lead");
  assert.deepEqual(JSON.parse(output.env.MCPX_TRACE_IDS), [
    ["session", "ses_child"],
    ["harness", "opencode"],
    ["parent", "ses_lead"],
    ["worktree", join(box.root, "work")],
    ["call", "call_7"],
  ]);
  const none = { env: {} as Record<string, string> };
  await hooks["shell.env"]({ cwd: box.root }, none);
  assert.deepEqual(none.env, {}, "a terminal outside any session gets nothing");

  // What the shell command then runs is leased and recorded by those variables.
  const call = await box.mcpx(["call", "names.delete"], { env: output.env });
  assert.equal(call.code, 0, call.stderr);
  const [end] = (await records(box, "call.end")).slice(-1);
  assert.equal(attr(end, "session"), "ses_child");
  assert.equal(attr(end, "id.harness"), "opencode");
  assert.equal(attr(end, "id.call"), "call_7");
  assert.equal(attr(end, "id.parent"), "ses_lead");
  const status = await box.json<Rec>(["status"]);
  assert.match(JSON.stringify(status), /ses_child/, "the instance is held under the session's key");
});

Deno.test("MCPX_TRACE_IDS alone names the session of calls and runs; it never rewrites one mcpx established", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { names: namesServer() } });
  const ids = JSON.stringify([["session", "h-1"], ["ticket", "T-1", "T-2"], ["worktree", "/w"]]);

  const alone = await box.mcpx(["call", "names.delete"], { env: { MCPX_TRACE_IDS: ids } });
  assert.equal(alone.code, 0, alone.stderr);
  let [end] = (await records(box, "call.end")).slice(-1);
  assert.equal(attr(end, "session"), "h-1", "the harness's session is the call's when none is set");
  assert.deepEqual(
    attr(end, "id.ticket"),
    ["T-1", "T-2"],
    "an entry longer than a pair keeps every id",
  );
  assert.equal(attr(end, "id.worktree"), "/w");

  const established = await box.mcpx(["call", "names.delete"], {
    env: { MCPX_TRACE_IDS: ids, MCPX_SESSION_ID: "mine" },
  });
  assert.equal(established.code, 0, established.stderr);
  [end] = (await records(box, "call.end")).slice(-1);
  assert.equal(attr(end, "session"), "mine", "MCPX_SESSION_ID wins");
  assert.equal(attr(end, "id.session"), "h-1", "the harness's word is kept beside it");

  // The text spelling, through a script: the run and its calls carry the ids.
  const run = await box.mcpx(["exec", "await names.delete_({}); console.log('ok')"], {
    env: { MCPX_TRACE_IDS: "session=h-2;ticket=T-9" },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /ok/);
  const [start] = (await records(box, "run.start")).slice(-1);
  assert.equal(attr(start, "session"), "h-2");
  assert.equal(attr(start, "id.ticket"), "T-9");
  [end] = (await records(box, "call.end")).slice(-1);
  assert.equal(
    attr(end, "session"),
    "h-2",
    "the script's calls are leased under the harness's session",
  );
  assert.equal(attr(end, "id.ticket"), "T-9");
});

Deno.test("a malformed MCPX_TRACE_IDS is one line naming the variable and the form", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { names: namesServer() } });
  for (
    const [bad, why] of [
      ["[[", /is not valid JSON/],
      ['[["Session","x"]]', /key "Session" is not a lowercase name/],
      ["session", /is not key=id/],
      ['[["a","x"],["a","y"]]', /names "a" twice/],
      [`[${Array.from({ length: 40 }, (_, i) => `["k${i}","v"]`).join(",")}]`, /has 40 entries/],
    ] as const
  ) {
    const r = await box.mcpx(["call", "names.delete"], { env: { MCPX_TRACE_IDS: bad } });
    assert.equal(r.code, 2, `${bad}: ${r.stderr}`);
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /MCPX_TRACE_IDS/);
    assert.match(lines[0], why);
  }
});

Deno.test("the Claude Code hook exports the session into CLAUDE_ENV_FILE, which the session's shells source", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { names: namesServer() } });
  const envFile = join(box.root, "claude.env");
  const hook = async (stdin: string, env: Record<string, string>) => {
    const child = new Deno.Command("node", {
      args: [HOOK],
      env: { PATH: box.env.PATH, ...env },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
    const out = await child.output();
    return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
  };
  const started = await hook(
    JSON.stringify({ session_id: "cc-'quoted' $x", cwd: "/proj", source: "startup" }),
    { CLAUDE_ENV_FILE: envFile },
  );
  assert.equal(started.code, 0, started.stderr);
  // Without the file (not a SessionStart hook) or with bad input: a word on stderr, exit 0.
  assert.equal((await hook("{}", {})).code, 0);
  const bad = await hook("not json", { CLAUDE_ENV_FILE: envFile });
  assert.equal(bad.code, 0);
  assert.match(bad.stderr, /not JSON/);

  // A Bash command of that session: the file sourced first, as Claude Code does.
  const deno = Deno.execPath();
  const repo = new URL("../..", import.meta.url).pathname;
  const script =
    `. ${envFile} && exec ${deno} run -A --config ${repo}deno.json ${box.entry} call names.delete`;
  const out = await new Deno.Command("bash", {
    args: ["-c", script],
    cwd: join(box.root, "work"),
    env: box.env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const [end] = (await records(box, "call.end")).slice(-1);
  assert.equal(attr(end, "session"), "cc-'quoted' $x", "quoting survives the shell");
  assert.equal(attr(end, "id.harness"), "claude-code");
  assert.equal(attr(end, "id.worktree"), "/proj");
  assert.equal(attr(end, "id.start"), "startup");
});
