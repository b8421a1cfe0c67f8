// The exact body of a recorded event: the event envelope with the object as Shape A shows it, or,
// for a Shape B `callback_url`, the Shape B Payment itself (docs/webhooks.md, docs/shape-b.md).
import type { EventSubject, PendingEvent } from '../domain/events';
import { serializePaymentA, serializeRefundA } from './payment-a';
import { serializePaymentB } from './payment-b';
import { serializePayout } from './payout';

export function eventBody(event: PendingEvent): string {
  if (event.callbackUrl && event.subject.kind === 'payment') return JSON.stringify(serializePaymentB(event.subject.payment));
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.createdAt, livemode: event.livemode, data: { object: snapshot(event.subject) } });
}

function snapshot(subject: EventSubject): Record<string, unknown> {
  switch (subject.kind) {
    case 'payment': return serializePaymentA(subject.payment);
    case 'refund': return serializeRefundA(subject.refund, subject.livemode);
    case 'payout': return serializePayout(subject.payout);
  }
}
