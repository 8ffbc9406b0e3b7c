/**
 * What mcpx sends as a client, in every revision it speaks: a real daemon drives revision.ts
 * (tests/fixtures/servers/revision.ts), one server per revision and client (mcpx's own stdio
 * client, and the SDK's under `prefer-modern` and `force-modern`), through `mcpx refresh`,
 * `prompts`, `resources`, `complete`, `call` and `exec`, and a configuration edit of the roots;
 * every frame each server read is then validated strictly against the official schema of the
 * revision negotiated (tests/_mcp_schema.ts), and docs/protocol.md's client table is held to it.
 *
 * What is not valid yet is listed in KNOWN, each with why; the test fails as well when one of them
 * is no longer seen, so that the list says the truth.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { revisionServer } from "../fixtures/servers.ts";
import { Sandbox, until } from "../_helpers.ts";
import { frameProblems, type Revision, REVISIONS } from "../_mcp_schema.ts";
import { checkTable, codeList, showCapabilities } from "../_protocol_doc.ts";

type Json = Record<string, unknown>;

/** Each server of the test: which client speaks to it, and the revision it answers in. */
interface Case {
  name: string;
  client: "own" | "sdk";
  protocol: "legacy" | "prefer-modern" | "force-modern";
  revision: Revision;
}

const LEGACY = REVISIONS.filter((r) => r < "2026-07-28");
const MODERN: Revision = "2026-07-28";
const under = (r: string) => r.replaceAll("-", "_");

const CASES: Case[] = [
  ...LEGACY.map((revision): Case => ({
    name: `own_${under(revision)}`,
    client: "own",
    protocol: "legacy",
    revision,
  })),
  ...LEGACY.map((revision): Case => ({
    name: `sdk_${under(revision)}`,
    client: "sdk",
    protocol: "prefer-modern",
    revision,
  })),
  { name: `sdk_${under(MODERN)}`, client: "sdk", protocol: "force-modern", revision: MODERN },
  { name: `auto_${under(MODERN)}`, client: "sdk", protocol: "prefer-modern", revision: MODERN },
];

/** One frame a server read, with the process that read it. */
interface Read {
  pid: number;
  frame: Json;
}

async function reads(file: string): Promise<Read[]> {
  const text = await Deno.readTextFile(file).catch(() => "");
  return text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

/**
 * The revision each frame a client sent is checked against: an `initialize` against the one it
 * asks for, the `server/discover` probe against 2026-07-28, the rest against the one negotiated.
 */
function revisionOf(c: Case, frame: Json): Revision | string {
  if (frame.method === "initialize") {
    return String((frame.params as Json | undefined)?.protocolVersion);
  }
  if (frame.method === "server/discover") return MODERN;
  return c.revision;
}

/** The method a client's answer answers: revision.ts names its own requests `<method>#<n>`. */
function answered(frame: Json): string | undefined {
  return "method" in frame ? undefined : String(frame.id).split("#")[0];
}

function problemsOf(c: Case, all: Read[]): string[] {
  const out: string[] = [];
  for (const { frame } of all) {
    const rev = revisionOf(c, frame);
    if (!(REVISIONS as readonly string[]).includes(rev)) {
      out.push(`${c.name}: ${frame.method} asks for ${rev}, which has no schema`);
      continue;
    }
    for (const p of frameProblems(rev as Revision, frame, answered(frame), "client")) {
      out.push(`${c.name} ${rev} ${frame.method ?? `answer to ${answered(frame)}`}: ${p}`);
    }
  }
  return out;
}

/**
 * What mcpx sends that its revision's schema refuses, and why it is so. Each entry must be seen.
 */
const KNOWN: { cases: (c: Case) => boolean; problem: RegExp; why: string }[] = [
  {
    cases: (c) => c.client === "sdk" && c.protocol === "prefer-modern",
    problem:
      /^\S+ 2026-07-28 [^:]+: #\/params\/_meta\/io\.modelcontextprotocol~1clientCapabilities\/roots: Property "listChanged" does not match/,
    why:
      "prefer-modern: the SDK's client (2.4) takes one capabilities object for the server/discover probe, the 2025 initialize it falls back to and every 2026-07-28 envelope; roots.listChanged is declared for the 2025 era, and 2026-07-28's roots capability has no member",
  },
  {
    cases: (c) => c.client === "sdk" && c.revision === MODERN,
    problem:
      /^\S+ 2026-07-28 notifications\/cancelled: #\/params\/_meta: Property "io\.modelcontextprotocol\/(protocolVersion|clientInfo|clientCapabilities)" does not match/,
    why:
      "the SDK's client (2.4) stamps its request envelope on every notification, notifications/cancelled included, whose NotificationMetaObject reserves none of those keys",
  },
];

/** Runs `tasks` at most `n` at a time. */
async function pooled<T>(n: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]();
    }
  }));
  return out;
}

/** What one case's client declared and sent, for docs/protocol.md. */
function observed(c: Case, all: Read[]): { version: string; capabilities: string; sent: string[] } {
  const frames = all.map((r) => r.frame);
  const init = frames.find((f) => f.method === "initialize")?.params as Json | undefined;
  const meta = frames.find((f) => f.method === "tools/list")?.params as Json | undefined;
  const envelope = (meta?._meta ?? {}) as Json;
  const modern = c.revision === MODERN;
  const version = modern
    ? String(envelope["io.modelcontextprotocol/protocolVersion"])
    : String(init?.protocolVersion);
  const capabilities = modern
    ? envelope["io.modelcontextprotocol/clientCapabilities"]
    : init?.capabilities;
  const order = [
    "server/discover",
    "initialize",
    "notifications/initialized",
    "logging/setLevel",
    "subscriptions/listen",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
    "notifications/cancelled",
    "notifications/roots/list_changed",
  ];
  const methods = new Set(frames.map((f) => f.method as string | undefined).filter(Boolean));
  const unlisted = [...methods].filter((m) => !order.includes(m!)) as string[];
  const sent = [...order.filter((m) => methods.has(m)), ...unlisted.sort()];
  const answers = new Set(
    frames.filter((f) => !("method" in f)).map((f) =>
      `${"error" in f ? "error to" : "result to"} ${answered(f)}`
    ),
  );
  if (modern && frames.some((f) => (f.params as Json | undefined)?.inputResponses)) {
    answers.add("inputResponses: roots/list");
  }
  return {
    version,
    capabilities: showCapabilities(capabilities),
    sent: [...sent, ...[...answers].sort()],
  };
}

Deno.test("mcpx as a client: every frame it sends is valid for the revision negotiated, in all five", async () => {
  await using box = await Sandbox.create();
  const records = new Map(CASES.map((c) => [c.name, join(box.root, `${c.name}.jsonl`)]));
  const config = (roots?: string[]) => ({
    mcpServers: Object.fromEntries(CASES.map((c) => [c.name, {
      ...revisionServer(c.revision, records.get(c.name)!),
      mcpx: { protocol: c.protocol, callTimeout: "1s", ...(roots ? { roots } : {}) },
    }])),
  });
  await box.write("work/.mcpx.json", config());
  const refresh = await box.mcpx(["refresh"]);
  assert.equal(refresh.code, 0, refresh.stderr);
  const prompts = await box.json<{ prompts: Json[] }>(["prompts"]);
  assert.equal(prompts.prompts.length, CASES.length, JSON.stringify(prompts));
  const resources = await box.json<{ resources: Json[] }>(["resources"]);
  assert.equal(resources.resources.length, CASES.length, JSON.stringify(resources));
  const script = `
    const out = {};
    await Promise.all(${JSON.stringify(CASES.map((c) => c.name))}.map(async (ns) => {
      const t = globalThis[ns];
      const o = out[ns] = {};
      o.echo = String(await t.echo({ text: "hi" }));
      o.ask = JSON.stringify(await t.ask({}));
      o.change = String(await t.change({}));
      try { await t.slow({}); o.slow = "answered"; } catch (e) { o.slow = e.message; }
    }));
    console.log(JSON.stringify(out));
  `;
  const exec = await box.mcpx(["exec", script]);
  assert.equal(exec.code, 0, exec.stderr);
  const results = JSON.parse(exec.stdout) as Record<string, Record<string, string>>;
  for (const c of CASES) {
    const r = results[c.name];
    assert.equal(r.echo, "hi", c.name);
    assert.equal(r.change, "changed", c.name);
    assert.match(r.slow, /did not answer within 1000 ms/, c.name);
    assert.match(r.ask, /file:\/\//, `${c.name}: roots/list was answered: ${r.ask}`);
  }
  // One prompt got, one resource read, one argument completed, and a call from the command line.
  await pooled(
    4,
    CASES.flatMap((c) => [
      ["prompts", `${c.name}.greet`, "who=you"],
      ["resources", `${c.name}/file:///r`],
      ["complete", `${c.name}.greet`, "who=w"],
      ["call", `${c.name}.echo`, "text=again"],
    ]).map((args) => async () => {
      const r = await box.mcpx(args);
      assert.equal(r.code, 0, `mcpx ${args.join(" ")}: ${r.stderr}`);
    }),
  );
  // The roots change: the running processes are told (notifications/roots/list_changed).
  await box.write("work/.mcpx.json", config([box.root]));
  assert.equal((await box.mcpx(["status"])).code, 0);
  for (const c of CASES) {
    const file = records.get(c.name)!;
    assert.ok(
      await until(
        async () => (await reads(file)).some((r) => r.frame.method === "notifications/cancelled"),
        5000,
      ),
      `${c.name}: the timed-out call was cancelled`,
    );
    // 2026-07-28 has no roots/list_changed; every other revision is told.
    if (c.revision === MODERN) continue;
    assert.ok(
      await until(
        async () =>
          (await reads(file)).some((r) => r.frame.method === "notifications/roots/list_changed"),
        5000,
      ),
      `${c.name}: the roots change was told`,
    );
  }

  const found: string[] = [];
  const rows: string[][] = [];
  for (const c of CASES) {
    const all = await reads(records.get(c.name)!);
    found.push(...problemsOf(c, all));
    const o = observed(c, all);
    rows.push([
      c.revision,
      c.client === "own" ? "mcpx's own stdio client" : `the SDK's client (\`${c.protocol}\`)`,
      `\`${o.version}\``,
      o.capabilities,
      codeList(o.sent),
    ]);
  }
  const unknown = found.filter((p) =>
    !KNOWN.some((k) =>
      k.problem.test(p) && CASES.some((c) => p.startsWith(`${c.name} `) && k.cases(c))
    )
  );
  assert.deepEqual(unknown, [], "every frame mcpx sent is valid for its revision");
  for (const k of KNOWN) {
    assert.ok(found.some((p) => k.problem.test(p)), `no longer seen, remove from KNOWN: ${k.why}`);
  }
  checkTable("client", [
    "revision",
    "client",
    "protocolVersion asked",
    "capabilities declared",
    "sent (in this test)",
  ], rows);
});
