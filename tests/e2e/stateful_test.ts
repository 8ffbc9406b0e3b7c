// Servers known to keep per-caller state (lib/config/stateful.ts) are leased exclusive + session
// unless their configuration says otherwise (docs/pools.md, "Servers that keep state").

import assert from "node:assert/strict";
import { servePages } from "../fixtures/pages.ts";
import { playwrightLaunchConfig, playwrightServerConfig } from "../fixtures/playwright.ts";
import { alive, Sandbox } from "../_helpers.ts";

interface Call {
  content: { type: string; text?: string }[];
  mcpx: { instance: { pid: number; key: string } };
}

interface Ls {
  namespaces: { namespace: string; sharing: string; scope: string; leasingDefault?: string }[];
}

/** Chromium processes of this sandbox. */
function chromiumOf(box: Sandbox): number[] {
  return box.processes().filter((pid) => {
    try {
      if (/^\d+ \(.*\) Z /s.test(Deno.readTextFileSync(`/proc/${pid}/stat`))) return false;
      return Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes("chromium");
    } catch {
      return false;
    }
  });
}

Deno.test("stateful: a playwright entry copied from another host gives two concurrent sessions their own page", async () => {
  await using pages = await servePages();
  await using box = await Sandbox.create();
  const launch = await box.write("work/playwright.json", playwrightLaunchConfig());
  // As another host writes it: no mcpx block.
  await box.write("work/.mcp.json", { mcpServers: { playwright: playwrightServerConfig(launch) } });
  const sessions = ["a", "b"];
  // Both sessions navigate at once, then both read what their browser shows.
  const went = await Promise.all(
    sessions.map((id) =>
      box.json<Call>(["call", "playwright.browser_navigate", `url=${pages.session(id)}`], {
        env: { MCPX_SESSION_ID: id },
      })
    ),
  );
  const read = await Promise.all(
    sessions.map((id) =>
      box.json<Call>(["call", "playwright.browser_snapshot"], { env: { MCPX_SESSION_ID: id } })
    ),
  );
  for (const [i, id] of sessions.entries()) {
    const other = sessions[1 - i];
    const text = read[i].content.map((c) => c.text ?? "").join("\n");
    assert.match(text, new RegExp(`Page Title: Session ${id}\\b`), `session ${id} reads its page`);
    assert.doesNotMatch(
      text,
      new RegExp(`Session ${other}\\b`),
      `session ${id} sees nothing of ${other}`,
    );
    assert.equal(read[i].mcpx.instance.key, `session:${id}`);
    assert.equal(
      read[i].mcpx.instance.pid,
      went[i].mcpx.instance.pid,
      "the session kept its process",
    );
  }
  assert.notEqual(
    read[0].mcpx.instance.pid,
    read[1].mcpx.instance.pid,
    "two sessions, two browsers",
  );
  // Without a session the call gets a browser of its own, and is told what that costs.
  const lone = await box.mcpx(["call", "playwright.browser_navigate", `url=${pages.session("c")}`]);
  assert.equal(lone.code, 0, lone.stderr);
  assert.match(lone.stdout, /Session c/);
  assert.equal(
    lone.stderr,
    "mcpx: warning: playwright.browser_navigate ran on a process of its own, stopped as the call ended, so what it opened (pages, logins) is gone: playwright keeps per-caller state and is leased per session; set MCPX_SESSION_ID (or pass --session) so calls of one session share a process\n",
  );
  const loneJson = await box.json<{ mcpx: { alone?: string } }>(
    ["call", "playwright.browser_snapshot"],
  );
  assert.match(loneJson.mcpx.alone ?? "", /^set MCPX_SESSION_ID/);
  // `ls` says why, before any block chose.
  const ls = await box.json<Ls>(["ls"]);
  assert.deepEqual(
    ls.namespaces.map((n) => [n.namespace, n.sharing, n.scope]),
    [["playwright", "exclusive", "session"]],
  );
  assert.match(ls.namespaces[0].leasingDefault ?? "", /^playwright-mcp is a browser, whose pages/);
  await box.json(["stop"]);
  assert.deepEqual(chromiumOf(box).filter(alive), [], "no chromium outlives mcpx stop");
});

Deno.test("stateful: ls and config say a browser's sharing and scope are a default, and why; a block wins", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcp.json", {
    mcpServers: {
      playwright: { command: "npx", args: ["@playwright/mcp@latest"] },
      chosen: {
        command: "npx",
        args: ["chrome-devtools-mcp@latest"],
        mcpx: { sharing: "shared", scope: "global" },
      },
      everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
    },
  });
  const ls = await box.mcpx(["ls"]);
  assert.equal(ls.code, 0, ls.stderr);
  const rows = ls.stdout.split("\n");
  assert.match(rows.find((l) => l.startsWith("playwright "))!, /\bexclusive\*\s+session\*/);
  assert.match(rows.find((l) => l.startsWith("chosen "))!, /\bshared\s+global\s/);
  assert.match(rows.find((l) => l.startsWith("everything "))!, /\bshared\s+global\s/);
  assert.ok(
    rows.includes(
      '* by default for playwright: @playwright/mcp is a browser, whose pages, tabs, cookies and logins belong to the caller that opened them; set "sharing" and "scope" in its "mcpx" block to choose otherwise (docs/pools.md)',
    ),
    ls.stdout,
  );
  // What a named session's process costs the others, and the setting that changes it.
  assert.ok(
    rows.some((l) =>
      l.startsWith("session scope (playwright): a named session") &&
      l.includes("pool.evictNamed=true")
    ),
    ls.stdout,
  );
  const json = await box.json<Ls>(["ls"]);
  assert.deepEqual(json.namespaces.map((n) => n.leasingDefault !== undefined), [
    true,
    false,
    false,
  ]);

  const config = await box.json<
    { servers: { server: string; sharing: string; scope: string; source: string; why?: string }[] }
  >(["config"]);
  assert.deepEqual(config.servers.map((s) => [s.server, s.sharing, s.scope, s.source]), [
    ["playwright", "exclusive", "session", "stateful default"],
    ["chosen", "shared", "global", "mcpx"],
    ["everything", "shared", "global", "default"],
  ]);
  assert.match(config.servers[0].why!, /^@playwright\/mcp is a browser/);
  const text = await box.mcpx(["config"]);
  assert.match(
    text.stdout,
    /\nplaywright\s+exclusive\s+session\s+stateful default: @playwright\/mcp is a browser/,
  );
});

Deno.test("stateful: an ad-hoc browser (ls --stdio) is listed as it is leased, exclusive + session", async () => {
  await using box = await Sandbox.create();
  const launch = await box.write("work/playwright.json", playwrightLaunchConfig());
  await box.write("work/.mcpx.json", { mcpServers: {} });
  const { command, args } = playwrightServerConfig(launch);
  const line = [command, ...args].join(" ");
  const ls = await box.json<Ls>(["ls", "--stdio", line]);
  assert.deepEqual(
    ls.namespaces.map((n) => [n.sharing, n.scope, n.leasingDefault !== undefined]),
    [["exclusive", "session", true]],
  );
});
