// MCPX_TRACE_IDS: what a harness knows of the agent's context and the agent does not
// (docs/harness.md). A list of pairs rather than one id, because one id
// cannot say "this session, whose parent is that one, in this worktree"; an entry longer than a
// pair names several ids for one key; unknown keys are kept and land on records as `id.<key>`.
//
// Two spellings, the same list:
//   JSON   [["session","s-1"],["parent","s-0"],["worktree","/src/app"],["ticket","T-1","T-2"]]
//   text   session=s-1;parent=s-0;worktree=/src/app;ticket=T-1,T-2

import { McpxError } from "../errors.ts";

/** Trace ids by key: one id, or several for one key. */
export type TraceIds = Record<string, string | string[]>;

/** How many entries, and how long a key or an id, a list may have. */
export const TRACE_LIMITS = { entries: 32, key: 32, id: 512 } as const;

const KEY = /^[a-z][a-z0-9_.-]*$/;

function refuse(why: string): never {
  throw new McpxError("USAGE", `MCPX_TRACE_IDS ${why}`, {
    hint:
      'Write it as JSON pairs, [["session","s-1"],["parent","s-0"]], or as session=s-1;parent=s-0 (docs/harness.md)',
  });
}

function entries(text: string): string[][] {
  if (text.trimStart().startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      refuse("is not valid JSON");
    }
    if (!Array.isArray(parsed)) refuse("is not a JSON list of pairs");
    return parsed.map((entry, i) => {
      if (!Array.isArray(entry) || entry.some((v) => typeof v !== "string")) {
        refuse(`entry ${i + 1} is not a list of strings`);
      }
      return entry as string[];
    });
  }
  return text.split(/[;\n]/).map((s) => s.trim()).filter(Boolean).map((entry) => {
    const eq = entry.indexOf("=");
    if (eq <= 0) refuse(`entry "${entry.slice(0, 40)}" is not key=id`);
    return [entry.slice(0, eq).trim(), ...entry.slice(eq + 1).split(",").map((s) => s.trim())];
  });
}

/**
 * The trace ids MCPX_TRACE_IDS names; none when it is unset or empty.
 * @throws {McpxError} USAGE when it is malformed: a harness bug worth one clear line.
 */
export function parseTraceIds(text: string | undefined): TraceIds {
  if (!text?.trim()) return {};
  const list = entries(text);
  if (list.length > TRACE_LIMITS.entries) {
    refuse(`has ${list.length} entries; at most ${TRACE_LIMITS.entries} are kept`);
  }
  const out: TraceIds = {};
  for (const [key, ...ids] of list) {
    if (key === undefined || !KEY.test(key) || key.length > TRACE_LIMITS.key) {
      refuse(
        `key "${
          String(key).slice(0, 40)
        }" is not a lowercase name (a-z, digits, _ . -, up to ${TRACE_LIMITS.key})`,
      );
    }
    const kept = ids.filter((id) => id !== "");
    if (kept.length === 0) refuse(`key "${key}" has no id`);
    const long = kept.find((id) => id.length > TRACE_LIMITS.id);
    if (long) refuse(`key "${key}" has an id longer than ${TRACE_LIMITS.id} characters`);
    if (key in out) refuse(`names "${key}" twice; give several ids in one entry instead`);
    out[key] = kept.length === 1 ? kept[0] : kept;
  }
  return out;
}

/** The one id of `key` (the first, when there are several). */
export function firstId(ids: TraceIds, key: string): string | undefined {
  const v = ids[key];
  return Array.isArray(v) ? v[0] : v;
}

/** The ids as record attributes: `id.<key>` each. */
export function traceAttrs(ids: TraceIds | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (ids) { for (const [k, v] of Object.entries(ids)) out[`id.${k}`] = v; }
  return out;
}

/** The list as JSON pairs, how `mcpx run` hands it to a script's runtime. */
export function traceIdsJson(ids: TraceIds): string {
  return JSON.stringify(Object.entries(ids).map(([k, v]) => [k, ...(Array.isArray(v) ? v : [v])]));
}
