// What changed in a configuration since it was trusted: `mcpx trust` records a hash of each field
// (each leaf of the file's JSON, by dotted path) beside the file's own sha256, so that trusting a
// changed file again can say which servers and settings changed without keeping the text, whose
// env and headers may hold secrets.

import { contentHash } from "./trust.ts";

/** Each leaf of a configuration by dotted path (`mcpServers.memory.env.X`), hashed. */
export type FieldHashes = Record<string, string>;

/** What differs between two {@linkcode FieldHashes}, each list sorted by path. */
export interface FieldChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** The leaves of a JSON value by dotted path; an array or an empty object is one leaf. */
export function leaves(value: unknown, path = ""): [string, unknown][] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [[path, value]];
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return [[path, value]];
  return entries.flatMap(([k, v]) => leaves(v, path === "" ? k : `${path}.${k}`));
}

/** The hash of each leaf of a configuration's parsed JSON. */
export async function fieldHashes(config: unknown): Promise<FieldHashes> {
  const out: FieldHashes = {};
  for (const [path, value] of leaves(config)) {
    out[path] = (await contentHash(JSON.stringify(value) ?? "undefined")).slice(0, 16);
  }
  return out;
}

/** The fields added, removed and changed from `before` to `after`. */
export function diffFields(before: FieldHashes, after: FieldHashes): FieldChanges {
  const paths = (o: FieldHashes) => Object.keys(o).sort();
  return {
    added: paths(after).filter((p) => !(p in before)),
    removed: paths(before).filter((p) => !(p in after)),
    changed: paths(after).filter((p) => p in before && before[p] !== after[p]),
  };
}

/** A field whose value may be a secret (a server's env or headers): its path shows, its value not. */
export function secretField(path: string): boolean {
  return /(^|\.)(env|headers)(\.|$)/.test(path);
}
