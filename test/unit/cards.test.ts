import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  TEST_CARD_NUMBERS,
  cardExpired,
  detectBrand,
  isPayoutEligibleBrand,
  isTestCard,
  last4,
  luhnValid,
  maskedCard,
  redactCardNumbers,
} from '../../src/domain/cards';

// Appends the digit that makes `body` Luhn-valid (independent reference implementation).
function withCheckDigit(body: string): string {
  const digits = [...body].reverse().map(Number);
  const sum = digits.reduce((acc, d, i) => {
    if (i % 2 === 1) return acc + d;
    const doubled = d * 2;
    return acc + (doubled > 9 ? doubled - 9 : doubled);
  }, 0);
  return body + String((10 - (sum % 10)) % 10);
}

const digitString = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((ds) => ds.join(''));

describe('luhnValid', () => {
  it('accepts known valid numbers and rejects a changed check digit', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('378282246310005')).toBe(true);
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(luhnValid('79927398710')).toBe(false);
  });

  it('rejects empty and non-digit input', () => {
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('4242 4242 4242 4242')).toBe(false);
    expect(luhnValid('4242-4242-4242-4242')).toBe(false);
    expect(luhnValid('424242424242424a')).toBe(false);
    expect(luhnValid('٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢')).toBe(false);
  });

  it('accepts every number completed with its check digit', () => {
    fc.assert(fc.property(digitString(1, 18), (body) => luhnValid(withCheckDigit(body))));
  });

  it('detects every single-digit error', () => {
    fc.assert(
      fc.property(digitString(11, 18), fc.nat(), fc.integer({ min: 1, max: 9 }), (body, pos, delta) => {
        const valid = withCheckDigit(body);
        const i = pos % valid.length;
        const changed = (Number(valid[i]) + delta) % 10;
        const broken = valid.slice(0, i) + String(changed) + valid.slice(i + 1);
        return !luhnValid(broken);
      }),
    );
  });

  it('detects adjacent transpositions other than 09/90', () => {
    fc.assert(
      fc.property(digitString(11, 18), fc.nat(), (body, pos) => {
        const valid = withCheckDigit(body);
        const i = pos % (valid.length - 1);
        const a = valid[i]!;
        const b = valid[i + 1]!;
        fc.pre(a !== b && !((a === '0' && b === '9') || (a === '9' && b === '0')));
        const swapped = valid.slice(0, i) + b + a + valid.slice(i + 2);
        return !luhnValid(swapped);
      }),
    );
  });

  it('ignores leading zeros (they do not change the checksum)', () => {
    fc.assert(fc.property(digitString(1, 15), (body) => luhnValid('000' + withCheckDigit(body))));
  });
});

describe('detectBrand', () => {
  it.each([
    ['4242424242424242', 'VISA'],
    ['4000056655665556', 'VISA'],
    ['5105105105105100', 'MASTERCARD'],
    ['5555555555554444', 'MASTERCARD'],
    ['2221000000000009', 'MASTERCARD'],
    ['2720990000000000', 'MASTERCARD'],
    ['2223003122003222', 'MASTERCARD'],
    ['378282246310005', 'AMEX'],
    ['341111111111111', 'AMEX'],
    ['6011111111111117', 'DISCOVER'],
    ['6445644564456445', 'DISCOVER'],
    ['6495000000000000', 'DISCOVER'],
    ['6500000000000002', 'DISCOVER'],
    ['6221260000000000', 'DISCOVER'],
    ['6229250000000000', 'DISCOVER'],
    ['3530111333300000', 'JCB'],
    ['3528000000000000', 'JCB'],
    ['3589000000000000', 'JCB'],
    ['30569309025904', 'DINERS'],
    ['3000000000000004', 'DINERS'],
    ['36227206271667', 'DINERS'],
    ['38520000023237', 'DINERS'],
    ['3900000000000000', 'DINERS'],
    ['6200000000000005', 'UNIONPAY'],
    ['6221250000000000', 'UNIONPAY'],
    ['6229260000000000', 'UNIONPAY'],
    ['8100000000000000', 'UNIONPAY'],
  ])('%s is %s', (number, brand) => {
    expect(detectBrand(number)).toBe(brand);
  });

  it.each([
    ['5000000000000000'], // 50 is Maestro territory, not Mastercard
    ['5600000000000000'],
    ['2220990000000000'], // just below the 2-series range
    ['2721000000000000'], // just above it
    ['3527000000000000'], // just below JCB
    ['3590000000000000'], // just above JCB
    ['3060000000000000'], // just above Diners 300-305
    ['6010000000000000'],
    ['6430000000000000'],
    ['6600000000000000'],
    ['8200000000000000'],
    ['1234567890123452'],
    ['9999999999999995'],
    [''],
    ['4242 4242 4242 4242'],
  ])('%s is UNKNOWN', (number) => {
    expect(detectBrand(number)).toBe('UNKNOWN');
  });
});

describe('masking', () => {
  it('keeps only brand and last four digits', () => {
    expect(last4('4242424242421234')).toBe('1234');
    expect(maskedCard('378282246310005')).toEqual({ brand: 'AMEX', last4: '0005' });
    expect(maskedCard('5555555555554444')).toEqual({ brand: 'MASTERCARD', last4: '4444' });
  });
});

describe('test cards', () => {
  it('holds all 24 cards of the contract table, each Luhn-valid', () => {
    expect(TEST_CARD_NUMBERS.size).toBe(24);
    for (const number of TEST_CARD_NUMBERS) expect(luhnValid(number)).toBe(true);
  });

  it('has the brands of the contract table', () => {
    expect(detectBrand('378282246310005')).toBe('AMEX');
    expect(detectBrand('6011111111111117')).toBe('DISCOVER');
    expect(detectBrand('5555554290000003')).toBe('MASTERCARD');
    const brands = new Set([...TEST_CARD_NUMBERS].map(detectBrand));
    expect([...brands].sort()).toEqual(['AMEX', 'DISCOVER', 'MASTERCARD', 'VISA']);
  });

  it('recognises the special cards and not ordinary numbers', () => {
    for (const number of [
      '4242424242424242', '4000000000000002', '4000008400001629', '4000007100000006',
      '4000000000003063', '5555554290000003', '4100000000000019',
    ]) {
      expect(isTestCard(number)).toBe(true);
    }
    expect(isTestCard('4111111111111111')).toBe(false);
    expect(isTestCard('4242 4242 4242 4242')).toBe(false);
    expect(isTestCard('')).toBe(false);
  });
});

describe('isPayoutEligibleBrand', () => {
  it('allows only Visa and Mastercard', () => {
    expect(isPayoutEligibleBrand('VISA')).toBe(true);
    expect(isPayoutEligibleBrand('MASTERCARD')).toBe(true);
    for (const brand of ['AMEX', 'DISCOVER', 'JCB', 'DINERS', 'UNIONPAY', 'UNKNOWN'] as const) {
      expect(isPayoutEligibleBrand(brand)).toBe(false);
    }
  });
});

describe('cardExpired', () => {
  it('is valid through the last millisecond of the expiry month (UTC)', () => {
    expect(cardExpired(3, 2026, new Date('2026-03-31T23:59:59.999Z'))).toBe(false);
    expect(cardExpired(3, 2026, new Date('2026-04-01T00:00:00.000Z'))).toBe(true);
    expect(cardExpired(3, 2026, new Date('2026-03-01T00:00:00.000Z'))).toBe(false);
    expect(cardExpired(3, 2026, new Date('2025-12-31T00:00:00.000Z'))).toBe(false);
  });

  it('handles December rolling into the next year', () => {
    expect(cardExpired(12, 2025, new Date('2025-12-31T23:59:59.999Z'))).toBe(false);
    expect(cardExpired(12, 2025, new Date('2026-01-01T00:00:00.000Z'))).toBe(true);
  });

  it('handles February of a leap year', () => {
    expect(cardExpired(2, 2028, new Date('2028-02-29T23:59:59.999Z'))).toBe(false);
    expect(cardExpired(2, 2028, new Date('2028-03-01T00:00:00.000Z'))).toBe(true);
  });

  it('uses UTC, not the local offset of the timestamp text', () => {
    // 2026-04-01T01:00+02:00 is still March 31st 23:00 UTC.
    expect(cardExpired(3, 2026, new Date('2026-04-01T01:00:00+02:00'))).toBe(false);
  });

  it('treats past years as expired and fails safe on out-of-range input', () => {
    expect(cardExpired(12, 2020, new Date('2026-01-15T00:00:00Z'))).toBe(true);
    expect(cardExpired(0, 2030, new Date('2026-01-15T00:00:00Z'))).toBe(true);
    expect(cardExpired(13, 2030, new Date('2026-01-15T00:00:00Z'))).toBe(true);
    expect(cardExpired(1.5, 2030, new Date('2026-01-15T00:00:00Z'))).toBe(true);
  });

  it('does not reinterpret small year numbers as 19xx', () => {
    expect(cardExpired(1, 30, new Date('2026-01-15T00:00:00Z'))).toBe(true);
  });
});

describe('redactCardNumbers', () => {
  it('masks plain, spaced and hyphenated card numbers keeping the last four', () => {
    expect(redactCardNumbers('card 4242424242424242 ok')).toBe('card ************4242 ok');
    expect(redactCardNumbers('4242 4242 4242 4242')).toBe('************4242');
    expect(redactCardNumbers('4242-4242-4242-4242')).toBe('************4242');
    expect(redactCardNumbers('amex 3782-822463-10005.')).toBe('amex ***********0005.');
    expect(redactCardNumbers('{"number":"5555555555554444"}')).toBe('{"number":"************4444"}');
  });

  it('masks any run of 13 to 19 digits even when not Luhn-valid', () => {
    expect(redactCardNumbers('x 4242424242424241 y')).toBe('x ************4241 y');
    expect(redactCardNumbers('1234567890123')).toBe('*********0123');
    expect(redactCardNumbers('1234567890123456789')).toBe('***************6789');
  });

  it('masks 12-digit runs only when Luhn-valid', () => {
    expect(luhnValid('123456789015')).toBe(true);
    expect(redactCardNumbers('a 123456789015 b')).toBe('a ********9015 b');
    expect(redactCardNumbers('a 123456789012 b')).toBe('a 123456789012 b');
  });

  it('leaves short numbers, amounts, dates and long non-card digit runs alone', () => {
    const text = 'amount 4999 on 2025-09-01 ref 1234567890 id pay_abc 12345678901234567890';
    expect(redactCardNumbers(text)).toBe(text);
  });

  it('masks a card number that shares a run with other numbers, leaking no middle digits', () => {
    const out = redactCardNumbers('pan 4242 4242 4242 4242 2030');
    expect(out).toBe('pan ****************2030');
    expect(out).not.toMatch(/4242/);
  });

  it('does not join groups separated by two spaces or other punctuation', () => {
    expect(redactCardNumbers('4242  4242')).toBe('4242  4242');
    expect(redactCardNumbers('4242.4242.4242.4242')).toBe('4242.4242.4242.4242');
  });

  it('never leaves more than four digits of a card in the output', () => {
    const card = digitString(11, 18).map(withCheckDigit).filter((n) => n.length >= 12);
    const sep = fc.constantFrom('', ' ', '-');
    const around = fc.constantFrom('', 'card=', 'x', ' "', 'number: ');
    fc.assert(
      fc.property(card, sep, around, around, (number, s, before, after) => {
        const written = s === '' ? number : number.match(/.{1,4}/g)!.join(s);
        const out = redactCardNumbers(before + written + after);
        expect(out).toBe(before + '*'.repeat(number.length - 4) + number.slice(-4) + after);
      }),
    );
  });
});
