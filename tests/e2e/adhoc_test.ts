import assert from "node:assert/strict";
import { freePort, npmServerScript, Sandbox } from "../_helpers.ts";

interface Call {
  content: { type: string; text?: string }[];
  mcpx: { server: string; tool: string; instance: { pid: number | null; key: string } };
}

Deno.test("call --stdio: an ad-hoc server through the daemon, one process for one command line", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: {} });
  // Quoted words stay one argument; the command line is split without a shell.
  const line = `node '${npmServerScript("server-everything")}'`;
  const first = await box.json<Call>(["call", "--stdio", line, "echo", "message=hi; $(true)"]);
  assert.equal(first.content[0].text, "Echo: hi; $(true)");
  assert.equal(first.mcpx.server, "server_everything", "named after the package the runner runs");
  assert.equal(typeof first.mcpx.instance.pid, "number");
  const again = await box.json<Call>([
    "call",
    "--stdio",
    line,
    "--name",
    "ev",
    "echo",
    "message=2",
  ]);
  assert.equal(again.mcpx.server, "ev");
  assert.equal(again.mcpx.instance.pid, first.mcpx.instance.pid, "the same pool serves it again");
  const plain = await box.mcpx(["call", "--stdio", line, "echo", "message=plain"]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout, "Echo: plain\n");

  const bare = await box.mcpx(["call", "echo", "message=x"]);
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /"echo" is not <namespace\.tool>/);
  const open = await box.mcpx(["call", "--stdio", "node 'unclosed", "echo"]);
  assert.notEqual(open.code, 0);
  assert.match(open.stderr, /unclosed '/);
  const both = await box.mcpx(["call", "--stdio", "node", "--url", "http://x/", "echo"]);
  assert.match(both.stderr, /not both/);
  await box.mcpx(["daemon", "stop"]);
});

Deno.test("call --url: an ad-hoc HTTP server", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: {} });
  const port = freePort();
  const server = new Deno.Command("node", {
    args: [npmServerScript("server-everything"), "streamableHttp"],
    env: { PORT: String(port) },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const reader = server.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("listening")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`server-everything exited before listening: ${seen}`);
      seen += value;
    }
    reader.releaseLock();
    void server.stderr.cancel().catch(() => {});
    const url = `http://127.0.0.1:${port}/mcp`;
    const out = await box.json<Call>(["call", "--url", url, "echo", "message=over http"]);
    assert.equal(out.content[0].text, "Echo: over http");
    assert.equal(out.mcpx.server, "host_127_0_0_1");
    assert.equal(out.mcpx.instance.pid, null);
    const bad = await box.mcpx(["call", "--url", "ftp://x", "echo"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /not an http or https URL/);
    await box.mcpx(["daemon", "stop"]);
  } finally {
    server.kill("SIGKILL");
    await server.status;
  }
});
