import { characterCount, isWellFormedText, sliceCharacters } from '../../src/domain/text';

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

describe('isWellFormedText', () => {
  it.each<[string, boolean]>([
    ['', true],
    ['Zoë 💳 𠀀', true],
    ['\ufffd', true], // the replacement character itself is text
    ['a\ud800b', false], // a high surrogate without its low half
    ['a\udc00', false], // a low surrogate without its high half
    ['\udc00\ud800', false], // the halves in the wrong order
    ['💳'.slice(0, 1), false], // half an emoji
  ])('%j -> %s', (text, wellFormed) => {
    expect(isWellFormedText(text)).toBe(wellFormed);
  });
});

describe('sliceCharacters', () => {
  it.each<[string, number, string]>([
    ['abc', 2, 'ab'],
    ['abc', 5, 'abc'],
    ['a😀😀', 2, 'a😀'], // never half an emoji, though `length` is 5
    ['😀😀😀', 2, '😀😀'],
  ])('%j, %i -> %j', (text, max, sliced) => {
    expect(sliceCharacters(text, max)).toBe(sliced);
  });
});
