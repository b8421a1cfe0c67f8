import { characterCount } from '../../src/domain/text';

describe('characterCount', () => {
  it.each<[string, number]>([
    ['', 0],
    ['abc', 3],
    ['Zoë', 3],
    ['😀', 1], // two UTF-16 units
    ['𠀀𠀀', 2], // CJK Extension B
    ['e\u0301', 2], // a combining mark is a character of its own
    ['\ud800', 1], // a lone surrogate
  ])('%j has %i', (text, count) => {
    expect(characterCount(text)).toBe(count);
  });
});
