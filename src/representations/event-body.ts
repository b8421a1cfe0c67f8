// The exact bodies of a recorded event: the event envelope with the object as Shape A shows it;
// for webhook endpoints on 2024-06-01, the same envelope with the Shape B Payment (payment events
// only: refund and payout events have one shape); for a Shape B `callback_url`, the Shape B Payment
// itself (docs/webhooks.md, docs/shape-b.md).
import type { EventSubject, PendingEvent } from '../domain/events';
import { serializePaymentA, serializeRefundA } from './payment-a';
import { serializePaymentB } from './payment-b';
import { serializePayout } from './payout';

export type RefundA = ReturnType<typeof serializeRefundA>;

/**
 * The Shape A body. A compact Payment event (`refundsSince`, src/domain/events.ts) needs the refunds
 * of the event it builds on, as that event's recorded body shows them (`refundsOfBody`): its own
 * refunds replace theirs, and refunds new since then follow them, in the Payment's order.
 */
export function eventBody(event: PendingEvent, earlierRefunds?: readonly RefundA[]): string {
  const { subject } = event;
  if (event.callbackUrl && subject.kind === 'payment') return JSON.stringify(serializePaymentB(subject.payment));
  const object = snapshot(subject);
  if (subject.kind === 'payment' && subject.refundsSince) {
    if (!earlierRefunds) throw new Error(`event ${event.id} builds on ${subject.refundsSince}, whose refunds were not given`);
    object.refunds = withMoved(earlierRefunds, object.refunds as RefundA[]);
  }
  return envelope(event, object);
}

/** The refunds a recorded Payment event's Shape A body shows. */
export function refundsOfBody(body: string): RefundA[] {
  return (JSON.parse(body) as { data: { object: { refunds: RefundA[] } } }).data.object.refunds;
}

function withMoved(earlier: readonly RefundA[], moved: readonly RefundA[]): RefundA[] {
  const byId = new Map(moved.map((refund) => [refund.id, refund]));
  const refunds = earlier.map((refund) => {
    const now = byId.get(refund.id);
    byId.delete(refund.id);
    return now ?? refund;
  });
  return [...refunds, ...byId.values()];
}

/** The body for endpoints on 2024-06-01, or null when it is the Shape A body. */
export function eventBodyShapeB(event: PendingEvent): string | null {
  if (event.callbackUrl || event.subject.kind !== 'payment') return null;
  return envelope(event, serializePaymentB(event.subject.payment));
}

function envelope(event: PendingEvent, object: Record<string, unknown>): string {
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.createdAt, livemode: event.livemode, data: { object } });
}

function snapshot(subject: EventSubject): Record<string, unknown> {
  switch (subject.kind) {
    case 'payment': return serializePaymentA(subject.payment);
    case 'refund': return serializeRefundA(subject.refund, subject.livemode);
    case 'payout': return serializePayout(subject.payout);
  }
}
