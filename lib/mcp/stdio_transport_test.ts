import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { McpxError } from "../errors.ts";
import {
  describeEnd,
  idFromTail,
  oversizedData,
  scanHead,
  StdioTransport,
} from "./stdio_transport.ts";
import { waitAtMost } from "./_wait.ts";
import { openPipes, startOf } from "../_proc.ts";
import { eventually, groupMembers, processGroupOf } from "./_testing.ts";

Deno.test("StdioTransport makes the child lead its own process group and kills the whole group", async () => {
  // A shell with two children of its own: all three share the shell's group.
  const transport = new StdioTransport({
    name: "tree",
    command: "sh",
    args: ["-c", "sleep 30 & sleep 30 & wait"],
  });
  await transport.start();
  const pid = transport.pid!;
  assert.equal(processGroupOf(pid), pid);
  assert.ok(await eventually(() => groupMembers(pid).length === 3), "three processes in the group");
  await transport.close();
  assert.deepEqual(groupMembers(pid), []);
  assert.deepEqual(await transport.exited, { code: null, signal: "SIGTERM", closed: true });
});

Deno.test("StdioTransport.close() escalates to SIGKILL when SIGTERM is ignored", async () => {
  const transport = new StdioTransport({
    name: "stubborn",
    command: "sh",
    args: ["-c", `trap "" TERM; sleep 30 & wait; sleep 30`],
    killGraceMs: 100,
  });
  await transport.start();
  const pid = transport.pid!;
  await eventually(() => groupMembers(pid).length === 2);
  const started = performance.now();
  await transport.close();
  assert.ok(performance.now() - started < 2000);
  assert.deepEqual(groupMembers(pid), []);
  assert.equal((await transport.exited).signal, "SIGKILL");
});

Deno.test("StdioTransport frames newline-delimited JSON-RPC both ways", async () => {
  // cat answers every message with itself.
  const transport = new StdioTransport({ name: "cat", command: "cat" });
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error.message);
  await transport.start();
  const ping: JSONRPCMessage = { jsonrpc: "2.0", id: 1, method: "ping" };
  await transport.send(ping);
  await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.ok(await eventually(() => received.length === 2));
  assert.deepEqual(received[0], ping);
  assert.deepEqual(errors, []);
  await transport.close();
});

Deno.test("StdioTransport reads messages whole across reads into its one reused buffer", async () => {
  // Lines from a few bytes to several reads long, each of its own letter, back to back: a part
  // of a line held from one read to the next must not be overwritten by the next read.
  const transport = new StdioTransport({ name: "cat", command: "cat" });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  const errors: string[] = [];
  transport.onerror = (error) => errors.push(error.message.slice(0, 80));
  await transport.start();
  let writing: Promise<unknown> | undefined;
  try {
    const sent: JSONRPCMessage[] = Array.from({ length: 24 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "echo",
      params: { text: String.fromCharCode(97 + i).repeat((i * 37_813) % 210_000) },
    }));
    // Not awaited first: cat blocks on its stdout, and so do these writes, if reading stopped.
    writing = Promise.all(sent.map((m) => transport.send(m)));
    await eventually(() => received.length + errors.length >= sent.length, 10_000);
    assert.deepEqual(errors, []);
    assert.deepEqual(received, sent);
    await writing;
  } finally {
    await transport.close();
    await writing?.catch(() => {});
  }
});

Deno.test("StdioTransport reports a stdout line that is not JSON-RPC and keeps going", async () => {
  const transport = new StdioTransport({
    name: "noisy",
    command: "sh",
    args: [
      "-c",
      `echo "starting up"; echo '{"jsonrpc":"2.0","method":"notifications/x"}'; sleep 30`,
    ],
  });
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error.message);
  await transport.start();
  assert.ok(await eventually(() => received.length === 1));
  assert.deepEqual(errors, [`Server "noisy" wrote a line that is not JSON-RPC: starting up`]);
  await transport.close();
});

Deno.test("StdioTransport gives the child the daemon's environment plus its own, in its cwd", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const transport = new StdioTransport({
    name: "env",
    command: "sh",
    args: ["-c", `echo "$MCPX_TEST_VALUE|$PWD|\${PATH:+path}" >&2`],
    env: { MCPX_TEST_VALUE: "from spec" },
    cwd: dir,
  });
  await transport.start();
  assert.deepEqual(await transport.exited, { code: 0, signal: null, closed: false });
  assert.deepEqual(transport.stderrTail(), [`from spec|${dir}|path`]);
  await transport.close();
  await Deno.remove(dir);
});

Deno.test("StdioTransport says which command was not found", async () => {
  const transport = new StdioTransport({ name: "x", command: "mcpx-no-such-command" });
  await assert.rejects(transport.start(), (error: unknown) => {
    assert.ok(error instanceof McpxError);
    assert.equal(error.code, "SERVER_START_FAILED");
    assert.equal(
      error.message,
      `Cannot start server "x": command "mcpx-no-such-command" was not found`,
    );
    return true;
  });
  await transport.close();
});

Deno.test("StdioTransport says when the working directory is missing", async () => {
  const transport = new StdioTransport({ name: "x", command: "sh", cwd: "/no/such/dir" });
  await assert.rejects(
    transport.start(),
    {
      code: "SERVER_START_FAILED",
      message: `Cannot start server "x": working directory "/no/such/dir" does not exist`,
    },
  );
  await transport.close();
});

Deno.test("StdioTransport keeps a bounded stderr tail while the child floods stderr", async () => {
  // 4 MB without a newline, then 200 000 short lines, then a marker.
  const script = `head -c 4000000 /dev/zero | tr '\\0' x >&2; echo >&2; ` +
    `yes flood | head -n 200000 >&2; echo last >&2`;
  const transport = new StdioTransport({ name: "flood", command: "sh", args: ["-c", script] });
  await transport.start();
  assert.equal((await transport.exited).code, 0);
  const tail = transport.stderrTail();
  assert.equal(tail.length, 50);
  assert.equal(tail.at(-1), "last");
  assert.ok(tail.every((line) => line.length <= 2049));
  await transport.close();
});

Deno.test("StdioTransport keeps only the first 2 KB of an endless stderr line", async () => {
  const transport = new StdioTransport({
    name: "flood",
    command: "sh",
    args: ["-c", "head -c 3000000 /dev/zero | tr '\\0' y >&2"],
  });
  await transport.start();
  await transport.exited;
  assert.deepEqual(transport.stderrTail(), ["y".repeat(2048) + "…"]);
  await transport.close();
});

/** A child that writes `lines` to stdout (whole, in order), then waits. */
function writer(name: string, lines: string[], maxMessageBytes: number) {
  const code = `const e = new TextEncoder(); for (const l of ${
    JSON.stringify(lines)
  }) { const b = e.encode(l + "\\n"); let o = 0; while (o < b.length) o += Deno.stdout.writeSync(b.subarray(o)); } setTimeout(() => {}, 30000);`;
  return new StdioTransport({
    name,
    command: Deno.execPath(),
    args: ["eval", "--quiet", code],
    maxMessageBytes,
  });
}

Deno.test("StdioTransport answers a reply over the limit with an error for its request, at once", async () => {
  const big = "x".repeat(5000);
  const idLast = `{"jsonrpc":"2.0","result":{"text":"${big}","id":1},"id":"tail-id"}`;
  const transport = writer("big", [
    `{"jsonrpc":"2.0","id":7,"result":{"text":"${big}"}}`,
    idLast,
    `{"jsonrpc":"2.0","id":9,"result":{}}`,
  ], 1000);
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error.message);
  await transport.start();
  assert.ok(await eventually(() => received.length === 3));
  const [first, second, third] = received as {
    id: unknown;
    error?: { message: string; data: unknown };
  }[];
  assert.equal(first.id, 7);
  assert.match(first.error!.message, /longer than the 1000-byte message limit/);
  assert.equal(oversizedData(first.error!.data)?.limit, 1000);
  assert.equal(second.id, "tail-id");
  assert.equal(oversizedData(second.error!.data)?.bytes, idLast.length);
  // What follows the dropped lines arrives as it was.
  assert.deepEqual(third, { jsonrpc: "2.0", id: 9, result: {} });
  // An ordinary object with the same shape is not mistaken for one.
  assert.equal(oversizedData({ ...first.error!.data as object }), undefined);
  assert.deepEqual(errors, []);
  await transport.close();
});

Deno.test("StdioTransport ends the connection, naming the cause, when handling its stdout throws", async () => {
  // cat echoes what is sent; the echo is over the limit, and the handler told of it throws. Were
  // the exception to end reading silently, cat would block on its full stdout pipe, stop reading
  // its stdin, and every later write and awaited answer would wait for ever.
  const transport = new StdioTransport({
    name: "cat",
    command: "cat",
    maxMessageBytes: 64,
    onOversized: () => {
      throw new Error("handler broke");
    },
  });
  const errors: string[] = [];
  let closed = 0;
  transport.onerror = (error) => errors.push(error.message);
  transport.onclose = () => closed++;
  await transport.start();
  try {
    await transport.send({
      jsonrpc: "2.0",
      id: 1,
      method: "echo",
      params: { text: "x".repeat(200) },
    } as JSONRPCMessage);
    // The end comes by itself, with no close() from here.
    assert.ok(await waitAtMost(transport.exited, 10_000), "the transport ended the child");
    const exit = await transport.exited;
    assert.equal(exit.failure, "handling its stdout failed: handler broke");
    assert.equal(
      describeEnd(exit),
      "mcpx closed the connection: handling its stdout failed: handler broke",
    );
    assert.deepEqual(errors, [
      'Server "cat": handling its stdout failed: handler broke; the connection is closed',
    ]);
    assert.equal(closed, 1, "onclose fired, so the requests waiting for an answer are rejected");
    await assert.rejects(
      transport.send({ jsonrpc: "2.0", id: 2, method: "ping" }),
      /Server "cat" is not running/,
    );
  } finally {
    await transport.close();
  }
  assert.deepEqual(groupMembers(transport.pid!), []);
});

Deno.test("StdioTransport drops an over-long request of the server's without answering for it", async () => {
  const big = "y".repeat(3000);
  const request =
    `{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"t":"${big}"}}`;
  const transport = writer("asks", [
    request,
    `{"jsonrpc":"2.0","method":"notifications/x"}`,
  ], 1000);
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error.message);
  await transport.start();
  assert.ok(await eventually(() => received.length === 1));
  assert.deepEqual(received, [{ jsonrpc: "2.0", method: "notifications/x" }]);
  assert.deepEqual(errors, [
    `Server "asks" wrote a message of ${request.length} bytes, over the 1000-byte limit; it was dropped`,
  ]);
  await transport.close();
});

Deno.test("scanHead() and idFromTail() find only a message's own top-level id", () => {
  assert.deepEqual(scanHead('{"jsonrpc":"2.0","id":12,"result":{"id":3,"te'), {
    id: 12,
    method: false,
  });
  assert.deepEqual(scanHead('{"result":{"id":3,"text":"a\\"id\\":4'), { method: false });
  assert.deepEqual(scanHead('{"id":"a\\"b","method":"x","params":{'), {
    id: 'a"b',
    method: true,
  });
  assert.equal(idFromTail('…xx"}},"jsonrpc":"2.0","id":5}'), 5);
  assert.equal(idFromTail('…xx","id":5,"jsonrpc":"2.0"}'), 5);
  assert.equal(idFromTail('…xx","id":5}}'), undefined);
  assert.equal(idFromTail('…xx",{"id":5}]}'), undefined);
});

Deno.test("StdioTransport finds the id of an over-long reply across the chunks it came in", async () => {
  // Written in pieces, a pause between them, so that the pipe delivers them apart.
  const pieces = ['{"jsonrpc":"2.0",', '"id":5,"result":{"text":"', "z".repeat(4000), '"}}\n'];
  const code = `const e = new TextEncoder(); for (const p of ${
    JSON.stringify(pieces)
  }) { Deno.stdout.writeSync(e.encode(p)); await new Promise((r) => setTimeout(r, 50)); } setTimeout(() => {}, 30000);`;
  const transport = new StdioTransport({
    name: "pieces",
    command: Deno.execPath(),
    args: ["eval", "--quiet", code],
    maxMessageBytes: 1000,
  });
  const received: { id?: unknown; error?: { data: unknown } }[] = [];
  transport.onmessage = (message) => received.push(message as never);
  await transport.start();
  assert.ok(await eventually(() => received.length === 1));
  assert.equal(received[0].id, 5);
  assert.ok(oversizedData(received[0].error?.data));
  await transport.close();
});

Deno.test("StdioTransport hands a process on twice: spawned, adopted through /proc, adopted again", async () => {
  // Answers every request with how many it has answered, and a ping with {}: state that must
  // go on across each handoff, and the ping the second detach fences its blocking read with.
  const server = `let n = 0; let buf = "";
for await (const chunk of Deno.stdin.readable) {
  buf += new TextDecoder().decode(chunk);
  let i;
  while ((i = buf.indexOf("\\n")) >= 0) {
    const m = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1);
    const result = m.method === "ping" ? {} : { n: ++n };
    console.log(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }));
  }
}`;
  const ask = async (t: StdioTransport, id: number) => {
    const got = Promise.withResolvers<JSONRPCMessage>();
    t.onmessage = (m) => got.resolve(m);
    await t.send({ jsonrpc: "2.0", id, method: "count" });
    assert.ok(await waitAtMost(got.promise, 5000), `no answer to ${id}`);
    return (await got.promise) as unknown as { id: number; result: { n: number } };
  };
  const options = { name: "counter", command: Deno.execPath(), args: ["eval", "--quiet", server] };
  const first = new StdioTransport(options);
  await first.start();
  const pid = first.pid!;
  assert.deepEqual((await ask(first, 1)).result, { n: 1 });
  // Spawned by this process: its pipes are streams, and a cancel stops their reads.
  const second = new StdioTransport(options);
  const pipes2 = openPipes(pid);
  const held1 = await first.detach();
  second.adopt(pid, startOf(pid)!, pipes2, held1);
  assert.deepEqual(await ask(second, 2), { jsonrpc: "2.0", id: 2, result: { n: 2 } });
  // Adopted: its reads block, and only the fence's ping ends the one under way.
  const third = new StdioTransport(options);
  const pipes3 = openPipes(pid);
  const held2 = await second.detach();
  third.adopt(pid, startOf(pid)!, pipes3, held2);
  const seen: JSONRPCMessage[] = [];
  assert.deepEqual((await ask(third, 3)).result, { n: 3 });
  third.onmessage = (m) => seen.push(m);
  await third.close();
  assert.deepEqual(seen, [], "the fence's answer reached the successor");
  assert.equal(startOf(pid), undefined);
  await first.close();
  await second.close();
});
