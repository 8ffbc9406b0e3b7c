import { defineOperation } from "./define.ts";

/** `mcpx openapi`: the OpenAPI document of `/v1`, the one the daemon serves. */
export const openapiShow = defineOperation<Record<string, never>, Record<string, unknown>>({
  id: "openapi.show",
  summary:
    "Print the OpenAPI document of the daemon's /v1 API (what it serves at /v1/openapi.json)",
  description:
    "One document, generated from the operations table: every /v1 route, upstream tools templated as /v1/call/{server}/{tool} rather than listed, so it is the same on every machine. The daemon serves the same bytes at GET /v1/openapi.json.",
  params: [],
  cli: {
    command: ["openapi"],
    examples: [["mcpx openapi", "The OpenAPI document of /v1"], [
      "mcpx openapi > mcpx-openapi.json",
      "Save it for a client generator",
    ]],
  },
  http: { method: "GET", path: "/v1/openapi.json" },
  mcp: { expose: false },
  where: "local",
  output: (z) =>
    z.object({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) }).loose(),
  run: (_input, ctx) => ctx.host.openapiDocument(),
  render: (doc) => JSON.stringify(doc, null, 2) + "\n",
});
