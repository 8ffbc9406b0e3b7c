/**
 * Tests of our own fixtures (tests/fixtures/): the faulty stdio server, the hanging HTTP server,
 * the pages, and the chrome-devtools-mcp + Chromium setup that browser tests rely on.
 */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CHROME_DEVTOOLS_MCP, chromeServerConfig, CHROMIUM, nodeFits } from "./fixtures/chrome.ts";
import { servePages } from "./fixtures/pages.ts";
import { faultyServer, startHttpHang } from "./fixtures/servers.ts";

// ---- helpers ---------------------------------------------------------------------------------

interface Rpc {
  id?: number | string | null;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  params?: Record<string, unknown>;
}

/** faulty.ts spoken to by hand: JSON lines in, JSON lines out. */
class RawServer {
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stdout: ReadableStreamDefaultReader<string>;
  readonly stderr: Promise<string>;
  #buffer = "";
  #stdinClosed = false;

  constructor(flags: string[] = []) {
    const { command, args } = faultyServer(flags);
    this.#child = new Deno.Command(command, {
      args,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#stdin = this.#child.stdin.getWriter();
    this.#stdout = this.#child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    this.stderr = new Response(this.#child.stderr).text();
  }

  async send(message: Record<string, unknown>): Promise<void> {
    const line = JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n";
    await this.#stdin.write(new TextEncoder().encode(line));
  }

  /** The next message on stdout, or null when stdout ends. */
  async next(): Promise<Rpc | null> {
    while (true) {
      const newline = this.#buffer.indexOf("\n");
      if (newline >= 0) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        return JSON.parse(line);
      }
      const { value, done } = await this.#stdout.read();
      if (done) return null;
      this.#buffer += value;
    }
  }

  /** Skips messages until the answer to request `id`. */
  async answer(id: number): Promise<Rpc> {
    while (true) {
      const message = await this.next();
      if (message === null) throw new Error(`stdout ended before the answer to ${id}`);
      if (message.id === id) return message;
    }
  }

  async initialize(): Promise<Rpc> {
    await this.send({
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "fixtures-test", version: "0" },
      },
    });
    const answer = await this.answer(0);
    await this.send({ method: "notifications/initialized" });
    return answer;
  }

  /** Closes stdin, drains stdout and returns how the process ended. */
  async end(): Promise<{ code: number; stderr: string; rest: Rpc[] }> {
    if (!this.#stdinClosed) {
      this.#stdinClosed = true;
      await this.#stdin.close().catch(() => {});
    }
    const rest: Rpc[] = [];
    for (let m = await this.next(); m !== null; m = await this.next()) rest.push(m);
    const { code } = await this.#child.status;
    return { code, stderr: await this.stderr, rest };
  }
}

function textOf(result: { content?: unknown }): string {
  const content = result.content as { type: string; text?: string }[];
  return content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

async function faultyClient(
  flags: string[] = [],
  options: { cancelLog?: string; onToolsChanged?: (names: string[]) => void } = {},
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const { command, args } = faultyServer(flags, { allowCancelLog: options.cancelLog });
  const transport = new StdioClientTransport({
    command,
    args,
    env: options.cancelLog ? { FIXTURE_CANCEL_LOG: options.cancelLog } : {},
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr!.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const onChanged = options.onToolsChanged;
  const client = new Client({ name: "fixtures-test", version: "0" }, {
    listChanged: onChanged
      ? {
        tools: {
          debounceMs: 0,
          onChanged: (_error, tools) => onChanged((tools ?? []).map((t) => t.name)),
        },
      }
      : undefined,
  });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

// ---- faulty.ts by hand -----------------------------------------------------------------------

Deno.test("faulty.ts answers initialize and echo over stdin, and exits 0 when stdin closes", async () => {
  const server = new RawServer();
  const init = await server.initialize();
  assert.equal(init.result?.protocolVersion, "2025-06-18");
  assert.deepEqual(init.result?.capabilities, { tools: { listChanged: true } });
  await server.send({
    id: 1,
    method: "tools/call",
    params: { name: "echo", arguments: { text: "hello fixture" } },
  });
  const echo = await server.answer(1);
  assert.deepEqual(echo.result, { content: [{ type: "text", text: "hello fixture" }] });
  await server.send({ id: 2, method: "tools/list" });
  const names = ((await server.answer(2)).result?.tools as { name: string }[]).map((t) => t.name);
  assert.deepEqual(names.toSorted(), [
    "crash",
    "echo",
    "fail",
    "fancy-name",
    "get",
    "hang",
    "json_text",
    "pid",
    "set",
    "sleep",
    "structured",
  ]);
  await server.send({ id: 3, method: "tools/call", params: { name: "echo", arguments: {} } });
  assert.equal((await server.answer(3)).error?.code, -32602);
  await server.send({ id: 4, method: "no/such/method" });
  assert.equal((await server.answer(4)).error?.code, -32601);
  // A call still hanging does not keep the process alive once stdin closes.
  await server.send({ id: 5, method: "tools/call", params: { name: "hang", arguments: {} } });
  const end = await server.end();
  assert.equal(end.code, 0);
  assert.deepEqual(end.rest, []);
  assert.equal(end.stderr, "");
});

Deno.test("faulty.ts --exit-at-start exits 3 with its reason on stderr", async () => {
  const { command, args } = faultyServer(["--exit-at-start"]);
  const out = await new Deno.Command(command, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  assert.equal(out.code, 3);
  assert.equal(new TextDecoder().decode(out.stdout), "");
  assert.equal(new TextDecoder().decode(out.stderr), "fixture: refusing to start\n");
});

Deno.test("faulty.ts crash exits 7 mid-call without answering", async () => {
  const server = new RawServer();
  await server.initialize();
  await server.send({ id: 1, method: "tools/call", params: { name: "crash", arguments: {} } });
  assert.equal(await server.next(), null); // stdout ends: no answer
  const end = await server.end();
  assert.equal(end.code, 7);
  assert.equal(end.stderr, "fixture: crashing\n");
});

Deno.test("faulty.ts --flood-stderr writes that much before serving", async () => {
  const server = new RawServer(["--flood-stderr", "1"]);
  const init = await server.initialize(); // stderr is being drained meanwhile
  assert.equal(init.result?.protocolVersion, "2025-06-18");
  const end = await server.end();
  assert.equal(end.code, 0);
  assert.equal(end.stderr.length, 1024 * 1024);
  assert.match(end.stderr, /^fixture: junk x+\n/);
});

// ---- faulty.ts through the SDK v2 client -----------------------------------------------------

Deno.test("faulty.ts through the SDK client: every tool behaves as documented", async () => {
  const { client, transport } = await faultyClient();
  try {
    assert.equal(client.getServerVersion()?.name, "faulty");
    const call = (name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name, arguments: args });
    assert.equal(textOf(await call("echo", { text: "hi" })), "hi");
    assert.equal(textOf(await call("pid")), String(transport.pid));
    assert.equal(textOf(await call("sleep", { ms: 10 })), "slept");
    const failed = await call("fail");
    assert.equal(failed.isError, true);
    assert.equal(textOf(failed), "it failed on purpose");
    const structured = await call("structured");
    assert.deepEqual(structured.structuredContent, { a: 1 });
    assert.deepEqual(JSON.parse(textOf(structured)), { a: 1 });
    assert.deepEqual(JSON.parse(textOf(await call("json_text"))), { b: 2 });
    assert.equal(textOf(await call("fancy-name")), "fancy");
    assert.equal(textOf(await call("get", { key: "k" })), "(unset)");
    assert.equal(textOf(await call("set", { key: "k", value: "v" })), "ok");
    assert.equal(textOf(await call("get", { key: "k" })), "v");
    await client.ping();
  } finally {
    await client.close();
  }
});

Deno.test("faulty.ts: a cancelled hang is logged; --slow-start delays initialize", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mcpx-fixture-" });
  const log = `${dir}/cancel.log`;
  try {
    const started = performance.now();
    const { client } = await faultyClient(["--slow-start", "300"], { cancelLog: log });
    try {
      assert.ok(performance.now() - started >= 300, "initialize was answered too early");
      const abort = new AbortController();
      const hanging = client.callTool({ name: "hang", arguments: {} }, { signal: abort.signal });
      await new Promise((r) => setTimeout(r, 100));
      abort.abort();
      await assert.rejects(hanging);
      // The notification is asynchronous: wait for the line to appear.
      let text = "";
      for (let i = 0; i < 100 && !text; i++) {
        text = await Deno.readTextFile(log).catch(() => "");
        if (!text) await new Promise((r) => setTimeout(r, 20));
      }
      assert.match(text, /^cancelled \d+\n$/);
      assert.equal(
        textOf(await client.callTool({ name: "echo", arguments: { text: "still" } })),
        "still",
      );
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("faulty.ts --list-changed-after adds the tool late", async () => {
  const { promise: changed, resolve } = Promise.withResolvers<string[]>();
  const { client } = await faultyClient(["--list-changed-after", "50"], {
    onToolsChanged: resolve,
  });
  try {
    const names = await changed;
    assert.ok(names.includes("late"), `tools after the change: ${names}`);
    assert.equal(textOf(await client.callTool({ name: "late", arguments: {} })), "late");
  } finally {
    await client.close();
  }
});

Deno.test("faulty.ts crash through the SDK client: the call fails and stderr says why", async () => {
  const { client, transport, stderr } = await faultyClient();
  const closed = new Promise<void>((resolve) => {
    const previous = transport.onclose;
    transport.onclose = () => {
      previous?.();
      resolve();
    };
  });
  try {
    await assert.rejects(client.callTool({ name: "crash", arguments: {} }));
    await closed;
    assert.match(stderr(), /fixture: crashing/);
  } finally {
    await client.close();
  }
});

// ---- http_hang.ts ----------------------------------------------------------------------------

Deno.test("http_hang.ts lists its tool but never answers tools/call", async () => {
  await using server = await startHttpHang();
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  const client = new Client({ name: "fixtures-test", version: "0" });
  await client.connect(transport);
  try {
    assert.ok(transport.sessionId, "no Mcp-Session-Id was given");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["wait"]);
    const started = performance.now();
    await assert.rejects(client.callTool({ name: "wait", arguments: {} }, { timeout: 300 }));
    assert.ok(performance.now() - started >= 300);
  } finally {
    await transport.terminateSession();
    await client.close();
  }
  const gone = await fetch(server.url, { method: "DELETE", headers: { "mcp-session-id": "nope" } });
  await gone.body?.cancel();
  assert.equal(gone.status, 404);
});

// ---- pages.ts --------------------------------------------------------------------------------

Deno.test("pages.ts serves the first, second and session pages", async () => {
  await using pages = await servePages();
  const first = await (await fetch(pages.url)).text();
  assert.match(first, /<title>First page<\/title>/);
  assert.equal(first.match(/<a /g)?.length, 1);
  assert.match(first, /<a href="\/second">Go to the second page<\/a>/);
  const second = await (await fetch(pages.second)).text();
  assert.match(second, /<title>Second page<\/title>/);
  assert.match(second, /Arrived at the second page/);
  const session = await (await fetch(pages.session("agent-7"))).text();
  assert.match(session, /<title>Session agent-7<\/title>/);
  assert.match(session, /<p id="session">agent-7<\/p>/);
  const missing = await fetch(new URL("/nope", pages.url));
  await missing.body?.cancel();
  assert.equal(missing.status, 404);
});

// ---- chrome-devtools-mcp + Chromium ----------------------------------------------------------

interface Proc {
  pid: number;
  ppid: number;
  /** Start time in clock ticks since boot: tells a process from a later one with its pid. */
  start: string;
  /** One letter: R, S, D, … or Z for a zombie (ended, not yet reaped). */
  state: string;
  cmdline: string;
}

/** Every process now visible in /proc. */
function processes(): Map<number, Proc> {
  const all = new Map<number, Proc>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).replaceAll("\0", " ");
      const pid = Number(entry.name);
      // fields[0] is the state (field 3); ppid is field 4, starttime field 22.
      all.set(pid, { pid, ppid: Number(fields[1]), start: fields[19], state: fields[0], cmdline });
    } catch {
      // the process ended while we looked
    }
  }
  return all;
}

/** `root` and every process below it. */
function tree(root: number, all = processes()): Proc[] {
  const found: Proc[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    const proc = all.get(pid);
    if (proc) found.push(proc);
    for (const p of all.values()) if (p.ppid === pid) queue.push(p.pid);
  }
  return found;
}

function pageId(list: string, url: string): number {
  const line = list.split("\n").find((l) => l.includes(`(${url})`));
  assert.ok(line, `no page for ${url} in:\n${list}`);
  return Number(line.match(/^(\d+):/)![1]);
}

const haveChrome = [CHROMIUM, CHROME_DEVTOOLS_MCP].every((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

Deno.test("chrome.ts: nodeFits follows chrome-devtools-mcp's engines range", () => {
  for (const v of ["v20.19.0", "v20.20.2", "v22.12.0", "v23.0.0", "v24.1.0"]) {
    assert.ok(nodeFits(v), v);
  }
  for (const v of ["v18.20.0", "v20.18.3", "v21.7.0", "v22.11.0", "junk"]) {
    assert.ok(!nodeFits(v), v);
  }
});

Deno.test({
  name: "chrome-devtools-mcp drives headless Chromium (SDK v2 client) and leaves no process behind",
  ignore: !haveChrome,
  async fn() {
    await using pages = await servePages();
    const config = chromeServerConfig();
    const transport = new StdioClientTransport({ ...config, stderr: "pipe" });
    let stderr = "";
    transport.stderr!.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
    const client = new Client({ name: "fixtures-test", version: "0" });
    let seen: Proc[] = [];
    let userDataDir = "";
    let left: Proc[] = [];
    // Nothing the test started may survive: neither a process seen below the server (same pid
    // and start time) nor anything still naming the private profile directory. Zombies have
    // ended: orphaned Chromium children are reparented to PID 1, which here (the sandbox's
    // init) reaps them only every second or two.
    const survivors = () =>
      [...processes().values()].filter((p) =>
        p.state !== "Z" && (
          seen.some((s) => s.pid === p.pid && s.start === p.start) ||
          (userDataDir !== "" && p.cmdline.includes(userDataDir))
        )
      );
    const profileExists = () => {
      if (userDataDir === "") return false;
      try {
        Deno.statSync(userDataDir);
        return true;
      } catch {
        return false;
      }
    };
    try {
      await client.connect(transport);
      const serverPid = transport.pid!;
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = await client.callTool({ name, arguments: args });
        assert.ok(!result.isError, `${name} failed: ${textOf(result)}\nstderr:\n${stderr}`);
        return result;
      };

      await call("new_page", { url: pages.url });
      const list = textOf(await call("list_pages", {}));
      const id = pageId(list, pages.url);
      assert.match(list, new RegExp(`^${id}: First page \\(`, "m"));

      const snapshot = textOf(await call("take_snapshot", { pageId: id }));
      const link = snapshot.match(/uid=(\S+) link "Go to the second page"/);
      assert.ok(link, `no link in the snapshot:\n${snapshot}`);
      await call("click", { pageId: id, uid: link[1] });
      const waited = textOf(await call("wait_for", { pageId: id, text: ["Arrived"] }));
      assert.match(waited, /Arrived at the second page/);

      const shot = await call("take_screenshot", { pageId: id });
      const image = (shot.content as { type: string; mimeType?: string; data?: string }[])
        .find((c) => c.type === "image");
      assert.ok(image, "take_screenshot gave no image");
      assert.equal(image.mimeType, "image/png");
      assert.ok(image.data!.startsWith("iVBORw0KGgo"), "not a PNG"); // base64 of the PNG magic

      // The argument shapes chrome.ts records: pageId required, wait_for text is an array.
      const noPage = await client.callTool({ name: "take_snapshot", arguments: {} });
      assert.equal(noPage.isError, true);
      const textString = await client.callTool({
        name: "wait_for",
        arguments: { pageId: id, text: "Arrived" },
      });
      assert.equal(textString.isError, true);

      // Who is running now: the server and the browser it launched.
      seen = tree(serverPid);
      const browsers = seen.filter((p) => p.cmdline.includes("chromium"));
      assert.ok(browsers.length > 0, `no chromium below the server (pid ${serverPid})`);
      const dirFlag = browsers.map((p) => p.cmdline.match(/--user-data-dir=(\S+)/)).find(Boolean);
      assert.ok(dirFlag, "chromium runs without --user-data-dir");
      userDataDir = dirFlag[1];
      // The check below is real: right now it finds the browser.
      assert.ok(
        survivors().some((p) => browsers.some((b) => b.pid === p.pid)),
        "the survivor check does not see the running browser",
      );
      assert.ok(
        browsers.every((p) => p.cmdline.includes("--no-sandbox")),
        "--no-sandbox did not reach chromium",
      );
    } finally {
      // Also on failure: know what ran, close, give it 10 s to go, then kill what is left.
      if (seen.length === 0 && transport.pid) seen = tree(transport.pid);
      await client.close();
      left = survivors();
      for (let waited = 0; (left.length > 0 || profileExists()) && waited < 10_000; waited += 50) {
        await new Promise((r) => setTimeout(r, 50));
        left = survivors();
      }
      for (const p of left.flatMap((l) => tree(l.pid))) {
        try {
          Deno.kill(p.pid, "SIGKILL");
        } catch {
          // gone meanwhile
        }
      }
    }
    assert.deepEqual(
      left.map((p) => `${p.pid} ${p.cmdline.slice(0, 120)}`),
      [],
      "processes left after the client closed",
    );
    assert.ok(!profileExists(), `--isolated left its profile behind: ${userDataDir}`);
  },
});
