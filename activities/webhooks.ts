// Events and their delivery: the outbox write, starting one delivery workflow per event, and one
// signed POST per attempt with its record. Delivery never reports back to the object's workflow.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { Event, Merchant, WebhookAttempt } from '../src/db/entities';
import { isDuplicateKeyError } from '../src/db/errors';
import { serializePaymentA, serializeRefundA } from '../src/api/serializers/payment-a';
import { serializePaymentB } from '../src/api/serializers/payment-b';
import type { PaymentView, RefundView } from '../src/domain/payment';
import type { PayoutView } from '../src/domain/payout';
import { serializePayout } from '../src/api/serializers/payout';
import type { EventType } from '../src/webhooks/event-types';
import { postJson } from '../src/webhooks/http-post';
import { signWebhook } from '../src/webhooks/signing';
import { startDelivery, type DeliveryInput } from '../src/webhooks/start-delivery';
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

/** Records events (idempotent by id) and starts a delivery workflow for each. */
export async function publishEvents(deps: ActivityDeps, events: PendingEvent[]): Promise<void> {
  for (const event of events) {
    try {
      await deps.dataSource.getRepository(Event).insert({
        id: event.id, merchant_id: event.merchantId, livemode: event.livemode, type: event.type,
        object_id: event.objectId, payload: eventBody(event), endpoint: event.callbackUrl ?? null, created_at: event.createdAt,
      });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    // A callback repeats a status change its webhook event already counted.
    if (!event.callbackUrl) deps.metrics.statusChanges.inc({ object: event.subject.kind, status: event.type.split('.')[1]! });
    await startDelivery(deps, event.id, event.id);
  }
}

export function createWebhookActivities(deps: ActivityDeps) {
  return {
    /** Publication as an activity of its own: Payouts, and Payments recorded before `recordChange`. */
    async publishEvents(events: PendingEvent[]): Promise<void> {
      await publishEvents(deps, events);
    },

    async deliverEvent(input: DeliveryInput): Promise<{ delivered: boolean; reason?: string }> {
      const info = Context.current().info;
      const event = await deps.dataSource.getRepository(Event).findOneBy({ id: input.eventId });
      if (!event) throw ApplicationFailure.nonRetryable(`no event ${input.eventId}`, 'EventMissing');
      const merchant = await deps.dataSource.getRepository(Merchant).findOneBy({ id: event.merchant_id });
      const endpoint = event.endpoint ?? merchant?.webhook_url;
      if (!merchant || !endpoint) return { delivered: false, reason: 'no webhook endpoint configured' };
      const secrets = await deps.webhookSecrets.active(merchant.id);
      const headers = signWebhook(event.id, new Date(), event.payload, secrets);
      const result = await postJson(endpoint, event.payload, { ...headers }, { timeoutMs: deps.webhooks.attemptTimeoutMs, requirePublic: event.livemode });
      await deps.dataSource.getRepository(WebhookAttempt).insert({
        event_id: event.id,
        delivery_id: info.workflowExecution?.workflowId ?? event.id,
        attempt: info.attempt,
        endpoint,
        status_code: result.statusCode,
        error: result.error,
        latency_ms: result.latencyMs,
        attempted_at_ms: Date.now(),
      });
      const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
      const refused = result.error?.startsWith('refused') ?? false;
      deps.metrics.webhookDeliveries.inc({ result: delivered ? 'delivered' : refused ? 'refused' : result.error === 'timeout' ? 'timeout' : 'failed' });
      if (delivered) return { delivered: true };
      if (refused) throw ApplicationFailure.nonRetryable(result.error, 'WebhookRefused');
      throw ApplicationFailure.retryable(result.error ?? `endpoint answered ${result.statusCode}`, 'WebhookAttemptFailed');
    },
  };
}

export type { DeliveryInput };
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
