import { defineOperation } from "./define.ts";
import { renderTable } from "../table.ts";
import type { Context } from "../context.ts";

interface LsRow {
  namespace: string;
  name: string;
  tools: number | null;
  sharing: string;
  scope: string;
  live: number;
  state: string;
  description: string;
  error?: string;
  listedAt?: string;
  aliasOf?: string;
}

const NEXT_READY =
  "Next: `mcpx types <namespace>` for signatures, `mcpx search <query>` to find a tool.";
const NEXT_UNLISTED =
  "Next: `mcpx refresh` lists the servers marked unlisted (once; the result is cached), then `mcpx types <namespace>`.";

function clip(text: string, width: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > width ? one.slice(0, width - 1) + "…" : one;
}

/** Live process counts from a running daemon, without starting one. */
async function liveCounts(ctx: Context): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  try {
    Deno.lstatSync((await ctx.paths()).socket);
  } catch {
    return counts; // no socket file: no daemon, nothing live
  }
  const { callDaemon } = await import("../daemon/client.ts");
  const answer = await callDaemon(ctx, { method: "GET", path: "/v1/status", start: false })
    .catch(() => undefined);
  const status = answer?.value as { servers?: { namespace: string; live: number }[] } | undefined;
  for (const s of status?.servers ?? []) counts.set(s.namespace, s.live);
  return counts;
}

/** `mcpx ls`: every namespace, from the schema cache; no server is started. */
export const namespacesList = defineOperation<
  Record<string, never>,
  { namespaces: LsRow[]; next: string }
>({
  id: "namespaces.list",
  summary: "List the namespaces: tools, sharing, scope, live processes, state",
  description:
    "Answers from the schema cache without starting a server (or a daemon). A server that failed to list says why in its row; one never listed says `unlisted` until `mcpx refresh`.",
  params: [],
  cli: { command: ["ls"] },
  http: { method: "GET", path: "/v1/namespaces" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  output: (z) =>
    z.object({
      namespaces: z.array(
        z.object({
          namespace: z.string(),
          tools: z.number().nullable(),
          sharing: z.string(),
          scope: z.string(),
          live: z.number(),
          state: z.string(),
          description: z.string(),
        }).loose(),
      ),
      next: z.string(),
    }),
  async run(_input, ctx) {
    const { loadNamespaces } = await import("../discovery/load.ts");
    const [{ namespaces, warnings }, live] = await Promise.all([
      loadNamespaces(ctx),
      liveCounts(ctx),
    ]);
    for (const w of warnings) ctx.io.err(`mcpx: warning: ${w}\n`);
    const rows = namespaces.map(({ def, cached, tools, state }): LsRow => ({
      namespace: def.namespace,
      name: def.name,
      tools: state === "unlisted" || (state === "error" && !cached?.tools) ? null : tools.length,
      sharing: def.pool.sharing,
      scope: def.pool.scope,
      live: live.get(def.namespace) ?? 0,
      state,
      description: state === "error"
        ? `server "${def.name}": ${cached?.error ?? "failed"}`
        : def.description ?? (def.aliasOf ? `alias of ${def.aliasOf}` : ""),
      ...(cached?.error ? { error: cached.error } : {}),
      ...(cached?.listedAt ? { listedAt: cached.listedAt } : {}),
      ...(def.aliasOf ? { aliasOf: def.aliasOf } : {}),
    }));
    return {
      namespaces: rows,
      next: rows.some((r) => r.state === "unlisted") ? NEXT_UNLISTED : NEXT_READY,
    };
  },
  render(out) {
    if (out.namespaces.length === 0) {
      return "no servers selected (see `mcpx config`, --profile, --all-profiles)\n";
    }
    return renderTable(
      ["NAMESPACE", "TOOLS", "SHARING", "SCOPE", "LIVE", "STATE", "DESCRIPTION"],
      out.namespaces.map((r) => [
        r.namespace,
        r.tools === null ? "-" : String(r.tools),
        r.sharing,
        r.scope,
        String(r.live),
        r.state,
        clip(r.description, 60),
      ]),
    ) + "\n" + out.next + "\n";
  },
});
