// Events and their delivery: the outbox write (part of `recordChange`, activities/projection.ts),
// which plans each event's deliveries and hands them to the relay for their first attempts, and the
// (callback) delivery workflow's attempts. Delivery never reports back to the object's workflow.
import { ApplicationFailure } from '@temporalio/activity';
import { Event, type EventRow } from '../src/db/entities';
import { isDuplicateKeyError } from '../src/db/errors';
import { holdsEveryRefund, type PendingEvent } from '../src/domain/events';
import { eventBody, eventBodyShapeB, refundsOfBody, type RefundA } from '../src/representations/event-body';
import { giveUpDelivery, planDeliveriesOf } from '../src/webhooks/deliveries';
import { attemptDelivery } from '../src/webhooks/delivery';
import type { DeliveryInput, DeliveryResult } from '../contracts/webhook-delivery';
import type { ActivityDeps } from './deps';

/**
 * Records events (idempotent by id), plans one delivery per matching endpoint, and hands them to
 * the relay. A process that dies between the two leaves the event leased and unplanned: the
 * sweeper that takes it over plans it. The events of one change are written in one statement, and
 * their deliveries in one more.
 */
export async function publishEvents(deps: ActivityDeps, events: PendingEvent[]): Promise<void> {
  if (!events.length) return;
  const leaseUntilMs = deps.relay.leaseUntil();
  // The bodies of this call's Payment events, for the compact ones that build on them.
  const bodies = new Map<string, string>();
  const rows: Array<Omit<EventRow, 'seq'>> = [];
  for (const event of events) {
    const payload = eventBody(event, await earlierRefunds(deps, event, bodies));
    if (holdsEveryRefund(event)) bodies.set(event.id, payload);
    rows.push({
      id: event.id, merchant_id: event.merchantId, livemode: event.livemode, type: event.type, object_id: event.objectId,
      payload, payload_b: eventBodyShapeB(event), endpoint: event.callbackUrl ?? null, created_at: event.createdAt, relay_lease_until_ms: leaseUntilMs,
    });
  }
  const recorded = await recordNew(deps, rows);
  for (const event of events) {
    // A callback repeats a status change its webhook event already counted; `payment.refunded`
    // repeats a refund's (the Payment's status stays).
    if (recorded.has(event.id) && !event.callbackUrl && event.type !== 'payment.refunded') deps.metrics.statusChanges.inc({ object: event.subject.kind, status: event.type.split('.')[1]! });
  }
  const planned = await planDeliveriesOf(deps.dataSource, deps.webhookSecrets, rows.filter((row) => recorded.has(row.id)), Date.now(), leaseUntilMs);
  for (const [eventId, targets] of planned) deps.relay.enqueue(eventId, targets, leaseUntilMs);
}

/**
 * Inserts the events, answering the ids this call recorded. One recorded by an earlier try of the
 * activity is left alone: that try's relay, or a sweeper, has it.
 */
async function recordNew(deps: ActivityDeps, rows: Array<Omit<EventRow, 'seq'>>): Promise<Set<string>> {
  const events = deps.dataSource.getRepository(Event);
  try {
    await events.insert(rows);
    return new Set(rows.map((row) => row.id));
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
  const recorded = new Set<string>();
  for (const row of rows) {
    try {
      await events.insert(row);
      recorded.add(row.id);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }
  return recorded;
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
