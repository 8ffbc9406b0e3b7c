/**
 * Splits a name, a query term or a description into lowercase words: at every character that is
 * not a letter or digit (`_`, `-`, `.`, spaces, punctuation) and at camelCase boundaries, so
 * `listPages`, `list_pages` and `list-pages` all give `["list", "pages"]`, and `getHTMLBody`
 * gives `["get", "html", "body"]`. Digits stay with their letters (`a11y`, `v2`).
 *
 * Printable ASCII text, nearly all of it, takes plain character classes that mean the same there: the
 * Unicode property classes cost a search over a few dozen descriptions about 1 ms more to compile
 * and run at every start.
 */
export function splitWords(text: string): string[] {
  if (!NON_ASCII.test(text)) {
    return text
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replace(/([A-Z])([A-Z][a-z])/g, "$1 $2")
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word !== "");
  }
  return text
    // "listPages" → "list Pages"; "HTMLBody" → "HTML Body"
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}

/** Anything but printable ASCII, tabs and line breaks: such text takes the Unicode rules. */
const NON_ASCII = /[^\t\n\r -~]/;
