/**
 * `mcpx openapi` (lib/surfaces/openapi.ts): the document is valid OpenAPI 3.1 by an independent
 * validator, and it and the `/v1` router agree both ways: every path it describes is routed with
 * that method, and every route the table declares is described.
 */
import assert from "node:assert/strict";
import SwaggerParser from "@apidevtools/swagger-parser";
import { z } from "zod";
import { OPERATIONS } from "../lib/operations/mod.ts";
import { openapiDocument } from "../lib/surfaces/openapi.ts";
import { buildRouter } from "../lib/surfaces/http.ts";

type Doc = { paths: Record<string, Record<string, { operationId: string }>> };

Deno.test("openapi: the document validates as OpenAPI 3.1", async () => {
  const doc = openapiDocument(OPERATIONS, z);
  // validate() dereferences in place: hand it a copy.
  const checked = await SwaggerParser.validate(structuredClone(doc) as never);
  assert.equal((checked as { openapi: string }).openapi, "3.1.0");
  const ids = Object.values((doc as Doc).paths).flatMap((p) =>
    Object.values(p).map((o) => o.operationId)
  );
  assert.equal(new Set(ids).size, ids.length, "operationIds are unique");
});

Deno.test("openapi: every path it describes is a route of /v1, and every route is described", async () => {
  const doc = openapiDocument(OPERATIONS, z) as Doc;
  // The router matches before it runs anything: a context is never asked for.
  const route = buildRouter(OPERATIONS, () => {
    throw new Error("matched: not run here");
  });
  for (const [path, methods] of Object.entries(doc.paths)) {
    assert.match(path, /^\/v1\//);
    for (const method of Object.keys(methods)) {
      const url = "http://mcpx" + path.replace(/\{\w+\}/g, "x");
      const res = await route(new Request(url, { method: method.toUpperCase() }));
      const body = await res.text();
      assert.doesNotMatch(body, /No route|is not allowed on/, `${method} ${path}: ${body}`);
    }
  }
  const declared = OPERATIONS.flatMap((op) =>
    "method" in op.http ? [op.http.path, ...(op.http.also ?? []).map((a) => a.path)] : []
  );
  assert.deepEqual(Object.keys(doc.paths).sort(), [...new Set(declared)].sort());
  // Upstream tools are templated, never enumerated.
  assert.ok(doc.paths["/v1/call/{server}/{tool}"]?.post);
  assert.ok(doc.paths["/v1/tools/{server}.{tool}"]?.post);
  assert.ok(doc.paths["/v1/openapi.json"]?.get);
  // A path nobody declared is not routed: the check above can fail.
  const none = await route(new Request("http://mcpx/v1/nothing-here"));
  assert.match(await none.text(), /No route/);
});
