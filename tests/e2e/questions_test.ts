import assert from "node:assert/strict";
import { askingServer } from "../fixtures/servers.ts";
import { cacheModern } from "../../lib/mcp/_testing.ts";
import { Sandbox } from "../_helpers.ts";

interface Problem {
  code: string;
  detail: string;
  hint?: string;
  data?: { ticket: string; command: string; question: { route: string; reason: string } };
}

interface Question {
  id: string;
  state: string;
  route: string;
  reason: string;
  kind: string;
  command: string;
  outcome?: { result?: unknown };
}

async function asking(box: Sandbox, extra: Record<string, unknown> = {}): Promise<void> {
  await cacheModern();
  await box.write("work/.mcpx.json", {
    mcpServers: { ask: { ...askingServer(), mcpx: { callTimeout: "60s" } } },
    elicit: { wait: "300ms", ...extra },
  });
}

/** The ticket a call that exits 75 prints, from its --json problem document. */
function ticketOf(run: { code: number; stdout: string; stderr: string }): Problem {
  assert.equal(run.code, 75, run.stderr + run.stdout);
  const doc = JSON.parse(run.stdout || run.stderr) as Problem | { error: Problem };
  if (!("error" in doc ? doc.error : doc).data) throw new Error(run.stdout + run.stderr);
  const p = "error" in doc ? doc.error : doc;
  assert.equal(p.code, "INPUT_REQUIRED");
  assert.match(p.data!.ticket, /^elc-[0-9a-f]{12}$/);
  return p;
}

Deno.test("questions: a call exits 75 with a ticket; `elicit answer` completes it", async () => {
  await using box = await Sandbox.create();
  await asking(box);
  const call = await box.mcpx(["call", "ask.pick_repo"]);
  assert.equal(call.code, 75, call.stderr);
  const ticket = /question "(elc-[0-9a-f]{12})"/.exec(call.stderr)?.[1];
  assert.ok(ticket, call.stderr);
  assert.match(call.stderr, new RegExp(`mcpx elicit answer ${ticket} repo=… branch=… depth=…`));

  const listed = await box.json<{ questions: Question[] }>(["elicit", "list"]);
  assert.deepEqual(listed.questions.map((q) => [q.id, q.state, q.route]), [
    [ticket, "pending", "agent"],
  ]);
  const shown = await box.mcpx(["elicit", "show", ticket!]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /Which repository\?/);
  assert.match(shown.stdout, /for: agent \(the agent made the call/);

  // Schema: an unknown key, a wrong type, an enum outside its values, a missing required key.
  for (
    const [words, why] of [
      [["nope=1"], /asks for no "nope"/],
      [["repo=a/b", "depth=deep"], /"depth" takes a number/],
      [["repo=a/b", "branch=trunk"], /"branch" must be one of "main", "dev"/],
      [["repo=a/b", "depth=11"], /"depth" must be at most 10/],
      [["branch=dev"], /needs "repo"/],
    ] as const
  ) {
    const bad = await box.mcpx(["elicit", "answer", ticket!, ...words]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, why);
    assert.equal(bad.stderr.trim().split("\n").length <= 2, true, bad.stderr);
  }
  // Nothing stored wrongly: still pending.
  const still = await box.json<Question>(["elicit", "show", ticket!]);
  assert.equal(still.state, "pending");

  // The answer: the default branch is applied, and the call's result is printed.
  const answer = await box.mcpx(["elicit", "answer", ticket!, "repo=me/thing", "depth=3"]);
  assert.equal(answer.code, 0, answer.stderr);
  assert.equal(answer.stdout, 'accept {"repo":"me/thing","branch":"main","depth":3}\n');
  const done = await box.json<Question>(["elicit", "show", ticket!]);
  assert.equal(done.state, "answered");
  assert.deepEqual(done.outcome, {
    result: 'accept {"repo":"me/thing","branch":"main","depth":3}',
  });

  // Answered twice; an unknown ticket.
  const twice = await box.mcpx(["elicit", "answer", ticket!, "repo=x/y"]);
  assert.equal(twice.code, 5);
  assert.match(twice.stderr, /is already answered/);
  const unknown = await box.mcpx(["elicit", "answer", "elc-000000000000", "repo=x/y"]);
  assert.equal(unknown.code, 5);
  assert.match(unknown.stderr, /No question "elc-000000000000"/);

  // A JSON answer; --json of the waiting call carries the ticket and the command.
  const again = ticketOf(await box.mcpx(["--json", "call", "ask.pick_repo"]));
  assert.equal(
    again.data!.command,
    `mcpx elicit answer ${again.data!.ticket} repo=… branch=… depth=…`,
  );
  const json = await box.mcpx([
    "elicit",
    "answer",
    again.data!.ticket,
    '{"repo":"o/r","branch":"dev"}',
  ]);
  assert.equal(json.code, 0, json.stderr);
  assert.equal(json.stdout, 'accept {"repo":"o/r","branch":"dev"}\n');

  // A decline reaches the server as decline; the daemon is still up.
  const third = ticketOf(await box.mcpx(["--json", "call", "ask.pick_repo"]));
  const declined = await box.mcpx(["elicit", "decline", third.data!.ticket]);
  assert.equal(declined.code, 0, declined.stderr);
  assert.equal(declined.stdout, "decline null\n");
  assert.equal((await box.mcpx(["status"])).code, 0);
});

Deno.test("questions: routing, expiry answers cancel, sampling, bounds", async () => {
  await using box = await Sandbox.create();
  await asking(box, { deadline: "1s" });
  // A bare confirmation is routed to a person, with the reason recorded.
  const confirm = ticketOf(await box.mcpx(["--json", "call", "ask.confirm"]));
  assert.equal(confirm.data!.question.route, "person");
  assert.match(confirm.data!.question.reason, /bare confirmation/);
  // Past its deadline, reading it expires it; the server was told cancel (never decline).
  await new Promise((r) => setTimeout(r, 1200));
  const expired = await box.json<Question>(["elicit", "show", confirm.data!.ticket]);
  assert.equal(expired.state, "expired");
  const late = await box.mcpx(["elicit", "answer", confirm.data!.ticket, "ok=true"]);
  assert.equal(late.code, 5);
  assert.match(late.stderr, /is already expired/);
});

Deno.test("questions: sampling is answered with text; role and model filled; decline is an error", async () => {
  await using box = await Sandbox.create();
  await asking(box);
  const s = ticketOf(await box.mcpx(["--json", "call", "ask.summarise", "text=hello"]));
  const q = await box.json<Question>(["elicit", "show", s.data!.ticket]);
  assert.equal(q.kind, "sample");
  assert.equal(q.route, "agent");
  const noText = await box.mcpx(["elicit", "answer", s.data!.ticket, "model=m"]);
  assert.equal(noText.code, 2);
  assert.match(noText.stderr, /needs text=/);
  const answered = await box.mcpx(["elicit", "answer", s.data!.ticket, "text=short"]);
  assert.equal(answered.code, 0, answered.stderr);
  assert.equal(answered.stdout, "assistant/mcpx-answer: short\n");

  const d = ticketOf(await box.mcpx(["--json", "call", "ask.summarise", "text=again"]));
  const declined = await box.mcpx(["elicit", "decline", d.data!.ticket]);
  assert.equal(declined.code, 8, declined.stdout + declined.stderr);
  assert.match(declined.stdout, /the call failed: .*declined/);

  // 10 MB of messages: refused without storing, the call fails at once, the daemon stays up.
  const big = await box.mcpx(["call", "ask.summarise", "text=x", `pad=${10 * 1024 * 1024}`]);
  assert.equal(big.code, 8, big.stderr);
  assert.match(big.stderr, /over 1048576 bytes/);
  const all = await box.json<{ questions: Question[] }>(["elicit", "list", "--all"]);
  assert.equal(all.questions.length, 2);
  assert.equal((await box.mcpx(["status"])).code, 0);
});

Deno.test("questions: a 2026-07-28 server's input_required is answered through the same tickets", async () => {
  await using box = await Sandbox.create();
  await cacheModern();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      modern: { ...askingServer(), mcpx: { callTimeout: "60s", protocol: "force-modern" } },
    },
    elicit: { wait: "300ms", inputRounds: 3 },
  });
  const asked = ticketOf(await box.mcpx(["--json", "call", "modern.pick_repo"]));
  const q = await box.json<Question>(["elicit", "show", asked.data!.ticket]);
  assert.equal(q.kind, "elicit");
  // The server checks its signed requestState: echoed exactly, the retry is accepted.
  const answer = await box.mcpx(["elicit", "answer", asked.data!.ticket, "repo=me/modern"]);
  assert.equal(answer.code, 0, answer.stderr + answer.stdout);
  assert.equal(answer.stdout, 'picked {"repo":"me/modern","branch":"main"}\n');
  // A server that never stops asking is cut off after elicit.inputRounds rounds.
  const loop = await box.mcpx(["call", "modern.loop"]);
  assert.notEqual(loop.code, 0);
  assert.match(loop.stderr, /after 3 rounds/);
  assert.equal(loop.stderr.trim().split("\n").length, 1, loop.stderr);
  assert.equal((await box.mcpx(["status"])).code, 0);
});

Deno.test("questions: a script answers inline through onElicit and onSample", async () => {
  await using box = await Sandbox.create();
  await asking(box, { wait: "30s" });
  await box.write(
    "work/.mcpx/scripts/inline.ts",
    `export default async () => {
  const seen: string[] = [];
  onElicit((q) => {
    seen.push(q.kind + ":" + q.route + ":" + q.message);
    return q.message.startsWith("Question") ? { n: "y" } : { repo: "inline/repo" };
  });
  onSample((q) => { seen.push(q.kind); return "a summary"; });
  const picked = String(await ask.pick_repo({}));
  const summary = String(await ask.summarise({ text: "long" }));
  // A server asking in a loop is cut off: the questions past elicit.maxPending are cancelled.
  const nag = String(await ask.nag({ times: 100 }));
  onElicit(() => "decline");
  const declined = String(await ask.pick_repo({}));
  onElicit(undefined);
  let ticket = "";
  try { await ask.pick_repo({}); } catch (e) { ticket = (e as { code: string }).code; }
  return { picked, summary, nag, declined, ticket, seen: seen.slice(0, 2) };
};
`,
  );
  assert.equal((await box.mcpx(["refresh"])).code, 0);
  const run = await box.mcpx(["--json", "run", "inline"], {
    env: { MCPX_ELICIT_MAX_PENDING: "5" },
  });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  const out = JSON.parse(run.stdout).result;
  assert.deepEqual(out, {
    picked: 'accept {"repo":"inline/repo","branch":"main"}',
    summary: "assistant/mcpx-answer: a summary",
    nag: "accepted 32, last cancel",
    declined: "decline null",
    ticket: "INPUT_REQUIRED",
    seen: ["elicit:agent:Which repository?", "sample"],
  });
  const all = await box.json<{ questions: Question[] }>(["elicit", "list", "--all"]);
  // The refused 33rd question of the loop was never stored.
  assert.equal(all.questions.filter((q) => q.state === "answered").length, 34);
});

Deno.test("questions: callTimeout does not run out while the call's question waits", async () => {
  await using box = await Sandbox.create();
  await cacheModern();
  await box.write("work/.mcpx.json", {
    mcpServers: { ask: { ...askingServer(), mcpx: { callTimeout: "1s" } } },
    elicit: { wait: "100ms" },
  });
  const asked = ticketOf(await box.mcpx(["--json", "call", "ask.pick_repo"]));
  // Longer than callTimeout: the question held the call, not the server.
  await new Promise((r) => setTimeout(r, 1500));
  const answer = await box.mcpx(["elicit", "answer", asked.data!.ticket, "repo=late/one"]);
  assert.equal(answer.code, 0, answer.stderr + answer.stdout);
  assert.equal(answer.stdout, 'accept {"repo":"late/one","branch":"main"}\n');
});

Deno.test("questions: each configuration's daemon lists and answers its own; a wrong-folder answer changes nothing", async () => {
  await using box = await Sandbox.create();
  await cacheModern();
  for (const folder of ["a", "b"]) {
    await box.write(`work/${folder}/.mcpx.json`, {
      mcpServers: { ask: { ...askingServer(), mcpx: { callTimeout: "60s" } } },
      elicit: { wait: "300ms" },
    });
  }
  // A third configuration, whose daemon never starts.
  await box.write("work/c/.mcpx.json", { mcpServers: {} });
  const a = { cwd: "work/a" };
  const b = { cwd: "work/b" };
  const inA = ticketOf(await box.mcpx(["--json", "call", "ask.pick_repo"], a)).data!.ticket;
  const inB = ticketOf(await box.mcpx(["--json", "call", "ask.pick_repo"], b)).data!.ticket;
  const configA = `${box.root}/work/a/.mcpx.json`;
  const configB = `${box.root}/work/b/.mcpx.json`;

  const listed = async (opts: { cwd: string }, args: string[] = []) =>
    (await box.json<{ questions: (Question & { config: string })[] }>(
      ["elicit", "list", ...args],
      opts,
    )).questions.map((q) => [q.id, q.config]).sort();
  assert.deepEqual(await listed(a), [[inA, configA]]);
  assert.deepEqual(await listed(b), [[inB, configB]]);
  const every = [[inA, configA], [inB, configB]].sort();
  assert.deepEqual(await listed(b, ["--all-configs"]), every);
  // Where no daemon runs, the kept questions are read from the file.
  assert.deepEqual(await listed({ cwd: "work/c" }), []);
  assert.deepEqual(await listed({ cwd: "work/c" }, ["--all-configs"]), every);
  const text = await box.mcpx(["elicit", "list", "--all-configs"], b);
  assert.match(text.stdout, new RegExp(`${inA} .*\\(${configA.replaceAll(".", "\\.")}\\)`));

  // From B's folder, A's question is refused naming A's folder, and stays pending.
  for (const args of [["answer", inA, "repo=x/y"], ["decline", inA]]) {
    const wrong = await box.mcpx(["elicit", ...args], b);
    assert.equal(wrong.code, 5, wrong.stderr);
    assert.match(wrong.stderr, new RegExp(`^mcpx: Question "${inA}" was asked under ${configA}`));
    assert.ok(wrong.stderr.includes(`cd ${box.root}/work/a && mcpx elicit answer ${inA}`));
    assert.equal((await box.json<Question>(["elicit", "show", inA], a)).state, "pending");
  }
  const fromC = await box.mcpx(["elicit", "answer", inA, "repo=x/y"], { cwd: "work/c" });
  assert.equal(fromC.code, 5, fromC.stderr);
  assert.match(fromC.stderr, new RegExp(`was asked under ${configA}`));

  // Its owner still answers it, and the call completes.
  const answered = await box.mcpx(["elicit", "answer", inA, "repo=me/a"], a);
  assert.equal(answered.code, 0, answered.stderr);
  assert.equal(answered.stdout, 'accept {"repo":"me/a","branch":"main"}\n');
  const declined = await box.mcpx(["elicit", "decline", inB], b);
  assert.equal(declined.code, 0, declined.stderr);
});

Deno.test("questions: a server that gives up waiting leaves its question cancelled, and its next deadline is the server's", async () => {
  await using box = await Sandbox.create();
  await asking(box);
  type Shown = Question & {
    deadline: string;
    deadlineBy: string;
    createdAt: string;
    withdrawnAfterMs?: number;
  };
  const first = ticketOf(await box.mcpx(["--json", "call", "ask.impatient", "ms=1500"])).data!
    .ticket;
  const shown = await box.json<Shown>(["elicit", "show", first]);
  assert.equal(shown.deadlineBy, "mcpx");
  const text = await box.mcpx(["elicit", "show", first]);
  assert.match(
    text.stdout,
    /deadline: \S+ \(elicit\.deadline; the server's own request timeout governs when it is sooner/,
  );

  // The server's own timeout runs out: the question is cancelled, and says by whom.
  let after = shown;
  for (let i = 0; i < 300 && after.state === "pending"; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await box.json<Shown>(["elicit", "show", first]);
  }
  assert.equal(after.state, "cancelled");
  assert.equal(typeof after.withdrawnAfterMs, "number");
  assert.match(
    (await box.mcpx(["elicit", "show", first])).stdout,
    /withdrawn: the server gave up waiting after/,
  );
  const late = await box.mcpx(["elicit", "answer", first, "colour=red"]);
  assert.equal(late.code, 5);
  assert.match(late.stderr, /is already cancelled/);

  // The next question from it shows the deadline the server keeps, not mcpx's ten minutes.
  const second = ticketOf(await box.mcpx(["--json", "call", "ask.impatient", "ms=1500"])).data!
    .ticket;
  const next = await box.json<Shown>(["elicit", "show", second]);
  assert.equal(next.deadlineBy, "server");
  assert.equal(Date.parse(next.deadline) - Date.parse(next.createdAt), after.withdrawnAfterMs);
  assert.match(
    (await box.mcpx(["elicit", "show", second])).stdout,
    /deadline: \S+ \(the server's own timeout: it gave up on its last question after \d+ s\)/,
  );
});

Deno.test("questions: a call timed out on a shared process names the question no call was told of", async () => {
  await using box = await Sandbox.create();
  await cacheModern();
  await box.write("work/.mcpx.json", {
    mcpServers: { ask: { ...askingServer(), mcpx: { callTimeout: "2s" } } },
    elicit: { wait: "100ms" },
  });
  await box.json(["refresh"]);
  // A second call in flight on the one shared process: the server's question names no call, so
  // it is stored for none, and neither call exits 75 with its ticket.
  const other = box.mcpx(["call", "ask.wait"]);
  await new Promise((r) => setTimeout(r, 700));
  const asking = await box.mcpx(["--json", "call", "ask.pick_repo"]);
  const doc = JSON.parse(asking.stdout) as { error: Problem & { message: string } };
  assert.equal(doc.error.code, "TOOL_TIMEOUT", asking.stdout);
  const stray = (await box.json<{ questions: (Question & { tool: string | null })[] }>([
    "elicit",
    "list",
  ])).questions.filter((q) => q.state === "pending");
  assert.equal(stray.length, 1);
  assert.equal(stray[0].tool, null);
  assert.match(
    doc.error.message,
    new RegExp(`has 1 question no call could be told of \\("${stray[0].id}": Which repository\\?`),
  );
  assert.match(doc.error.hint!, new RegExp(`mcpx elicit answer ${stray[0].id}`));
  assert.match(doc.error.hint!, /"sharing": "exclusive"/);
  await other;
  await box.json(["stop"]);
});
