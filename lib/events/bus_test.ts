import assert from "node:assert/strict";
import { EventBus, type Gap, sseFrame, startOf } from "./bus.ts";

Deno.test("a subscriber with no position hears only what comes after it", () => {
  const bus = new EventBus(8);
  bus.publish("a");
  const sub = bus.subscribe();
  assert.deepEqual(sub.take(), []);
  bus.publish("b", { n: 1 });
  assert.deepEqual(sub.take().map((e) => e.type), ["b"]);
});

Deno.test("since=0 replays everything retained, since=N what follows N", () => {
  const bus = new EventBus(8);
  for (let i = 0; i < 5; i++) bus.publish("e", { i });
  assert.deepEqual(bus.subscribe(0).take().map((e) => "id" in e && e.id), [1, 2, 3, 4, 5]);
  assert.deepEqual(bus.subscribe(3).take().map((e) => "id" in e && e.id), [4, 5]);
  assert.deepEqual(bus.subscribe(5).take(), []);
});

Deno.test("a reader past the retained history gets a gap event, then the rest, and a count", () => {
  const bus = new EventBus(4);
  const sub = bus.subscribe(0);
  for (let i = 0; i < 10; i++) bus.publish("e", { i });
  const got = sub.take();
  const gap = got[0] as Gap;
  assert.equal(gap.type, "gap");
  assert.deepEqual([gap.after, gap.upTo, gap.missed, gap.missedTotal], [0, 6, 6, 6]);
  assert.deepEqual(got.slice(1).map((e) => "id" in e && e.id), [7, 8, 9, 10]);
  assert.equal(sub.missed, 6);
  // Falling behind again adds to the count.
  for (let i = 0; i < 6; i++) bus.publish("e");
  assert.equal((sub.take()[0] as Gap).missedTotal, 8);
  // A reconnect from before the ring also gets a gap.
  assert.equal(bus.subscribe(1).take()[0].type, "gap");
});

Deno.test("next() waits for a publish, and ends with [] when the bus closes", async () => {
  const bus = new EventBus(4);
  const sub = bus.subscribe();
  const waiting = sub.next();
  bus.publish("late");
  assert.deepEqual((await waiting).map((e) => e.type), ["late"]);
  const ending = sub.next();
  bus.close();
  assert.deepEqual(await ending, []);
});

Deno.test("the SSE frame carries the sequence number as id; the start reads since and Last-Event-ID", () => {
  const bus = new EventBus(4);
  const e = bus.publish("server.started", { server: "x" });
  const frame = sseFrame(e);
  assert.match(frame, /^id: 1\nevent: server\.started\ndata: \{.*"server":"x".*\}\n\n$/);
  const url = (q: string) => new URL(`http://mcpx/v1/events${q}`);
  assert.equal(startOf(url(""), new Headers()), undefined);
  assert.equal(startOf(url("?since=0"), new Headers()), 0);
  assert.equal(startOf(url(""), new Headers({ "last-event-id": "7" })), 7);
  assert.equal(startOf(url("?since=3"), new Headers({ "last-event-id": "7" })), 3);
  assert.equal(typeof startOf(url("?since=-1"), new Headers()), "string");
});
