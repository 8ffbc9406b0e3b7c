import { defineOperation } from "./define.ts";
import { McpxError } from "../errors.ts";
import { renderTable } from "../table.ts";
import { load } from "../_load.ts";
import { cacheDir, stateDir } from "../paths.ts";

interface UiOutput {
  url: string;
  listen: string;
  expiresInMs: number;
}

/** `mcpx ui`: the web page's address, with a one-time code in its fragment. */
export const uiOpen = defineOperation<Record<string, never>, UiOutput>({
  id: "ui.open",
  summary: "Print the address of the web page (the six views), with a one-time code",
  description:
    "The daemon serves the page at /ui where daemon.listen is, else on a loopback port it opens at the first ask. The address carries a code in its fragment (never sent to a server): the page exchanges it, once and within two minutes, for a session kept in the tab; run `mcpx ui` again for another tab (docs/ui.md, docs/security.md).",
  params: [],
  cli: {
    command: ["ui"],
    examples: [["mcpx ui", "The web page's address with a one-time code"], [
      "mcpx --json ui",
      "The address, the listener and how long the code lasts",
    ]],
  },
  http: { method: "POST", path: "/v1/ui" },
  mcp: { expose: false },
  where: { daemon: "start" },
  needsTrust: true,
  output: (z) => z.object({ url: z.string(), listen: z.string(), expiresInMs: z.number() }),
  async run(_input, ctx) {
    const ui = ctx.daemon?.ui;
    if (!ui) throw new McpxError("INTERNAL", "The web page is served by the daemon");
    const { listen, code, expiresInMs } = await ui.open();
    // A listener on every address is reached, from a browser here, on loopback.
    const at = listen.replace(/^0\.0\.0\.0:/, "127.0.0.1:").replace(/^\[::\]:/, "[::1]:");
    return { url: `http://${at}/ui#code=${code}`, listen, expiresInMs };
  },
  render: (out) =>
    `${out.url}\nOpen it in a browser on this machine within ${
      Math.round(out.expiresInMs / 60_000)
    } minutes; the code works once.\n`,
});

interface StoragePart {
  part: string;
  path: string;
  bytes: number;
  files: number;
}

/** Bytes and files under `path` (not following symlinks); zero for what is absent. */
function sizeOf(path: string): { bytes: number; files: number } {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch {
    return { bytes: 0, files: 0 };
  }
  if (!info.isDirectory) return { bytes: info.size, files: 1 };
  let bytes = 0, files = 0;
  try {
    for (const e of Deno.readDirSync(path)) {
      const sub = sizeOf(`${path}/${e.name}`);
      bytes += sub.bytes;
      files += sub.files;
    }
  } catch { /* unreadable: counted as empty */ }
  return { bytes, files };
}

/** What a top-level entry of the state or cache folder is, for a person. */
const NAMES: Record<string, string> = {
  "logs": "log (JSONL)",
  "daemons": "daemon records, sockets, tokens",
  "output": "spilled output",
  "questions.db": "questions",
  "trust.json": "trust records",
  "oauth": "OAuth tokens",
};

/** `mcpx storage`: what every part of mcpx's state and cache costs on disk. */
export const storageShow = defineOperation<
  Record<string, never>,
  { parts: StoragePart[]; bytes: number }
>({
  id: "storage.show",
  summary: "Show what every part of mcpx's state and cache costs on disk",
  description:
    "One row per entry of the state folder ($XDG_STATE_HOME/mcpx) and the cache folder ($XDG_CACHE_HOME/mcpx), the log split into its JSONL files and its index, largest first.",
  params: [],
  cli: {
    command: ["storage"],
    examples: [["mcpx storage", "What each part of mcpx's state and cache costs on disk"], [
      "mcpx --json storage",
      "The same as JSON",
    ]],
  },
  http: { method: "GET", path: "/v1/storage" },
  mcp: { expose: true, readOnly: true },
  where: "local",
  output: (z) =>
    z.object({
      parts: z.array(
        z.object({ part: z.string(), path: z.string(), bytes: z.number(), files: z.number() }),
      ),
      bytes: z.number(),
    }),
  run(_input, ctx) {
    const parts = new Map<string, StoragePart>();
    /** `shown`: the path the part is shown as, when several entries share it. */
    const add = (part: string, path: string, shown?: string) => {
      const size = sizeOf(path);
      if (size.files === 0) return;
      const had = parts.get(part);
      if (!had) parts.set(part, { part, path: shown ?? path, ...size });
      else {
        had.bytes += size.bytes;
        had.files += size.files;
        // Several entries in one part: the folder holding them.
        had.path = shown ?? path.slice(0, path.lastIndexOf("/"));
      }
    };
    const entries = (dir: string): Deno.DirEntry[] => {
      try {
        return [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1);
      } catch {
        return []; // none yet
      }
    };
    const state = stateDir(ctx.boot, ctx.io.env);
    for (const e of entries(state)) {
      const path = `${state}/${e.name}`;
      if (e.name === "logs" && e.isDirectory) {
        for (const f of entries(path)) {
          const index = f.name.startsWith("index.db");
          add(
            f.name.endsWith(".jsonl")
              ? NAMES.logs
              : index
              ? "log index (index.db)"
              : "log folder, other",
            `${path}/${f.name}`,
            index ? `${path}/index.db` : undefined,
          );
        }
        continue;
      }
      // A SQLite database with its -wal and -shm files is one part.
      const name = e.name.replace(/-(wal|shm|journal)$/, "");
      add(NAMES[name] ?? name, path, name === e.name ? undefined : `${state}/${name}`);
    }
    const cache = cacheDir(ctx.boot, ctx.io.env);
    for (const e of entries(cache)) {
      // One file per configuration (`schemas-<fingerprint>.json`): one part for all of them.
      add(`cache: ${e.name.replace(/-[0-9a-f]{16}(?=\.|$)/, "")}`, `${cache}/${e.name}`);
    }
    const list = [...parts.values()].sort((a, b) => b.bytes - a.bytes);
    return Promise.resolve({ parts: list, bytes: list.reduce((n, p) => n + p.bytes, 0) });
  },
  async render(out) {
    const { formatBytes } = await load<typeof import("../output/bound.ts")>(
      "../output/bound.ts",
      import.meta.url,
    );
    if (out.parts.length === 0) return "nothing on disk yet\n";
    return renderTable(
      ["PART", "SIZE", "FILES", "PATH"],
      [
        ...out.parts.map((p) => [p.part, formatBytes(p.bytes), String(p.files), p.path]),
        ["total", formatBytes(out.bytes), String(out.parts.reduce((n, p) => n + p.files, 0)), ""],
      ],
    );
  },
});
