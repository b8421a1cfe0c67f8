// Lengths of merchant-sent text. The spec's limits are in characters, and a character is a Unicode
// code point: an emoji or a CJK extension character is one, though JavaScript's `length` (UTF-16
// units) counts it as two. The database's utf8mb4 VARCHAR(n) counts the same way.
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
