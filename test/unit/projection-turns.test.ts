// What one projector turn carries (workflows/projection.ts, workflows/payment/state.ts): the
// server terminates a workflow whose activity input passes 2 MB, and a Payment's event may carry
// every refund, so a turn takes a bounded share of the outbox and a change record only what moved.
import { refundsMovedSince, type PaymentView, type RefundView } from '../../src/domain/payment';
import type { PendingEvent } from '../../src/domain/events';
import { EVENT_BYTES_PER_TURN, eventInputBytes, eventsPerTurn } from '../../workflows/projection';

const refund = (n: number, status: RefundView['status'] = 'PROCESSING', updatedAt = 100): RefundView => ({
  id: `ref_${n}`, payment_id: 'pay_1', amount: 1, currency: 'USD', merchant_reference: null, reason: 'r', refund_type: 'PARTIAL',
  status, failure_code: null, failure_message: null, created_at: 100, updated_at: updatedAt, completed_at: null,
});
const payment = (refunds: RefundView[]) => ({ id: 'pay_1', refunds } as unknown as PaymentView);
const paymentEvent = (refunds: number): PendingEvent => ({
  id: 'evt_1', type: 'payment.refunded', merchantId: 'mer_1', livemode: false, objectId: 'pay_1', createdAt: 1,
  subject: { kind: 'payment', payment: payment(Array.from({ length: refunds }, (_, i) => refund(i))) },
});
const refundEvent: PendingEvent = { ...paymentEvent(0), type: 'refund.succeeded', subject: { kind: 'refund', refund: refund(1), livemode: false } };

describe('a projector turn', () => {
  it('takes the whole outbox while it is small', () => {
    expect(eventsPerTurn([refundEvent, refundEvent, paymentEvent(3)])).toBe(3);
  });

  it('stops before the events pass the byte budget', () => {
    const big = paymentEvent(600); // a Payment refunded 600 times: about 300 KB
    expect(eventInputBytes(big)).toBeGreaterThan(EVENT_BYTES_PER_TURN / 2);
    expect(eventsPerTurn([big, big, big, refundEvent])).toBe(1);
    expect(eventsPerTurn([refundEvent, big, big])).toBe(2);
  });

  it('always takes one event, however large, so the outbox drains', () => {
    expect(eventsPerTurn([paymentEvent(5000), refundEvent])).toBe(1);
    expect(eventsPerTurn([])).toBe(0);
  });
});

describe('a Payment change record', () => {
  it('carries every refund before anything was projected', () => {
    const now = payment([refund(1), refund(2)]);
    expect(refundsMovedSince(now.refunds, []).map((r) => r.id)).toEqual(['ref_1', 'ref_2']);
  });

  it('carries only the refunds added or moved since the projected state, in the Payment order', () => {
    const projected = payment([refund(1), refund(2), refund(3)]);
    const now = payment([refund(1), refund(2, 'SUCCEEDED', 101), refund(3), refund(4)]);
    expect(refundsMovedSince(now.refunds, projected.refunds).map((r) => r.id)).toEqual(['ref_2', 'ref_4']);
  });

  it('carries nothing when the read model shows every refund as it is', () => {
    const now = payment([refund(1), refund(2)]);
    expect(refundsMovedSince(now.refunds, now.refunds)).toEqual([]);
  });
});
