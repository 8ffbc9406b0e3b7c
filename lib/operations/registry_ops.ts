import { defineOperation } from "./define.ts";
import { McpxError } from "../errors.ts";
import { load } from "../_load.ts";
import type { Context } from "../context.ts";
import type { Translation } from "../registry/registry.ts";

type Registry = typeof import("../registry/registry.ts");

function registryModule(): Promise<Registry> {
  return load<typeof import("../registry/registry.ts")>("../registry/registry.ts", import.meta.url);
}

async function baseUrl(ctx: Context): Promise<string> {
  return (await ctx.settings()).get("registry.url");
}

interface Found {
  name: string;
  description?: string;
  version?: string;
  /** What `add` would configure: `remote`, or the package's registry type. */
  kinds: string[];
}

/** `mcpx registry search <words>`: what a registry knows of. */
export const registrySearch = defineOperation<{ words: string; limit?: number }, {
  registry: string;
  servers: Found[];
}>({
  id: "registry.search",
  summary: "Search the MCP registry for servers not configured yet",
  description:
    "Asks registry.url (the official MCP registry by default, or any registry implementing its API) `GET /v0.1/servers?search=…`, following its cursor; entries whose status is not active are left out.",
  params: [
    { name: "words", type: "string", required: true, doc: "What to look for" },
    { name: "limit", type: "integer", doc: "At most this many (default 20)" },
  ],
  cli: {
    command: ["registry", "search"],
    usage: "<words…>",
    positionals: (words) => ({ words: words.join(" ") }),
    fills: ["words"],
    example: ["weather", "forecast"],
    examples: [[
      "mcpx registry search weather forecast",
      "Servers in the MCP registry that match the words",
    ], ["mcpx registry search browser --limit 5", "At most five"]],
  },
  http: { none: "the registry is asked from the CLI, not through the daemon" },
  mcp: { expose: false },
  where: "local",
  output: (z) =>
    z.object({
      registry: z.string(),
      servers: z.array(z.object({
        name: z.string(),
        description: z.string().optional(),
        version: z.string().optional(),
        kinds: z.array(z.string()),
      })),
    }),
  async run(input, ctx) {
    const r = await registryModule();
    const base = await baseUrl(ctx);
    const found = await r.searchRegistry(base, input.words, input.limit ?? 20);
    return {
      registry: base,
      servers: found.map((e) => ({
        name: e.server.name,
        ...(e.server.description ? { description: e.server.description } : {}),
        ...(e.server.version ? { version: e.server.version } : {}),
        kinds: [
          ...(e.server.remotes?.length ? ["remote"] : []),
          ...(e.server.packages ?? []).map((p) => p.registryType),
        ],
      })),
    };
  },
  render: (o) =>
    o.servers.length === 0
      ? `nothing found in ${o.registry}\n`
      : o.servers.map((s) =>
        `${s.name}${s.version ? ` ${s.version}` : ""}  [${s.kinds.join(", ")}]${
          s.description ? `\n    ${s.description}` : ""
        }`
      ).join("\n") + "\nNext: `mcpx registry show <name>`, `mcpx registry add <name> --write`\n",
});

interface Shown {
  name: string;
  version?: string;
  description?: string;
  /** The name it is configured as: the reverse-DNS name's last part. */
  as: string;
  source: string;
  entry: Record<string, unknown>;
  required: { name: string; description?: string; secret: boolean }[];
  /** The URL the package's fileSha256 was checked against, when it carries one. */
  verified?: string;
}

async function translated(
  ctx: Context,
  name: string,
  version: string | undefined,
): Promise<{ shown: Shown; registry: Registry; install?: () => void }> {
  const r = await registryModule();
  const entry = await r.showRegistry(await baseUrl(ctx), name, version);
  const bundle = r.bundleOf(entry.server);
  let t: Translation;
  let verified: string | undefined;
  let install: (() => void) | undefined;
  if (bundle) {
    // An MCP bundle: downloaded and checked now, unpacked only by --write.
    const [{ translateBundle }, { stateDir }] = await Promise.all([
      load<typeof import("../registry/mcpb.ts")>("../registry/mcpb.ts", import.meta.url),
      load<typeof import("../paths.ts")>("../paths.ts", import.meta.url),
    ]);
    const b = await translateBundle(entry.server, bundle, {
      stateDir: stateDir(ctx.boot, ctx.io.env),
    });
    [t, verified, install] = [b, b.verified, b.install];
  } else {
    t = r.translate(entry.server);
    // A fileSha256 is never passed over: checked now, before anything is shown or written.
    verified = await r.verifyFile(t.package);
  }
  return {
    install,
    registry: r,
    shown: {
      name: entry.server.name,
      ...(entry.server.version ? { version: entry.server.version } : {}),
      ...(entry.server.description ? { description: entry.server.description } : {}),
      as: t.name,
      source: t.source,
      entry: t.entry,
      required: t.required,
      ...(verified ? { verified } : {}),
    },
  };
}

const shownSchema = (z: typeof import("zod").z) => ({
  name: z.string(),
  version: z.string().optional(),
  description: z.string().optional(),
  as: z.string(),
  source: z.string(),
  entry: z.record(z.string(), z.unknown()),
  required: z.array(z.object({
    name: z.string(),
    description: z.string().optional(),
    secret: z.boolean(),
  })),
  verified: z.string().optional(),
});

function renderShown(o: Shown): string {
  const lines = [
    `${o.name}${o.version ? ` ${o.version}` : ""}${o.description ? `: ${o.description}` : ""}`,
    `as "${o.as}" (from its ${o.source === "remote" ? "remote" : `${o.source} package`}):`,
    JSON.stringify({ [o.as]: o.entry }, null, 2),
  ];
  if (o.verified) lines.push(`fileSha256 matches ${o.verified}`);
  for (const v of o.required) {
    lines.push(
      `requires ${v.name}${v.secret ? " (secret)" : ""}${
        v.description ? `: ${v.description}` : ""
      }: set it before the server starts`,
    );
  }
  return lines.join("\n") + "\n";
}

/** `mcpx registry show <name>`: one entry, and what `add` would write. */
export const registryShow = defineOperation<{ name: string; at?: string }, Shown>({
  id: "registry.show",
  summary: "Show a registry entry and the configuration `registry add` would write for it",
  params: [
    {
      name: "name",
      type: "string",
      positional: true,
      required: true,
      doc: "The entry's name, e.g. io.github.owner/server",
    },
    { name: "at", type: "string", doc: "A version of it (default its latest active one)" },
  ],
  cli: {
    command: ["registry", "show"],
    examples: [[
      "mcpx registry show io.github.owner/server",
      "The entry and what `registry add` would write",
    ], ["mcpx registry show io.github.owner/server --at 1.2.0", "One version of it"]],
  },
  http: { none: "the registry is asked from the CLI, not through the daemon" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object(shownSchema(z as never)),
  async run(input, ctx) {
    return (await translated(ctx, input.name, input.at)).shown;
  },
  render: renderShown,
});

/** `mcpx registry add <name> [--write]`. */
export const registryAdd = defineOperation<
  { name: string; at?: string; write?: boolean },
  Shown & { file?: string; written: boolean }
>({
  id: "registry.add",
  summary: "Configure a server from the registry (prints the entry; --write adds it to the file)",
  description:
    "Translates the entry: a remote when offered, else its package as an ephemeral runner (npx -y, uvx, docker run --rm -i; the publisher's runtimeHint wins), npm versions pinned, else its MCP bundle (downloaded, checked against its fileSha256 and, with --write, unpacked into the state directory), the reverse-DNS name cut to its last part. A package's fileSha256 is checked against its file before anything is shown or written. Variables it requires become ${VAR} references and are named; no value is invented. --write adds it under mcpServers of the configuration file found from here, comments and formatting kept, printing the diff first on a terminal; a file that does not parse, is read-only or already has the name is left untouched.",
  params: [
    { name: "name", type: "string", positional: true, required: true, doc: "The entry's name" },
    { name: "at", type: "string", doc: "A version of it (default its latest active one)" },
    { name: "write", type: "boolean", doc: "Add it to the configuration file" },
  ],
  cli: {
    command: ["registry", "add"],
    examples: [["mcpx registry add io.github.owner/server", "Print the entry it would add"], [
      "mcpx registry add io.github.owner/server --write",
      "Add it to the configuration file",
    ]],
  },
  http: { none: "the configuration file is edited from the CLI, not through the daemon" },
  mcp: { expose: false },
  where: "local",
  output: (z) =>
    z.object({
      ...shownSchema(z as never),
      file: z.string().optional(),
      written: z.boolean(),
    }),
  async run(input, ctx) {
    const { shown, registry, install } = await translated(ctx, input.name, input.at);
    if (!input.write) return { ...shown, written: false };
    const { readConfigText } = await load<typeof import("../config/load.ts")>(
      "../config/load.ts",
      import.meta.url,
    );
    const path = ctx.location().primary;
    if (!path) {
      throw new McpxError("CONFIG_NOT_FOUND", "No configuration file to add the server to", {
        hint: "Create .mcpx.json here (`{}` will do), or name one with --config",
      });
    }
    const text = readConfigText(path);
    const after = await registry.addToConfig(path, text, shown.as, shown.entry);
    let file: Deno.FsFile;
    try {
      // A file made read-only is refused even where the user could write it anyway (root).
      if (((Deno.statSync(path).mode ?? 0o600) & 0o200) === 0) {
        throw new Deno.errors.PermissionDenied("read-only");
      }
      file = Deno.openSync(path, { write: true });
    } catch (e) {
      throw new McpxError(
        "CONFIG_INVALID",
        `Cannot write ${path}: ${
          e instanceof Deno.errors.PermissionDenied ? "it is read-only" : String(e)
        }`,
        { hint: "Make it writable, or add the entry printed by `mcpx registry show` by hand" },
      );
    }
    // A file trusted as it was stays trusted as mcpx changed it: the edit is the user's own.
    const trust = await load<typeof import("../config/trust.ts")>(
      "../config/trust.ts",
      import.meta.url,
    );
    const real = Deno.realPathSync(path);
    const before = await trust.trustState(real, text, ctx.trustOptions(path));
    if (ctx.io.isTerminal) ctx.io.err(registry.lineDiff(text, after));
    // A bundle's files are in place before the entry that starts them is written.
    try {
      install?.();
    } catch (e) {
      file.close();
      throw e;
    }
    file.close();
    // Whole or not at all, through to the real file, keeping its mode: a crash between a
    // truncate and a write would leave an empty configuration.
    const { writeFileAtomic } = await load<typeof import("../_atomic.ts")>(
      "../_atomic.ts",
      import.meta.url,
    );
    try {
      writeFileAtomic(real, after, { mode: (Deno.statSync(real).mode ?? 0o600) & 0o777 });
    } catch (e) {
      throw new McpxError("CONFIG_INVALID", `Cannot write ${path}: ${String(e)}`, {
        hint: "Make its folder writable, or add the entry printed by `mcpx registry show` by hand",
      });
    }
    if (before.trusted && before.why === "recorded") {
      const { stateDir } = await load<typeof import("../paths.ts")>("../paths.ts", import.meta.url);
      await trust.trustFile(`${stateDir(ctx.boot, ctx.io.env)}/${trust.TRUST_FILE}`, real, after);
    }
    return { ...shown, file: path, written: true };
  },
  render: (o) =>
    o.written
      ? `added "${o.as}" to ${o.file}${
        o.required.length
          ? `\nset ${o.required.map((v) => v.name).join(", ")} before it starts`
          : ""
      }\n`
      : renderShown(o) + "Run again with --write to add it to the configuration file\n",
});
