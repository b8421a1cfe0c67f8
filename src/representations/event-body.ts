// The exact bodies of a recorded event: the event envelope with the object as Shape A shows it;
// for webhook endpoints on 2024-06-01, the same envelope with the Shape B Payment (payment events
// only: refund and payout events have one shape); for a Shape B `callback_url`, the Shape B Payment
// itself (docs/webhooks.md, docs/shape-b.md).
import type { EventSubject, PendingEvent } from '../domain/events';
import { serializePaymentA, serializeRefundA } from './payment-a';
import { serializePaymentB } from './payment-b';
import { serializePayout } from './payout';

export function eventBody(event: PendingEvent): string {
  if (event.callbackUrl && event.subject.kind === 'payment') return JSON.stringify(serializePaymentB(event.subject.payment));
  return envelope(event, snapshot(event.subject));
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
