import assert from "node:assert/strict";
import { join } from "node:path";
import { Broker, MAX_QUESTION_BYTES } from "./broker.ts";
import { McpxError } from "../errors.ts";

async function broker(now: { t: number }, maxPending = 3, dir?: string, config = "/a/.mcpx.json") {
  dir ??= await Deno.makeTempDir({ prefix: "mcpx-questions-" });
  const b = new Broker({
    path: join(dir, "questions.db"),
    config,
    deadlineMs: 1000,
    maxPending,
    now: () => now.t,
  });
  return { b, dir };
}

const form = {
  message: "Which?",
  requestedSchema: {
    type: "object",
    properties: { repo: { type: "string" }, n: { type: "integer", default: 2 } },
    required: ["repo"],
  },
};

Deno.test("Broker: a question is a 0600 row; an answer is checked, defaulted and delivered once", async () => {
  const now = { t: 1_000_000 };
  const { b, dir } = await broker(now);
  try {
    assert.equal((await Deno.stat(join(dir, "questions.db"))).mode! & 0o777, 0o600);
    const conn = {};
    const { watch, done } = b.watch(conn, "srv", "tool");
    const reply = b.ask(conn, "srv", "elicitation/create", form, new AbortController().signal);
    const [q] = b.list("pending");
    assert.equal(q.tool, "tool");
    assert.equal(q.route, "agent");
    assert.deepEqual(watch.tickets, [q.id]);
    assert.throws(() => b.answer(q.id, { words: ["n=2"] }), /needs "repo"/);
    assert.equal(b.show(q.id).state, "pending", "a refused answer stores nothing");
    b.answer(q.id, { words: ["repo=a/b"] });
    assert.deepEqual(await reply, { action: "accept", content: { repo: "a/b", n: 2 } });
    assert.throws(
      () => b.answer(q.id, { words: ["repo=c/d"] }),
      (e) => e instanceof McpxError && e.code === "QUESTION_CLOSED",
    );
    assert.throws(
      () => b.show("elc-nope"),
      (e) => e instanceof McpxError && e.code === "QUESTION_NOT_FOUND",
    );
    done();
  } finally {
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Broker: expiry answers cancel when read; too large and too many are refused unstored", async () => {
  const now = { t: 1_000_000 };
  const { b, dir } = await broker(now, 2);
  try {
    const conn = {};
    const signal = new AbortController().signal;
    const first = b.ask(conn, "srv", "elicitation/create", form, signal);
    now.t += 1001;
    assert.equal(b.list()[0].state, "expired");
    assert.deepEqual(await first, { action: "cancel" });
    const text = "x".repeat(MAX_QUESTION_BYTES);
    const huge = { messages: [{ role: "user", content: { type: "text", text } }] };
    await assert.rejects(
      b.ask(conn, "srv", "sampling/createMessage", huge, signal) as Promise<unknown>,
      /over 1048576 bytes/,
    );
    const a = b.ask(conn, "srv", "elicitation/create", form, signal);
    const s = b.ask(conn, "srv", "sampling/createMessage", { messages: [] }, signal);
    assert.deepEqual(await b.ask(conn, "srv", "elicitation/create", form, signal), {
      action: "cancel",
    });
    assert.equal(b.list().length, 3, "the refused ones were never stored");
    const pending = b.list("pending");
    b.decline(pending.find((q) => q.kind === "sample")!.id);
    await assert.rejects(s as Promise<unknown>, /declined/);
    b.answer(pending.find((q) => q.kind === "elicit")!.id, { json: { repo: "r" } });
    assert.deepEqual(await a, { action: "accept", content: { repo: "r", n: 2 } });
  } finally {
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Broker: with two calls in flight on one connection, a question is neither's", async () => {
  const now = { t: 1_000_000 };
  const { b, dir } = await broker(now);
  try {
    const conn = {};
    const one = b.watch(conn, "srv", "a");
    const two = b.watch(conn, "srv", "b");
    const reply = b.ask(conn, "srv", "elicitation/create", form, new AbortController().signal);
    const [q] = b.list("pending");
    assert.equal(q.tool, null);
    assert.deepEqual([one.watch.tickets, two.watch.tickets], [[], []]);
    two.done();
    b.decline(q.id);
    assert.deepEqual(await reply, { action: "decline" });
    // With one call left, the next question is that call's.
    const next = b.ask(conn, "srv", "elicitation/create", form, new AbortController().signal);
    assert.equal(one.watch.tickets.length, 1);
    b.decline(one.watch.tickets[0]);
    await next;
    one.done();
  } finally {
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Broker: a call's answerer gets its server's requests first, else they are stored", async () => {
  const now = { t: 1_000_000 };
  const { b, dir } = await broker(now);
  try {
    const conn = {};
    const heard: string[] = [];
    const { done } = b.watch(conn, "srv", "tool", (method, params) => {
      heard.push(method);
      // Answers sampling and roots; elicitation is left to the questions.
      if (method === "elicitation/create") return undefined;
      return Promise.resolve(method === "roots/list" ? { roots: [] } : { echo: params.n });
    });
    const signal = new AbortController().signal;
    assert.deepEqual(await b.ask(conn, "srv", "sampling/createMessage", { n: 1 }, signal), {
      echo: 1,
    });
    assert.deepEqual(await b.relay(conn, "roots/list", undefined, signal), { roots: [] });
    assert.equal(b.list("pending").length, 0, "what the answerer took is never stored");
    const reply = b.ask(conn, "srv", "elicitation/create", form, signal);
    const [q] = b.list("pending");
    assert.equal(q.tool, "tool");
    b.decline(q.id);
    assert.deepEqual(await reply, { action: "decline" });
    assert.deepEqual(heard, ["sampling/createMessage", "roots/list", "elicitation/create"]);
    done();
    assert.equal(b.relay(conn, "roots/list", undefined, signal), undefined, "no call, no answerer");
  } finally {
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Broker: with two calls in flight, a parked one's server is waiting: the other asked", async () => {
  const now = { t: 1_000_000 };
  const { b, dir } = await broker(now);
  try {
    const conn = {};
    const held = b.watch(conn, "srv", "held", () => Promise.resolve({ from: "held" }));
    const live = b.watch(conn, "srv", "live", () => Promise.resolve({ from: "live" }));
    const signal = new AbortController().signal;
    assert.equal(b.relay(conn, "roots/list", {}, signal), undefined, "neither, while both ask");
    held.watch.parked = true;
    assert.deepEqual(await b.relay(conn, "roots/list", {}, signal), { from: "live" });
    held.done();
    live.done();
  } finally {
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Broker: two configurations share the file; each lists and answers only its own", async () => {
  const now = { t: 1_000_000 };
  const { b: a, dir } = await broker(now, 3, undefined, "/a/.mcpx.json");
  const { b } = await broker(now, 3, dir, "/b/.mcpx.json");
  try {
    const conn = {};
    const { done } = a.watch(conn, "srv", "tool");
    const reply = a.ask(conn, "srv", "elicitation/create", form, new AbortController().signal);
    const [q] = a.list("pending");
    assert.equal(q.config, "/a/.mcpx.json");
    assert.deepEqual(b.list("pending"), [], "B lists none of A's");
    assert.deepEqual(b.list("pending", { allConfigs: true }).map((x) => [x.id, x.config]), [
      [q.id, "/a/.mcpx.json"],
    ]);
    assert.throws(
      () => b.answer(q.id, { words: ["repo=x/y"] }),
      (e) =>
        e instanceof McpxError && e.code === "QUESTION_ELSEWHERE" &&
        /asked under \/a\/\.mcpx\.json/.test(e.message) && /cd \/a && /.test(e.hint),
    );
    assert.throws(
      () => b.decline(q.id),
      (e) => e instanceof McpxError && e.code === "QUESTION_ELSEWHERE",
    );
    assert.equal(a.show(q.id).state, "pending", "the refusal changed nothing");
    now.t += 5000;
    b.list("pending");
    assert.equal(a.show(q.id).state, "expired", "expired by its own daemon, not by B");
    assert.deepEqual(await reply, { action: "cancel" });
    done();
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Broker: with two calls in flight, one waiting on its own question: the other asked", async () => {
  const now = { t: 1_000_000 };
  const { b, dir } = await broker(now);
  try {
    const conn = {};
    const first = b.watch(conn, "srv", "confirm");
    const waited = b.ask(conn, "srv", "elicitation/create", form, new AbortController().signal);
    assert.equal(first.watch.tickets.length, 1, "alone in flight: its question");
    const relayed: string[] = [];
    const second = b.watch(conn, "srv", "pick", (method) => {
      relayed.push(method);
      return Promise.resolve({ action: "accept", content: { repo: "x/y" } });
    });
    const asked = await b.ask(
      conn,
      "srv",
      "elicitation/create",
      form,
      new AbortController().signal,
    );
    assert.deepEqual(asked, { action: "accept", content: { repo: "x/y" } });
    assert.deepEqual(relayed, ["elicitation/create"], "the second call's answerer was asked");
    assert.equal(first.watch.tickets.length, 1, "nothing added to the waiting call");
    // Once its question is answered, the first call can ask again: two askers, neither's.
    b.answer(first.watch.tickets[0], { words: ["repo=a/b"] });
    await waited;
    b.ask(conn, "srv", "elicitation/create", form, new AbortController().signal).catch(() => {});
    assert.equal(b.list("pending")[0].tool, null);
    first.done();
    second.done();
  } finally {
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
