import { describe, expect, it } from '@jest/globals';
import { containsPattern, isValidSearch, parsePayoutSearch, payoutSearchText } from '../../src/domain/payout-search';

/** What `LIKE pattern ESCAPE '!'` does, for checking patterns without a database. */
function likeMatches(pattern: string, value: string): boolean {
  let regex = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i]!;
    if (c === '!') regex += pattern[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (c === '%') regex += '[\\s\\S]*';
    else if (c === '_') regex += '[\\s\\S]';
    else regex += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${regex}$`, 'u').test(value);
}

const fields = { id: 'po_AbCdEfGhIjKlMnOpQrStUvWx', merchant_reference: 1234567890, first_name: 'Ana', last_name: 'Díaz' };

describe('payoutSearchText', () => {
  it('joins the lowercased id, reference and full name on separate lines', () => {
    expect(payoutSearchText(fields)).toBe('po_abcdefghijklmnopqrstuvwx\n1234567890\nana díaz');
  });

  it('keeps names exactly, spaces included, and skips a missing reference', () => {
    expect(payoutSearchText({ ...fields, merchant_reference: null, first_name: '  O\'Brien ', last_name: 'X' }))
      .toBe('po_abcdefghijklmnopqrstuvwx\n  o\'brien  x');
  });
});

describe('containsPattern', () => {
  const text = payoutSearchText({ ...fields, first_name: '100% Real', last_name: 'a_b' });

  it('matches the text anywhere, literally', () => {
    expect(likeMatches(containsPattern('100% real'), text)).toBe(true);
    expect(likeMatches(containsPattern('a_b'), text)).toBe(true);
    expect(likeMatches(containsPattern('real a_b'), text)).toBe(true);
  });

  it('treats % and _ as characters, not wildcards', () => {
    const other = payoutSearchText({ ...fields, first_name: '1000 Real', last_name: 'axb' });
    expect(likeMatches(containsPattern('100%'), other)).toBe(false);
    expect(likeMatches(containsPattern('a_b'), other)).toBe(false);
    expect(likeMatches(containsPattern('%'), other)).toBe(false);
    expect(likeMatches(containsPattern('l_a'), other)).toBe(false);
    // Every payout id has an underscore, so `_` alone matches them all, literally.
    expect(likeMatches(containsPattern('_'), other)).toBe(true);
    expect(containsPattern('50%_!')).toBe('%50!%!_!!%');
  });

  it('cannot match across two fields', () => {
    expect(likeMatches(containsPattern('7890 ana'), payoutSearchText(fields))).toBe(false);
    expect(likeMatches(containsPattern('ana díaz'), payoutSearchText(fields))).toBe(true);
  });
});

describe('parsePayoutSearch', () => {
  it('lowercases the text for a case-insensitive match', () => {
    expect(parsePayoutSearch('DÍAZ', []).textPattern).toBe('%díaz%');
  });

  it('reads exactly four digits as a last four as well', () => {
    expect(parsePayoutSearch('4242', []).last4).toBe('4242');
    expect(parsePayoutSearch('424', []).last4).toBeNull();
    expect(parsePayoutSearch('42424', []).last4).toBeNull();
    expect(parsePayoutSearch('42a4', []).last4).toBeNull();
  });

  it.each([
    ['25,50', 'EUR', 2550],
    ['25.50', 'EUR', 2550],
    ['25,5', 'EUR', 2550],
    ['25', 'EUR', 2500],
    ['2550', 'JPY', 2550],
    ['25.50', 'JPY', null],
    ['1.234', 'KWD', 1234],
    ['1,234', 'KWD', 1234],
    ['1.2345', 'KWD', null],
    ['ana', 'EUR', null],
    ['-5', 'EUR', null],
  ])('with one currency, %j in %s is the amount %p', (search, currency, expected) => {
    expect(parsePayoutSearch(search, [currency]).amountMinor).toBe(expected);
  });

  it('reads no amount without exactly one currency', () => {
    expect(parsePayoutSearch('25,50', []).amountMinor).toBeNull();
    expect(parsePayoutSearch('2550', ['EUR', 'USD']).amountMinor).toBeNull();
  });
});

describe('isValidSearch', () => {
  it('accepts 1 to 512 characters without control characters', () => {
    expect(isValidSearch('a')).toBe(true);
    expect(isValidSearch(' spaced ')).toBe(true);
    expect(isValidSearch('x'.repeat(512))).toBe(true);
  });

  it.each([[''], ['x'.repeat(513)], ['a\nb'], ['tab\there'], ['nul\u0000']])('refuses %j', (search) => {
    expect(isValidSearch(search)).toBe(false);
  });
});
