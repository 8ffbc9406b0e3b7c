/**
 * Splits a name, a query term or a description into lowercase words: at every character that is
 * not a letter or digit (`_`, `-`, `.`, spaces, punctuation) and at camelCase boundaries, so
 * `listPages`, `list_pages` and `list-pages` all give `["list", "pages"]`, and `getHTMLBody`
 * gives `["get", "html", "body"]`. Digits stay with their letters (`a11y`, `v2`).
 */
export function splitWords(text: string): string[] {
  return text
    // "listPages" → "list Pages"; "HTMLBody" → "HTML Body"
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}
