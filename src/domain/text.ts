// Merchant- and shopper-sent text. The interface's limits are in characters, and a character is a
// Unicode code point: an emoji or a CJK extension character is one, though JavaScript's `length`
// (UTF-16 units) counts it as two. The database's utf8mb4 VARCHAR(n) counts the same way.
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** The first `max` characters (code points): a cut never splits a surrogate pair. */
export function sliceCharacters(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  let count = 0;
  for (const character of text) {
    if (count === max) break;
    out += character;
    count += 1;
  }
  return out;
}

// With the `u` flag a pair is one code point, so only an unpaired surrogate is of category Cs.
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/**
 * Whether the text is a sequence of Unicode scalar values. JSON's `\ud800` escape yields an unpaired
 * UTF-16 surrogate, which no UTF-8 column, log or webhook body can hold: each would store U+FFFD
 * instead, and the text read back would differ from the text accepted.
 */
export function isWellFormedText(text: string): boolean {
  return !UNPAIRED_SURROGATE.test(text);
}
