/**
 * `count` strings of up to `maxLength - 1` characters drawn from `alphabet`, the same ones for
 * the same seed (a linear congruential generator): inputs for comparing two implementations.
 */
export function randomStrings(
  seed: number,
  count: number,
  alphabet: string,
  maxLength: number,
): string[] {
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    let s = "";
    const length = Math.floor(next() * maxLength);
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(next() * alphabet.length)];
    out.push(s);
  }
  return out;
}
