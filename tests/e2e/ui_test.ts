/**
 * The web page (docs/ui.md, "The web page"): a real daemon serving `server-memory` and the markup
 * fixture, `mcpx ui` for the address, and headless Chromium over CDP (tests/_cdp.ts) reading what
 * the page shows in each of its six views: the namespaces, a signature after a click, a log row
 * that appears after a `mcpx call` without a reload, the latency histogram, the processes with
 * their stderr, the storage. Markup in a tool's description and a server's stderr is shown as
 * text. Requests without a page session, with a used code, to a route the page does not read, or
 * from another origin are refused (docs/security.md, "The web page").
 *
 * With MCPX_UI_SCREENSHOTS=<dir> the test also writes a PNG of each view there (docs/ui/ holds
 * the ones docs/ui.md shows: `MCPX_UI_SCREENSHOTS=docs/ui deno test -A tests/e2e/ui_test.ts`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { markupServer } from "../fixtures/servers.ts";
import { MARKUP } from "../fixtures/servers/markup.ts";
import { daemonKey, freePort, npmServer, Sandbox } from "../_helpers.ts";
import { Chromium, type Page } from "../_cdp.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const CONFIG = { mcpServers: { memory: npmServer("server-memory"), markup: markupServer() } };
const SHOTS = Deno.env.get("MCPX_UI_SCREENSHOTS");
const PNG = [0x89, 0x50, 0x4e, 0x47];

interface Ui {
  url: string;
  listen: string;
  expiresInMs: number;
}

async function shot(page: Page, view: string): Promise<void> {
  const png = await page.screenshot();
  assert.deepEqual([...png.slice(0, 4)], PNG, `${view}: a PNG`);
  if (SHOTS) await Deno.writeFile(join(REPO, SHOTS, `${view}.png`), png);
}

/** Opens a view by its button and waits for `ready` (an expression) to hold. */
async function view(page: Page, name: string, ready: string): Promise<void> {
  await page.click(`nav button[data-view="${name}"]`);
  await page.until(`document.body.dataset.view === ${JSON.stringify(name)} && (${ready})`);
}

const text = (selector: string) =>
  `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent)`;

Deno.test("ui: the page shows every view from a real daemon, live, with server text as text", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", CONFIG);
  const refresh = await box.mcpx(["refresh"]);
  assert.equal(refresh.code, 0, refresh.stderr);
  const ui = await box.json<Ui>(["ui"]);
  assert.match(ui.url, /^http:\/\/127\.0\.0\.1:\d+\/ui#code=[0-9a-f]{32}$/);
  await using browser = await Chromium.launch();
  const page = await browser.page();
  await page.goto(ui.url);

  // tools: the namespaces, drawn from /v1/namespaces; the code is gone from the address.
  const namespaces = await page.until<string[]>(
    `document.querySelectorAll("#namespaces li[data-ns]").length >= 2 &&
      [...document.querySelectorAll("#namespaces li[data-ns]")].map((e) => e.dataset.ns)`,
  );
  assert.deepEqual(namespaces.sort(), ["markup", "memory"]);
  assert.equal(await page.eval("location.href"), `http://${ui.listen}/ui`);
  assert.equal(await page.eval("location.hash"), "");
  // Marks the document: a reload would lose it.
  await page.eval("window.__stayed = true");

  // The arrow keys move the cursor, and moving it loads the next pane.
  const order = await page.eval<string[]>(
    `[...document.querySelectorAll("#namespaces li")].map((e) => e.dataset.ns)`,
  );
  const selected = `document.querySelector('#namespaces li[aria-selected="true"]')?.dataset.ns`;
  await page.until(`${selected} === ${JSON.stringify(order[0])}`);
  await page.key("ArrowDown");
  await page.until(`${selected} === ${JSON.stringify(order[1])}`);
  await page.until(`document.querySelector('#tools li[data-tool^="${order[1]}."]')`);
  await page.key("ArrowRight");
  await page.until(
    `document.querySelector('#tools li[aria-selected="true"]') && document.querySelector("#declarations")?.textContent.startsWith("declare namespace ${
      order[1]
    }")`,
  );
  await page.key("ArrowLeft");
  await page.key("ArrowUp");
  await page.until(`${selected} === ${JSON.stringify(order[0])}`);

  // A signature after a click on a tool.
  await page.click('#namespaces li[data-ns="memory"]');
  await page.until(`document.querySelector('#tools li[data-tool="memory.create_entities"]')`);
  await page.click('#tools li[data-tool="memory.create_entities"]');
  const signature = await page.until<string>(
    `document.querySelector("#declarations")?.textContent.includes("function create_entities(") &&
      document.querySelector("#declarations").textContent`,
  );
  assert.match(signature, /declare namespace memory \{/);
  assert.match(signature, /entityType: string;/);
  await shot(page, "tools");

  // Markup in a tool's description is text: shown as it is, and nothing of it ran.
  await page.click('#namespaces li[data-ns="markup"]');
  await page.until(`document.querySelector('#tools li[data-tool="markup.html"]')`);
  assert.deepEqual(await page.eval(text('#tools li[data-tool="markup.html"] .sub')), [MARKUP]);
  await page.click('#tools li[data-tool="markup.html"]');
  await page.until(
    `document.querySelector("#declarations")?.textContent.includes("function html(")`,
  );
  assert.deepEqual(await page.eval(text("#description")), [MARKUP]);
  assert.equal(await page.eval("document.title"), "mcpx");
  assert.equal(await page.eval("document.querySelectorAll('main script, main img').length"), 0);

  // log: newest last; a call made now appears without a reload (the event bus).
  await view(page, "log", `document.querySelectorAll("#log tr.row").length > 0`);
  const before = await page.eval<string[]>(text("#log tr.row td:nth-child(4)"));
  assert.ok(!before.includes("markup.echo"), "no call of markup.echo yet");
  const call = await box.mcpx(["call", "markup.echo", "text=hello"]);
  assert.equal(call.code, 0, call.stderr);
  await page.until(`${text("#log tr.row td:nth-child(4)")}.includes("markup.echo")`);
  const rows = await page.eval<string[]>(text("#log tr.row td:nth-child(4)"));
  assert.equal(rows.at(-1), "markup.echo", "the newest record is the last row");
  assert.equal(await page.eval("window.__stayed"), true, "the page was not reloaded");
  // A row opens in full.
  await page.click("#log tr.row:last-of-type");
  const opened = await page.until<string>(
    `document.querySelector("#log tr.open-row pre")?.textContent`,
  );
  assert.match(opened, /^event: call\.end$/m);
  assert.match(opened, /^tool: echo$/m);
  await shot(page, "log");

  // stats: the calls grid and a histogram per tool, its bars counting the calls.
  for (const t of ["a", "b"]) {
    assert.equal((await box.mcpx(["call", "markup.echo", `text=${t}`])).code, 0);
  }
  await view(page, "stats", `document.querySelector('.histogram[data-tool="markup.echo"]')`);
  await page.until(
    `document.querySelector('.histogram[data-tool="markup.echo"] .count')?.textContent === "3 calls"`,
  );
  const bars = await page.eval<number[]>(
    `[...document.querySelectorAll('.histogram[data-tool="markup.echo"] .bar')].map((b) => Number(b.dataset.n))`,
  );
  assert.equal(bars.length, 14, "13 bucket edges, 14 buckets");
  assert.equal(bars.reduce((a, b) => a + b, 0), 3);
  assert.ok(
    (await page.eval<string[]>(text("#stats-calls tr.row td:nth-child(2)"))).includes("echo"),
  );
  await shot(page, "stats");
  // d cycles the kinds.
  await page.key("d");
  await page.until(
    `document.querySelector('.kinds button[aria-current="true"]').dataset.kind === "servers"`,
  );
  await page.until(`document.querySelector("#stats-servers")`);

  // servers: the processes with their pid, and a server's stderr shown as text.
  await view(page, "servers", `${text("#processes tr.row td:nth-child(1)")}.includes("markup")`);
  const pids = await page.eval<string[]>(text("#processes tr.row td:nth-child(2)"));
  assert.ok(pids.every((p) => /^\d+$/.test(p)), `pids: ${pids}`);
  const stderr = await page.eval<string[]>(text("#processes tr.row td:nth-child(7)"));
  assert.ok(stderr.some((s) => s.includes('<script>document.title="pwned"</script>')), `${stderr}`);
  assert.equal(await page.eval("document.title"), "mcpx");
  await shot(page, "servers");

  await view(
    page,
    "sessions",
    `document.querySelector("#signed-out") === null && document.querySelector("main h3")`,
  );
  assert.match(await page.eval<string>("document.querySelector('main').textContent"), /opencode/);
  await shot(page, "sessions");

  await view(page, "storage", `document.querySelectorAll("#storage tr.row").length > 0`);
  const parts = await page.eval<string[]>(text("#storage tr.row td:nth-child(1)"));
  assert.ok(parts.includes("log (JSONL)"), `${parts}`);
  assert.ok(parts.includes("log index (index.db)"), `${parts}`);
  await shot(page, "storage");
  // ] and [ move between views, wrapping around.
  await page.key("]");
  await page.until(`document.body.dataset.view === "tools"`);
  await page.close();
});

Deno.test("ui: a log record with a 1 MB attribute is a clipped row that opens in full", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { markup: markupServer() } });
  const ui = await box.json<Ui>(["ui"]);
  // A writer's record as the index reads any: one JSON line in a .jsonl file of the logs folder.
  const blob = "line one\n" + "x".repeat(1024 * 1024);
  await box.write(
    "state/mcpx/logs/runs.jsonl",
    JSON.stringify({
      ts: new Date().toISOString(),
      level: "warn",
      event: "test.big",
      msg: "a big attribute",
      blob,
    }) + "\n",
  );
  await using browser = await Chromium.launch();
  const page = await browser.page();
  await page.goto(ui.url);
  await page.until(`document.querySelector("#namespaces li[data-ns]")`);
  await view(page, "log", `${text("#log tr.row td:nth-child(3)")}.includes("test.big")`);
  const cell = await page.eval<string>(
    `[...document.querySelectorAll("#log tr.row")].find((r) => r.children[2].textContent === "test.big").children[4].textContent`,
  );
  assert.ok(cell.length <= 200, `the row is clipped (${cell.length} characters)`);
  await page.eval(
    `[...document.querySelectorAll("#log tr.row")].find((r) => r.children[2].textContent === "test.big").click()`,
  );
  const opened = await page.until<string>(
    `document.querySelector("#log tr.open-row pre")?.textContent`,
  );
  // Multi-line strings are indented, not escaped; all of it is there.
  assert.match(opened, /^blob:\n {4}line one\n {4}x{1048576}$/m);
});

Deno.test("ui: the log's column header stands at the top of the scrolled view, no row above it", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { markup: markupServer() } });
  const ui = await box.json<Ui>(["ui"]);
  // More records than fit, so that the view opens scrolled to the newest.
  const now = Date.now();
  const lines = Array.from({ length: 300 }, (_, i) =>
    JSON.stringify({
      ts: new Date(now - (300 - i) * 1000).toISOString(),
      level: "info",
      event: "test.row",
      msg: `row ${i}`,
    }) + "\n");
  await box.write("state/mcpx/logs/runs.jsonl", lines.join(""));
  await using browser = await Chromium.launch();
  const page = await browser.page();
  await page.goto(ui.url);
  await page.until(`document.querySelector("#namespaces li[data-ns]")`);
  await view(page, "log", `${text("#log tr.row td:nth-child(4)")}.includes("row 299")`);
  const scrolled = await page.until<boolean>(`document.querySelector("main").scrollTop > 0`);
  assert.ok(scrolled, "the log opened scrolled to its newest rows");
  // What shows in the strip between the view's top edge and the header: nothing of a row.
  const gap = await page.eval<{ gap: number; above: string[] }>(`(() => {
    const m = document.querySelector("main"), th = document.querySelector("#log th");
    const top = m.getBoundingClientRect().top + m.clientTop;
    const gap = th.getBoundingClientRect().top - top;
    const above = [];
    for (let y = top; y < top + Math.max(gap, 0); y += 1) {
      const e = document.elementFromPoint(th.getBoundingClientRect().left + 4, y);
      if (e && e.closest("tr.row")) above.push(e.closest("tr.row").textContent);
    }
    return { gap, above };
  })()`);
  assert.deepEqual(gap.above, [], "a row shows above the header");
  assert.ok(gap.gap <= 1, `the header stands ${gap.gap}px below the view's top`);
});

Deno.test("ui: without a page session nothing is read; a code works once; only the page's reads", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { markup: markupServer() } });
  // A daemon hosted inline ends with the command: no address that would be dead at once.
  const inline = await box.mcpx(["ui", "--inline"]);
  assert.equal(inline.code, 2, inline.stderr);
  assert.match(inline.stderr, /needs a daemon that outlives this command/);
  const ui = await box.json<Ui>(["ui"]);
  const base = `http://${ui.listen}`;
  const code = ui.url.slice(ui.url.indexOf("#code=") + 6);
  const origin = { origin: base, "content-type": "application/json" };

  // The page itself needs nothing, and says what it may load.
  const page = await fetch(`${base}/ui`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<script type="module" src="\/ui\/app.js">/);
  const csp = page.headers.get("content-security-policy") ?? "";
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'/);
  assert.match(csp, /require-trusted-types-for 'script'/);
  assert.equal(page.headers.get("x-content-type-options"), "nosniff");

  // No session: refused, and no server is started for it.
  const bare = await fetch(`${base}/v1/namespaces`);
  assert.equal(bare.status, 401);
  await bare.body?.cancel();
  const forged = await fetch(`${base}/v1/namespaces`, { headers: { authorization: "Bearer x" } });
  assert.equal(forged.status, 401);
  await forged.body?.cancel();

  // Another site's page cannot trade the code; without an Origin it is no page's.
  const foreign = await fetch(`${base}/ui/session`, {
    method: "POST",
    headers: { ...origin, origin: "http://evil.example" },
    body: JSON.stringify({ code }),
  });
  assert.equal(foreign.status, 403);
  await foreign.body?.cancel();
  const noOrigin = await fetch(`${base}/ui/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code }),
  });
  assert.equal(noOrigin.status, 403);
  await noOrigin.body?.cancel();

  // The code, once.
  const first = await fetch(`${base}/ui/session`, {
    method: "POST",
    headers: origin,
    body: JSON.stringify({ code }),
  });
  assert.equal(first.status, 200);
  const { token } = await first.json();
  const again = await fetch(`${base}/ui/session`, {
    method: "POST",
    headers: origin,
    body: JSON.stringify({ code }),
  });
  assert.equal(again.status, 401);
  await again.body?.cancel();

  // The session reads what the page reads, and nothing else.
  const bearer = { authorization: `Bearer ${token}` };
  const ns = await fetch(`${base}/v1/namespaces`, { headers: bearer });
  assert.equal(ns.status, 200);
  assert.deepEqual((await ns.json()).namespaces.map((n: { namespace: string }) => n.namespace), [
    "markup",
  ]);
  for (const path of ["/v1/config", "/v1/daemons", "/v1/openapi.json"]) {
    const res = await fetch(`${base}${path}`, { headers: bearer });
    assert.equal(res.status, 401, path);
    await res.body?.cancel();
  }
  const post = await fetch(`${base}/v1/tools/call`, {
    method: "POST",
    headers: { ...bearer, "content-type": "application/json" },
    body: JSON.stringify({ target: "markup.echo", args: { text: "x" } }),
  });
  assert.equal(post.status, 401, "a page session calls no tool");
  await post.body?.cancel();
  const stop = await fetch(`${base}/v1/stop`, { method: "POST", headers: bearer });
  assert.equal(stop.status, 401, "nor stops the daemon");
  await stop.body?.cancel();
  const status = await box.json<{ servers: { live: number }[] }>(["status"]);
  assert.deepEqual(status.servers.map((s) => s.live), [0], "nothing was started");

  // DNS rebinding: a name that is not this machine's is refused before any route.
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(ui.listen.split(":")[1]) });
  await conn.write(
    new TextEncoder().encode("GET /ui HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"),
  );
  const raw = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
  assert.match(raw, /^HTTP\/1\.1 403/);

  // A second `mcpx ui` names the same listener with a new code.
  const next = await box.json<Ui>(["ui"]);
  assert.equal(next.listen, ui.listen);
  assert.notEqual(next.url, ui.url);
});

Deno.test("ui: with daemon.listen the page is served there, beside the listener token's callers", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { markup: markupServer() } });
  const listen = `127.0.0.1:${freePort()}`;
  const health = await box.json<{ socket: string; listen: string }>(["start"], {
    env: { MCPX_DAEMON_LISTEN: listen },
  });
  assert.equal(health.listen, listen);
  const ui = await box.json<Ui>(["ui"]);
  assert.equal(ui.listen, listen, "no second listener");
  const base = `http://${listen}`;
  const code = ui.url.slice(ui.url.indexOf("#code=") + 6);
  const traded = await fetch(`${base}/ui/session`, {
    method: "POST",
    headers: { origin: base, "content-type": "application/json" },
    body: JSON.stringify({ code }),
  });
  const { token } = await traded.json();
  const read = await fetch(`${base}/v1/status`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(read.status, 200);
  await read.body?.cancel();
  const config = await fetch(`${base}/v1/config`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(config.status, 401, "a page session is not the listener token");
  await config.body?.cancel();
  const file = join(box.root, "state", "mcpx", "daemons", `${daemonKey(health)}.listen-token`);
  const bearer = Deno.readTextFileSync(file).trim();
  const full = await fetch(`${base}/v1/config`, { headers: { authorization: `Bearer ${bearer}` } });
  assert.equal(full.status, 200, "the listener token still reads everything");
  await full.body?.cancel();
});

Deno.test("ui: the built CLI serves the same page", async () => {
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(REPO, "tools", "build.ts")],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
  await using box = await Sandbox.create(join(REPO, "dist", "cli", "main.js"));
  await box.write("work/.mcpx.json", { mcpServers: { markup: markupServer() } });
  const ui = await box.json<Ui>(["ui"]);
  for (
    const [path, type] of [["/ui", "text/html"], ["/ui/app.js", "text/javascript"], [
      "/ui/app.css",
      "text/css",
    ]]
  ) {
    const res = await fetch(`http://${ui.listen}${path}`);
    assert.equal(res.status, 200, path);
    assert.ok(res.headers.get("content-type")?.startsWith(type), path);
    assert.equal(
      await res.text(),
      await Deno.readTextFile(
        join(REPO, "lib", "web", path === "/ui" ? "index.html" : path.slice(4)),
      ),
    );
  }
});
