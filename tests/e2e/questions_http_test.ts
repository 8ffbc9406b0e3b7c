// Questions a server asks over Streamable HTTP (docs/questions.md): the SDK's own server package
// (tests/fixtures/servers/asking.ts --http) as a remote `url` server, its form and URL-mode
// elicitations (2025 era) and its input_required results (2026-07-28) held by the daemon and
// answered with `mcpx elicit list|show|answer`.

import assert from "node:assert/strict";
import { startAskingHttp } from "../fixtures/servers.ts";
import { cacheModern } from "../../lib/mcp/_testing.ts";
import { Sandbox } from "../_helpers.ts";

interface Question {
  id: string;
  server: string;
  tool: string | null;
  state: string;
  mode: string;
  route: string;
  reason: string;
  request: Record<string, unknown>;
  command: string;
}

/** The ticket of a call that exits 75 (INPUT_REQUIRED), from its --json problem document. */
function ticketOf(run: { code: number; stdout: string; stderr: string }): string {
  assert.equal(run.code, 75, run.stderr + run.stdout);
  const doc = JSON.parse(run.stdout || run.stderr);
  const problem = doc.error ?? doc;
  assert.equal(problem.code, "INPUT_REQUIRED", run.stdout);
  assert.match(problem.data.ticket, /^elc-[0-9a-f]{12}$/);
  return problem.data.ticket;
}

async function remote(box: Sandbox, url: string, protocol = "legacy"): Promise<void> {
  await box.write("work/.mcpx.json", {
    mcpServers: { ask: { url, mcpx: { callTimeout: "60s", protocol } } },
    elicit: { wait: "300ms" },
  });
}

Deno.test("questions over HTTP: a form elicitation reaches `elicit list` and `elicit answer` completes the call", async () => {
  await cacheModern();
  await using server = await startAskingHttp();
  await using box = await Sandbox.create();
  await remote(box, server.url);

  const ticket = ticketOf(await box.mcpx(["--json", "call", "ask.pick_repo"]));
  const listed = await box.json<{ questions: Question[] }>(["elicit", "list"]);
  assert.deepEqual(
    listed.questions.map((q) => [q.id, q.server, q.tool, q.state, q.mode, q.route]),
    [[ticket, "ask", "pick_repo", "pending", "form", "agent"]],
  );

  // An answer failing the schema is refused and the question stays pending.
  const bad = await box.mcpx(["elicit", "answer", ticket, "repo=a/b", "branch=trunk"]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /"branch" must be one of "main", "dev"/);
  assert.equal((await box.json<Question>(["elicit", "show", ticket])).state, "pending");

  // The answer reaches the server over its HTTP session (the default branch filled in), and the
  // call's result is printed.
  const answer = await box.mcpx(["elicit", "answer", ticket, "repo=me/thing"]);
  assert.equal(answer.code, 0, answer.stderr);
  assert.match(answer.stdout, /accept \{"repo":"me\/thing","branch":"main"\}/);
  const shown = await box.json<Question>(["elicit", "show", ticket]);
  assert.equal(shown.state, "answered");
  const again = await box.mcpx(["elicit", "answer", ticket, "repo=me/other"]);
  assert.equal(again.code, 5, again.stderr);
  await box.mcpx(["stop"]);
});

Deno.test("questions over HTTP: a URL-mode elicitation hands the person the sign-in URL; answering completes the call", async () => {
  await cacheModern();
  await using server = await startAskingHttp();
  await using box = await Sandbox.create();
  await remote(box, server.url);

  const call = await box.mcpx(["call", "ask.sign_in"]);
  assert.equal(call.code, 75, call.stderr);
  const ticket = /question "(elc-[0-9a-f]{12})"/.exec(call.stderr)?.[1];
  assert.ok(ticket, call.stderr);
  assert.match(call.stderr, /Sign in to the fixture/);

  const q = await box.json<Question>(["elicit", "show", ticket!]);
  assert.equal(q.mode, "url");
  assert.equal(q.route, "person");
  assert.match(q.reason, /URL-mode flow/);
  assert.equal(q.request.url, "https://sign-in.example/authorize?session=fixture");
  const text = await box.mcpx(["elicit", "show", ticket!]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /https:\/\/sign-in\.example\/authorize\?session=fixture/);
  assert.match(text.stdout, /once the URL's flow is done/);

  // Once the person has been through the flow, answering with no words accepts.
  const answer = await box.mcpx(["elicit", "answer", ticket!]);
  assert.equal(answer.code, 0, answer.stderr);
  assert.match(answer.stdout, /signed in: accept/);
  await box.mcpx(["stop"]);
});

Deno.test("questions over HTTP, 2026-07-28: an input_required elicitation is answered and the call resent with its requestState", async () => {
  await cacheModern();
  await using server = await startAskingHttp("modern");
  await using box = await Sandbox.create();
  await remote(box, server.url, "force-modern");

  const ticket = ticketOf(await box.mcpx(["--json", "call", "ask.pick_repo"]));
  const q = await box.json<Question>(["elicit", "show", ticket]);
  assert.deepEqual([q.server, q.tool, q.state, q.mode], ["ask", "pick_repo", "pending", "form"]);
  assert.match(JSON.stringify(q.request), /Which repository\?/);

  // The answer goes back as inputResponses with the signed requestState exactly as received (the
  // server refuses a forged one), and the call's result is printed.
  const answer = await box.mcpx(["elicit", "answer", ticket, "repo=me/modern", "branch=dev"]);
  assert.equal(answer.code, 0, answer.stderr);
  assert.match(answer.stdout, /picked \{"repo":"me\/modern","branch":"dev"\}/);
  assert.doesNotMatch(answer.stdout, /forged/);
  await box.mcpx(["stop"]);
});
