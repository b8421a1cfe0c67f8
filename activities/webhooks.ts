// Events and their delivery: the outbox write (part of `recordChange`, activities/projection.ts),
// which hands each event to the relay for its first attempt, and the delivery workflow's attempts.
// Delivery never reports back to the object's workflow.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { Event } from '../src/db/entities';
import { isDuplicateKeyError } from '../src/db/errors';
import { serializePaymentA, serializeRefundA } from '../src/api/serializers/payment-a';
import { serializePaymentB } from '../src/api/serializers/payment-b';
import type { PaymentView, RefundView } from '../src/domain/payment';
import type { PayoutView } from '../src/domain/payout';
import { serializePayout } from '../src/api/serializers/payout';
import type { EventType } from '../src/webhooks/event-types';
import { attemptDelivery } from '../src/webhooks/delivery';
import type { DeliveryInput, DeliveryResult } from '../workflows/contracts/webhook-delivery';
import type { ActivityDeps } from './deps';

export type EventSubject =
  | { kind: 'payment'; payment: PaymentView }
  | { kind: 'refund'; refund: RefundView; livemode: boolean }
  | { kind: 'payout'; payout: PayoutView };

export interface PendingEvent {
  id: string;
  type: EventType;
  merchantId: string;
  livemode: boolean;
  objectId: string;
  createdAt: number;
  subject: EventSubject;
  /** A Shape B `callback_url`: the event goes there instead of the webhook URL, its body the Shape B payment. */
  callbackUrl?: string;
}

/** The exact body delivered: the event envelope with a Shape A snapshot, or for a callback the Shape B payment. */
function eventBody(event: PendingEvent): string {
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

/** Records events (idempotent by id) and hands each new one to the relay for its first attempt. */
export async function publishEvents(deps: ActivityDeps, events: PendingEvent[]): Promise<void> {
  for (const event of events) {
    const leaseUntilMs = deps.relay.leaseUntil();
    const recorded = { id: event.id, merchant_id: event.merchantId, livemode: event.livemode, payload: eventBody(event), endpoint: event.callbackUrl ?? null };
    try {
      await deps.dataSource.getRepository(Event).insert({
        ...recorded, type: event.type, object_id: event.objectId, created_at: event.createdAt, relay_lease_until_ms: leaseUntilMs,
      });
    } catch (error) {
      // Recorded by an earlier try of this activity: that try's relay, or a sweeper, has it.
      if (!isDuplicateKeyError(error)) throw error;
      continue;
    }
    // A callback repeats a status change its webhook event already counted.
    if (!event.callbackUrl) deps.metrics.statusChanges.inc({ object: event.subject.kind, status: event.type.split('.')[1]! });
    deps.relay.enqueue(recorded, leaseUntilMs);
  }
}

export function createWebhookActivities(deps: ActivityDeps) {
  return {
    /** One attempt of a delivery workflow; Temporal retries a failed one on the delivery schedule. */
    async deliverEvent(input: DeliveryInput): Promise<DeliveryResult> {
      const info = Context.current().info;
      const outcome = await attemptDelivery(deps, {
        eventId: input.eventId,
        deliveryId: info.workflowExecution?.workflowId ?? input.eventId,
        attempt: info.attempt + (input.attemptsBefore ?? 0),
      });
      switch (outcome.kind) {
        case 'delivered': return { delivered: true };
        case 'skipped':
          if (outcome.reason === 'event missing') throw ApplicationFailure.nonRetryable(`no event ${input.eventId}`, 'EventMissing');
          return { delivered: false, reason: outcome.reason };
        case 'refused': throw ApplicationFailure.nonRetryable(outcome.error, 'WebhookRefused');
        case 'failed': throw ApplicationFailure.retryable(outcome.error, 'WebhookAttemptFailed');
      }
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
