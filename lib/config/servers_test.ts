import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { serverDefs } from "./servers.ts";

const config = (mcpServers: Record<string, unknown>, pool: Record<string, unknown> = {}) => ({
  path: "/p/.mcpx.json",
  mcpServers: mcpServers as never,
  pool,
  data: {},
});

Deno.test("serverDefs() layers the pool block under each server's mcpx block", () => {
  const [a, b] = serverDefs(config({
    a: { command: "x", mcpx: { scope: "session", sharing: "exclusive", callTimeout: "5s" } },
    b: { url: "http://127.0.0.1:1/mcp", type: "sse" },
  }, { idleTimeout: "1m", max: 2 }));
  assert.deepEqual(
    [a.pool.scope, a.pool.sharing, a.pool.callTimeoutMs, a.pool.idleTimeoutMs, a.pool.max],
    ["session", "exclusive", 5000, 60_000, 2],
  );
  assert.equal(b.transport, "sse");
  assert.equal(b.pool.scope, "global");
  assert.notEqual(a.identity, b.identity);
});

Deno.test("serverDefs() names the server, the field and the near miss", () => {
  const rejects = (c: ReturnType<typeof config>, re: RegExp) =>
    assert.throws(
      () => serverDefs(c),
      (e: unknown) => e instanceof McpxError && e.code === "CONFIG_INVALID" && re.test(e.message),
    );
  rejects(
    config({ a: { command: "x", mcpx: { scope: "sesion" } } }),
    /Server "a".*"scope" is "sesion".*did you mean "session"\?/,
  );
  rejects(
    config({ a: { command: "x", mcpx: { max: 0 } } }),
    /"max" is 0; expected a whole number of at least 1/,
  );
  rejects(
    config({ a: { command: "x", mcpx: { idleTimout: "1m" } } }),
    /unknown mcpx field "idleTimout": did you mean "idleTimeout"\?/,
  );
  rejects(
    config({ a: { command: "x" } }, { shraing: "shared" }),
    /"pool".*unknown field "shraing": did you mean "sharing"\?/,
  );
  rejects(
    config({ "a-b": { command: "x" }, a_b: { command: "y" } }),
    /namespace "a_b" is also "a-b"'s/,
  );
});

Deno.test("serverDefs() keeps namespaces clear of reserved words and the client's own names", () => {
  const [def] = serverDefs(config({ tools: { command: "x" } }));
  assert.equal(def.namespace, "tools_");
});

Deno.test("serverDefs() checks each entry's connection fields, naming the server", () => {
  const rejects = (servers: Record<string, unknown>, re: RegExp) =>
    assert.throws(
      () => serverDefs(config(servers)),
      (e: unknown) => e instanceof McpxError && e.code === "CONFIG_INVALID" && re.test(e.message),
    );
  rejects(
    { fs: { command: "x", args: "not-an-array" } },
    /Server "fs" in .*: "args" must be an array of strings/,
  );
  rejects({ fs: { args: [] } }, /Server "fs" .*needs "command".*or "url"/);
  rejects({ fs: "npx" }, /Server "fs" .*expected an object/);
});

Deno.test("serverDefs() maps the retired mode onto sharing and scope, with one note", () => {
  const warnings: string[] = [];
  const [a, b, c] = serverDefs(
    config({
      a: { command: "x", mcpx: { mode: "session" } },
      b: { command: "y", mcpx: { mode: "shared" } },
      c: { command: "z" },
    }),
    { warnings },
  );
  assert.deepEqual([a.pool.sharing, a.pool.scope], ["exclusive", "session"]);
  assert.deepEqual([b.pool.sharing, b.pool.scope], ["shared", "global"]);
  assert.deepEqual([c.pool.sharing, c.pool.scope], ["shared", "global"]);
  assert.equal(warnings.length, 2);
  assert.match(
    warnings[0],
    /^Server "a" in \/p\/\.mcpx\.json: "mode" is deprecated; "mode": "session" is "sharing": "exclusive", "scope": "session": write that instead$/,
  );
  // In the pool block it applies to every server, as the other pool fields do.
  const pooled: string[] = [];
  const [d] = serverDefs(config({ d: { command: "x" } }, { mode: "session" }), {
    warnings: pooled,
  });
  assert.deepEqual([d.pool.sharing, d.pool.scope, pooled.length], ["exclusive", "session", 1]);
});

Deno.test("serverDefs() refuses a mode it cannot map, and mode beside sharing or scope", () => {
  const rejects = (block: Record<string, unknown>, re: RegExp) =>
    assert.throws(
      () => serverDefs(config({ a: { command: "x", mcpx: block } })),
      (e: unknown) =>
        e instanceof McpxError && e.code === "CONFIG_INVALID" && re.test(e.message) &&
        /"sharing": "exclusive", "scope": "session"/.test(e.hint),
    );
  rejects(
    { mode: "per-call" },
    /"mode" is "per-call"; "mode" was replaced by "sharing" and "scope"/,
  );
  rejects({ mode: 3 }, /"mode" is 3/);
  assert.throws(
    () => serverDefs(config({ a: { command: "x", mcpx: { mode: "session", scope: "call" } } })),
    /has both "mode" and "scope"; drop "mode"/,
  );
});

Deno.test("serverDefs() refuses an mcpx field beside command, and a near miss of an entry key", () => {
  const rejects = (entry: Record<string, unknown>, re: RegExp) =>
    assert.throws(
      () => serverDefs(config({ a: entry })),
      (e: unknown) => e instanceof McpxError && e.code === "CONFIG_INVALID" && re.test(e.message),
    );
  rejects({ command: "x", scope: "session" }, /"scope" belongs in the server's "mcpx" block/);
  rejects({ command: "x", mode: "session" }, /"mode" belongs in the server's "mcpx" block/);
  rejects({ command: "x", arg: ["-y"] }, /unknown field "arg": did you mean "args"\?/);
  rejects({ command: "x", headrs: {} }, /unknown field "headrs": did you mean "headers"\?/);
  // Other hosts' keys in the same mcpServers object are theirs, not mistakes.
  const [def] = serverDefs(config({
    a: { command: "x", autoApprove: [], transportType: "stdio", timeout: 60, envFile: ".env" },
  }));
  assert.equal(def.transport, "stdio");
});

Deno.test("serverDefs() gives each tool its server's tags and its own toolTags", () => {
  const [a, b] = serverDefs(config({
    a: {
      command: "x",
      mcpx: {
        tags: ["browser", "web"],
        toolTags: { take_screenshot: ["image", "web"], "list_*": ["listing"] },
      },
    },
    b: { command: "y" },
  }));
  assert.deepEqual(a.tagsOf("take_screenshot"), ["browser", "web", "image"]);
  assert.deepEqual(a.tagsOf("list_pages"), ["browser", "web", "listing"]);
  assert.deepEqual(a.tagsOf("click"), ["browser", "web"]);
  assert.deepEqual(b.tagsOf("click"), []);
  // Tags are not part of what starts a process: changing them restarts nothing.
  const [again] = serverDefs(config({ a: { command: "x" } }));
  assert.equal(again.identity, a.identity);
});

Deno.test("serverDefs() refuses malformed tags and toolTags, saying what a tag is", () => {
  const rejects = (block: Record<string, unknown>, re: RegExp) =>
    assert.throws(
      () => serverDefs(config({ a: { command: "x", mcpx: block } })),
      (e: unknown) => e instanceof McpxError && e.code === "CONFIG_INVALID" && re.test(e.message),
    );
  rejects({ tags: "web" }, /Server "a" .*"tags" must be an array of words/);
  rejects({ tags: ["two words"] }, /"tags" must be an array of words/);
  rejects({ tags: ["-"] }, /"tags" must be an array of words/);
  rejects({ toolTags: ["web"] }, /"toolTags" must be an object from tool names/);
  rejects({ toolTags: { click: "web" } }, /"toolTags\.click" must be an array of words/);
  rejects({ toolTags: { "/(/": ["x"] } }, /"toolTags\.\/\(\/".*not a valid regular expression/);
  rejects({ tagz: [] }, /unknown mcpx field "tagz": did you mean "tags"\?/);
});

Deno.test('serverDefs() reads "envFrom" from the mcpx block, and refuses another value or place', () => {
  const [daemon, caller] = serverDefs(config({
    d: { command: "x", env: { T: "${A}" } },
    c: { command: "x", env: { T: "${B}" }, args: ["${C}"], mcpx: { envFrom: "caller" } },
  }));
  assert.deepEqual([daemon.envFrom, daemon.envNames], ["daemon", ["A"]]);
  assert.deepEqual([caller.envFrom, caller.envNames], ["caller", ["B", "C"]]);
  assert.notEqual(
    daemon.identity,
    serverDefs(config({ d: { command: "x", env: { T: "${A}" }, mcpx: { envFrom: "caller" } } }))[0]
      .identity,
  );
  assert.throws(
    () => serverDefs(config({ c: { command: "x", mcpx: { envFrom: "everyone" } } })),
    (e: McpxError) => e.code === "CONFIG_INVALID" && /"envFrom" is "everyone"/.test(e.message),
  );
  assert.throws(
    () => serverDefs(config({ c: { command: "x", envFrom: "caller" } })),
    (e: McpxError) => /"envFrom" belongs in the server's "mcpx" block/.test(e.message),
  );
});

Deno.test("serverDefs() takes queueTimeout from the setting or the mcpx block, outside the identity", () => {
  const c = config({ a: { command: "x" }, b: { command: "x", mcpx: { queueTimeout: "2s" } } }, {
    queueTimeout: "9s", // the setting's own spelling: already resolved into queueTimeoutMs
  });
  const [a, b] = serverDefs(c, { queueTimeoutMs: 4000 });
  assert.equal(a.pool.queueTimeoutMs, 4000);
  assert.equal(b.pool.queueTimeoutMs, 2000);
  const [other] = serverDefs(c, { queueTimeoutMs: 100 });
  assert.equal(other.identity, a.identity, "how long a caller queues is not the process");
  assert.equal(serverDefs(config({ a: { command: "x" } }))[0].pool.queueTimeoutMs, 30_000);
});

Deno.test("serverDefs() takes evictNamed from the setting or the mcpx block, outside the identity", () => {
  const c = config({ a: { command: "x" }, b: { command: "x", mcpx: { evictNamed: false } } }, {
    evictNamed: true, // the setting's own spelling: already resolved into the option
  });
  const [a, b] = serverDefs(c, { evictNamed: true });
  assert.equal(a.pool.evictNamed, true);
  assert.equal(b.pool.evictNamed, false);
  const [other] = serverDefs(c);
  assert.equal(other.pool.evictNamed, false, "off by default");
  assert.equal(other.identity, a.identity, "whether it may be stopped for room is not the process");
  assert.throws(
    () => serverDefs(config({ c: { command: "x", mcpx: { evictNamed: "yes" } } })),
    (e: McpxError) => /"evictNamed" is "yes"; expected true or false/.test(e.message),
  );
});

Deno.test("serverDefs(): curate renames, fixes and hides, and an alias curates on its own", () => {
  const [a, b] = serverDefs(config({
    a: {
      command: "x",
      mcpx: {
        curate: {
          search: { rename: "find", fixed: { limit: 5 }, hide: ["debug"] },
        },
      },
    },
    b: { aliasOf: "a" },
  }));
  const tools = [
    {
      name: "search",
      inputSchema: {
        type: "object",
        properties: { q: {}, limit: {}, debug: {} },
        required: ["q", "limit"],
      },
    },
    { name: "other", inputSchema: { type: "object" } },
  ];
  assert.deepEqual(a.curateTools(tools), [
    { name: "find", inputSchema: { type: "object", properties: { q: {} }, required: ["q"] } },
    tools[1],
  ]);
  assert.deepEqual(a.curatedCall("find"), {
    tool: "search",
    fixed: { limit: 5 },
    hidden: ["limit", "debug"],
  });
  assert.deepEqual(a.curatedCall("other"), { tool: "other", fixed: {}, hidden: [] });
  assert.equal(b.curateTools(tools), tools);
  assert.equal(a.identity, b.identity, "curation restarts nothing");
  // A tool named what another was renamed to is shadowed by it.
  const [c] = serverDefs(config({ c: { command: "x", mcpx: { curate: { a: { rename: "b" } } } } }));
  const shadow = [{ name: "a", inputSchema: {} }, { name: "b", inputSchema: {} }];
  assert.deepEqual(c.curateTools(shadow).map((t) => t.name), ["b"]);
  assert.deepEqual(c.curatedCall("b").tool, "a");
  assert.throws(
    () =>
      serverDefs(config({
        c: { command: "x", mcpx: { curate: { a: { rename: "z" }, b: { rename: "z" } } } },
      })),
    /"curate.b": "z" is also the name "curate.a" shows/,
  );
});

Deno.test("serverDefs() turns paths.apis items into api servers, their auth into flags and ${VAR} env", () => {
  const defs = serverDefs({
    path: "/p/.mcpx.json",
    mcpServers: {},
    pool: {},
    data: {
      paths: {
        apis: [
          "./plain.json",
          {
            name: "pets",
            spec: "https://x.example/openapi.json",
            auth: { type: "bearer", token: "${T}" },
          },
          { spec: "/abs/q.json", auth: { type: "query", name: "key", value: "${K}" } },
        ],
      },
    },
  });
  const by = Object.fromEntries(defs.map((d) => [d.name, d]));
  assert.deepEqual(Object.keys(by).sort(), ["pets", "plain", "q"]);
  const args = (name: string) => by[name].entry.args!.slice(by[name].entry.args!.indexOf("api"));
  assert.deepEqual(args("plain"), ["api", "serve", "--spec", "/p/plain.json"]);
  assert.deepEqual(args("pets"), [
    "api",
    "serve",
    "--spec",
    "https://x.example/openapi.json",
    "--bearer-env",
    "API_TOKEN",
  ]);
  assert.deepEqual(by.pets.entry.env, { API_TOKEN: "${T}" });
  assert.deepEqual(by.pets.envNames, ["T"]);
  assert.deepEqual(args("q").slice(-4), ["--api-key-env", "API_KEY", "--api-key-query", "key"]);
  assert.equal(by.plain.entry.env, undefined);

  const refused = (item: unknown, re: RegExp) =>
    assert.throws(
      () =>
        serverDefs({
          path: "/p/c.json",
          mcpServers: {},
          pool: {},
          data: { paths: { apis: [item] } },
        }),
      (e: unknown) => e instanceof McpxError && e.code === "CONFIG_INVALID" && re.test(e.message),
    );
  refused(
    { spec: "a.json", auth: { type: "bearer" } },
    /The auth of "a" in paths\.apis .* needs "token"/,
  );
  refused({ spec: "a.json", auth: { type: "oauth" } }, /an API takes bearer, header or query/);
  refused({ name: "x" }, /must be a list of OpenAPI documents/);
  refused("https://", /"https:\/\/" in paths\.apis of \/p\/c\.json is not a URL/);
});

Deno.test("serverDefs() defaults protocol to prefer-modern over Streamable HTTP, legacy over stdio and SSE", () => {
  const defs = serverDefs(config({
    local: { command: "x" },
    remote: { url: "http://127.0.0.1:1/mcp" },
    old: { url: "http://127.0.0.1:1/sse", type: "sse" },
    pinned: { url: "http://127.0.0.1:1/mcp", mcpx: { protocol: "force-legacy" } },
  }));
  assert.deepEqual(
    defs.map((d) => [d.name, d.protocol]),
    [["local", "legacy"], ["remote", "prefer-modern"], ["old", "legacy"], [
      "pinned",
      "force-legacy",
    ]],
  );
  // The pool block's protocol is a user's choice too, and is kept for every transport.
  const pooled = serverDefs(config({ remote: { url: "http://127.0.0.1:1/mcp" } }, {
    protocol: "legacy",
  }));
  assert.equal(pooled[0].protocol, "legacy");
});

Deno.test("serverDefs() applies the pool block's tool filters to every server whose block sets none", () => {
  const [a, b, c] = serverDefs(config({
    a: { command: "x" },
    b: { command: "x", mcpx: { tools: ["get*"], disabled: false } },
    c: { command: "x", disabled: false, mcpx: { excludeTools: [] } },
  }, { tools: ["echo", "s*"], excludeTools: ["/^set$/"], disabled: true }));
  assert.deepEqual(["echo", "sum", "set", "get"].filter(a.showsTool), ["echo", "sum"]);
  assert.equal(a.disabled, true);
  assert.deepEqual(a.filters, {
    tools: { value: ["echo", "s*"], from: "pool" },
    excludeTools: { value: ["/^set$/"], from: "pool" },
    disabled: { value: true, from: "pool" },
  });
  // A server's own value wins, key by key: its tools and disabled, the pool's excludeTools.
  assert.deepEqual(["echo", "get", "getset"].filter(b.showsTool), ["get", "getset"]);
  assert.equal(b.disabled, false);
  assert.deepEqual(b.filters.tools, { value: ["get*"], from: "mcpx" });
  assert.deepEqual(b.filters.excludeTools, { value: ["/^set$/"], from: "pool" });
  // `disabled` beside command is the server's own too, and an empty excludeTools excludes nothing.
  assert.equal(c.disabled, false);
  assert.deepEqual(["set", "sum"].filter(c.showsTool), ["set", "sum"]);
  assert.equal(a.identity, serverDefs(config({ a: { command: "x" } }))[0].identity);
});

Deno.test("serverDefs() names the pool block for a bad pool-wide filter, and a per-server field", () => {
  const rejects = (pool: Record<string, unknown>, re: RegExp) =>
    assert.throws(
      () => serverDefs(config({ a: { command: "x" }, b: { command: "y" } }, pool)),
      (e: unknown) => e instanceof McpxError && e.code === "CONFIG_INVALID" && re.test(e.message),
    );
  rejects({ tools: "echo" }, /^"pool" in \/p\/\.mcpx\.json: "tools" must be an array/);
  rejects({ excludeTools: ["/(/"] }, /^"pool" in \/p\/\.mcpx\.json: "excludeTools"/);
  rejects({ disabled: "yes" }, /^"pool" in .*"disabled" must be true or false/);
  rejects({ namespace: "x" }, /"pool" in .*"namespace" is a server's own field/);
  rejects({ exludeTools: [] }, /unknown field "exludeTools": did you mean "excludeTools"\?/);
});
