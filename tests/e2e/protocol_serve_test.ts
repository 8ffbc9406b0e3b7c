/**
 * What mcpx sends as a server, in every revision it speaks: a client written by hand speaks to a
 * real `mcpx serve --tools all` over stdio (a real daemon and a fixture server behind it) as a
 * client of each revision would, and every frame mcpx wrote is validated strictly against the
 * official schema of that revision (tests/_mcp_schema.ts); docs/protocol.md's server table is held
 * to what it declared. The daemon's `/mcp` is the same server over HTTP (tests/mcp_surface_test.ts
 * runs it in every revision too).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { Sandbox } from "../_helpers.ts";
import { frameProblems, type Revision, REVISIONS } from "../_mcp_schema.ts";
import { checkTable, codeList, showCapabilities } from "../_protocol_doc.ts";

type Json = Record<string, unknown>;

const REPO = new URL("../..", import.meta.url).pathname;
const MODERN: Revision = "2026-07-28";

/** JSON lines to and from one `mcpx serve`, every frame it wrote kept with what it answers. */
class Wire {
  readonly frames: { frame: Json; method?: string }[] = [];
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #methods = new Map<unknown, string>();
  readonly #waiting = new Map<unknown, (frame: Json) => void>();
  readonly #done: Promise<void>;
  #id = 0;

  constructor(box: Sandbox) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--config", `${REPO}deno.json`, box.entry, "serve", "--tools", "all"],
      cwd: join(box.root, "work"),
      env: box.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#done = this.#read();
  }

  async #read() {
    let buffered = "";
    for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        const frame = JSON.parse(buffered.slice(0, nl)) as Json;
        buffered = buffered.slice(nl + 1);
        const method = "method" in frame ? undefined : this.#methods.get(frame.id);
        this.frames.push({ frame, method });
        const waiting = this.#waiting.get("method" in frame ? undefined : frame.id ?? null);
        this.#waiting.delete(frame.id ?? null);
        waiting?.(frame);
      }
    }
  }

  #write(text: string) {
    return this.#writer.write(new TextEncoder().encode(text + "\n"));
  }

  /** Sends a request; resolves to its answer. */
  async request(method: string, params?: Json): Promise<Json> {
    const id = ++this.#id;
    this.#methods.set(id, method);
    const answer = new Promise<Json>((resolve) => this.#waiting.set(id, resolve));
    await this.#write(
      JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }),
    );
    return await answer;
  }

  async notify(method: string, params?: Json): Promise<void> {
    await this.#write(JSON.stringify({ jsonrpc: "2.0", method, ...(params ? { params } : {}) }));
  }

  /** Sends a line that is no message; resolves to the error it is answered with (no id). */
  async garbage(text: string): Promise<Json> {
    const answer = new Promise<Json>((resolve) => this.#waiting.set(null, resolve));
    await this.#write(text);
    return await answer;
  }

  async close(): Promise<void> {
    await this.#writer.close();
    await this.#done;
    await this.#child.status;
  }
}

/** One client of revision `rev`: its exchange with `mcpx serve`; the wire, for its frames. */
async function speak(box: Sandbox, rev: Revision): Promise<Wire> {
  const wire = new Wire(box);
  try {
    const modern = rev === MODERN;
    const meta = {
      "io.modelcontextprotocol/protocolVersion": rev,
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "e2e", version: "1" },
    };
    const ask = (method: string, params: Json = {}) =>
      wire.request(method, modern ? { ...params, _meta: meta } : params);
    const clientInfo = { name: "e2e", version: "1" };
    if (modern) {
      // A 2026-07-28 client that sends initialize is told there is none, with what would work.
      const refused = await wire.request("initialize", {
        protocolVersion: rev,
        capabilities: {},
        clientInfo,
      });
      assert.equal((refused.error as Json).code, -32022);
      const found = await ask("server/discover");
      assert.deepEqual((found.result as Json).supportedVersions, [MODERN]);
    } else {
      const init = await wire.request("initialize", {
        protocolVersion: rev,
        capabilities: { roots: { listChanged: true } },
        clientInfo,
      });
      assert.equal((init.result as Json).protocolVersion, rev, `${rev} is agreed to`);
      await wire.notify("notifications/initialized");
      await ask("ping");
      await ask("logging/setLevel", { level: "info" });
    }
    let cursor: string | undefined;
    do {
      const page = await ask("tools/list", cursor ? { cursor } : {});
      cursor = (page.result as { nextCursor?: string }).nextCursor;
    } while (cursor);
    const call = (name: string, args: Json) => ask("tools/call", { name, arguments: args });
    const echo = await call("mcpx_call", {
      server: "fixture",
      tool: "echo",
      arguments: { text: rev },
    });
    assert.deepEqual((echo.result as Json).content, [{ type: "text", text: rev }]);
    const failed = await call("mcpx_call", { server: "fixture", tool: "fail" });
    assert.equal((failed.result as Json).isError, true);
    await call("mcpx_version", {});
    assert.equal(((await call("mcpx_nope", {})).error as Json).code, -32602);
    await ask("prompts/list");
    await ask("resources/list");
    await ask("resources/templates/list");
    await ask("completion/complete", {
      ref: { type: "ref/resource", uri: "mcpx://{ns}/file:///a" },
      argument: { name: "ns", value: "fi" },
    });
    assert.ok((await ask("no/such/method")).error);
    assert.equal(((await wire.garbage("{not json")).error as Json).code, -32700);
  } finally {
    await wire.close();
  }
  return wire;
}

/**
 * What mcpx serve sends that its revision's schema refuses, and why it is so. Each must be seen.
 */
const KNOWN: { problem: RegExp; why: string }[] = [
  {
    problem:
      /^(2024-11-05|2025-03-26|2025-06-18) -: #: Instance does not have required property "id"\.$/,
    why:
      "a line that is not JSON has no id to answer: JSON-RPC 2.0 says null, which no revision's RequestId allows, and until 2025-11-25 an error must have one; mcpx leaves it out, as 2025-11-25 allows",
  },
];

Deno.test("mcpx serve as a server: every frame it sends is valid for the revision negotiated, in all five", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  assert.equal((await box.mcpx(["start"])).code, 0);
  const wires = await Promise.all(REVISIONS.map((rev) => speak(box, rev)));
  const found: string[] = [];
  const rows: string[][] = [];
  REVISIONS.forEach((rev, i) => {
    const frames = wires[i].frames;
    for (const { frame, method } of frames) {
      for (const p of frameProblems(rev, frame, method)) {
        found.push(`${rev} ${method ?? "-"}: ${p}`);
      }
    }
    const result = (m: string) =>
      frames.filter((f) => f.method === m && "result" in f.frame).map((f) =>
        f.frame.result as Json
      );
    const first = result(rev === MODERN ? "server/discover" : "initialize")[0];
    const keys = (objects: Json[]) => [...new Set(objects.flatMap((o) => Object.keys(o)))].sort();
    rows.push([
      rev,
      rev === MODERN
        ? `\`server/discover\`: ${codeList(first.supportedVersions as string[])}`
        : `\`initialize\`: \`${first.protocolVersion}\``,
      showCapabilities(first.capabilities),
      codeList(keys(result("tools/list").flatMap((r) => r.tools as Json[]))),
      codeList(keys(result("tools/call"))),
      codeList(new Set(frames.filter((f) => "result" in f.frame).map((f) => f.method!))),
    ]);
  });
  assert.deepEqual(
    found.filter((p) => !KNOWN.some((k) => k.problem.test(p))),
    [],
    "every frame mcpx serve sent is valid for its revision",
  );
  for (const k of KNOWN) {
    assert.equal(
      found.filter((p) => k.problem.test(p)).length,
      3,
      `seen for each revision before 2025-11-25, or remove from KNOWN: ${k.why}`,
    );
  }
  checkTable("server", [
    "revision",
    "agreed",
    "capabilities declared",
    "tool members",
    "tools/call result members",
    "answered (in this test)",
  ], rows);
});
