// Event types and their filters (docs/events.md), and the retention setting's floor.
import { afterEach, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config';
import { EVENT_TYPES, eventTypeFor, eventTypesMatching } from '../../src/domain/events';

describe('type filters', () => {
  it('an exact type matches itself only, byte for byte', () => {
    expect(eventTypesMatching('payment.refunded')).toEqual(['payment.refunded']);
    expect(eventTypesMatching('PAYMENT.REFUNDED')).toBeNull();
    expect(eventTypesMatching('payment.refund')).toBeNull();
  });

  it('a prefix wildcard ending in .* matches every type under the prefix', () => {
    expect(eventTypesMatching('payout.*')).toEqual(['payout.pending', 'payout.processing', 'payout.succeeded', 'payout.failed']);
    expect(eventTypesMatching('payment.*')).toEqual(EVENT_TYPES.filter((type) => type.startsWith('payment.')));
    expect(eventTypesMatching('payment.*')).toContain('payment.refunded');
  });

  it('other patterns, and wildcards matching no type, match nothing', () => {
    for (const pattern of ['*', 'pay*', 'payment*', '*.succeeded', 'dispute.*', 'payment.*.x', '', '.*']) {
      expect({ pattern, types: eventTypesMatching(pattern) }).toEqual({ pattern, types: null });
    }
  });

  it('payment.refunded is raised by name, never by a Payment status', () => {
    expect(eventTypeFor('payment', 'REFUNDED')).toBe('payment.refunded');
    expect(eventTypeFor('payment', 'PENDING')).toBeNull();
  });
});

describe('EVENT_RETENTION_DAYS', () => {
  const saved = process.env.EVENT_RETENTION_DAYS;
  afterEach(() => {
    if (saved === undefined) delete process.env.EVENT_RETENTION_DAYS;
    else process.env.EVENT_RETENTION_DAYS = saved;
  });

  it('is 30 days by default, may be longer, and is never shorter: the promise to merchants', () => {
    delete process.env.EVENT_RETENTION_DAYS;
    expect(loadConfig().eventRetentionDays).toBe(30);
    process.env.EVENT_RETENTION_DAYS = '90';
    expect(loadConfig().eventRetentionDays).toBe(90);
    process.env.EVENT_RETENTION_DAYS = '29';
    expect(() => loadConfig()).toThrow(/EVENT_RETENTION_DAYS must be an integer, at least 30/);
  });
});
