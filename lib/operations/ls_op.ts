// `mcpx ls`, in a module of its own: the command agents run most loads only what it needs, not
// the other discovery commands' code (0.17 ms of a whole `mcpx ls`, 30 interleaved runs each way).

import { defineOperation } from "./define.ts";
import { clip, renderTable } from "../table.ts";
import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import { cacheDir, type DaemonPaths, daemonPaths } from "../paths.ts";
import { readLive } from "../daemon/live.ts";
import { type LsRow as Row, lsRow, readSummary } from "../discovery/ls_summary.ts";
import { selectServers } from "../config/servers.ts";
import { dirname } from "../_path.ts";
import { exists } from "../_fs.ts";

type LsRow = Row & { live: number };

const NEXT_READY =
  "Next: `mcpx types <namespace>` for signatures, `mcpx search <query>` to find a tool.";
const NEXT_UNLISTED =
  "Next: `mcpx refresh` lists the servers marked unlisted (once; the result is cached), then `mcpx types <namespace>`.";

/** Live process counts from a running daemon, without starting one. */
async function liveCounts(ctx: Context): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let paths: DaemonPaths;
  try {
    paths = daemonPaths(ctx.boot, ctx.io.env, ctx.fingerprintSync().key);
  } catch {
    return counts; // no configuration: loadNamespaces() says so
  }
  const found = daemonFiles(paths);
  if (!found.socket) return counts; // no socket file: no daemon, nothing live
  // What the daemon keeps for this (lib/daemon/live.ts), while the daemon that wrote it runs.
  const kept = found.live ? readLive(paths.live) : undefined;
  if (kept) return new Map(Object.entries(kept.live));
  // Else the wire alone, not the daemon client: a listing only reads, and an answer from another
  // configuration's daemon, or none, is no live process.
  try {
    // Loaded only here: `ls` with no daemon, or with its live state kept, never loads it.
    const { FINGERPRINT_HEADER, wireRequest } = await load<typeof import("../daemon/wire.ts")>(
      "../daemon/wire.ts",
      import.meta.url,
    );
    const { checkSocket, readToken, TOKEN_HEADER } = await load<
      typeof import("../daemon/guard.ts")
    >("../daemon/guard.ts", import.meta.url);
    if (checkSocket(paths.socket, { fallback: paths.socketFallback }) === "absent") return counts;
    const token = readToken(paths.token);
    const res = await wireRequest(paths.socket, "GET", "/v1/status", {
      headers: token === undefined ? {} : { [TOKEN_HEADER]: token },
    });
    if (res.status !== 200 || res.headers.get(FINGERPRINT_HEADER) !== ctx.fingerprintSync().hash) {
      return counts;
    }
    const status = JSON.parse(res.text) as { servers?: { namespace: string; live: number }[] };
    for (const s of status.servers ?? []) counts.set(s.namespace, s.live);
  } catch { /* no daemon answered: nothing live */ }
  return counts;
}

/**
 * Whether the daemon's socket and its live state exist. One listing of the daemons' folder, not a
 * probe of each file: with no daemon the probe fails, and a start's first failed call costs ~0.3 ms
 * (timed with performance.now() around it in the built CLI).
 */
function daemonFiles(paths: DaemonPaths): { socket: boolean; live: boolean } {
  let names: Set<string>;
  try {
    names = new Set(Array.from(Deno.readDirSync(paths.dir), (e) => e.name));
  } catch {
    names = new Set(); // no folder: no daemon ever ran with these settings
  }
  const inDir = (path: string) =>
    dirname(path) === paths.dir
      ? names.has(path.slice(paths.dir.length + 1))
      : exists(path, { followSymlinks: false });
  return { socket: inDir(paths.socket), live: inDir(paths.live) };
}

/**
 * The rows from the summary kept beside the schema cache (lib/discovery/ls_summary.ts): neither
 * the cache nor the configuration is parsed. Undefined when there is none for the configuration
 * and the cache as they are now, or no configuration (the long way then says so).
 */
function fromSummary(ctx: Context): Row[] | undefined {
  let rows;
  try {
    rows = readSummary(cacheDir(ctx.boot, ctx.io.env), ctx.fingerprintSync().hash);
  } catch {
    return undefined;
  }
  return rows && selectServers(rows, ctx.selection());
}

/** The rows from the configuration and the whole schema cache, writing the summary anew. */
async function fromCache(ctx: Context): Promise<Row[]> {
  const { loadNamespaces } = await load<typeof import("../discovery/load.ts")>(
    "../discovery/load.ts",
    import.meta.url,
  );
  const { namespaces, warnings } = await loadNamespaces(ctx, { summarize: true });
  for (const w of warnings) ctx.io.err(`mcpx: warning: ${w}\n`);
  return namespaces.map(lsRow);
}

/** How the daemon leases an ad-hoc server (lib/operations/tool_ops.ts `adHocKey` makes it so). */
async function adHocDef(input: { stdio?: string; url?: string; name?: string }) {
  const { adHocEntry } = await load<typeof import("../config/adhoc.ts")>(
    "../config/adhoc.ts",
    import.meta.url,
  );
  const { serverDefs } = await load<typeof import("../config/servers.ts")>(
    "../config/servers.ts",
    import.meta.url,
  );
  const { name, entry } = adHocEntry(input);
  return serverDefs({ path: "(ad hoc)", mcpServers: { [name]: entry }, pool: {}, data: {} })[0];
}

/**
 * The footnote of the rows whose sharing and scope (marked `*`) are the default for a server
 * that keeps per-caller state: one line per reason, naming its namespaces.
 */
function leasingNotes(rows: readonly LsRow[]): string {
  const by = new Map<string, string[]>();
  for (const r of rows) {
    if (r.leasingDefault !== undefined) {
      by.set(r.leasingDefault, [...(by.get(r.leasingDefault) ?? []), r.namespace]);
    }
  }
  return [...by].map(([why, names]) => {
    const set = `set "sharing" and "scope" in ${names.length > 1 ? "their" : "its"} "mcpx" block`;
    return `* by default for ${
      names.join(", ")
    }: ${why}; ${set} to choose otherwise (docs/pools.md)\n`;
  }).join("");
}

/**
 * The footnote of session-scoped rows: what a named session's process costs the others (it is
 * never stopped to make room), and the setting that changes that.
 */
function sessionNote(rows: readonly LsRow[]): string {
  const names = rows.filter((r) => r.scope === "session" || r.scope === "parent-session")
    .map((r) => r.namespace);
  if (names.length === 0) return "";
  return `session scope (${
    names.join(", ")
  }): a named session (MCPX_SESSION_ID, --session) keeps its process; past max, another ` +
    "session waits pool.queueTimeout for one to be freed, then fails (exit 7); pool.evictNamed=true " +
    "stops the least recently used idle one instead, telling its session (docs/pools.md)\n";
}

/** `mcpx ls`: every namespace, from the schema cache; no server is started. */
export const namespacesList = defineOperation<
  { stdio?: string; url?: string; name?: string },
  { namespaces: LsRow[]; next: string }
>({
  id: "namespaces.list",
  summary: "List the namespaces: tools, sharing, scope, live processes, state",
  description:
    "Answers from the schema cache without starting a server (or a daemon). A server that failed to list says why in its row; one never listed says `unlisted` until `mcpx refresh`.",
  params: [
    {
      name: "stdio",
      type: "string",
      doc: "List this command line as an ad-hoc server instead (started through the daemon)",
    },
    { name: "url", type: "string", doc: "List the MCP server at this URL as an ad-hoc server" },
    { name: "name", type: "string", doc: "The namespace of the ad-hoc server (--stdio, --url)" },
  ],
  cli: {
    command: ["ls"],
    examples: [["mcpx ls", "Every namespace: its tools, sharing, scope and live processes"], [
      "mcpx --json ls",
      "The same as one JSON document, for a program or an agent",
    ], [
      "mcpx ls --stdio 'npx -y @modelcontextprotocol/server-everything'",
      "A server that is not configured, tried ad hoc",
    ]],
  },
  http: { method: "GET", path: "/v1/namespaces" },
  // An ad-hoc server is named by a command line a user typed, not by an MCP client.
  mcp: {
    expose: true,
    readOnly: true,
    hidden: ["stdio", "url", "name"],
    agent: {
      description:
        "List the namespaces, one per MCP server behind mcpx, with their tool counts and state. Then mcpx_search or mcpx_types.",
      params: {},
      text: (out) =>
        out.namespaces.map((r) =>
          `${r.namespace}: ${r.tools ?? "?"} tools, ${r.state}${
            r.description ? `: ${r.description}` : ""
          }${r.error ? ` (${r.error})` : ""}\n`
        ).join(""),
    },
  },
  where: "local",
  describes: "configuration",
  output: (z) =>
    z.object({
      namespaces: z.array(
        z.object({
          namespace: z.string(),
          tools: z.number().nullable(),
          sharing: z.string(),
          scope: z.string(),
          leasingDefault: z.string().optional(),
          live: z.number(),
          state: z.string(),
          description: z.string(),
        }).loose(),
      ),
      next: z.string(),
    }),
  async run(input, ctx) {
    if (input.stdio !== undefined || input.url !== undefined) {
      const { adHocTools } = await load<typeof import("../daemon/adhoc.ts")>(
        "../daemon/adhoc.ts",
        import.meta.url,
      );
      const got = await adHocTools(input, ctx);
      const def = await adHocDef(input);
      return {
        namespaces: [{
          namespace: got.namespace,
          name: got.namespace,
          tools: got.tools.length,
          sharing: def.pool.sharing,
          scope: def.pool.scope,
          ...(def.leasing === "stateful" && def.stateful ? { leasingDefault: def.stateful } : {}),
          live: 1,
          state: "ready",
          description: `ad hoc: ${input.stdio ?? input.url}`,
        }],
        next: `Next: \`mcpx types ${
          input.stdio !== undefined ? "--stdio <the same command line>" : "--url <the same URL>"
        }\` for signatures, \`mcpx call\` with it and a tool's name to call one.`,
      };
    }
    // The daemon is asked first, so that it answers while the cache is read.
    const counts = liveCounts(ctx);
    const found = fromSummary(ctx) ?? await fromCache(ctx);
    const untrusted = await ctx.untrusted();
    const live = await counts;
    const rows = found.map((r): LsRow => {
      // The row's fields in the order `ls` has always printed them, whichever path it came by.
      const { namespace, name, tools, sharing, scope, state, description } = r;
      return {
        namespace,
        name,
        tools,
        sharing,
        scope,
        ...(r.leasingDefault !== undefined ? { leasingDefault: r.leasingDefault } : {}),
        live: live.get(namespace) ?? 0,
        // Never listed, and `mcpx refresh` would not list it: the file must be trusted first.
        state: untrusted && state === "unlisted" ? "untrusted" : state,
        description,
        ...(r.error !== undefined ? { error: r.error } : {}),
        ...(r.listedAt !== undefined ? { listedAt: r.listedAt } : {}),
        ...(r.aliasOf !== undefined ? { aliasOf: r.aliasOf } : {}),
      };
    });
    return {
      namespaces: rows,
      next: untrusted
        ? `Next: ${untrusted.message}. ${untrusted.hint ?? ""}.`
        : rows.some((r) => r.state === "unlisted")
        ? NEXT_UNLISTED
        : NEXT_READY,
    };
  },
  render(out) {
    if (out.namespaces.length === 0) {
      return "no servers selected (see `mcpx config`, --profile, --all-profiles)\n";
    }
    const star = (r: LsRow, v: string) => r.leasingDefault === undefined ? v : `${v}*`;
    return renderTable(
      ["NAMESPACE", "TOOLS", "SHARING", "SCOPE", "LIVE", "STATE", "DESCRIPTION"],
      out.namespaces.map((r) => [
        r.namespace,
        r.tools === null ? "-" : String(r.tools),
        star(r, r.sharing),
        star(r, r.scope),
        String(r.live),
        r.state,
        clip(r.description, 60),
      ]),
    ) + "\n" + leasingNotes(out.namespaces) + sessionNote(out.namespaces) + out.next + "\n";
  },
});
