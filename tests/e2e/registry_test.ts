// `mcpx registry` (docs/registry.md) against a registry the test serves on 127.0.0.1, implementing
// the published `/v0.1/servers` API with fixture entries: remote-only, npm, pypi, docker, required
// variables, an inactive one; and registries that answer 500, HTML and 20 MB.

import assert from "node:assert/strict";
import { join } from "node:path";
import { Sandbox } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

const OFFICIAL = "io.modelcontextprotocol.registry/official";

function wrap(server: { name: string; version?: string; [k: string]: unknown }, status = "active") {
  return { server, _meta: { [OFFICIAL]: { status, isLatest: true } } };
}

/** A package file the fixture registry serves, and its SHA-256 as a registry entry carries it. */
const FILE = new TextEncoder().encode("the bytes of a published tarball\n");
const FILE_SHA = Array.from(
  new Uint8Array(await crypto.subtle.digest("SHA-256", FILE)),
  (b) => b.toString(16).padStart(2, "0"),
).join("");
const OTHER_SHA = "0".repeat(64);

/** A zip archive of `files`, stored (not deflated), as an MCP bundle is shipped. */
function zipOf(files: Record<string, string>): Uint8Array<ArrayBuffer> {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (b: Uint8Array) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const enc = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const n = enc.encode(name), data = enc.encode(text), crc = crc32(data);
    const local = new Uint8Array(30 + n.length + data.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, data.length, true);
    lv.setUint32(22, data.length, true);
    lv.setUint16(26, n.length, true);
    local.set(n, 30);
    local.set(data, 30 + n.length);
    const central = new Uint8Array(46 + n.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 0x031e, true);
    cv.setUint16(6, 20, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, data.length, true);
    cv.setUint32(24, data.length, true);
    cv.setUint16(28, n.length, true);
    cv.setUint32(38, (0o100644 << 16) >>> 0, true);
    cv.setUint32(42, offset, true);
    central.set(n, 46);
    locals.push(local);
    centrals.push(central);
    offset += local.length;
  }
  const size = centrals.reduce((a, c) => a + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, centrals.length, true);
  ev.setUint16(10, centrals.length, true);
  ev.setUint32(12, size, true);
  ev.setUint32(16, offset, true);
  const all = new Uint8Array(offset + size + 22);
  let at = 0;
  for (const part of [...locals, ...centrals, end]) [all.set(part, at), at += part.length];
  return all;
}

/** A bundle whose server is server-everything, its options a default and a required secret. */
const BUNDLE = zipOf({
  "manifest.json": JSON.stringify({
    manifest_version: "0.3",
    name: "bundle",
    version: "1.0.0",
    server: {
      type: "node",
      entry_point: "server/index.mjs",
      mcp_config: {
        command: "node",
        args: ["${__dirname}/server/index.mjs"],
        env: { GREETING: "${user_config.greeting}", BUNDLE_KEY: "${user_config.api_key}" },
      },
    },
    user_config: {
      greeting: { type: "string", default: "hello" },
      api_key: { type: "string", sensitive: true, required: true, title: "API key" },
    },
  }),
  "server/index.mjs": `await import(${
    JSON.stringify(
      new URL(
        `file://${REPO}/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js`,
      ).href,
    )
  });\n`,
});
const BUNDLE_SHA = Array.from(
  new Uint8Array(await crypto.subtle.digest("SHA-256", BUNDLE)),
  (b) => b.toString(16).padStart(2, "0"),
).join("");

/** Entries carrying fileSha256, their files served by the same fixture at `{base}`. */
function hashed(base: string) {
  const npm = (name: string, sha: string) =>
    wrap({
      name: `io.github.someone/${name}`,
      version: "1.0.0",
      packages: [{
        registryType: "npm",
        registryBaseUrl: `${base}/npm`,
        identifier: `@someone/${name}`,
        version: "1.0.0",
        fileSha256: sha,
      }],
    });
  return [
    npm("sha-good", FILE_SHA),
    npm("sha-bad", OTHER_SHA),
    wrap({
      name: "io.github.someone/sha-py",
      version: "0.1.0",
      packages: [{
        registryType: "pypi",
        registryBaseUrl: `${base}/pypi-index`,
        identifier: "sha-py",
        version: "0.1.0",
        fileSha256: FILE_SHA,
      }],
    }),
    wrap({
      name: "io.github.someone/sha-docker",
      version: "1.0.0",
      packages: [{
        registryType: "oci",
        identifier: "ghcr.io/someone/sha",
        version: "1.0.0",
        fileSha256: FILE_SHA,
      }],
    }),
    ...([["bundle", BUNDLE_SHA], ["bundle-bad", OTHER_SHA], ["bundle-nosha", undefined]] as const)
      .map(([name, sha]) =>
        wrap({
          name: `io.github.someone/${name}`,
          version: "1.0.0",
          packages: [{
            registryType: "mcpb",
            identifier: `${base}/files/bundle.mcpb`,
            version: "1.0.0",
            ...(sha ? { fileSha256: sha } : {}),
            transport: { type: "stdio" },
          }],
        })
      ),
  ];
}

const ENTRIES = [
  wrap({
    name: "com.example/weather-remote",
    description: "Weather over HTTP",
    version: "1.0.0",
    remotes: [{
      type: "streamable-http",
      url: "https://{region}.weather.example/mcp",
      variables: { region: { default: "eu" } },
      headers: [{
        name: "Authorization",
        value: "Bearer {api_key}",
        variables: { api_key: { isSecret: true, isRequired: true, description: "Your key" } },
      }],
    }],
    packages: [{ registryType: "npm", identifier: "weather-npm", version: "9.9.9" }],
  }),
  wrap({
    name: "io.github.someone/weather-npm",
    description: "Weather from npm",
    version: "2.3.4",
    packages: [{
      registryType: "npm",
      identifier: "@someone/weather-mcp",
      version: "2.3.4",
      transport: { type: "stdio" },
      packageArguments: [
        {
          type: "named",
          name: "--units",
          value: "{units}",
          variables: { units: { default: "metric" } },
        },
        { type: "positional", valueHint: "data_dir", isRequired: true },
      ],
      environmentVariables: [
        { name: "WEATHER_API_KEY", isRequired: true, isSecret: true, description: "API key" },
        { name: "WEATHER_OPTIONAL", description: "not needed" },
      ],
    }],
  }),
  wrap({
    name: "io.github.someone/weather-py",
    version: "0.5.0",
    packages: [{
      registryType: "pypi",
      identifier: "weather-mcp",
      version: "0.5.0",
      transport: { type: "stdio" },
    }],
  }),
  wrap({
    name: "io.github.someone/weather-docker",
    version: "3.0.0",
    packages: [{
      registryType: "oci",
      identifier: "ghcr.io/someone/weather",
      version: "3.0.0",
      transport: { type: "stdio" },
      environmentVariables: [{ name: "TOKEN", isRequired: true, isSecret: true }],
    }],
  }),
  wrap({
    name: "io.github.someone/weather-hinted",
    version: "1.1.0",
    packages: [{
      registryType: "npm",
      identifier: "weather-hinted",
      version: "1.1.0",
      runtimeHint: "bunx",
    }],
  }),
  wrap({ name: "io.github.someone/weather-gone", version: "1.0.0", packages: [] }, "deleted"),
];

function serveRegistry(): { url: string; requests: string[]; close(): Promise<void> } {
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const url = new URL(req.url);
    requests.push(url.pathname + url.search);
    if (url.pathname.startsWith("/broken/")) return new Response("oops", { status: 500 });
    if (url.pathname.startsWith("/html/")) {
      return new Response("<html>hi</html>", { headers: { "content-type": "text/html" } });
    }
    if (url.pathname.startsWith("/huge/")) {
      const chunk = new TextEncoder().encode(" ".repeat(1 << 20));
      let n = 0;
      return new Response(
        new ReadableStream({
          pull(c) {
            n++ < 20 ? c.enqueue(chunk) : c.close();
          },
        }),
      );
    }
    if (url.pathname === "/files/bundle.mcpb") return new Response(BUNDLE);
    if (url.pathname.startsWith("/npm/") && url.pathname.endsWith("-1.0.0.tgz")) {
      return new Response(FILE);
    }
    if (url.pathname === "/pypi-index/pypi/sha-py/0.1.0/json") {
      return Response.json({
        urls: [{ filename: "sha_py-0.1.0.tar.gz", digests: { sha256: FILE_SHA } }],
      });
    }
    if (url.pathname === "/v0.1/servers") {
      const words = (url.searchParams.get("search") ?? "").toLowerCase();
      const hits = ENTRIES.filter((e) => e.server.name.toLowerCase().includes(words));
      // Two per page, so the cursor is followed.
      const at = Number(url.searchParams.get("cursor") ?? "0");
      const page = hits.slice(at, at + 2);
      return Response.json({
        servers: page,
        metadata: {
          count: page.length,
          ...(at + 2 < hits.length ? { nextCursor: String(at + 2) } : {}),
        },
      });
    }
    const m = /^\/v0\.1\/servers\/([^/]+)\/versions(?:\/([^/]+))?$/.exec(url.pathname);
    if (m) {
      const name = decodeURIComponent(m[1]);
      const found = [...ENTRIES, ...hashed(`http://${req.headers.get("host")}`)].filter((e) =>
        e.server.name === name
      );
      if (!found.length) return Response.json({ title: "Not Found" }, { status: 404 });
      if (m[2]) {
        const v = found.find((e) => e.server.version === decodeURIComponent(m[2]));
        return v ? Response.json(v) : Response.json({}, { status: 404 });
      }
      return Response.json({ servers: found, metadata: { count: found.length } });
    }
    return new Response("not found", { status: 404 });
  });
  const port = (server.addr as Deno.NetAddr).port;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => server.shutdown() };
}

interface Shown {
  as: string;
  source: string;
  entry: {
    command?: string;
    args?: string[];
    env?: Record<string, string>;
    url?: string;
    type?: string;
    headers?: Record<string, string>;
  };
  required: { name: string; secret: boolean }[];
  written: boolean;
}

Deno.test("registry search follows the cursor and leaves out entries that are not active", async () => {
  const reg = serveRegistry();
  try {
    await using box = await Sandbox.create();
    const out = await box.json<{ servers: { name: string; kinds: string[] }[] }>(
      ["registry", "search", "weather"],
      { env: { MCPX_REGISTRY_URL: reg.url } },
    );
    assert.deepEqual(out.servers.map((s) => s.name), ENTRIES.slice(0, 5).map((e) => e.server.name));
    assert.deepEqual(out.servers[0].kinds, ["remote", "npm"]);
    assert.ok(reg.requests.some((r) => r.includes("cursor=2")), reg.requests.join("\n"));
  } finally {
    await reg.close();
  }
});

Deno.test("registry show translates each kind of entry; required variables are named, never given values", async () => {
  const reg = serveRegistry();
  try {
    await using box = await Sandbox.create();
    const show = (name: string) =>
      box.json<Shown>(["registry", "show", name], { env: { MCPX_REGISTRY_URL: reg.url } });

    const remote = await show("com.example/weather-remote");
    assert.equal(remote.source, "remote", "a remote is preferred over the package");
    assert.equal(remote.as, "weather_remote");
    assert.deepEqual(remote.entry, {
      type: "http",
      url: "https://eu.weather.example/mcp",
      headers: { Authorization: "Bearer ${API_KEY}" },
    });
    assert.deepEqual(remote.required, [{ name: "API_KEY", description: "Your key", secret: true }]);

    const npm = await show("io.github.someone/weather-npm");
    assert.equal(npm.as, "weather_npm");
    assert.deepEqual(npm.entry.command, "npx");
    assert.deepEqual(npm.entry.args, [
      "-y",
      "@someone/weather-mcp@2.3.4",
      "--units",
      "metric",
      "${DATA_DIR}",
    ]);
    assert.deepEqual(npm.entry.env, { WEATHER_API_KEY: "${WEATHER_API_KEY}" });
    assert.deepEqual(npm.required.map((r) => r.name), ["DATA_DIR", "WEATHER_API_KEY"]);

    const py = await show("io.github.someone/weather-py");
    assert.deepEqual([py.entry.command, ...py.entry.args!], ["uvx", "weather-mcp==0.5.0"]);

    const docker = await show("io.github.someone/weather-docker");
    assert.deepEqual([docker.entry.command, ...docker.entry.args!], [
      "docker",
      "run",
      "--rm",
      "-i",
      "-e",
      "TOKEN",
      "ghcr.io/someone/weather:3.0.0",
    ]);
    assert.deepEqual(docker.required.map((r) => r.name), ["TOKEN"]);

    const hinted = await show("io.github.someone/weather-hinted");
    assert.deepEqual([hinted.entry.command, ...hinted.entry.args!], [
      "bunx",
      "weather-hinted@1.1.0",
    ], "the publisher's runtime hint wins");

    const gone = await box.mcpx(["registry", "show", "io.github.someone/weather-gone"], {
      env: { MCPX_REGISTRY_URL: reg.url },
    });
    assert.equal(gone.code, 5);
    assert.match(gone.stderr, /no active server "io\.github\.someone\/weather-gone"/);
  } finally {
    await reg.close();
  }
});

Deno.test("registry add --write keeps the file's comments; a broken or read-only file is left untouched", async () => {
  const reg = serveRegistry();
  try {
    await using box = await Sandbox.create();
    const env = { MCPX_REGISTRY_URL: reg.url };
    const text =
      `{\n  // my servers\n  "mcpServers": {\n    "keep": { "command": "true" } // this one stays\n  }\n}\n`;
    const path = await box.write("work/.mcpx.json", text);
    const dry = await box.mcpx(["registry", "add", "io.github.someone/weather-py"], { env });
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(Deno.readTextFileSync(path), text, "without --write nothing is written");

    const added = await box.json<Shown & { file: string }>([
      "registry",
      "add",
      "io.github.someone/weather-py",
      "--write",
    ], { env });
    assert.equal(added.written, true);
    const after = Deno.readTextFileSync(path);
    assert.ok(after.includes("// my servers") && after.includes("// this one stays"), after);
    const ls = await box.json<{ namespaces: { namespace: string }[] }>(["ls"]);
    assert.deepEqual(ls.namespaces.map((n) => n.namespace).sort(), ["keep", "weather_py"]);

    const again = await box.mcpx(["registry", "add", "io.github.someone/weather-py", "--write"], {
      env,
    });
    assert.equal(again.code, 3);
    assert.match(again.stderr, /already has a server "weather_py"/);
    assert.equal(Deno.readTextFileSync(path), after);

    const broken = `{ "mcpServers": { `;
    Deno.writeTextFileSync(path, broken);
    const bad = await box.mcpx([
      "registry",
      "add",
      "io.github.someone/weather-npm",
      "--write",
      "--config",
      path,
    ], { env });
    assert.equal(bad.code, 3, bad.stderr);
    assert.equal(bad.stderr.trim().split("\n").length, 1, bad.stderr);
    assert.equal(Deno.readTextFileSync(path), broken);

    Deno.writeTextFileSync(path, text);
    Deno.chmodSync(path, 0o400);
    const ro = await box.mcpx(["registry", "add", "io.github.someone/weather-npm", "--write"], {
      env,
    });
    assert.equal(ro.code, 3, ro.stderr);
    assert.match(ro.stderr, /read-only/);
    assert.equal(ro.stderr.trim().split("\n").length, 1, ro.stderr);
    assert.equal(Deno.readTextFileSync(path), text);
    Deno.chmodSync(path, 0o600);
  } finally {
    await reg.close();
  }
});

Deno.test("registry add --write on a terminal shows the diff before writing", async () => {
  const reg = serveRegistry();
  try {
    await using box = await Sandbox.create();
    const path = await box.write("work/.mcpx.json", { mcpServers: {} });
    // `script` gives the command a terminal of its own.
    const line = [Deno.execPath(), "run", "-A", "--config", join(REPO, "deno.json"), box.entry]
      .concat(["registry", "add", "io.github.someone/weather-py", "--write"]).join(" ");
    const out = await new Deno.Command("script", {
      args: ["-qec", line, "/dev/null"],
      cwd: join(box.root, "work"),
      env: { ...box.env, MCPX_REGISTRY_URL: reg.url },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout).replaceAll("\r", "");
    assert.equal(out.code, 0, text);
    assert.match(text, /@@ line 2 @@\n/);
    assert.match(text, /^\+\s+"weather_py": \{$/m);
    assert.ok(text.indexOf("@@ line") < text.indexOf('added "weather_py"'), text);
    assert.match(Deno.readTextFileSync(path), /"weather_py"/);
  } finally {
    await reg.close();
  }
});

Deno.test("a registry answering 500, HTML or 20 MB is one line each", async () => {
  const reg = serveRegistry();
  try {
    await using box = await Sandbox.create();
    for (
      const [prefix, why] of [["broken", /HTTP 500/], ["html", /not JSON/], [
        "huge",
        /more than the \d+ bytes/,
      ]] as const
    ) {
      const r = await box.mcpx(["registry", "search", "x"], {
        env: { MCPX_REGISTRY_URL: `${reg.url}/${prefix}` },
      });
      assert.equal(r.code, 6, r.stderr);
      const lines = r.stderr.trim().split("\n");
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0], why);
    }
  } finally {
    await reg.close();
  }
});

Deno.test("registry add --write keeps a trusted project trusted", async () => {
  const reg = serveRegistry();
  try {
    await using box = await Sandbox.create(undefined, { trustAll: false });
    const env = { MCPX_REGISTRY_URL: reg.url };
    await box.write("work/.mcpx.json", { mcpServers: {} });
    await box.json(["trust"]);
    const added = await box.mcpx(["registry", "add", "io.github.someone/weather-py", "--write"], {
      env,
    });
    assert.equal(added.code, 0, added.stderr);
    const list = await box.json<{ entries: { state: string }[] }>(["trust", "--list"]);
    assert.deepEqual(list.entries.map((e) => e.state), ["current"]);
  } finally {
    await reg.close();
  }
});

Deno.test("registry add names the file it needs", async () => {
  const reg = serveRegistry();
  try {
    await using box = await Sandbox.create();
    await Deno.mkdir(join(box.root, "work"), { recursive: true });
    const r = await box.mcpx(["registry", "add", "io.github.someone/weather-py", "--write"], {
      env: { MCPX_REGISTRY_URL: reg.url },
    });
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /No configuration file/);
  } finally {
    await reg.close();
  }
});

Deno.test("registry add: a fileSha256 is checked against the package's file, never passed over", async () => {
  const reg = serveRegistry();
  try {
    await using box = await Sandbox.create();
    const env = { MCPX_REGISTRY_URL: reg.url };
    const text = `{\n  // mine\n  "mcpServers": {}\n}\n`;
    const path = await box.write("work/.mcpx.json", text);

    const good = await box.json<Shown & { verified?: string }>([
      "registry",
      "add",
      "io.github.someone/sha-good",
    ], { env });
    assert.equal(good.verified, `${reg.url}/npm/@someone/sha-good/-/sha-good-1.0.0.tgz`);
    assert.deepEqual(good.entry.args, ["-y", "@someone/sha-good@1.0.0"]);
    const shown = await box.mcpx(["registry", "show", "io.github.someone/sha-good"], { env });
    assert.match(shown.stdout, /fileSha256 matches http:\/\/127\.0\.0\.1:\d+\/npm\//);
    const py = await box.json<Shown & { verified?: string }>([
      "registry",
      "show",
      "io.github.someone/sha-py",
    ], { env });
    assert.equal(py.verified, `${reg.url}/pypi-index/pypi/sha-py/0.1.0/json`);

    const refused: [string, number, RegExp][] = [
      [
        "sha-bad",
        6,
        new RegExp(`does not match its fileSha256 ${"0".repeat(64)}: .* hashes to ${FILE_SHA}`),
      ],
      ["sha-docker", 5, /an oci image is not one file mcpx can hash/],
      [
        "bundle-bad",
        6,
        /The file of the MCP bundle of "io\.github\.someone\/bundle-bad" does not match/,
      ],
      ["bundle-nosha", 5, /it carries no fileSha256/],
    ];
    for (const [name, code, why] of refused) {
      const r = await box.mcpx(["registry", "add", `io.github.someone/${name}`, "--write"], {
        env,
      });
      assert.equal(r.code, code, `${name}: ${r.stderr}`);
      assert.match(r.stderr, why);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.equal(Deno.readTextFileSync(path), text, `${name}: the configuration is untouched`);
    }
  } finally {
    await reg.close();
  }
});

Deno.test("registry add: an MCP bundle is checked, unpacked into the state folder and runs", async () => {
  const reg = serveRegistry();
  try {
    await using box = await Sandbox.create();
    const env = { MCPX_REGISTRY_URL: reg.url };
    const path = await box.write("work/.mcpx.json", { mcpServers: {} });
    const dir = join(box.root, "state", "mcpx", "mcpb", `bundle-${BUNDLE_SHA.slice(0, 16)}`);
    const shown = await box.json<Shown & { verified: string }>(
      ["registry", "show", "io.github.someone/bundle"],
      { env },
    );
    assert.equal(shown.source, "mcpb");
    assert.equal(shown.verified, `${reg.url}/files/bundle.mcpb`);
    assert.deepEqual(shown.entry, {
      command: "node",
      args: [`${dir}/server/index.mjs`],
      env: { GREETING: "hello", BUNDLE_KEY: "${API_KEY}" },
    });
    assert.deepEqual(shown.required, [{ name: "API_KEY", description: "API key", secret: true }]);
    assert.equal(await Deno.stat(dir).then(() => true, () => false), false, "show unpacks nothing");

    const added = await box.json<Shown>(
      ["registry", "add", "io.github.someone/bundle", "--write"],
      {
        env,
      },
    );
    assert.equal(added.written, true);
    assert.ok(Deno.readTextFileSync(`${dir}/server/index.mjs`).includes("server-everything"));
    assert.equal(Deno.statSync(dir).mode! & 0o022, 0, "nobody else may write the bundle");
    const call = await box.json<{ content: { text: string }[] }>(
      ["call", "bundle.get-env"],
      { env: { API_KEY: "s3cret" } },
    );
    const seen = JSON.parse(call.content[0].text);
    assert.equal(seen.GREETING, "hello");
    assert.equal(seen.BUNDLE_KEY, "s3cret");
    assert.ok(Deno.readTextFileSync(path).includes(`${dir}/server/index.mjs`));
    await box.mcpx(["stop", "--all"]);
  } finally {
    await reg.close();
  }
});
