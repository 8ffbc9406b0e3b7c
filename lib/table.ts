/** Renders rows as a left-aligned text table with a header row, two spaces between columns. */
export function renderTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

/**
 * `text` on one line (each run of whitespace one space, none at either end), cut to `width`
 * characters (code points) with `…` in the last; nothing when `width` leaves no room.
 */
export function clip(text: string, width: number): string {
  // By hand: `ls` runs no regular expression, whose first use costs a start ~0.15 ms.
  const chars: string[] = [];
  let space = false;
  for (const c of text) {
    if (isSpace(c)) space = chars.length > 0;
    else {
      if (space) chars.push(" ");
      chars.push(c);
      space = false;
    }
  }
  if (chars.length <= width) return chars.join("");
  if (width <= 0) return "";
  return chars.slice(0, width - 1).join("").trimEnd() + "…";
}

// The characters `\s` matches in a regular expression.
function isSpace(c: string): boolean {
  const n = c.charCodeAt(0);
  return (n >= 9 && n <= 13) || n === 32 || n === 0xa0 || n === 0x1680 ||
    (n >= 0x2000 && n <= 0x200a) || n === 0x2028 || n === 0x2029 || n === 0x202f ||
    n === 0x205f || n === 0x3000 || n === 0xfeff;
}
