/**
 * What mcpx's files cost on disk, part by part: the state folder (logs and their index, kept
 * output, questions, daemons' files, trust) and the cache folder (schemas, `ls` summaries,
 * rendered declarations). The browser's storage view; it answers "what is large" without knowing
 * where each thing lives.
 */

import { join } from "node:path";
import type { Row } from "./source.ts";
import { bytes } from "./format.ts";

/** One part: files of one kind in one folder. */
export interface StoragePart {
  part: string;
  files: number;
  bytes: number;
  path: string;
}

function walk(path: string): { files: number; bytes: number } {
  let files = 0;
  let total = 0;
  const stack = [path];
  while (stack.length) {
    const p = stack.pop()!;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(p);
    } catch {
      continue;
    }
    if (info.isDirectory) {
      try {
        for (const e of Deno.readDirSync(p)) stack.push(join(p, e.name));
      } catch { /* unreadable: counted as empty */ }
    } else {
      files++;
      total += info.size;
    }
  }
  return { files, bytes: total };
}

/** The kind of a file in a folder: `schemas-<fp>.json` → `schemas`, `index.db-wal` → `index.db`. */
function kindOf(name: string): string {
  if (name.startsWith("index.db")) return "index.db";
  if (name.endsWith(".jsonl")) return "*.jsonl";
  const dash = name.indexOf("-");
  const dot = name.indexOf(".", 1);
  const cut = [dash, dot].filter((i) => i > 0);
  return cut.length ? name.slice(0, Math.min(...cut)) + "*" : name;
}

/**
 * The parts of `folders` (label → path): each sub-folder is a part, the logs folder split into its
 * JSONL and its index, and the files at a folder's top grouped by kind. Largest first.
 */
export function storageParts(folders: Record<string, string>): StoragePart[] {
  const parts: StoragePart[] = [];
  for (const [label, root] of Object.entries(folders)) {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(root)];
    } catch {
      continue;
    }
    const groups = new Map<string, StoragePart>();
    const add = (part: string, path: string, got: { files: number; bytes: number }) => {
      const g = groups.get(part) ?? { part, files: 0, bytes: 0, path };
      g.files += got.files;
      g.bytes += got.bytes;
      groups.set(part, g);
    };
    for (const e of entries) {
      const path = join(root, e.name);
      if (e.isDirectory && e.name === "logs") {
        let inner: Deno.DirEntry[] = [];
        try {
          inner = [...Deno.readDirSync(path)];
        } catch { /* unreadable */ }
        for (const f of inner) {
          add(`${label}/logs/${kindOf(f.name)}`, path, walk(join(path, f.name)));
        }
      } else if (e.isDirectory) add(`${label}/${e.name}/`, path, walk(path));
      else add(`${label}/${kindOf(e.name)}`, root, walk(path));
    }
    parts.push(...groups.values());
  }
  return parts.sort((a, b) => b.bytes - a.bytes || (a.part < b.part ? -1 : 1));
}

/** The storage view's rows: every part with its size for people, and the total last. */
export function storageRows(folders: Record<string, string>): Row[] {
  const parts = storageParts(folders);
  const total = parts.reduce((a, p) => a + p.bytes, 0);
  const files = parts.reduce((a, p) => a + p.files, 0);
  return [
    ...parts.map((p) => ({ ...p, size: bytes(p.bytes) })),
    { part: "total", files, bytes: total, size: bytes(total), path: "" },
  ];
}
