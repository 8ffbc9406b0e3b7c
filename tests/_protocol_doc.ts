/**
 * The tables of docs/protocol.md that the protocol tests (tests/e2e/protocol_client_test.ts,
 * tests/e2e/protocol_serve_test.ts) hold to what real mcpx processes sent: each between
 * `<!-- protocol:<name> -->` and `<!-- /protocol:<name> -->`. A test compares the cells; with
 * `MCPX_UPDATE_PROTOCOL_DOC=1` it writes the table instead (then `deno fmt docs/protocol.md`).
 */
import assert from "node:assert/strict";

const DOC = new URL("../docs/protocol.md", import.meta.url);

/** A capabilities object as the tables show it: `roots(listChanged)`, `tools(listChanged=false)`. */
export function showCapabilities(caps: unknown): string {
  if (caps === null || typeof caps !== "object") return "none";
  const parts = Object.keys(caps as object).sort().map((k) => {
    const v = (caps as Record<string, unknown>)[k];
    if (v === true) return k;
    if (v !== null && typeof v === "object") {
      return Object.keys(v).length === 0 ? k : `${k}(${showCapabilities(v)})`;
    }
    return `${k}=${JSON.stringify(v)}`;
  });
  return parts.length === 0 ? "none" : parts.join(", ");
}

/** `words` as one cell: each in backticks, comma-separated. */
export function codeList(words: Iterable<string>): string {
  const list = [...new Set(words)];
  return list.length === 0 ? "none" : list.map((w) => `\`${w}\``).join(", ");
}

function render(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

function cells(table: string): string[][] {
  return table.split("\n").map((l) => l.trim()).filter((l) => l.startsWith("|"))
    .map((l) => l.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()))
    .filter((row) => !row.every((c) => /^:?-+:?$/.test(c)));
}

/**
 * Holds table `name` of docs/protocol.md to `header` and `rows`, or writes it when
 * `MCPX_UPDATE_PROTOCOL_DOC=1`.
 */
export function checkTable(name: string, header: string[], rows: string[][]): void {
  const text = Deno.readTextFileSync(DOC);
  const open = `<!-- protocol:${name} -->`;
  const close = `<!-- /protocol:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  assert.ok(start >= 0 && end > start, `docs/protocol.md has no ${open} … ${close}`);
  const table = render(header, rows);
  if (Deno.env.get("MCPX_UPDATE_PROTOCOL_DOC") === "1") {
    Deno.writeTextFileSync(
      DOC,
      `${text.slice(0, start + open.length)}\n\n${table}\n\n${text.slice(end)}`,
    );
    return;
  }
  assert.deepEqual(
    cells(text.slice(start + open.length, end)),
    cells(table),
    `docs/protocol.md's ${name} table is not what mcpx sent; rerun with ` +
      `MCPX_UPDATE_PROTOCOL_DOC=1, then deno fmt docs/protocol.md. It should be:\n${table}`,
  );
}
