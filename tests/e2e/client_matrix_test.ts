// The client half of MCP as a matrix (issue 17's "Must show"): the SDK's own server package
// (tests/fixtures/servers/asking.ts) as the asking server, over {stdio, Streamable HTTP} ×
// {2025-11-25, 2026-07-28}, through a real daemon. Each cell is one Deno.test with one sandbox,
// daemon and server process; each behaviour is a step of it, so a failure names its cell and
// behaviour. In the 2025 era the server asks by sending requests of its own (the SDK's legacy
// shim turns its `inputRequired(...)` into real elicitation/sampling/roots requests); in the
// 2026-07-28 era it answers `input_required` and mcpx resends with `inputResponses`. Every cell is
// served by the SDK (serveStdio on stdio, createMcpHandler on HTTP 2026-07-28). Tasks are not here:
// the SDK's 2.x server package serves none (tests/e2e/tasks_test.ts covers them; docs/client.md).

import assert from "node:assert/strict";
import { join } from "node:path";
import { askingServer, startAskingHttp } from "../fixtures/servers.ts";
import { cacheModern } from "../../lib/mcp/_testing.ts";
import { daemonLog, Sandbox, until } from "../_helpers.ts";

const REPO = new URL("../../", import.meta.url).pathname;

type Transport = "stdio" | "http";
type Era = "2025-11-25" | "2026-07-28";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface Question {
  id: string;
  state: string;
  kind: string;
  mode: string;
  route: string;
  request: Record<string, unknown>;
}

/** The ticket a call that exits 75 prints, from its --json problem document. */
function ticketOf(run: Run): string {
  assert.equal(run.code, 75, run.stderr + run.stdout);
  const doc = JSON.parse(run.stdout || run.stderr);
  const problem = doc.error ?? doc;
  assert.equal(problem.code, "INPUT_REQUIRED", run.stdout);
  assert.match(problem.data.ticket, /^elc-[0-9a-f]{12}$/);
  return problem.data.ticket;
}

/** The text of a `call --json` envelope's first content item. */
function firstText(envelope: { content?: { text?: string }[] }): string {
  return envelope.content?.[0]?.text ?? "";
}

const SCRIPT = `export default async () => {
  const seen: string[] = [];
  const counted = String(await ask.count({ n: 2 }, {
    onProgress: (p) => seen.push(\`\${p.progress}/\${p.total} \${p.message}\`),
  }));
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 1000);
  let code = "";
  try {
    await ask.wait({}, { signal: controller.signal });
  } catch (e) {
    code = (e as { code?: string }).code ?? String(e);
  }
  let heard = { cancelled: [] as unknown[] };
  for (let i = 0; i < 100 && heard.cancelled.length === 0; i++) {
    heard = (await ask.heard()) as unknown as { cancelled: unknown[] };
    if (heard.cancelled.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  return { counted, seen, code, cancelled: heard.cancelled.length };
};
`;

const CELLS: [Transport, Era][] = [
  ["stdio", "2025-11-25"],
  ["stdio", "2026-07-28"],
  ["http", "2025-11-25"],
  ["http", "2026-07-28"],
];

for (const [transport, era] of CELLS) {
  Deno.test(`client matrix: ${transport}, ${era}`, async (t) => {
    await cacheModern();
    const modern = era === "2026-07-28";
    await using stack = new AsyncDisposableStack();
    const server = transport === "http"
      ? stack.use(await startAskingHttp(modern ? "modern" : "legacy"))
      : undefined;
    const box = stack.use(await Sandbox.create());
    await Deno.mkdir(join(box.root, "work", "data"));
    const mcpx = {
      callTimeout: "60s",
      protocol: modern ? "force-modern" : "legacy",
      roots: ["./data"],
    };
    await box.write("work/.mcpx.json", {
      mcpServers: {
        ask: server ? { url: server.url, mcpx } : { ...askingServer(), mcpx },
      },
      elicit: { wait: "300ms" },
    });
    await box.write("work/matrix.ts", SCRIPT);
    const heard = async () =>
      JSON.parse(firstText(await box.json(["call", "ask.heard"]))) as {
        cancelled: unknown[];
        levels: string[];
      };
    // Starts the daemon and the server (the call that starts the daemon has no progress to show).
    await heard();

    await t.step("form elicitation answered with `mcpx elicit answer`", async () => {
      const ticket = ticketOf(await box.mcpx(["--json", "call", "ask.pick_repo"]));
      const q = await box.json<Question>(["elicit", "show", ticket]);
      assert.deepEqual([q.kind, q.mode, q.state], ["elicit", "form", "pending"]);
      const answer = await box.mcpx(["elicit", "answer", ticket, "repo=me/matrix"]);
      assert.equal(answer.code, 0, answer.stderr + answer.stdout);
      // 2025: the pushed elicitation's result; 2026: the resent call with inputResponses.
      assert.equal(
        answer.stdout,
        modern
          ? 'picked {"repo":"me/matrix","branch":"main"}\n'
          : 'accept {"repo":"me/matrix","branch":"main"}\n',
      );
    });

    await t.step("URL-mode elicitation goes to a person with its URL", async () => {
      const ticket = ticketOf(await box.mcpx(["--json", "call", "ask.url_sign_in"]));
      const q = await box.json<Question>(["elicit", "show", ticket]);
      assert.deepEqual([q.mode, q.route], ["url", "person"]);
      assert.equal(q.request.url, "https://sign-in.example/authorize?session=matrix");
      const answer = await box.mcpx(["elicit", "answer", ticket]);
      assert.equal(answer.code, 0, answer.stderr + answer.stdout);
      assert.equal(answer.stdout, "signed in: accept\n");
    });

    await t.step("sampling answered; declined is an error", async () => {
      const ticket = ticketOf(await box.mcpx(["--json", "call", "ask.sample", "text=hello"]));
      assert.equal((await box.json<Question>(["elicit", "show", ticket])).kind, "sample");
      const answer = await box.mcpx(["elicit", "answer", ticket, "text=short"]);
      assert.equal(answer.code, 0, answer.stderr + answer.stdout);
      assert.equal(answer.stdout, "assistant/mcpx-answer: short\n");

      const again = ticketOf(await box.mcpx(["--json", "call", "ask.sample", "text=again"]));
      const declined = await box.mcpx(["elicit", "decline", again]);
      assert.equal(declined.code, 8, declined.stdout + declined.stderr);
      assert.match(declined.stdout, /the call failed: .*declined/);
    });

    await t.step("roots/list answered from the configuration's roots", async () => {
      const roots = await box.json<{ content?: { text?: string }[] }>(["call", "ask.roots"]);
      assert.deepEqual(JSON.parse(firstText(roots)), [{
        uri: `file://${join(box.root, "work", "data")}`,
        name: "data",
      }]);
    });

    await t.step("progress reaches `mcpx call` (records on stderr) and onProgress", async () => {
      const counted = await box.mcpx(["call", "ask.count", "n=3"]);
      assert.equal(counted.code, 0, counted.stderr);
      assert.equal(counted.stdout.trim(), "counted 3");
      assert.deepEqual(counted.stderr.trim().split("\n"), [
        "progress: [#######             ] 1/3 step 1",
        "progress: [#############       ] 2/3 step 2",
        "progress: [####################] 3/3 step 3",
      ]);
    });

    await t.step(
      "a script's onProgress hears progress; its AbortSignal cancels upstream",
      async () => {
        const ran = await box.mcpx(["--json", "run", "matrix.ts"]);
        assert.equal(ran.code, 0, ran.stdout + ran.stderr);
        const out = JSON.parse(ran.stdout) as Record<string, unknown>;
        assert.deepEqual(out.result ?? out, {
          counted: "counted 2",
          seen: ["1/2 step 1", "2/2 step 2"],
          code: "CANCELLED",
          cancelled: 1,
        });
      },
    );

    await t.step(
      "a server log message lands in the daemon log at the configured level",
      async () => {
        await box.json(["call", "ask.say", "line=matrix says hello"]);
        assert.ok(
          await until(async () =>
            (await daemonLog(box)).some((r) =>
              r.event === "server.log" && r.server === "ask" &&
              String(r.msg ?? r.message).includes("matrix says hello")
            )
          ),
          "the server's notifications/message is in the daemon log under its name",
        );
        // 2025: logging/setLevel at servers.logLevel; 2026: the level in the request's envelope.
        assert.ok((await heard()).levels.includes("info"), JSON.stringify(await heard()));
      },
    );

    await t.step("tools/list_changed refreshes the schema cache", async () => {
      const tools = async () =>
        Number(/^ask\s+(\d+)\s/m.exec((await box.mcpx(["ls"])).stdout)?.[1]);
      const before = await tools();
      assert.notEqual((await box.mcpx(["types", "ask.added"])).code, 0);
      await box.json(["call", "ask.grow"]);
      assert.ok(
        await until(async () => (await box.mcpx(["types", "ask.added"])).code === 0, 10_000),
        "the tool added after start is in the schema cache without `refresh`",
      );
      assert.equal(await tools(), before + 1);
    });

    await t.step("Ctrl-C of `mcpx call` reaches the server as a cancellation", async () => {
      const before = (await heard()).cancelled.length;
      const waiting = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--config", `${REPO}/deno.json`, box.entry, "call", "ask.wait"],
        cwd: join(box.root, "work"),
        env: box.env,
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      // Interrupted once the call holds its server's lease (it is in flight).
      assert.ok(
        await until(async () => JSON.stringify(await box.json(["status"])).includes('"leases":1')),
      );
      waiting.kill("SIGINT");
      await waiting.status;
      assert.ok(
        await until(async () => (await heard()).cancelled.length === before + 1, 10_000),
        "the server heard notifications/cancelled",
      );
    });

    assert.equal((await box.mcpx(["stop"])).code, 0);
  });
}
