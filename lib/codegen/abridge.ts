// How `mcpx types <ns>` shortens a description: the first paragraph, and of a long one the
// sentences that fit. `mcpx types <ns>.<tool>` prints the same text whole.

/** What ends a shortened description: the rest is in `mcpx types <ns>.<tool>`. */
export const CUT_MARK = "…";

// Abbreviations whose dot ends no sentence.
const NOT_AN_END = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf)\.$/i;

/**
 * `text` cut to its first paragraph, and when that is longer than `limit` characters, to the
 * sentences of it that fit in `limit` (the first sentence when none does, or as many words as fit
 * when that is still more than twice `limit`). A shortened text has its whitespace collapsed and
 * ends in {@linkcode CUT_MARK}; a text that needs no cut comes back as it is, trimmed.
 *
 * @example
 * ```ts
 * abridge("Clicks an element.\n\nUse take_snapshot first.", 200); // "Clicks an element. …"
 * ```
 */
export function abridge(text: string, limit: number): string {
  const whole = text.trim();
  const para = whole.split(/\r?\n[ \t]*\r?\n/, 1)[0].replace(/\s+/g, " ").trim();
  const single = para.length === whole.replace(/\s+/g, " ").length;
  if (para.length <= limit) return single ? whole : `${para} ${CUT_MARK}`;
  const ends = sentenceEnds(para);
  const fits = ends.filter((e) => e <= limit);
  const end = fits.length > 0 ? fits[fits.length - 1] : ends.find((e) => e <= 2 * limit);
  if (end !== undefined) {
    return end === para.length && single ? whole : `${para.slice(0, end)} ${CUT_MARK}`;
  }
  const space = para.lastIndexOf(" ", limit);
  return `${para.slice(0, space > 0 ? space : limit).replace(/[\s,;:]+$/, "")}${CUT_MARK}`;
}

/** The offsets just past each sentence: its closing punctuation and any quote or bracket after it. */
function sentenceEnds(text: string): number[] {
  const ends: number[] = [];
  for (const m of text.matchAll(/[.!?]["')\]]*(?=\s|$)/g)) {
    const at = m.index + m[0].length;
    if (m[0][0] === "." && NOT_AN_END.test(text.slice(Math.max(0, m.index - 5), m.index + 1))) {
      continue;
    }
    ends.push(at);
  }
  // The end of the text ends its last sentence, closed or not.
  if (ends.at(-1) !== text.length) ends.push(text.length);
  return ends;
}
