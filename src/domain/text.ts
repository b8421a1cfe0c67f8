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

// C0 and C1 control characters other than tab, line feed and carriage return (NUL among them), and the
// bidirectional embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069). A NUL cuts
// text short in C libraries and some drivers; an override (U+202E) shows text in another order than
// it is stored, so a name or description can read as something else on a page, a dashboard or a
// statement. The bidi marks (U+200E, U+200F, U+061C) only set the direction of their neighbours, and
// right-to-left text needs them: they stay allowed.
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/u;

/** The first forbidden control character of the text as `U+XXXX`, or null when there is none. */
export function forbiddenControlIn(text: string): string | null {
  const match = FORBIDDEN_CONTROL.exec(text);
  return match ? `U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : null;
}
