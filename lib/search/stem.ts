/**
 * Folds a lowercase word to a crude stem so that inflections meet: `screenshots` and
 * `screenshot`, `clicking` and `click`, `taking` and `take` (both `tak`). The stem is a key for
 * comparison, not a word to show. Words that are not plain ASCII letters pass through unchanged.
 * The steps, in order (docs/search.md has the same list):
 *
 * 1. `-ies` → `-y` in words of 5+ letters; otherwise a final `-s` goes, unless the word ends in
 *    `ss`, `us` or `is` or fewer than 3 letters would remain (`pages` → `page`, `boxes` → `boxe`).
 * 2. `-ied` → `-y` in words of 6+ letters; otherwise `-ing`, then `-ed`, then `-er` each go if
 *    3+ letters with a vowel remain (`clicking` → `click`, `filtering` → `filter` → `filt`).
 *    They chain so that a word and its inflection meet: `filter` → `filt` as well.
 * 3. A final `e` goes if 3+ letters remain (`take` → `tak`, `boxe` → `box`).
 * 4. A doubled final consonant other than `l`, `s`, `z` is halved if 3+ letters remain
 *    (`mapping` → `mapp` → `map`; `fill` and `pass` stay).
 */
export function stem(word: string): string {
  // By hand, not by regular expression: it runs for every word of every name a search reads.
  for (let i = 0; i < word.length; i++) {
    if (word[i] < "a" || word[i] > "z") return word;
  }
  if (word === "") return word;
  let w = word;
  if (w.length >= 5 && w.endsWith("ies")) w = w.slice(0, -3) + "y";
  else if (
    w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is") &&
    w.length - 1 >= 3
  ) w = w.slice(0, -1);

  if (w.length >= 6 && w.endsWith("ied")) w = w.slice(0, -3) + "y";
  else w = dropSuffix(dropSuffix(dropSuffix(w, "ing"), "ed"), "er");

  if (w.endsWith("e") && w.length - 1 >= 3) w = w.slice(0, -1);
  const last = w[w.length - 1];
  if (w.length - 1 >= 3 && last === w[w.length - 2] && !"aeiouylsz".includes(last)) {
    w = w.slice(0, -1);
  }
  return w;
}

/** `word` without `suffix`, when what remains has 3+ letters and a vowel. */
function dropSuffix(word: string, suffix: string): string {
  if (!word.endsWith(suffix)) return word;
  const rest = word.slice(0, -suffix.length);
  if (rest.length < 3) return word;
  for (const c of rest) if ("aeiouy".includes(c)) return rest;
  return word;
}
