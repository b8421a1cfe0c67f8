// The payout search index's pure parts: suffixes, the one- and two-character grams counted per
// scope, and the choice between walking the newest payouts and listing every match.
import { gramCounts, isGramSearch, searchGrams, searchSuffixes, suffixRange } from '../../src/read-models/payout-search-index';
import { walkFindsPageSooner } from '../../src/read-models/payouts';

describe('searchGrams', () => {
  it('lists every distinct one- and two-character text inside each field', () => {
    expect(searchGrams('po_ab\nana').sort()).toEqual(['_', '_a', 'a', 'ab', 'an', 'b', 'n', 'na', 'o', 'o_', 'p', 'po'].sort());
  });

  it('never pairs the last character of a field with the first of the next', () => {
    expect(searchGrams('ab\ncd')).not.toContain('b\n');
    expect(searchGrams('ab\ncd').some((g) => g.includes('\n'))).toBe(false);
    expect(searchGrams('ab\ncd')).not.toContain('bc');
  });

  it('counts characters as code points, as the search does', () => {
    expect(searchGrams('zoë😀')).toEqual(expect.arrayContaining(['ë', 'ë😀', '😀', 'oë']));
    expect(searchGrams('😀')).toEqual(['😀']);
  });
});

it('gramCounts counts payouts, not occurrences, and adds to what it is given', () => {
  const counts = gramCounts(['anna\nana', 'bob']);
  expect(counts.get('an')).toBe(1);
  expect(counts.get('b')).toBe(1);
  gramCounts(['hannah'], counts);
  expect(counts.get('an')).toBe(2);
  expect(counts.get('h')).toBe(1);
});

it('isGramSearch: one or two code points', () => {
  expect(isGramSearch('a')).toBe(true);
  expect(isGramSearch('an')).toBe(true);
  expect(isGramSearch('😀😀')).toBe(true);
  expect(isGramSearch('ana')).toBe(false);
  expect(isGramSearch('')).toBe(false);
});

it('suffixes and ranges agree: a text occurs exactly where it prefixes a suffix', () => {
  const suffixes = searchSuffixes('po_1\nmaría díaz');
  const range = suffixRange('ía');
  const hits = suffixes.filter(({ suffix }) => Buffer.compare(suffix, range.from) >= 0 && Buffer.compare(suffix, range.to) < 0);
  expect(hits.map((h) => h.pos)).toEqual([8, 12]);
});

describe('walkFindsPageSooner', () => {
  it('walks when matches are a large share of the scope', () => {
    // `an` in the bench: 175,424 of a million payouts, a page of 11.
    expect(walkFindsPageSooner(175_424, 1_000_000, 11)).toBe(true);
  });

  it('lists the matches when they are few', () => {
    expect(walkFindsPageSooner(20, 1_000_000, 11)).toBe(false);
    expect(walkFindsPageSooner(2_000, 1_000_000, 11)).toBe(false);
  });

  it('never walks for no match', () => {
    expect(walkFindsPageSooner(0, 1_000_000, 11)).toBe(false);
    expect(walkFindsPageSooner(0, 0, 11)).toBe(false);
  });

  it('a bigger page needs more matches before walking pays', () => {
    expect(walkFindsPageSooner(8_000, 1_000_000, 11)).toBe(true);
    expect(walkFindsPageSooner(8_000, 1_000_000, 101)).toBe(false);
  });
});
