import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  MAX_AMOUNT,
  currencyExponent,
  formatMinor,
  isIsoCurrency,
  minorToDecimalString,
  normalizeCurrency,
  parseMajorAmount,
} from '../../src/domain/money';

const NBSP = '\u00a0';

describe('normalizeCurrency', () => {
  it('trims and uppercases three ASCII letters', () => {
    expect(normalizeCurrency('usd')).toBe('USD');
    expect(normalizeCurrency('  eUr \t\n')).toBe('EUR');
    expect(normalizeCurrency('JPY')).toBe('JPY');
    // Well-formed but not ISO: still normalised (the merchant check answers it later).
    expect(normalizeCurrency('abc')).toBe('ABC');
  });

  it.each([[''], ['   '], ['US'], ['USDD'], ['U SD'], ['US1'], ['$$$'], ['ÜSD'], ['usd.']])(
    'rejects %j',
    (input) => {
      expect(normalizeCurrency(input)).toBeNull();
    },
  );

  it('rejects non-ASCII letters that uppercase to ASCII', () => {
    // 'ı'.toUpperCase() === 'I' and 'ſ'.toUpperCase() === 'S'.
    expect(normalizeCurrency('usı')).toBeNull();
    expect(normalizeCurrency('ſek')).toBeNull();
  });
});

describe('currencyExponent / isIsoCurrency', () => {
  it.each([
    ['USD', 2], ['EUR', 2], ['GBP', 2], ['JPY', 0], ['KWD', 3], ['CHF', 2], ['SEK', 2],
    ['BHD', 3], ['ISK', 0], ['CLF', 4], ['usd', 2], [' jpy ', 0],
  ])('%j has exponent %i', (code, exponent) => {
    expect(currencyExponent(code)).toBe(exponent);
    expect(isIsoCurrency(code)).toBe(true);
  });

  it.each([['ABC'], ['QQQ'], ['US'], [''], ['EURO']])('%j is not an ISO currency', (code) => {
    expect(currencyExponent(code)).toBeNull();
    expect(isIsoCurrency(code)).toBe(false);
  });
});

describe('minorToDecimalString', () => {
  it('places the decimal point by exponent with integer arithmetic', () => {
    expect(minorToDecimalString(4999, 2)).toBe('49.99');
    expect(minorToDecimalString(5, 2)).toBe('0.05');
    expect(minorToDecimalString(0, 2)).toBe('0.00');
    expect(minorToDecimalString(4999, 0)).toBe('4999');
    expect(minorToDecimalString(1234, 3)).toBe('1.234');
    expect(minorToDecimalString(7, 4)).toBe('0.0007');
    expect(minorToDecimalString(-4999, 2)).toBe('-49.99');
    expect(minorToDecimalString(MAX_AMOUNT, 2)).toBe('999999999.99');
  });

  it('rejects non-integers', () => {
    expect(() => minorToDecimalString(49.99, 2)).toThrow(RangeError);
  });
});

describe('formatMinor', () => {
  it('formats per ISO exponent', () => {
    expect(formatMinor(4999, 'USD')).toBe('$49.99');
    expect(formatMinor(4999, 'JPY')).toBe('¥4,999');
    expect(formatMinor(1234, 'KWD')).toBe(`KWD${NBSP}1.234`);
    expect(formatMinor(1, 'USD')).toBe('$0.01');
    expect(formatMinor(100, 'usd')).toBe('$1.00');
    expect(formatMinor(1050, 'CHF')).toBe(`CHF${NBSP}10.50`);
  });

  it('keeps every digit of the largest amounts', () => {
    expect(formatMinor(MAX_AMOUNT, 'USD')).toBe('$999,999,999.99');
    expect(formatMinor(MAX_AMOUNT, 'JPY')).toBe('¥99,999,999,999');
    expect(formatMinor(MAX_AMOUNT, 'KWD')).toBe(`KWD${NBSP}99,999,999.999`);
    expect(formatMinor(99_999_999_901, 'USD')).toBe('$999,999,999.01');
  });

  it('honours the locale', () => {
    expect(formatMinor(4999, 'EUR', 'de-DE')).toBe(`49,99${NBSP}€`);
  });

  it('round-trips digits exactly for any amount up to the maximum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_AMOUNT }), (amount) => {
        const shown = formatMinor(amount, 'USD').replace(/[$,]/g, '');
        expect(shown).toBe(minorToDecimalString(amount, 2));
      }),
    );
  });

  it('throws for unknown currencies', () => {
    expect(() => formatMinor(100, 'ABC')).toThrow(RangeError);
    expect(() => formatMinor(100, 'US')).toThrow(RangeError);
  });
});

describe('parseMajorAmount', () => {
  it.each([
    ['25,50', 2, 2550],
    ['25.5', 2, 2550],
    ['25', 2, 2500],
    ['25.', 2, 2500],
    ['0,01', 2, 1],
    ['1.234', 3, 1234],
    ['1,2', 3, 1200],
    ['100', 0, 100],
    ['007.50', 2, 750],
    ['999999999.99', 2, MAX_AMOUNT],
    ['99999999999', 0, MAX_AMOUNT],
  ])('%j with exponent %i is %i', (text, exponent, minor) => {
    expect(parseMajorAmount(text, exponent)).toBe(minor);
  });

  it.each([
    ['1,5', 0],
    ['1.', 0],
    ['25.505', 2],
    ['1.2345', 3],
    ['', 2],
    ['-3', 2],
    ['+3', 2],
    ['1,000.50', 2],
    ['1.000,50', 2],
    ['1 000', 2],
    [' 25', 2],
    ['25 ', 2],
    ['.5', 2],
    [',', 2],
    ['1e3', 2],
    ['0x10', 2],
    ['25.50.1', 2],
    ['٢٥', 2],
    ['abc', 2],
  ])('%j with exponent %i is null', (text, exponent) => {
    expect(parseMajorAmount(text, exponent)).toBeNull();
  });

  it('rejects amounts above MAX_AMOUNT and huge digit strings', () => {
    expect(parseMajorAmount('1000000000', 2)).toBeNull();
    expect(parseMajorAmount('100000000000', 0)).toBeNull();
    expect(parseMajorAmount('9'.repeat(40), 2)).toBeNull();
    expect(parseMajorAmount('0'.repeat(40) + '1', 2)).toBe(100);
  });

  it('rejects an invalid exponent', () => {
    expect(parseMajorAmount('1', -1)).toBeNull();
    expect(parseMajorAmount('1', 1.5)).toBeNull();
  });

  it('inverts minorToDecimalString with either separator', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_AMOUNT }),
        fc.integer({ min: 0, max: 4 }),
        fc.constantFrom('.', ','),
        (amount, exponent, sep) => {
          const text = minorToDecimalString(amount, exponent).replace('.', sep);
          expect(parseMajorAmount(text, exponent)).toBe(amount);
        },
      ),
    );
  });
});
