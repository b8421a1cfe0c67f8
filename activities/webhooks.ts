// Events and their delivery: the outbox write (part of `recordChange`, activities/projection.ts),
// which hands each event to the relay for its first attempt, and the delivery workflow's attempts.
// Delivery never reports back to the object's workflow.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { Event } from '../src/db/entities';
import { isDuplicateKeyError } from '../src/db/errors';
import type { PendingEvent } from '../src/domain/events';
import { eventBody } from '../src/representations/event-body';
import { attemptDelivery } from '../src/webhooks/delivery';
import type { DeliveryInput, DeliveryResult } from '../workflows/contracts/webhook-delivery';
import type { ActivityDeps } from './deps';

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
    // A callback repeats a status change its webhook event already counted; `payment.refunded`
    // repeats a refund's (the Payment's status stays).
    if (!event.callbackUrl && event.type !== 'payment.refunded') deps.metrics.statusChanges.inc({ object: event.subject.kind, status: event.type.split('.')[1]! });
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
