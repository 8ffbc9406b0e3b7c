/** Text the browser draws: a cell on one line, a row opened in full, columns fitted to a width. */

import type { Row } from "./source.ts";

/** A cell never measures more than this, however long its value: the rest is in the open row. */
const CELL_MAX = 200;

/** A value as one line of a cell: newlines shown as ↵, objects as compact JSON, cut short. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text: string;
  if (typeof value === "string") {
    text = value.length > CELL_MAX * 2 ? value.slice(0, CELL_MAX * 2) : value;
  } else if (typeof value === "object") text = compactJson(value);
  else text = String(value);
  // deno-lint-ignore no-control-regex -- terminal control characters are what it matches
  text = text.replace(/\s*\r?\n\s*/g, " ↵ ").replace(/[\x00-\x08\x0b-\x1f\x7f]/g, " ");
  return text.length > CELL_MAX ? text.slice(0, CELL_MAX - 1) + "…" : text;
}

/** JSON of an object, stopped early when it is long (a 1 MB attribute costs no more than a short one). */
function compactJson(value: object): string {
  let out = "";
  try {
    out = JSON.stringify(value, (_k, v) =>
      typeof v === "string" && v.length > CELL_MAX ? v.slice(0, CELL_MAX) : v) ?? "";
  } catch {
    out = String(value);
  }
  return out;
}

/** `text` cut or padded to exactly `width` columns, a cut ending in `…`. */
export function fit(text: string, width: number): string {
  if (width <= 0) return "";
  if (text.length > width) return width === 1 ? "…" : text.slice(0, width - 1) + "…";
  return text.padEnd(width);
}

/**
 * Widths of `columns` (separated by one space) that fit `width`: each as wide as its header and
 * widest cell up to 40, the widest narrowed first while they do not fit, and the last taking
 * what is left.
 */
export function columnWidths(columns: string[], cells: string[][], width: number): number[] {
  if (columns.length === 0) return [];
  const widths = columns.map((c, i) =>
    Math.min(40, Math.max(c.length, ...cells.map((r) => r[i]?.length ?? 0)))
  );
  const room = Math.max(columns.length, width - (columns.length - 1));
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > room) {
    let widest = 0;
    for (let i = 1; i < widths.length; i++) if (widths[i] > widths[widest]) widest = i;
    if (widths[widest] <= 1) break;
    const second = Math.max(1, ...widths.filter((_, i) => i !== widest));
    const cut = Math.max(1, Math.min(widths[widest] - second, total - room) || 1);
    widths[widest] -= cut;
    total -= cut;
  }
  if (total < room) widths[widths.length - 1] += room - total;
  return widths;
}

/**
 * A row opened in full: one `key: value` per field, nested objects and lists indented beneath
 * their key, and a string of several lines written as those lines, indented, not escaped.
 */
export function detailLines(row: Row): string[] {
  const lines: string[] = [];
  const put = (key: string, value: unknown, indent: string) => {
    if (typeof value === "string" && value.includes("\n")) {
      lines.push(`${indent}${key}:`);
      for (const l of value.replace(/\r\n/g, "\n").split("\n")) lines.push(`${indent}    ${l}`);
    } else if (Array.isArray(value)) {
      if (value.length === 0) return void lines.push(`${indent}${key}: []`);
      lines.push(`${indent}${key}:`);
      value.forEach((v, i) => put(`- [${i}]`, v, indent + "  "));
    } else if (value !== null && typeof value === "object") {
      const entries = Object.entries(value);
      if (entries.length === 0) return void lines.push(`${indent}${key}: {}`);
      lines.push(`${indent}${key}:`);
      for (const [k, v] of entries) put(k, v, indent + "  ");
    } else {
      lines.push(`${indent}${key}: ${value === undefined ? "" : String(value)}`);
    }
  };
  for (const [k, v] of Object.entries(row)) put(k, v, "");
  return lines;
}

/**
 * `lines` broken at `width` columns, so that nothing of an opened row is cut off: at the last
 * space that fits, each further piece under the line's own indentation (and `// ` when the line
 * is a comment); a word longer than the width is cut where it must be.
 */
export function wrapLines(lines: string[], width: number): string[] {
  const w = Math.max(1, width);
  const out: string[] = [];
  for (const line of lines) {
    // deno-lint-ignore no-control-regex -- terminal control characters are what it matches
    const clean = line.replace(/\t/g, "    ").replace(/[\x00-\x08\x0b-\x1f\x7f]/g, " ");
    if (clean.length <= w) {
      out.push(clean);
      continue;
    }
    // Under its own indentation while that leaves room for words, else from the first column;
    // a `//` comment (a signature's doc) goes on as one.
    const lead = /^ *(\/\/ )?/.exec(clean)![0];
    const indent = lead.length <= w / 2 ? lead : "";
    let rest = clean;
    let first = true;
    while (rest.length > 0) {
      const room = w - (first ? 0 : indent.length);
      if (rest.length <= room) {
        out.push(first ? rest : indent + rest);
        break;
      }
      // The last space that fits, past the indentation; none: cut the word.
      const space = rest.lastIndexOf(" ", room);
      const cut = space > (first ? lead.length : 0) ? space : room;
      out.push((first ? "" : indent) + rest.slice(0, cut).trimEnd());
      rest = rest.slice(cut).replace(/^ +/, "");
      first = false;
    }
  }
  return out;
}

/** Whether `row` matches a filter: any cell containing the text, ignoring case. */
export function rowMatches(row: Row, filter: string): boolean {
  if (!filter) return true;
  const f = filter.toLowerCase();
  return Object.values(row).some((v) => cellText(v).toLowerCase().includes(f));
}
