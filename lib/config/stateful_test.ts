import assert from "node:assert/strict";
import { missingIsolation, statefulServer } from "./stateful.ts";
import { serverDefs } from "./servers.ts";

const config = (mcpServers: Record<string, unknown>, pool: Record<string, unknown> = {}) => ({
  path: "/p/.mcp.json",
  mcpServers: mcpServers as never,
  pool,
  data: {},
});

Deno.test("statefulServer() knows a browser server however other hosts start it", () => {
  const starts: [string, string[]][] = [
    ["npx", ["@playwright/mcp@latest"]],
    ["npx", ["-y", "@playwright/mcp@0.0.86", "--headless"]],
    ["pnpm", ["dlx", "@playwright/mcp"]],
    ["bunx", ["--bun", "@playwright/mcp"]],
    ["npx", ["--package=@playwright/mcp", "playwright-mcp"]],
    ["/repo/tests/npm/node_modules/.bin/playwright-mcp", ["--headless"]],
    ["node", ["/x/node_modules/@playwright/mcp/cli.js"]],
    ["deno", ["run", "-A", "npm:@playwright/mcp@latest"]],
    ["docker", ["run", "-i", "--rm", "mcr.microsoft.com/playwright/mcp:v0.0.86"]],
    ["npx", ["chrome-devtools-mcp@latest", "--isolated"]],
    ["/usr/bin/node", ["/t/node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"]],
    ["npx", ["-y", "@modelcontextprotocol/server-puppeteer"]],
    ["docker", ["run", "-i", "--rm", "--init", "mcp/puppeteer"]],
    ["C:\\tools\\mcp-server-puppeteer.cmd", []],
  ];
  for (const [command, args] of starts) {
    assert.ok(statefulServer({ command, args }), `${command} ${args.join(" ")}`);
  }
  assert.equal(
    statefulServer({ command: "npx", args: ["@playwright/mcp@latest"] })?.name,
    "@playwright/mcp",
  );
});

Deno.test("statefulServer() compares whole words: mentioning a browser is not being one", () => {
  const starts: [string, string[]][] = [
    ["npx", ["-y", "@modelcontextprotocol/server-everything"]],
    ["npx", ["-y", "@modelcontextprotocol/server-filesystem", "/srv/playwright-mcp-notes"]],
    ["my-tool", ["--executable-path", "/usr/bin/chromium", "--browser=chrome"]],
    ["npx", ["@playwright/mcp-helper"]],
    ["npx", ["not-chrome-devtools-mcp"]],
  ];
  for (const [command, args] of starts) {
    assert.equal(statefulServer({ command, args }), undefined, `${command} ${args.join(" ")}`);
  }
  assert.equal(statefulServer({ args: ["@playwright/mcp"] }), undefined, "a remote server");
});

Deno.test("serverDefs(): a browser copied from another host is exclusive + session, and says why", () => {
  const [pw, plain] = serverDefs(config({
    playwright: { command: "npx", args: ["@playwright/mcp@latest"] },
    everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
  }));
  assert.deepEqual([pw.pool.sharing, pw.pool.scope, pw.leasing], [
    "exclusive",
    "session",
    "stateful",
  ]);
  assert.match(pw.stateful!, /^@playwright\/mcp is a browser, whose pages/);
  assert.deepEqual([plain.pool.sharing, plain.pool.scope, plain.leasing], [
    "shared",
    "global",
    "default",
  ]);
  assert.equal(plain.stateful, undefined);
});

Deno.test("serverDefs(): an explicit sharing or scope always wins over the stateful default", () => {
  const pw = { command: "npx", args: ["@playwright/mcp@latest"] };
  const [own, mode, onlyMax] = serverDefs(config({
    own: { ...pw, mcpx: { sharing: "shared", scope: "global" } },
    mode: { ...pw, mcpx: { mode: "shared" } },
    onlyMax: { ...pw, mcpx: { max: 2 } },
  }));
  assert.deepEqual([own.pool.sharing, own.pool.scope, own.leasing], ["shared", "global", "server"]);
  assert.deepEqual([mode.pool.sharing, mode.pool.scope, mode.leasing], [
    "shared",
    "global",
    "server",
  ]);
  assert.ok(own.stateful, "still known to be stateful (doctor warns of it)");
  // A block that says nothing of leasing keeps the default.
  assert.deepEqual([onlyMax.pool.sharing, onlyMax.pool.scope, onlyMax.pool.max], [
    "exclusive",
    "session",
    2,
  ]);
  const [pooled] = serverDefs(config({ pw }, { scope: "cwd" }));
  assert.deepEqual([pooled.pool.sharing, pooled.pool.scope, pooled.leasing], [
    "shared",
    "cwd",
    "pool",
  ]);
});

Deno.test("serverDefs(): the stateful default is part of the identity (a changed default is a new pool)", () => {
  const pw = { command: "npx", args: ["@playwright/mcp@latest"] };
  const [byDefault] = serverDefs(config({ pw }));
  const [shared] = serverDefs(
    config({ pw: { ...pw, mcpx: { sharing: "shared", scope: "global" } } }),
  );
  const [written] = serverDefs(
    config({ pw: { ...pw, mcpx: { sharing: "exclusive", scope: "session" } } }),
  );
  assert.notEqual(byDefault.identity, shared.identity);
  assert.equal(byDefault.identity, written.identity);
});

Deno.test("missingIsolation() names the flag a browser needs to run twice at once, unless given", () => {
  const need = (args: string[], env?: Record<string, string>) =>
    missingIsolation(statefulServer({ command: "npx", args })!, { args, env });
  assert.equal(need(["@playwright/mcp@latest"]), "--isolated");
  assert.equal(need(["@playwright/mcp@latest", "--isolated"]), undefined);
  assert.equal(need(["@playwright/mcp@latest", "--isolated=true"]), undefined);
  assert.equal(need(["@playwright/mcp"], { PLAYWRIGHT_MCP_ISOLATED: "true" }), undefined);
  assert.equal(need(["chrome-devtools-mcp@latest"]), "--isolated");
  // Puppeteer's server opens a fresh profile of its own each time.
  assert.equal(need(["-y", "@modelcontextprotocol/server-puppeteer"]), undefined);
});
