import { McpxError } from "../errors.ts";
import { clip, renderTable } from "../table.ts";
import { stem } from "./stem.ts";
import { NON_ASCII, splitWords } from "./tokens.ts";

/** One tool as search sees it. */
export interface SearchDoc {
  namespace: string;
  /** The tool's real name, as the server spells it. */
  tool: string;
  /** The identifier form a script calls, e.g. `chrome_devtools.take_screenshot`. */
  fn: string;
  description?: string;
  /** Annotation tags (`readOnly`, `destructive`) plus the server's configured tags. */
  tags?: string[];
}

/** Where a query term matched; `none` when it did not match this tool at all. */
export type SearchField = keyof typeof FIELD_POINTS | "none";

/**
 * Points a query term earns in each field. A term scores only its best field for a tool, and
 * the tool's score is the sum over the terms; on equal points the earlier field is reported.
 */
export const FIELD_POINTS = {
  exact: 100,
  prefix: 60,
  tag: 50,
  substring: 40,
  word: 40,
  path: 30,
  namespace: 20,
  description: 10,
} as const;

/** How one query term scored against one tool. */
export interface TermScore {
  term: string;
  field: SearchField;
  points: number;
}

/** One ranked result. */
export interface Hit {
  fn: string;
  namespace: string;
  tool: string;
  description: string;
  score: number;
  /** One entry per query term, in query order, when `explain` was asked for; sums to `score`. */
  explain?: TermScore[];
}

/** Options for {@linkcode search}. */
export interface SearchOptions {
  /** At most this many hits (default 8). */
  limit?: number;
  /** Keep only tools carrying every one of these tags (whole tag, any case). */
  tags?: string[];
  /** Attach the per-term breakdown to each hit. */
  explain?: boolean;
}

/** What {@linkcode search} found. */
export interface SearchResult {
  hits: Hit[];
  /** `all` when some tool matched every term; `any` when the query fell back to any term. */
  mode: "all" | "any";
  /** How many tools matched in this mode, before `limit`. */
  total: number;
}

const DEFAULT_LIMIT = 8;

/**
 * Ranks tools against a query of whitespace-separated terms. Tools matching every term come
 * first; when none does, tools matching any term are returned instead (`mode: "any"`), so
 * `screenshot click` finds both tools rather than neither. docs/search.md has the rules.
 *
 * @example
 * ```ts
 * const { hits } = search(docs, "screenshot click", { limit: 5 });
 * console.log(renderHits(hits));
 * ```
 */
export function search(
  docs: readonly SearchDoc[],
  query: string,
  options: SearchOptions = {},
): SearchResult {
  const terms = queryTerms(query);
  const limit = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new McpxError(
      "USAGE",
      `Cannot search with limit "${limit}": it must be a whole number of at least 1`,
    );
  }
  const wanted = (options.tags ?? []).map((tag) => tag.toLowerCase());
  const candidates = docs.filter((doc) => {
    const have = new Set((doc.tags ?? []).map((tag) => tag.toLowerCase()));
    return wanted.every((tag) => have.has(tag));
  });

  // A namespace's forms are the same for each of its tools: made once.
  const seen = new Map<string, Forms>();
  const formsOf = (text: string) => {
    let f = seen.get(text);
    if (!f) seen.set(text, f = forms(text));
    return f;
  };
  const scored = candidates.map((doc) => {
    const prepared = prepare(doc, formsOf);
    const parts = terms.map((term) => ({ term: term.raw, ...scoreTerm(term, prepared) }));
    return { doc, parts, score: parts.reduce((sum, part) => sum + part.points, 0) };
  });
  const all = scored.filter((s) => s.parts.every((part) => part.points > 0));
  const mode = all.length > 0 ? "all" : "any";
  const matched = mode === "all" ? all : scored.filter((s) => s.score > 0);

  const hits = matched.map(({ doc, parts, score }): Hit => ({
    fn: doc.fn,
    namespace: doc.namespace,
    tool: doc.tool,
    description: doc.description ?? "",
    score,
    ...(options.explain ? { explain: parts } : {}),
  }));
  hits.sort(compareHits);
  return { hits: hits.slice(0, limit), mode, total: hits.length };
}

/**
 * The two-column `FUNCTION  DESCRIPTION` table, one tool per line. Descriptions are folded onto
 * one line and clipped with `…` so that no line is longer than `width` (default 120) unless the
 * function name alone is; names are never clipped. No hits gives the empty string.
 */
export function renderHits(hits: readonly Hit[], options: { width?: number } = {}): string {
  if (hits.length === 0) return "";
  const width = options.width ?? 120;
  const nameWidth = Math.max("FUNCTION".length, ...hits.map((hit) => hit.fn.length));
  const room = width - nameWidth - 2;
  const rows = hits.map((hit) => [hit.fn, clip(hit.description, room)]);
  return renderTable(["FUNCTION", "DESCRIPTION"], rows);
}

/**
 * The score behind each hit, one line each: `click exact 100, screenshot no match`. Needs hits
 * from `search(..., { explain: true })`.
 */
export function renderExplain(hits: readonly Hit[]): string {
  if (hits.length === 0) return "";
  const why = (parts: readonly TermScore[]) =>
    parts
      .map((p) => p.field === "none" ? `${p.term} no match` : `${p.term} ${p.field} ${p.points}`)
      .join(", ");
  const rows = hits.map((hit) => [String(hit.score), hit.fn, why(hit.explain ?? [])]);
  return renderTable(["SCORE", "FUNCTION", "BREAKDOWN"], rows);
}

/** A name, term or tag in every form matching compares. */
interface Forms {
  /** Lowercased as given. */
  raw: string;
  /** The split words run together: `listPages`, `list_pages` and `list-pages` all give `listpages`. */
  compact: string;
  words: string[];
  /** The words stemmed: made when first asked for ({@linkcode stemsOf}). */
  stems?: string[];
}

interface Prepared {
  /** The real tool name and, when it differs, the identifier form. */
  names: Forms[];
  fn: Forms;
  namespaces: Forms[];
  tags: Forms[];
  description: string;
  /** The description, lowercased. */
  lower: string;
  /** Its stemmed words, made the first time a term gets as far as the description. */
  descriptionStems?: string[];
}

function forms(text: string): Forms {
  const words = splitWords(text);
  return { raw: text.toLowerCase(), compact: words.join(""), words };
}

function stemsOf(f: Forms): string[] {
  return f.stems ??= f.words.map(stem);
}

/**
 * Whether `f` has the stems as consecutive words. Only names that could hold them are stemmed:
 * a stem is a prefix of its word, or ends in `y` where the word has `i` (`queries` → `query`),
 * so each stem must be found in the words run together. (Stemming every name and description
 * cost a search of 68 tools ~2 ms at start-up, performance.now() around search().)
 */
function hasWords(f: Forms, stems: readonly string[]): boolean {
  return mayHold(f.compact, stems) && hasRun(stemsOf(f), stems);
}

function mayHold(text: string, stems: readonly string[]): boolean {
  for (const s of stems) {
    if (!text.includes(s) && !(s.endsWith("y") && text.includes(s.slice(0, -1) + "i"))) {
      return false;
    }
  }
  return true;
}

function queryTerms(query: string): Forms[] {
  const seen = new Set<string>();
  const terms: Forms[] = [];
  for (const word of query.split(/\s+/)) {
    const term = forms(word);
    // A term with no letters or digits ("-", ".") would match every name.
    if (term.compact === "" || seen.has(term.raw)) continue;
    seen.add(term.raw);
    terms.push(term);
  }
  if (terms.length === 0) {
    throw new McpxError("USAGE", "Search needs at least one word", {
      hint: "Name what the tool does or is called, e.g. `mcpx search screenshot click`",
    });
  }
  return terms;
}

function prepare(doc: SearchDoc, formsOf: (text: string) => Forms): Prepared {
  const dot = doc.fn.indexOf(".");
  const fnTool = dot < 0 ? doc.fn : doc.fn.slice(dot + 1);
  const fnNamespace = dot < 0 ? doc.namespace : doc.fn.slice(0, dot);
  return {
    names: distinct([doc.tool, fnTool]).map(formsOf),
    fn: forms(doc.fn),
    namespaces: distinct([doc.namespace, fnNamespace]).map(formsOf),
    tags: (doc.tags ?? []).map(formsOf),
    description: doc.description ?? "",
    lower: (doc.description ?? "").toLowerCase(),
  };
}

/**
 * Whether the description has the stems as consecutive words; as {@linkcode hasWords}, a
 * description is split and stemmed only when its lowercase text could hold them (for ASCII text,
 * where lowercasing a word and its text agree).
 */
function inDescription(stems: readonly string[], doc: Prepared): boolean {
  if (!NON_ASCII.test(doc.description) && !mayHold(doc.lower, stems)) return false;
  doc.descriptionStems ??= splitWords(doc.description).map(stem);
  return hasRun(doc.descriptionStems, stems);
}

function scoreTerm(term: Forms, doc: Prepared): { field: SearchField; points: number } {
  const field = bestField(term, doc);
  return { field, points: field === "none" ? 0 : FIELD_POINTS[field] };
}

function bestField(term: Forms, doc: Prepared): SearchField {
  const stems = stemsOf(term);
  if (doc.names.some((name) => same(term, name)) || same(term, doc.fn)) return "exact";
  if (doc.names.some((name) => name.compact.startsWith(term.compact))) return "prefix";
  if (doc.tags.some((tag) => same(term, tag) || sameWords(stemsOf(tag), stems))) return "tag";
  if (doc.names.some((name) => name.compact.includes(term.compact))) return "substring";
  if (doc.names.some((name) => hasWords(name, stems))) return "word";
  const inNamespace = doc.namespaces.some((ns) =>
    ns.compact.includes(term.compact) || hasWords(ns, stems)
  );
  // Only a match spanning namespace and tool counts as the path: one inside the tool name has
  // already scored above, and one inside the namespace alone is a namespace match.
  if (!inNamespace && (doc.fn.compact.includes(term.compact) || hasWords(doc.fn, stems))) {
    return "path";
  }
  if (inNamespace) return "namespace";
  if (inDescription(stems, doc)) return "description";
  return "none";
}

function same(a: Forms, b: Forms): boolean {
  return a.raw === b.raw || (a.compact !== "" && a.compact === b.compact);
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length > 0 && a.length === b.length && a.every((word, i) => word === b[i]);
}

/** Whether `needle` occurs in `haystack` as consecutive words. */
function hasRun(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0) return false;
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    if (needle.every((word, j) => haystack[i + j] === word)) return true;
  }
  return false;
}

function distinct(values: string[]): string[] {
  return [...new Set(values)];
}

/** Higher score first, then the shorter function name, then code-unit order: no locale involved. */
function compareHits(a: Hit, b: Hit): number {
  return b.score - a.score || a.fn.length - b.fn.length || order(a.fn, b.fn) ||
    order(a.tool, b.tool) || order(a.namespace, b.namespace);
}

function order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
