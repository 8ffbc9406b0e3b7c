import assert from "node:assert/strict";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { forRevision, RevisionTransport } from "./revision.ts";

const TOOL = {
  name: "t",
  title: "T",
  description: "d",
  inputSchema: { type: "object" },
  outputSchema: { type: "object" },
  annotations: { readOnlyHint: true },
};

Deno.test("forRevision() leaves out what later revisions added, and nothing else", () => {
  const caps = { tools: {}, completions: {}, logging: {} };
  assert.deepEqual(forRevision("2024-11-05", "initialize", { capabilities: caps }), {
    capabilities: { tools: {}, logging: {} },
  });
  const same = { capabilities: caps };
  assert.equal(forRevision("2025-03-26", "initialize", same), same, "untouched when all is known");

  const listed = (rev: string) =>
    (forRevision(rev, "tools/list", { tools: [TOOL] }).tools as Record<string, unknown>[])[0];
  assert.deepEqual(Object.keys(listed("2024-11-05")), ["name", "description", "inputSchema"]);
  assert.deepEqual(Object.keys(listed("2025-03-26")), [
    "name",
    "description",
    "inputSchema",
    "annotations",
  ]);
  assert.deepEqual(listed("2025-06-18"), TOOL);

  const result = { content: [{ type: "text", text: "{}" }], structuredContent: {} };
  assert.deepEqual(forRevision("2025-03-26", "tools/call", result), { content: result.content });
  assert.equal(forRevision("2025-06-18", "tools/call", result), result);
  assert.deepEqual(
    forRevision("2025-03-26", "prompts/list", { prompts: [{ name: "p", title: "P" }] }),
    { prompts: [{ name: "p" }] },
  );
  assert.equal(forRevision("2026-07-28", "tools/call", result), result, "the modern era as it is");
});

Deno.test("RevisionTransport holds results to the revision the server names", async () => {
  const sent: JSONRPCMessage[] = [];
  const inner: Transport = {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: (m) => {
      sent.push(m);
      return Promise.resolve();
    },
  };
  const t = new RevisionTransport(inner);
  const heard: unknown[] = [];
  t.onmessage = (m) => void heard.push(m);
  inner.onmessage!({ jsonrpc: "2.0", id: 1, method: "tools/list" } as JSONRPCMessage);
  inner.onmessage!({ jsonrpc: "2.0", id: 2, method: "tools/list" } as JSONRPCMessage);
  assert.equal(heard.length, 2, "every message is handed on");
  // Before a revision is named nothing is changed.
  await t.send({ jsonrpc: "2.0", id: 1, result: { tools: [TOOL] } } as JSONRPCMessage);
  t.setProtocolVersion("2024-11-05");
  await t.send({ jsonrpc: "2.0", id: 2, result: { tools: [TOOL] } } as JSONRPCMessage);
  const tools = (m: JSONRPCMessage) =>
    (m as unknown as { result: { tools: object[] } }).result.tools;
  assert.deepEqual(tools(sent[0]), [TOOL]);
  assert.deepEqual(tools(sent[1]), [{
    name: "t",
    description: "d",
    inputSchema: TOOL.inputSchema,
  }]);
});
