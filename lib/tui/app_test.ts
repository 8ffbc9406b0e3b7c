import assert from "node:assert/strict";
import { FakeSource, fixture, screen } from "./_testing.ts";
import { VIEWS } from "./app.ts";
import { STATS_KINDS } from "./source.ts";

Deno.test("App: moving the cursor loads the namespace under it, and its first tool's signature", async () => {
  const source = new FakeSource(fixture(), { hold: true });
  const s = screen(source);
  try {
    await s.until(() => source.pending.some((p) => p.method === "namespaces"), "a namespaces call");
    (await source.next("namespaces")).resolve();
    await s.until(() => source.pending.some((p) => p.method === "tools"), "a tools call");
    (await source.next("tools", "everything")).resolve();
    await s.until((f) => f.includes("longRunning"), "everything's tools");
    (await source.next("signature", "everything", "echo")).resolve();
    await s.until((f) => f.includes("echo of everything"), "echo's signature");

    await s.press("j");
    // The next namespace is asked for, and nothing else.
    (await source.next("tools", "quotes")).resolve();
    await s.until((f) => f.includes("quote_of_day"), "quotes' tools");
    assert.ok(!s.frame().includes("longRunning"), s.frame());
    (await source.next("signature", "quotes", "random")).resolve();
    await s.until((f) => f.includes("random of quotes"), "random's signature");
    assert.deepEqual(source.pending, []);
  } finally {
    await s.unmount();
  }
});

Deno.test("App: a late reply for a namespace the cursor has left is dropped", async () => {
  const source = new FakeSource(fixture(), { hold: true });
  const s = screen(source);
  try {
    await s.until(() => source.pending.length > 0, "a call");
    (await source.next("namespaces")).resolve();
    await s.until(() => source.pending.some((p) => p.method === "tools"), "a tools call");
    // The cursor moves on before everything's tools arrive (a server taking 30 s, say)...
    await s.press("j");
    await s.until((f) => f.includes("loading quotes"), "quotes loading");
    const slow = await source.next("tools", "everything");
    (await source.next("tools", "quotes")).resolve();
    await s.until((f) => f.includes("quote_of_day"), "quotes' tools");
    // ...and when they do, they are not shown.
    slow.resolve();
    await s.press("");
    assert.ok(s.frame().includes("quote_of_day"), s.frame());
    assert.ok(!s.frame().includes("longRunning"), s.frame());
    // The same for a signature: the cursor left `random` before it came.
    await s.press("l");
    await s.press("j");
    const lateSig = await source.next("signature", "quotes", "random");
    (await source.next("signature", "quotes", "quote_of_day")).resolve();
    await s.until((f) => f.includes("quote_of_day of quotes"), "quote_of_day's signature");
    lateSig.resolve();
    await s.press("");
    assert.ok(!s.frame().includes("random of quotes"), s.frame());
  } finally {
    await s.unmount();
  }
});

Deno.test("App: a source that does not answer blocks nothing; other panes and views still work", async () => {
  const source = new FakeSource(fixture(), { hold: true });
  const s = screen(source);
  try {
    await s.until(() => source.pending.length > 0, "a call");
    (await source.next("namespaces")).resolve();
    await s.until((f) => f.includes("loading everything"), "everything loading");
    // everything's tools never come while this test runs; the cursor goes on regardless.
    const never = await source.next("tools", "everything");
    await s.press("j");
    await s.press("j");
    (await source.next("tools", "memory")).resolve();
    await s.until((f) => f.includes("read_graph"), "memory's tools");
    await s.press("]");
    (await source.next("log", 500)).resolve();
    await s.until((f) => f.includes("daemon.start"), "the log");
    never.resolve();
    // Whatever else was asked meanwhile (the signature, the log's next poll) is answered now.
    for (const p of source.pending.splice(0)) p.resolve();
  } finally {
    await s.unmount();
  }
});

Deno.test("App: the log follows, asking again only once the last look has answered", async () => {
  const source = new FakeSource(fixture(), { hold: true });
  const s = screen(source, { initial: "log" });
  try {
    const first = await source.next("log", 500);
    // Three polling periods pass with the first look unanswered: no second one is asked.
    await new Promise((r) => setTimeout(r, 3200));
    assert.equal(source.pending.filter((p) => p.method === "log").length, 0);
    first.resolve();
    await s.until((f) => f.includes("daemon.start"), "the log");
    // Answered, it looks again, and a record added meanwhile shows up.
    source.data.log = {
      ...source.data.log,
      rows: [...source.data.log.rows, { ts: "t3", level: "info", event: "late.one", msg: "new" }],
    };
    (await source.next("log", 500)).resolve();
    await s.until((f) => f.includes("late.one"), "the new record");
    for (const p of source.pending.splice(0)) p.resolve();
  } finally {
    await s.unmount();
  }
});

Deno.test("App: while the filter is open keys go to it, so a namespace with a q does not quit", async () => {
  const s = screen(new FakeSource());
  try {
    await s.until((f) => f.includes("echo of everything"), "the first signature");
    await s.press("/");
    await s.press("q");
    await s.until((f) => f.includes("namespaces 1 /q"), "the filtered list");
    assert.ok(s.frame().includes("quotes"), s.frame());
    assert.ok(!s.frame().includes("memory"), s.frame());
    // `]`, `r` and `j` are text too while it is open.
    await s.press("]");
    assert.ok(s.frame().includes("[tools]"), s.frame());
    await s.until((f) => f.includes("/q]"), "the filter's text");
    await s.press("\x7f");
    await s.press("\r"); // Enter closes the filter and keeps it
    await s.until((f) => f.includes("namespaces 1 /q"), "the kept filter");
    await s.until((f) => f.includes("random of quotes"), "the filtered namespace's signature");
    await s.press("q");
    await s.exited();
  } finally {
    await s.unmount();
  }
});

Deno.test("App: every view renders from the fixture; ] and [ walk them; d cycles the stats", async () => {
  const data = fixture();
  const s = screen(new FakeSource(data));
  try {
    await s.until((f) => f.includes("[tools]") && f.includes("echo of everything"), "tools");
    const expect: Record<string, string> = {
      log: "daemon.start",
      stats: "echo",
      servers: "4242",
      sessions: "ses-abc",
      storage: "2.0 KiB",
    };
    for (const view of VIEWS.slice(1)) {
      await s.press("]");
      await s.until((f) => f.includes(`[${view}]`) && f.includes(expect[view]), view);
    }
    await s.press("]");
    await s.until((f) => f.includes("[tools]"), "tools again, after storage");
    await s.press("[");
    await s.until((f) => f.includes("[storage]"), "storage, before tools");
    await s.press("[[[");
    await s.until((f) => f.includes("[stats]"), "three views back in one read");
    const shown: Record<string, string> = {
      calls: "echo",
      servers: "everything",
      errors: "boom {x}",
      sessions: "run-1",
      slowest: "cal-9",
      volume: "12 records in 1 file",
    };
    for (const [i, kind] of STATS_KINDS.entries()) {
      await s.until((f) => f.includes(`stats ${kind}`) && f.includes(shown[kind]), kind);
      if (i < STATS_KINDS.length - 1) await s.press("d");
    }
  } finally {
    await s.unmount();
  }
});

Deno.test("App: Enter opens a row in full, a multi-line string indented rather than escaped", async () => {
  const s = screen(new FakeSource(), { initial: "log" });
  try {
    await s.until((f) => f.includes("call.end"), "the log");
    // The newest record is last and the cursor is on it.
    await s.press("\r");
    const frame = await s.until((f) => f.includes("stack:"), "the opened row");
    const lines = frame.split("\n");
    assert.ok(lines.includes("    Error: boom"), frame);
    assert.ok(lines.includes("        at one (a.ts:1)"), frame);
    assert.ok(!frame.includes("\\n"), frame);
    await s.press("\x1b");
    await s.until((f) => f.includes("LEVEL") || f.includes("level"), "the grid again");
  } finally {
    await s.unmount();
  }
});

Deno.test("App: a click opens the row under it", async () => {
  const s = screen(new FakeSource(), { initial: "log" });
  try {
    await s.until((f) => f.includes("daemon.start"), "the log");
    // Row 1 is the header, 2 the title, 3 the columns: the first record is on row 4.
    await s.click(5, 4);
    await s.until((f) => f.includes("msg: started"), "the first record opened");
  } finally {
    await s.unmount();
  }
});

Deno.test("App: a click in the tools view moves the cursor there, which loads that pane", async () => {
  const s = screen(new FakeSource());
  try {
    await s.until((f) => f.includes("echo of everything"), "the first signature");
    // Row 3 is the first namespace: quotes is on row 4.
    await s.click(2, 4);
    await s.until((f) => f.includes("random of quotes"), "quotes' first signature");
    // The second tool of quotes, in the middle pane (namespaces take the first 25 columns).
    await s.click(30, 4);
    await s.until((f) => f.includes("quote_of_day of quotes"), "the clicked tool's signature");
    // A click on the tool under the cursor opens its signature in full.
    await s.click(30, 4);
    await s.until((f) => f.includes("Esc back"), "the signature opened");
  } finally {
    await s.unmount();
  }
});

Deno.test("App: a 2,000-tool namespace and a 1 MB log attribute render", async () => {
  const data = fixture();
  data.tools.everything = Array.from({ length: 2000 }, (_, i) => ({
    name: `tool_${String(i).padStart(4, "0")}`,
    description: "",
  }));
  const big = "x".repeat(1024 * 1024);
  data.log.rows.push({ ts: "t", level: "info", event: "big", msg: "big one", attr: big });
  const s = screen(new FakeSource(data));
  try {
    await s.until((f) => f.includes("tools 2000"), "the 2,000 tools");
    await s.press("l");
    await s.press("G");
    await s.until((f) => f.includes("tool_1999"), "the last tool");
    await s.press("/");
    await s.press("1998");
    await s.until((f) => f.includes("tools 1 /1998"), "the filtered tools");
    await s.press("\r");
    await s.press("]");
    await s.until((f) => f.includes("big one"), "the big record");
    for (const line of s.frame().split("\n")) assert.ok(line.length <= 100, line.slice(0, 120));
    await s.press("G");
    await s.press("\r");
    await s.until((f) => f.includes("attr:") || f.includes("xxxx"), "the big record opened");
    await s.press("G");
    await s.until((f) => /\d+\/\d+/.test(f), "the end of it");
  } finally {
    await s.unmount();
  }
});

Deno.test("App: a 20-column terminal and a resize draw without a line wider than the screen", async () => {
  const s = screen(new FakeSource(), { columns: 20, rows: 8 });
  try {
    await s.until((f) => f.includes("mcpx"), "a frame");
    for (const _ of VIEWS) {
      await s.press("]");
      for (const line of s.frame().split("\n")) assert.ok(line.length <= 20, `"${line}"`);
    }
    await s.press("\r");
    await s.resize(60, 12);
    await s.until((f) => f.split("\n").some((l) => l.length > 20), "the wider frame");
    for (const line of s.frame().split("\n")) assert.ok(line.length <= 60, `"${line}"`);
  } finally {
    await s.unmount();
  }
});

Deno.test("App: Ctrl-C quits, even with the filter open", async () => {
  const s = screen(new FakeSource());
  try {
    await s.until((f) => f.includes("everything"), "a frame");
    await s.press("/");
    await s.press("\x03");
    await s.exited();
  } finally {
    await s.unmount();
  }
});

Deno.test("App: a failing source says why in its pane", async () => {
  const source = new FakeSource(fixture(), { hold: true });
  const s = screen(source);
  try {
    await s.until(() => source.pending.length > 0, "a call");
    (await source.next("namespaces")).reject(new Error("config is broken"));
    await s.until((f) => f.includes("error: config is broken"), "the error");
  } finally {
    await s.unmount();
  }
});
