/**
 * Edit distance that counts a swap of two neighbours as one change (optimal string
 * alignment), so `@entyr` is one step from `@entry`.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = 0; i <= a.length; i++) d[i][0] = i;
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/** The candidate closest to `word`, if it is close enough to be a plausible typo. */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  const w = word.toLowerCase();
  for (const c of candidates) {
    const score = editDistance(w, c.toLowerCase());
    if (score < bestScore) [best, bestScore] = [c, score];
  }
  const limit = Math.max(2, Math.floor(word.length / 3));
  return bestScore <= limit ? best : undefined;
}

/** `: did you mean "x"?` when a near miss exists, else the empty string. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const n = nearest(word, candidates);
  return n === undefined ? "" : `: did you mean "${n}"?`;
}
