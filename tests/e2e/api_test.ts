import assert from "node:assert/strict";
import { Sandbox } from "../_helpers.ts";

/** A petstore-like API on 127.0.0.1: its documents (3.0 with a relative server, 3.1, 2.0) too. */
function petstore() {
  const pets = [
    { id: 1, name: "Rex", status: "available" },
    { id: 2, name: "a/b", status: "sold" },
  ];
  const seen: { method: string; url: string; auth: string | null; key: string | null }[] = [];
  const pet = {
    type: "object",
    properties: { id: { type: "integer" }, name: { type: "string" }, status: { type: "string" } },
  };
  const paths30 = {
    "/pet/findByStatus": {
      get: {
        operationId: "findPetsByStatus",
        summary: "Finds pets by status",
        parameters: [{
          name: "status",
          in: "query",
          required: true,
          schema: { type: "string", enum: ["available", "sold"] },
        }],
        responses: {
          "200": {
            description: "ok",
            content: {
              "application/json": {
                schema: { type: "array", items: { $ref: "#/components/schemas/Pet" } },
              },
            },
          },
        },
      },
    },
    "/pet/{name}": {
      get: {
        parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } },
          },
        },
      },
      delete: {
        operationId: "deletePet",
        parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
        responses: { "204": { description: "gone" } },
      },
    },
    "/pet": {
      post: {
        operationId: "addPet",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } },
        },
        responses: { "200": { description: "ok" } },
      },
    },
    "/old": {
      get: {
        operationId: "oldList",
        deprecated: true,
        responses: { "200": { description: "ok" } },
      },
    },
  };
  let port = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const doc = (v: string) => {
      if (v === "2.0") {
        return {
          swagger: "2.0",
          info: { title: "Petstore 2", version: "1" },
          host: `127.0.0.1:${port}`,
          basePath: "/api/v3",
          schemes: ["http"],
          paths: {
            "/pet/findByStatus": {
              get: {
                operationId: "findPetsByStatus",
                parameters: [{ name: "status", in: "query", required: true, type: "string" }],
                responses: { "200": { description: "ok", schema: { type: "array", items: pet } } },
              },
            },
            "/pet": {
              post: {
                operationId: "addPet",
                parameters: [{ name: "body", in: "body", required: true, schema: pet }],
                responses: { "200": { description: "ok" } },
              },
            },
          },
        };
      }
      return {
        openapi: v === "3.1" ? "3.1.0" : "3.0.3",
        info: { title: `Petstore ${v}`, version: "1" },
        servers: [{ url: v === "3.1" ? `http://127.0.0.1:${port}/api/v3` : "/api/v3" }],
        paths: paths30,
        components: { schemas: { Pet: pet } },
      };
    };
    const m = /^\/docs\/(3\.0|3\.1|2\.0)\.json$/.exec(url.pathname);
    if (m) return Response.json(doc(m[1]));
    seen.push({
      method: req.method,
      url: url.pathname + url.search,
      auth: req.headers.get("authorization"),
      key: req.headers.get("x-api-key"),
    });
    if (url.pathname === "/api/v3/pet/findByStatus") {
      return Response.json(pets.filter((p) => p.status === url.searchParams.get("status")));
    }
    if (url.pathname === "/api/v3/pet" && req.method === "POST") {
      const body = await req.json();
      return Response.json({ id: 3, ...body });
    }
    const one = /^\/api\/v3\/pet\/(.+)$/.exec(url.pathname);
    if (one) {
      const name = decodeURIComponent(one[1]);
      const found = pets.find((p) => p.name === name);
      return found
        ? Response.json(found)
        : Response.json({ message: "no such pet" }, { status: 404 });
    }
    return new Response("not found", { status: 404 });
  });
  port = server.addr.port;
  return { base: `http://127.0.0.1:${port}`, seen, server };
}

interface Tools {
  base: string;
  tools: { name: string; method: string; path: string; description?: string }[];
}

Deno.test("api tools/call: OpenAPI 3.0, 3.1 and Swagger 2.0 documents as tools", async () => {
  await using box = await Sandbox.create();
  const api = petstore();
  try {
    // 3.0: the relative server resolves against where the document was fetched.
    const t30 = await box.json<Tools>(["api", "tools", "--spec", `${api.base}/docs/3.0.json`]);
    assert.equal(t30.base, `${api.base}/api/v3`);
    assert.deepEqual(t30.tools.map((t) => t.name), ["findPetsByStatus", "get_pet_name"]);
    const all = await box.json<Tools>([
      "api",
      "tools",
      "--spec",
      `${api.base}/docs/3.0.json`,
      "--methods",
      "all",
      "--deprecated",
    ]);
    assert.deepEqual(all.tools.map((t) => t.name).sort(), [
      "addPet",
      "deletePet",
      "findPetsByStatus",
      "get_pet_name",
      "oldList",
    ]);
    assert.match(all.tools.find((t) => t.name === "oldList")!.description!, /deprecated/);

    const found = await box.json<{ status: number; body: { name: string }[] }>([
      "api",
      "call",
      "--spec",
      `${api.base}/docs/3.0.json`,
      "findPetsByStatus",
      "status=available",
    ]);
    assert.equal(found.status, 200);
    assert.deepEqual(found.body.map((p) => p.name), ["Rex"]);
    // A slash in a path parameter stays in the parameter.
    const slashed = await box.json<{ body: { id: number } }>([
      "api",
      "call",
      "--spec",
      `${api.base}/docs/3.1.json`,
      "get_pet_name",
      "name=a/b",
    ]);
    assert.equal(slashed.body.id, 2);
    assert.equal(api.seen.at(-1)!.url, "/api/v3/pet/a%2Fb");

    // Writes are refused unless asked for.
    const refused = await box.mcpx([
      "api",
      "call",
      "--spec",
      `${api.base}/docs/3.0.json`,
      "addPet",
      '{"body":{"name":"Tom"}}',
    ]);
    assert.equal(refused.code, 5);
    assert.match(refused.stderr, /No operation "addPet"/);
    const added = await box.mcpx(
      [
        "api",
        "call",
        "--spec",
        `${api.base}/docs/2.0.json`,
        "--methods",
        "all",
        "addPet",
        '{"body":{"name":"Tom"}}',
        "--bearer-env",
        "PET_TOKEN",
      ],
      { env: { PET_TOKEN: "s3cret" } },
    );
    assert.equal(added.code, 0, added.stderr);
    assert.equal(JSON.parse(added.stdout).name, "Tom");
    assert.equal(api.seen.at(-1)!.auth, "Bearer s3cret");
    assert.equal(api.seen.at(-1)!.method, "POST");

    const keyed = await box.mcpx(
      [
        "api",
        "call",
        "--spec",
        `${api.base}/docs/2.0.json`,
        "findPetsByStatus",
        "status=sold",
        "--api-key-env",
        "PET_KEY",
      ],
      { env: { PET_KEY: "k1" } },
    );
    assert.equal(keyed.code, 0, keyed.stderr);
    assert.equal(api.seen.at(-1)!.key, "k1");
    const noKey = await box.mcpx([
      "api",
      "call",
      "--spec",
      `${api.base}/docs/2.0.json`,
      "findPetsByStatus",
      "status=sold",
      "--api-key-env",
      "NOT_SET_HERE",
    ]);
    assert.equal(noKey.code, 3);
    assert.match(noKey.stderr, /NOT_SET_HERE is not set/);

    const missing = await box.mcpx([
      "api",
      "call",
      "--spec",
      `${api.base}/docs/3.0.json`,
      "get_pet_name",
      "name=nobody",
    ]);
    assert.equal(missing.code, 8);
    assert.match(missing.stdout, /no such pet/);

    // A local copy of the 3.0 document: its relative server has no http location to resolve against.
    const text = await (await fetch(`${api.base}/docs/3.0.json`)).text();
    await box.write("work/pet.json", text);
    const local = await box.mcpx(["api", "tools", "--spec", "pet.json"]);
    assert.equal(local.code, 3);
    assert.match(local.stderr, /not an http URL/);
    const unreachable = await box.mcpx(["api", "tools", "--spec", "http://127.0.0.1:1/x.json"]);
    assert.equal(unreachable.code, 3);
    assert.equal(unreachable.stderr.trim().split("\n").length, 1, unreachable.stderr);
  } finally {
    await api.server.shutdown();
  }
});

Deno.test("api serve: a document as a configured namespace and as an ad-hoc server", async () => {
  await using box = await Sandbox.create();
  const api = petstore();
  try {
    const root = new URL("../../", import.meta.url).pathname;
    const serve = [
      "run",
      "-A",
      "--config",
      `${root}deno.json`,
      `${root}main.ts`,
      "api",
      "serve",
      "--spec",
      `${api.base}/docs/3.0.json`,
      "--bearer-env",
      "PET_TOKEN",
    ];
    await box.write("work/.mcpx.json", {
      mcpServers: {
        petstore: { command: Deno.execPath(), args: serve, env: { PET_TOKEN: "t0k" } },
      },
    });
    const found = await box.json<{ content: { text: string }[] }>([
      "call",
      "petstore.findPetsByStatus",
      "status=sold",
    ]);
    assert.deepEqual(JSON.parse(found.content[0].text).map((p: { name: string }) => p.name), [
      "a/b",
    ]);
    assert.equal(api.seen.at(-1)!.auth, "Bearer t0k");
    const types = await box.mcpx(["types", "petstore.get_pet_name"]);
    assert.equal(types.code, 0, types.stderr);
    assert.match(types.stdout, /name: string/);
    const failed = await box.mcpx(["call", "petstore.get_pet_name", "name=nobody"]);
    assert.equal(failed.code, 8);
    assert.match(failed.stderr + failed.stdout, /HTTP 404/);

    const line = [Deno.execPath(), ...serve.slice(0, -2)].map((w) => `'${w}'`).join(" ");
    const adHoc = await box.json<{ content: { text: string }[]; mcpx: { server: string } }>([
      "call",
      "--stdio",
      line,
      "--name",
      "pets",
      "get_pet_name",
      "name=Rex",
    ]);
    assert.equal(JSON.parse(adHoc.content[0].text).id, 1);
    assert.equal(adHoc.mcpx.server, "pets");
    await box.mcpx(["daemon", "stop"]);
  } finally {
    await api.server.shutdown();
  }
});

Deno.test("paths.apis: documents in the configuration are namespaces", async () => {
  await using box = await Sandbox.create();
  const api = petstore();
  try {
    await box.write("work/.mcpx.json", {
      paths: { apis: `${api.base}/docs/3.1.json, pets2=${api.base}/docs/2.0.json` },
      mcpServers: {},
    });
    const refreshed = await box.mcpx(["refresh"]);
    assert.equal(refreshed.code, 0, refreshed.stderr + refreshed.stdout);
    const ls = await box.json<{ namespaces: { namespace: string; tools: number }[] }>(["ls"]);
    assert.deepEqual(ls.namespaces.map((n) => [n.namespace, n.tools]), [["_3_1", 2], ["pets2", 1]]);
    const out = await box.json<{ content: { text: string }[] }>([
      "call",
      "pets2.findPetsByStatus",
      "status=available",
    ]);
    assert.deepEqual(JSON.parse(out.content[0].text).map((p: { id: number }) => p.id), [1]);
    await box.write("work/.mcpx.json", { paths: { apis: "=x" }, mcpServers: {} });
    const bad = await box.mcpx(["ls"]);
    assert.equal(bad.code, 3);
    assert.match(bad.stderr, /"=x" in paths\.apis/);
    await box.mcpx(["daemon", "stop"]);
  } finally {
    await api.server.shutdown();
  }
});

Deno.test("paths.apis: an item's auth is the configuration's credential, never the document's", async () => {
  await using box = await Sandbox.create();
  const api = petstore();
  try {
    await box.write("work/.mcpx.json", {
      paths: {
        apis: [
          {
            name: "pets",
            spec: `${api.base}/docs/2.0.json`,
            auth: { type: "bearer", token: "${PET_TOKEN}" },
          },
          {
            name: "keyed",
            spec: `${api.base}/docs/2.0.json`,
            auth: { type: "header", name: "X-API-Key", value: "k-${PET_KEY}" },
          },
        ],
      },
      mcpServers: {},
    });
    // Without the variable: doctor names it, and the call says what is missing before it starts.
    const doctor = await box.mcpx(["--json", "doctor", "--no-start"]);
    const checks = JSON.parse(doctor.stdout).checks as {
      area: string;
      status: string;
      message: string;
      hint?: string;
    }[];
    const missing = checks.find((c) => c.area === "credentials" && c.status === "fail");
    assert.ok(missing, JSON.stringify(checks));
    assert.equal(missing.message, "pets: ${PET_TOKEN} is referenced but PET_TOKEN is not set");
    assert.match(missing.hint!, /Set PET_TOKEN/);
    const unset = await box.mcpx(["call", "pets.findPetsByStatus", "status=sold"]);
    assert.notEqual(unset.code, 0);
    assert.match(unset.stderr, /PET_TOKEN/);
    assert.equal(unset.stderr.trim().split("\n").length, 1, unset.stderr);
    await box.mcpx(["stop", "--all"]);

    const env = { PET_TOKEN: "t0k", PET_KEY: "42" };
    const pets = await box.mcpx(["call", "pets.findPetsByStatus", "status=sold"], { env });
    assert.equal(pets.code, 0, pets.stderr);
    assert.equal(api.seen.at(-1)!.auth, "Bearer t0k");
    assert.equal(api.seen.at(-1)!.key, null);
    const keyed = await box.mcpx(["call", "keyed.findPetsByStatus", "status=sold"], { env });
    assert.equal(keyed.code, 0, keyed.stderr);
    assert.equal(api.seen.at(-1)!.key, "k-42");
    assert.equal(api.seen.at(-1)!.auth, null);
    // The list parses as the setting too (settings are read by every command above).
    await box.write("work/.mcpx.json", {
      paths: { apis: [{ spec: `${api.base}/docs/2.0.json`, auth: { type: "basic", token: "x" } }] },
      mcpServers: {},
    });
    const bad = await box.mcpx(["ls"], { env });
    assert.equal(bad.code, 3);
    assert.match(bad.stderr, /an API takes bearer, header or query/);
    await box.mcpx(["stop", "--all"]);
  } finally {
    await api.server.shutdown();
  }
});

/** An OpenAPI 3.0 document of `n` read operations. */
function manyOperations(n: number): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    paths[`/things${i}/{id}`] = {
      get: {
        operationId: `getThing${i}`,
        summary: `Read thing number ${i}`,
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok" } },
      },
    };
  }
  return {
    openapi: "3.0.3",
    info: { title: "many", version: "1" },
    servers: [{ url: "http://127.0.0.1:9/" }],
    paths,
  };
}

Deno.test("bad input: 10,000 operations, a $ref cycle and an unreachable document in paths.apis", async () => {
  await using box = await Sandbox.create();
  await box.write("work/huge.json", JSON.stringify(manyOperations(10_000)));
  await box.write("work/tree.json", {
    openapi: "3.0.3",
    info: { title: "tree", version: "1" },
    servers: [{ url: "http://127.0.0.1:9/" }],
    paths: {
      "/node": {
        get: {
          operationId: "getNode",
          parameters: [{ name: "depth", in: "query", schema: { type: "integer" } }],
          responses: {
            "200": {
              description: "ok",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Node: {
          type: "object",
          properties: { children: { type: "array", items: { $ref: "#/components/schemas/Node" } } },
        },
      },
    },
  });
  await box.write("work/.mcpx.json", {
    paths: { apis: "huge=./huge.json, tree=./tree.json, gone=http://127.0.0.1:1/openapi.json" },
    mcpServers: {},
  });
  const refresh = await box.mcpx(["refresh"]);
  assert.equal(refresh.code, 6, "one document cannot be read: refresh says so");
  assert.match(refresh.stdout, /^huge: 10000 tools$/m);
  assert.match(refresh.stdout, /^tree: 1 tools$/m);
  assert.match(
    refresh.stdout,
    /^gone: error: .*Cannot read the API document http:\/\/127\.0\.0\.1:1\/openapi\.json/m,
  );

  // ls reads one summary row per namespace: the 10,000 tools are counted, not loaded.
  const ls = await box.json<
    { namespaces: { namespace: string; tools: number | null; state: string; error?: string }[] }
  >(["ls"]);
  const rows = Object.fromEntries(ls.namespaces.map((n) => [n.namespace, n]));
  assert.equal(rows.huge.tools, 10_000);
  assert.equal(rows.tree.tools, 1);
  assert.equal(rows.gone.state, "error");
  assert.equal(rows.gone.error!.includes("\n"), false, rows.gone.error);

  const catalog = await box.json<{ tokens: number; text: string }>(["catalog"]);
  assert.ok(catalog.tokens <= 2000, `catalog gave ${catalog.tokens} tokens, over its 2000 budget`);
  assert.match(catalog.text, /huge/);
  const found = await box.json<{ hits: { fn: string }[] }>(["search", "getThing9999"]);
  assert.equal(found.hits[0].fn, "huge.getThing9999");
  const one = await box.mcpx(["types", "huge.getThing9999"]);
  assert.equal(one.code, 0, one.stderr);
  assert.match(one.stdout, /function getThing9999\(args: \{ id: string \}\)/);

  // The cycle is left as its $ref: the tool is typed all the same.
  const tree = await box.mcpx(["types", "tree.getNode"]);
  assert.equal(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, /function getNode\(/);

  const gone = await box.mcpx(["call", "gone.anything"]);
  assert.notEqual(gone.code, 0);
  assert.equal(gone.stderr.trim().split("\n").length, 1, gone.stderr);
  assert.match(gone.stderr, /Cannot read the API document/);
  await box.mcpx(["stop", "--all"]);
});
