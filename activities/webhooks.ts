// Events and their delivery: the outbox write (part of `recordChange`, activities/projection.ts),
// which plans each event's deliveries and hands them to the relay for their first attempts, and
// the delivery workflow's attempts. Delivery never reports back to the object's workflow.
import { ApplicationFailure } from '@temporalio/activity';
import { Event } from '../src/db/entities';
import { isDuplicateKeyError } from '../src/db/errors';
import { holdsEveryRefund, type PendingEvent } from '../src/domain/events';
import { eventBody, eventBodyShapeB, refundsOfBody, type RefundA } from '../src/representations/event-body';
import { giveUpDelivery, planDeliveries } from '../src/webhooks/deliveries';
import { attemptDelivery } from '../src/webhooks/delivery';
import type { DeliveryInput, DeliveryResult } from '../workflows/contracts/webhook-delivery';
import type { ActivityDeps } from './deps';

/**
 * Records events (idempotent by id), plans one delivery per matching endpoint, and hands them to
 * the relay. A process that dies between the two leaves the event leased and unplanned: the
 * sweeper that takes it over plans it.
 */
export async function publishEvents(deps: ActivityDeps, events: PendingEvent[]): Promise<void> {
  // The bodies of this call's Payment events, for the compact ones that build on them.
  const bodies = new Map<string, string>();
  for (const event of events) {
    const leaseUntilMs = deps.relay.leaseUntil();
    const payload = eventBody(event, await earlierRefunds(deps, event, bodies));
    if (holdsEveryRefund(event)) bodies.set(event.id, payload);
    const recorded = {
      id: event.id, merchant_id: event.merchantId, livemode: event.livemode, type: event.type,
      payload, payload_b: eventBodyShapeB(event), endpoint: event.callbackUrl ?? null,
    };
    try {
      await deps.dataSource.getRepository(Event).insert({ ...recorded, object_id: event.objectId, created_at: event.createdAt, relay_lease_until_ms: leaseUntilMs });
    } catch (error) {
      // Recorded by an earlier try of this activity: that try's relay, or a sweeper, has it.
      if (!isDuplicateKeyError(error)) throw error;
      continue;
    }
    // A callback repeats a status change its webhook event already counted; `payment.refunded`
    // repeats a refund's (the Payment's status stays).
    if (!event.callbackUrl && event.type !== 'payment.refunded') deps.metrics.statusChanges.inc({ object: event.subject.kind, status: event.type.split('.')[1]! });
    const targets = await planDeliveries(deps.dataSource, deps.webhookSecrets, recorded);
    deps.relay.enqueue(event.id, targets, leaseUntilMs);
  }
}

/**
 * The refunds of the event a compact Payment event builds on: recorded earlier in this call, or
 * before it (events go out in the order the workflow raised them, and it builds only on a recent one).
 */
async function earlierRefunds(deps: ActivityDeps, event: PendingEvent, bodies: Map<string, string>): Promise<RefundA[] | undefined> {
  const since = event.subject.kind === 'payment' ? event.subject.refundsSince : undefined;
  if (!since) return undefined;
  const known = bodies.get(since);
  if (known) return refundsOfBody(known);
  const earlier = await deps.dataSource.getRepository(Event).findOne({ select: { id: true, payload: true }, where: { id: since } });
  if (!earlier) throw new Error(`event ${event.id} builds on event ${since}, which is not recorded`);
  return refundsOfBody(earlier.payload);
}

export function createWebhookActivities(deps: ActivityDeps) {
  return {
    /** One attempt of a delivery workflow; Temporal retries a failed one on the delivery schedule. */
    async deliverEvent(input: DeliveryInput): Promise<DeliveryResult> {
      const outcome = await attemptDelivery(deps, { deliveryId: input.deliveryId });
      switch (outcome.kind) {
        case 'delivered': return { delivered: true };
        case 'skipped':
          if (outcome.reason === 'delivery missing') throw ApplicationFailure.nonRetryable(`no delivery ${input.deliveryId}`, 'DeliveryMissing');
          return { delivered: false, reason: outcome.reason };
        case 'refused': throw ApplicationFailure.nonRetryable(outcome.error, 'WebhookRefused');
        case 'failed': throw ApplicationFailure.retryable(outcome.error, 'WebhookAttemptFailed');
      }
    },
    /** Marks a delivery whose schedule ended without a 2xx as failed. */
    async giveUpDelivery(deliveryId: string): Promise<void> {
      await giveUpDelivery(deps.dataSource, deliveryId);
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
