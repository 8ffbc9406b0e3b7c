import { defineOperation } from "./define.ts";
import { envName, flagName, isPlumbing, SETTINGS, type SettingSpec } from "../settings/table.ts";
import { renderTable } from "../table.ts";
import type { ResolvedSetting } from "../settings/resolve.ts";
import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import { messageOf } from "../errors.ts";

/** How one server's processes are handed out, and where that came from. */
interface ServerLeasing {
  server: string;
  sharing: string;
  scope: string;
  /** `mcpx` (its block), `pool` (the top-level block), `stateful default` or `default`. */
  source: string;
  /** Why, for the stateful default: what the server is and what it keeps. */
  why?: string;
  /**
   * Its tool filters and `disabled`, each with its source: `mcpx` (its own block) or `pool`
   * (the top-level block, which applies to every server that does not set the key).
   */
  filters?: { key: string; value: unknown; source: "mcpx" | "pool" }[];
}

interface ConfigShowOutput {
  config: { primary: string | null; layers: string[] };
  settings?: (ResolvedSetting & { plumbing: boolean })[];
  servers?: ServerLeasing[];
  schema?: {
    key: string;
    type: string;
    default: string;
    env: string[];
    flag: string;
    fileReadable: boolean;
    values?: readonly string[];
    doc: string;
    detail?: string;
    plumbing: boolean;
  }[];
  warnings: string[];
}

const SOURCES = {
  server: "mcpx",
  pool: "pool",
  stateful: "stateful default",
  default: "default",
} as const;

/**
 * The sharing and scope of each server of the primary configuration and their source. A
 * configuration that does not load lists none, and says so among the warnings.
 */
async function serverLeasing(ctx: Context, warnings: string[]): Promise<ServerLeasing[]> {
  const primary = ctx.location().primary;
  if (!primary) return [];
  const { loadConfig, readConfigText } = await load<typeof import("../config/load.ts")>(
    "../config/load.ts",
    import.meta.url,
  );
  const { serverDefs } = await load<typeof import("../config/servers.ts")>(
    "../config/servers.ts",
    import.meta.url,
  );
  try {
    const defs = serverDefs(await loadConfig(primary, readConfigText(primary)));
    return defs.map((d) => ({
      server: d.namespace,
      sharing: d.pool.sharing,
      scope: d.pool.scope,
      source: SOURCES[d.leasing],
      ...(d.leasing === "stateful" && d.stateful ? { why: d.stateful } : {}),
      ...(Object.keys(d.filters).length
        ? {
          filters: Object.entries(d.filters).map(([key, f]) => ({
            key,
            value: f!.value,
            source: f!.from,
          })),
        }
        : {}),
    }));
  } catch (e) {
    warnings.push(`servers not listed: ${messageOf(e)}`);
    return [];
  }
}

const show = (v: unknown) => (typeof v === "string" ? (v === "" ? '""' : v) : JSON.stringify(v));

/** `mcpx config`: resolved settings and where each came from, or the schema of them all. */
export const configShow = defineOperation<
  { schema?: boolean; plumbing?: boolean },
  ConfigShowOutput
>({
  id: "config.show",
  summary: "Show every setting's value and where it came from",
  description:
    "Settings resolve defaults, then configuration files (nearest last), then MCPX_* variables, then flags. Each value says what it overrode.",
  params: [
    { name: "schema", type: "boolean", doc: "Print the declaration of every setting instead" },
    { name: "plumbing", type: "boolean", doc: "Include internal plumbing.* switches" },
  ],
  cli: {
    command: ["config"],
    examples: [["mcpx config", "Every setting's value and where it came from"], [
      "mcpx --log-level debug config",
      "See a flag override a setting",
    ], ["mcpx config --schema", "Every setting's declaration"]],
  },
  http: { method: "GET", path: "/v1/config" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  output: (z) =>
    z.object({
      config: z.object({ primary: z.string().nullable(), layers: z.array(z.string()) }),
      settings: z.array(z.object({ key: z.string(), value: z.unknown() }).loose()).optional(),
      servers: z.array(
        z.object({
          server: z.string(),
          sharing: z.string(),
          scope: z.string(),
          source: z.string(),
          why: z.string().optional(),
          filters: z.array(
            z.object({ key: z.string(), value: z.unknown(), source: z.enum(["mcpx", "pool"]) }),
          ).optional(),
        }),
      ).optional(),
      schema: z.array(z.object({ key: z.string(), type: z.string() }).loose()).optional(),
      warnings: z.array(z.string()),
    }),
  async run(input, ctx) {
    const location = ctx.layers();
    const config = { primary: location.primary ?? null, layers: location.layers };
    const keep = (key: string) => input.plumbing || !isPlumbing(key);
    if (input.schema) {
      const schema = Object.entries(SETTINGS as Record<string, SettingSpec>).filter(([k]) =>
        keep(k)
      )
        .map(([key, s]) => ({
          key,
          type: s.type,
          default: s.default,
          env: [envName(key), ...(s.envAliases ?? [])],
          flag: flagName(key),
          fileReadable: !s.early,
          ...(s.values ? { values: s.values } : {}),
          doc: s.doc,
          ...(s.detail ? { detail: s.detail } : {}),
          plumbing: isPlumbing(key),
        }));
      return { config, schema, warnings: [] };
    }
    const settings = await ctx.settings();
    const warnings = [...settings.warnings];
    return {
      config,
      settings: settings.all().filter((s) => keep(s.key)).map((s) => ({
        ...s,
        plumbing: isPlumbing(s.key),
      })),
      servers: await serverLeasing(ctx, warnings),
      warnings,
    };
  },
  render(out) {
    if (out.schema) {
      return out.schema.map((s) =>
        `${s.key} (${s.type}${s.values ? `: ${s.values.join("|")}` : ""}, default ${
          show(s.default)
        })\n` +
        `  ${s.doc}\n  ${
          [s.fileReadable ? `file: ${s.key}` : "", `env: ${s.env.join(", ")}`, `flag: ${s.flag}`]
            .filter(Boolean).join("  ")
        }\n` + (s.detail ? `  ${s.detail}\n` : "")
      ).join("\n");
    }
    const rows = out.settings!.map((s) => [
      s.key,
      show(s.text),
      s.source.kind === "default" ? "default" : `${s.source.kind} ${s.source.where}`,
      s.overrode.map((o) =>
        `${show(o.text)} (${o.source.kind === "default" ? "default" : o.source.where})`
      )
        .join(", "),
    ]);
    const head = `config: ${out.config.primary ?? "(none found)"}\n`;
    const servers = out.servers?.length
      ? "\n" + renderTable(
        ["SERVER", "SHARING", "SCOPE", "SOURCE", "FILTERS"],
        out.servers.map((s) => [
          s.server,
          s.sharing,
          s.scope,
          s.why ? `${s.source}: ${s.why}` : s.source,
          (s.filters ?? []).map((f) => `${f.key}=${JSON.stringify(f.value)} (${f.source})`)
            .join(", "),
        ]),
      )
      : "";
    return head + renderTable(["SETTING", "VALUE", "SOURCE", "OVERRODE"], rows) + servers;
  },
});
