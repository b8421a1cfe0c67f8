// A hot Payment's events through its workflow's history (src/domain/events.ts, compactPaymentEvent)
// and the bodies the outbox records from them (src/representations/event-body.ts): a compact event
// carries only the refunds that moved since the Payment's previous webhook event, and its recorded
// body is byte for byte the body of the full event.
import { BUILD_ON_EVENTS_WITHIN_SECONDS, COMPACT_FROM_REFUNDS, compactPaymentEvent, type PendingEvent } from '../../src/domain/events';
import type { PaymentView, RefundView } from '../../src/domain/payment';
import { eventBody, refundsOfBody } from '../../src/representations/event-body';

const refund = (n: number, status: RefundView['status'] = 'PROCESSING', updatedAt = 100): RefundView => ({
  id: `ref_${n}`, payment_id: 'pay_1', amount: 1, currency: 'USD', merchant_reference: null, reason: `r${n}`, refund_type: 'PARTIAL',
  status, failure_code: status === 'FAILED' ? 'processor_error' : null, failure_message: status === 'FAILED' ? 'failed' : null,
  created_at: 100, updated_at: updatedAt, completed_at: status === 'SUCCEEDED' || status === 'FAILED' ? updatedAt : null,
});
const payment = (refunds: RefundView[]): PaymentView => ({
  id: 'pay_1', merchant_id: 'mer_1', livemode: false, amount: 10_000, currency: 'USD', status: 'SUCCEEDED', integration_type: 'DIRECT',
  merchant_reference: null, description: null, card: null, billing_details: null, failure_code: null, failure_message: null,
  amount_refunded: refunds.filter((r) => r.status === 'SUCCEEDED').length, amount_refundable: 10_000 - refunds.filter((r) => r.status !== 'FAILED').length,
  refunds, status_transitions: { requires_action_at: null, processing_at: null, succeeded_at: 90, failed_at: null, expired_at: null },
  next_action: null, refunded_at: null, return_url: null, customer_ip_address: null, merchant_customer_id: null, metadata: null,
  customer: null, callback_url: null, hosted_token: null, created_at: 90, updated_at: 100, version: refunds.length,
} as PaymentView);
let ids = 0;
const paymentEvent = (refunds: RefundView[], createdAt = 100, callbackUrl?: string): PendingEvent => ({
  id: `evt_${(ids += 1)}`, type: 'payment.refunded', merchantId: 'mer_1', livemode: false, objectId: 'pay_1', createdAt,
  subject: { kind: 'payment', payment: payment(refunds) }, ...(callbackUrl ? { callbackUrl } : {}),
});
const refundsCarried = (event: PendingEvent) => (event.subject.kind === 'payment' ? event.subject.payment.refunds.map((r) => r.id) : null);
const many = (n: number, status: RefundView['status'] = 'SUCCEEDED') => Array.from({ length: n }, (_, i) => refund(i, status));

describe('a Payment event in the workflow', () => {
  it('carries every refund while the event before it holds few', () => {
    const previous = paymentEvent(many(COMPACT_FROM_REFUNDS - 1));
    const event = paymentEvent(many(COMPACT_FROM_REFUNDS));
    expect(compactPaymentEvent(event, previous)).toBe(event);
  });

  it('carries only the refunds added or moved since the previous one, and names it', () => {
    const earlier = many(COMPACT_FROM_REFUNDS + 5, 'PROCESSING');
    const previous = paymentEvent(earlier);
    const now = earlier.slice();
    now[3] = refund(3, 'SUCCEEDED', 101);
    now.push(refund(500, 'SUCCEEDED', 101));
    const compact = compactPaymentEvent(paymentEvent(now), previous);
    expect(refundsCarried(compact)).toEqual(['ref_3', 'ref_500']);
    expect(compact.subject).toMatchObject({ refundsSince: previous.id });
  });

  it('carries every refund when it is the first of its run', () => {
    const event = paymentEvent(many(50));
    expect(compactPaymentEvent(event, null)).toBe(event);
  });

  it('carries every refund after a day without Payment events (the one before may be purged by then)', () => {
    const previous = paymentEvent(many(50), 100);
    const late = paymentEvent(many(51), 100 + BUILD_ON_EVENTS_WITHIN_SECONDS);
    expect(compactPaymentEvent(late, previous)).toBe(late);
    const inTime = paymentEvent(many(51), 99 + BUILD_ON_EVENTS_WITHIN_SECONDS);
    expect(refundsCarried(compactPaymentEvent(inTime, previous))).toEqual(['ref_50']);
  });

  it('never builds on a callback_url copy, whose body shows no refunds', () => {
    const copy = paymentEvent(many(50), 100, 'https://merchant.example/callback');
    const event = paymentEvent(many(51));
    expect(compactPaymentEvent(event, copy)).toBe(event);
  });

  it('is never compact as a callback_url copy, whose body is the Shape B Payment', () => {
    const copy = paymentEvent(many(51), 100, 'https://merchant.example/callback');
    expect(compactPaymentEvent(copy, paymentEvent(many(50)))).toBe(copy);
  });
});

describe('the recorded body of a compact Payment event', () => {
  it('is byte for byte the body of the full event, along a chain of refunds added, settled and failed', () => {
    let refunds = many(COMPACT_FROM_REFUNDS, 'SUCCEEDED');
    let previous: PendingEvent | null = null;
    let previousBody = '';
    let compacted = 0;
    for (let step = 0; step < 60; step += 1) {
      // Refunds are appended and move in place: a new one now and then, and an earlier one settles.
      refunds = refunds.slice();
      if (step % 3 === 0) refunds.push(refund(1000 + step, 'PROCESSING', 100 + step));
      const open = refunds.findIndex((r) => r.status === 'PROCESSING');
      if (step % 2 === 1 && open >= 0) refunds[open] = { ...refund(0, step % 5 === 0 ? 'FAILED' : 'SUCCEEDED', 100 + step), id: refunds[open]!.id, reason: refunds[open]!.reason };
      const full = paymentEvent(refunds, 100 + step);
      const compact = compactPaymentEvent(full, previous);
      if (compact !== full) compacted += 1;
      const body = eventBody(compact, compact === full ? undefined : refundsOfBody(previousBody));
      expect(body).toBe(eventBody(full));
      [previous, previousBody] = [full, body];
    }
    expect(compacted).toBe(59);
  });

  it('cannot be written without the refunds of the event it builds on', () => {
    const previous = paymentEvent(many(20));
    expect(() => eventBody(compactPaymentEvent(paymentEvent(many(21)), previous))).toThrow(/builds on/);
  });
});
