import { describe, expect, it } from '@jest/globals';
import {
  checkDestinationCard, destinationCountry, isTerminalPayoutStatus, isValidRecipientName,
} from '../../src/domain/payout';

describe('checkDestinationCard', () => {
  it.each([
    ['4242424242424242', 'VISA', '4242'],
    ['5555555555554444', 'MASTERCARD', '4444'],
    ['4000007000000007', 'VISA', '0007'],
  ])('accepts %s as %s', (number, brand, last4) => {
    expect(checkDestinationCard(number, false)).toEqual({ ok: true, brand, last4 });
  });

  it.each([
    ['Luhn failure', '4242424242424241'],
    ['too short', '42424242424'],
    ['too long', '42424242424242424242'],
    ['not digits', '4242 4242 4242 4242'],
    ['empty', ''],
  ])('%s -> invalid_card', (_label, number) => {
    const check = checkDestinationCard(number, false);
    expect(check).toMatchObject({ ok: false, code: 'invalid_card' });
    if (!check.ok) expect(check.message).not.toContain(number || '-');
  });

  it.each([['378282246310005'], ['6011111111111117']])('%s (not Visa or Mastercard) -> unsupported_card', (number) => {
    expect(checkDestinationCard(number, false)).toMatchObject({ ok: false, code: 'unsupported_card' });
  });

  it('a test card with a live key -> invalid_card', () => {
    expect(checkDestinationCard('4242424242424242', true)).toMatchObject({ ok: false, code: 'invalid_card' });
    // A Luhn-valid number that is not a documented test card is fine in live mode.
    expect(checkDestinationCard('4111111111111111', true)).toMatchObject({ ok: true, brand: 'VISA' });
  });
});

describe('isValidRecipientName', () => {
  it.each([['Ana'], ['  O\'Brien '], ['Díaz'], ['x'], ['x'.repeat(255)], ['😀'.repeat(255)]])('accepts %j', (name) => {
    expect(isValidRecipientName(name)).toBe(true);
  });

  it.each([[''], [' '], ['\t\n'], ['\u00a0'], ['x'.repeat(256)]])('refuses %j', (name) => {
    expect(isValidRecipientName(name)).toBe(false);
  });
});

describe('payout statuses', () => {
  it('SUCCEEDED and FAILED are terminal', () => {
    expect(isTerminalPayoutStatus('SUCCEEDED')).toBe(true);
    expect(isTerminalPayoutStatus('FAILED')).toBe(true);
    expect(isTerminalPayoutStatus('PENDING')).toBe(false);
    expect(isTerminalPayoutStatus('PROCESSING')).toBe(false);
  });

  it('sandbox destinations are US cards; live ones unknown', () => {
    expect(destinationCountry(false)).toBe('US');
    expect(destinationCountry(true)).toBeNull();
  });
});
