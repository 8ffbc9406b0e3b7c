import assert from "node:assert/strict";
import { chromeServerConfig } from "../fixtures/chrome.ts";
import { servePages } from "../fixtures/pages.ts";
import { alive, Sandbox } from "../_helpers.ts";

/** What `mcpx --json call` prints: the MCP result envelope, and who served it under `mcpx`. */
interface Call {
  content: { type: string; text?: string }[];
  mcpx: { instance: { pid: number; key: string } };
}

/** Chromium processes of this sandbox (the daemon's environment reaches them through the server). */
function chromiumOf(box: Sandbox): number[] {
  return box.processes().filter((pid) => {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      if (/^\d+ \(.*\) Z /s.test(stat)) return false;
      return Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes("chromium");
    } catch {
      return false;
    }
  });
}

Deno.test("browser: exclusive + session gives each session its own Chromium, no cross-talk", async () => {
  await using pages = await servePages();
  await using box = await Sandbox.create();
  const chrome = chromeServerConfig();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      "chrome-devtools": { ...chrome, mcpx: { sharing: "exclusive", scope: "session", max: 4 } },
      "chrome-team": { ...chrome, mcpx: { sharing: "exclusive", scope: "parent-session", max: 4 } },
    },
  });
  const sessions = ["s1", "s2", "s3", "s4"];
  const opened = await Promise.all(
    sessions.map((id) =>
      box.json<Call>(["call", "chrome_devtools.new_page", `url=${pages.session(id)}`], {
        env: { MCPX_SESSION_ID: id },
      })
    ),
  );
  assert.equal(
    new Set(opened.map((o) => o.mcpx.instance.pid)).size,
    4,
    "four sessions, four browsers",
  );
  for (const id of sessions) {
    const listed = await box.json<Call>(["call", "chrome_devtools.list_pages"], {
      env: { MCPX_SESSION_ID: id },
    });
    const text = String(listed.content[0].text);
    assert.match(text, new RegExp(`Session ${id}`), `session ${id} sees its own page`);
    for (const other of sessions.filter((o) => o !== id)) {
      assert.doesNotMatch(
        text,
        new RegExp(`Session ${other}\\b`),
        `session ${id} sees nothing of ${other}`,
      );
    }
    assert.equal(listed.mcpx.instance.key, `session:${id}`);
  }

  // Two subagents under one parent share a browser; a third under another parent does not.
  const root = { MCPX_PARENT_SESSION_ID: "root" };
  await box.json(["call", "chrome_team.new_page", `url=${pages.session("from-sub1")}`], {
    env: { ...root, MCPX_SESSION_ID: "sub1" },
  });
  const sub2 = await box.json<Call>(["call", "chrome_team.list_pages"], {
    env: { ...root, MCPX_SESSION_ID: "sub2" },
  });
  assert.match(String(sub2.content[0].text), /Session from-sub1/);
  const outsider = await box.json<Call>(["call", "chrome_team.list_pages"], {
    env: { MCPX_PARENT_SESSION_ID: "other" },
  });
  assert.doesNotMatch(String(outsider.content[0].text), /from-sub1/);
  const status = await box.json<{ servers: { namespace: string; instances: { key: string }[] }[] }>(
    ["status"],
  );
  const team = status.servers.find((s) => s.namespace === "chrome_team")!;
  assert.deepEqual(team.instances.map((i) => i.key).sort(), ["psession:other", "psession:root"]);

  const browsers = chromiumOf(box);
  assert.ok(browsers.length >= 6, `chromium runs for each browser (${browsers.length} processes)`);
  await box.json(["stop"]);
  assert.deepEqual(chromiumOf(box).filter(alive), [], "no chromium outlives mcpx stop");
});
