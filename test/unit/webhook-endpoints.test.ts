// Pure rules of webhook endpoints (src/domain/webhook-endpoints.ts) and delivery ids.
import { derivedId } from '../../src/domain/ids';
import { bodyForVersion, endpointTakes, isEnabledEventName, normalizeEnabledEvents, RETRY_JITTER, retryDelayMs, retryDelaySeconds } from '../../src/domain/webhook-endpoints';
import { deliveryIdOf } from '../../src/webhooks/deliveries';

describe('which events an endpoint takes', () => {
  it('takes the types it names, and every type with *', () => {
    expect(endpointTakes(['payment.succeeded'], 'payment.succeeded')).toBe(true);
    expect(endpointTakes(['payment.succeeded'], 'payment.failed')).toBe(false);
    expect(endpointTakes(['*'], 'payout.failed')).toBe(true);
  });

  it('accepts event types and * as names, nothing else (no prefixes, no case folding)', () => {
    expect(['*', 'payment.succeeded', 'refund.failed', 'payout.pending'].every(isEnabledEventName)).toBe(true);
    expect(['payment.*', 'Payment.succeeded', 'payment.created', ''].some(isEnabledEventName)).toBe(false);
  });

  it('stores distinct names in the order given, and * alone', () => {
    expect(normalizeEnabledEvents(['payment.failed', 'payment.succeeded', 'payment.failed'])).toEqual(['payment.failed', 'payment.succeeded']);
    expect(normalizeEnabledEvents(['payment.failed', '*'])).toEqual(['*']);
  });
});

describe('the body an endpoint receives', () => {
  const event = { payload: '{"shape":"A"}', payload_b: '{"shape":"B"}' };
  it('is the Shape B body on 2024-06-01 when the event has one, else the Shape A body', () => {
    expect(bodyForVersion(event, '2024-06-01')).toBe(event.payload_b);
    expect(bodyForVersion(event, '2025-09-01')).toBe(event.payload);
    expect(bodyForVersion({ ...event, payload_b: null }, '2024-06-01')).toBe(event.payload);
    expect(bodyForVersion(event, null)).toBe(event.payload);
  });
});

describe('retry schedule', () => {
  it('doubles from the initial delay up to an hour', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelaySeconds(5, attempt))).toEqual([5, 10, 20, 40]);
    expect(retryDelaySeconds(5, 20)).toBe(3600);
  });

  it('a failing endpoint\'s next probe comes at its step, and at most a fifth later, never sooner', () => {
    expect(retryDelayMs(5, 1, () => 0)).toBe(5000);
    expect(retryDelayMs(5, 2, () => 0.5)).toBe(11_000);
    expect(retryDelayMs(5, 20, () => 0.999999)).toBeLessThanOrEqual(3600 * 1000 * (1 + RETRY_JITTER));
    for (let i = 0; i < 100; i += 1) {
      const ms = retryDelayMs(5, 3);
      expect(ms).toBeGreaterThanOrEqual(20_000);
      expect(ms).toBeLessThanOrEqual(24_000);
    }
  });
});

describe('delivery ids', () => {
  it('are the same for the same event and endpoint, and differ otherwise', () => {
    const a = deliveryIdOf('evt_1', 'we_1');
    expect(a).toMatch(/^wdl_[A-Za-z0-9]{24}$/);
    expect(deliveryIdOf('evt_1', 'we_1')).toBe(a);
    expect(new Set([a, deliveryIdOf('evt_1', 'we_2'), deliveryIdOf('evt_2', 'we_1'), deliveryIdOf('evt_1', null)]).size).toBe(4);
    expect(derivedId('webhookDelivery', 'x')).toBe(derivedId('webhookDelivery', 'x'));
  });
});
