/**
 * Splits a name, a query term or a description into lowercase words: at every character that is
 * not a letter or digit (`_`, `-`, `.`, spaces, punctuation) and at camelCase boundaries, so
 * `listPages`, `list_pages` and `list-pages` all give `["list", "pages"]`, and `getHTMLBody`
 * gives `["get", "html", "body"]`. Digits stay with their letters (`a11y`, `v2`).
 *
 * Printable ASCII text, nearly all of it, is split by hand under rules that mean the same there:
 * the Unicode property classes cost a search over a few dozen descriptions about 1 ms more to
 * compile and run at every start.
 */
export function splitWords(text: string): string[] {
  if (!NON_ASCII.test(text)) return splitAscii(text);
  return text
    // "listPages" → "list Pages"; "HTMLBody" → "HTML Body"
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}

// The same rules for printable ASCII, by hand: one pass, no regular expression (four of them
// per name cost a search of 68 tools ~1 ms at start-up, performance.now() around search()).
function splitAscii(text: string): string[] {
  const words: string[] = [];
  let word = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const upper = c >= 65 && c <= 90;
    if (!upper && !isLowerOrDigit(c)) {
      if (word !== "") words.push(word);
      word = "";
      continue;
    }
    // A capital starts a word after a lowercase letter or digit (`listPages`), and after a
    // capital when a lowercase letter follows it (`HTMLBody`: `HTML`, `Body`).
    if (upper && word !== "") {
      const before = text.charCodeAt(i - 1);
      const after = text.charCodeAt(i + 1);
      if (isLowerOrDigit(before) || (before >= 65 && before <= 90 && after >= 97 && after <= 122)) {
        words.push(word);
        word = "";
      }
    }
    word += upper ? String.fromCharCode(c + 32) : text[i];
  }
  if (word !== "") words.push(word);
  return words;
}

function isLowerOrDigit(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
}

/** Anything but printable ASCII, tabs and line breaks: such text takes the Unicode rules. */
export const NON_ASCII = /[^\t\n\r -~]/;
