import assert from "node:assert/strict";
import { callApi, loadApi } from "./openapi.ts";

Deno.test("loadApi() survives a $ref cycle and callApi() escapes path parameters", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/cycle.json`,
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "Tree", version: "1" },
        servers: [{ url: "http://127.0.0.1:9/v1" }],
        paths: {
          "/node/{id}": {
            get: {
              parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
              responses: {
                "200": {
                  description: "ok",
                  content: {
                    "application/json": { schema: { $ref: "#/components/schemas/Node" } },
                  },
                },
              },
            },
          },
        },
        components: {
          schemas: {
            Node: {
              type: "object",
              properties: {
                children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
              },
            },
          },
        },
      }),
    );
    const api = await loadApi("cycle.json", dir);
    assert.equal(api.base, "http://127.0.0.1:9/v1");
    assert.deepEqual(api.tools.map((t) => t.name), ["get_node_id"]);
    assert.doesNotThrow(() => JSON.stringify(api.tools));
    const urls: string[] = [];
    const fake = ((url: string) => {
      urls.push(url);
      return Promise.resolve(Response.json({ children: [] }));
    }) as unknown as typeof fetch;
    const out = await callApi(api, "get_node_id", { id: "../admin?x=1" }, {}, fake);
    assert.equal(out.status, 200);
    assert.deepEqual(urls, ["http://127.0.0.1:9/v1/node/..%2Fadmin%3Fx%3D1"]);
    await assert.rejects(() => callApi(api, "get_node_id", {}, {}, fake), /path parameter "id"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
