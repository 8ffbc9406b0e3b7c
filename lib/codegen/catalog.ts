// `mcpx catalog`: every namespace, then as many full signatures as fit a token budget. The
// algorithm is described in docs/codegen.md.

import type { ToolInfo } from "../mcp/types.ts";
import { aliasDeclaration } from "./schema_to_ts.ts";
import { namespaceBlock, planNamespace } from "./declarations.ts";
import { search, type SearchDoc } from "../search/search.ts";
import { compare } from "../names.ts";

/** One namespace as the catalog sees it. */
export interface CatalogNamespace {
  ns: string;
  description?: string;
  tools: ToolInfo[];
  /** A tool's tags (annotation tags and configured ones), which the bias weighs as search does. */
  tagsOf?: (tool: string) => string[];
}

/** How big the catalog may be and what to favour. */
export interface CatalogOptions {
  /** The most tokens the catalog may take, by {@linkcode estimateTokens}. */
  budget: number;
  /**
   * Queries (case-insensitive) whose tools are shown first, each scored as `mcpx search` scores
   * it (name, tags, namespace, description): a tool's weight is the sum over the queries.
   */
  bias?: string[];
}

// A namespace description is cut to this many characters in its catalog line.
const MAX_DESCRIPTION = 100;

/**
 * Tokens a text costs a model, estimated as its UTF-8 bytes divided by four, rounded up. It is
 * what every token figure of mcpx means; real tokenizers differ by tens of percent either way,
 * but the estimate is cheap, deterministic and the same everywhere.
 *
 * @example
 * ```ts
 * estimateTokens("abcde"); // 2
 * ```
 */
export function estimateTokens(text: string): number {
  return Math.ceil(utf8Length(text) / 4);
}

/**
 * A paste-ready block that never exceeds `options.budget` tokens: one comment line per namespace
 * (name, tool count, description), then full signatures as `declare namespace` blocks, picked
 * round-robin across namespaces, shortest first (tools matching `options.bias` before the rest),
 * then a line saying how many were left out and how to get them. When even the namespace lines
 * do not fit, they are cut short with a `… N more namespaces` line.
 *
 * @example
 * ```ts
 * catalog([{ ns: "memory", tools }], { budget: 2000, bias: ["entity"] });
 * ```
 */
export function catalog(namespaces: CatalogNamespace[], options: CatalogOptions): string {
  const maxBytes = Math.max(0, Math.floor(options.budget)) * 4;
  const sorted = [...namespaces].sort((a, b) => compare(a.ns, b.ns));
  const total = sorted.reduce((n, s) => n + s.tools.length, 0);
  const lines = namespaceLines(sorted);
  const footer = (left: number) =>
    left === 0
      ? `// All ${total} signatures shown.`
      : `// ${left} of ${total} signatures left out; see \`mcpx types <ns>\` or \`<ns>.<tool>\`.`;
  // The output is its sections joined by blank lines, plus a final newline.
  const size = (sections: string[]) =>
    sections.reduce((n, s) => n + utf8Length(s), 0) + 2 * (sections.length - 1) + 1;
  const render = (sections: string[]) => sections.join("\n\n") + "\n";

  const list = lines.join("\n");
  if (size([list, footer(total)]) > maxBytes) {
    return truncatedList(lines, footer(total), maxBytes, size, render);
  }

  const weights = biasWeights(sorted, options.bias ?? []);
  const queues = sorted.map((s) => {
    const units = planNamespace(s.tools).tools.map((p) => {
      const text = [...p.aliases.map((a) => aliasDeclaration(a, "  ")), p.declaration]
        .join("\n\n");
      return {
        planned: p,
        bytes: utf8Length(text),
        rank: weights.get(`${s.ns}\0${p.tool.name}`) ?? 0,
      };
    });
    units.sort((a, b) =>
      b.rank - a.rank || a.bytes - b.bytes || compare(a.planned.name, b.planned.name)
    );
    return { ns: s.ns, units, picked: [] as typeof units };
  });

  let used = size([list]);
  let shown = 0;
  let active = queues.filter((q) => q.units.length > 0);
  while (active.length > 0) {
    // Within a round, namespaces whose next tool matches the bias better go first.
    const round = [...active].sort((a, b) =>
      b.units[0].rank - a.units[0].rank || compare(a.ns, b.ns)
    );
    for (const q of round) {
      while (q.units.length > 0) {
        const unit = q.units.shift()!;
        const cost = q.picked.length === 0
          ? 2 + utf8Length(`declare namespace ${q.ns} {\n`) + unit.bytes + 2
          : 2 + unit.bytes;
        if (used + cost + 2 + utf8Length(footer(total - shown - 1)) <= maxBytes) {
          q.picked.push(unit);
          used += cost;
          shown++;
          break;
        }
      }
    }
    active = active.filter((q) => q.units.length > 0);
  }

  const blocks = queues.filter((q) => q.picked.length > 0).map((q) => {
    const emitted = new Set<string>();
    const members = q.picked.flatMap((u) => {
      const aliases = u.planned.aliases.filter((a) => !emitted.has(a.name));
      for (const a of aliases) emitted.add(a.name);
      return [...aliases.map((a) => aliasDeclaration(a, "  ")), u.planned.declaration];
    });
    return namespaceBlock(q.ns, undefined, members).trimEnd();
  });
  return render([list, ...blocks, footer(total - shown)]);
}

/**
 * Each tool's bias weight, keyed `ns\0tool`: the sum, over the bias queries, of the score
 * `mcpx search` gives it for that query (so a tag weighs as a tag does in search). Tools no query
 * matches are left out (weight 0).
 */
function biasWeights(namespaces: CatalogNamespace[], bias: string[]): Map<string, number> {
  const weights = new Map<string, number>();
  const queries = bias.map((q) => q.trim()).filter((q) => q !== "");
  const docs: SearchDoc[] = namespaces.flatMap((s) =>
    s.tools.map((t) => ({
      namespace: s.ns,
      tool: t.name,
      fn: `${s.ns}.${t.name}`,
      description: t.description,
      tags: s.tagsOf?.(t.name) ?? [],
    }))
  );
  if (docs.length === 0) return weights;
  for (const query of queries) {
    const { hits } = search(docs, query, { limit: docs.length });
    for (const hit of hits) {
      const key = `${hit.namespace}\0${hit.tool}`;
      weights.set(key, (weights.get(key) ?? 0) + hit.score);
    }
  }
  return weights;
}

function namespaceLines(namespaces: CatalogNamespace[]): string[] {
  const nameWidth = Math.max(0, ...namespaces.map((s) => s.ns.length));
  const countWidth = Math.max(0, ...namespaces.map((s) => String(s.tools.length).length));
  return namespaces.map((s) => {
    const n = s.tools.length;
    const count = `${String(n).padStart(countWidth)} ${n === 1 ? "tool " : "tools"}`;
    let description = (s.description ?? "").replace(/\s+/g, " ").trim();
    const chars = [...description];
    if (chars.length > MAX_DESCRIPTION) {
      description = chars.slice(0, MAX_DESCRIPTION - 1).join("").trimEnd() + "…";
    }
    return `// ${s.ns.padEnd(nameWidth)}  ${count}  ${description}`.trimEnd();
  });
}

// As many namespace lines as fit, the rest counted on a `… N more namespaces` line, with the
// footer when it fits too; nothing at all when not even the `… N more` line fits.
function truncatedList(
  lines: string[],
  footer: string,
  maxBytes: number,
  size: (sections: string[]) => number,
  render: (sections: string[]) => string,
): string {
  const cut = (k: number) => {
    const more = lines.length - k;
    if (more === 0) return lines.join("\n");
    return [...lines.slice(0, k), `// … ${more} more namespace${more === 1 ? "" : "s"}`].join("\n");
  };
  for (let k = lines.length; k >= 0; k--) {
    for (const sections of [[cut(k), footer], [cut(k)]]) {
      if (size(sections) <= maxBytes) return render(sections);
    }
  }
  return "";
}

function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}
