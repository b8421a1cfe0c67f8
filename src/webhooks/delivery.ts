// One attempt to deliver an event: read it (unless its recorder hands it over), sign it with the
// merchant's active secrets, POST it, record the attempt. Shared by the relay's first attempt and
// the WebhookDeliveryWorkflow's retries, so both send the same bytes under the same webhook-id and
// count in the same attempts table.
import type { DataSource } from 'typeorm';
import { Event, WebhookAttempt, type EventRow } from '../db/entities';
import type { WorkerMetrics } from '../observability/worker-metrics';
import type { DestinationPolicy } from './destination';
import { postJson, REFUSED_PREFIX } from './http-post';
import type { WebhookSecrets } from './secrets';
import { signWebhook } from './signing';

export interface DeliveryDeps {
  dataSource: DataSource;
  webhookSecrets: WebhookSecrets;
  webhooks: { attemptTimeoutMs: number; destinations: DestinationPolicy };
  metrics: WorkerMetrics;
}

export type AttemptOutcome =
  /** A 2xx answer: done. */
  | { kind: 'delivered' }
  /** Nothing to do: no endpoint, or no such event. Not retried. */
  | { kind: 'skipped'; reason: 'no webhook endpoint configured' | 'event missing' }
  /** The destination may never be called (destination.ts: a live event to a private address, a port of the service). Not retried. */
  | { kind: 'refused'; error: string }
  /** No 2xx (an error answer, a time-out, a reset): retried with backoff. */
  | { kind: 'failed'; error: string };

/** What an attempt sends: the event as recorded. */
export type DeliverableEvent = Pick<EventRow, 'id' | 'merchant_id' | 'livemode' | 'payload' | 'endpoint'>;

export interface AttemptInput {
  eventId: string;
  /** The event as its recorder just wrote it, so that the relay's first attempt does not read it back. */
  event?: DeliverableEvent;
  /** The delivery this attempt belongs to: the event id, or a resend's id. */
  deliveryId: string;
  /** 1 for the first attempt of the delivery. */
  attempt: number;
}

export async function attemptDelivery(deps: DeliveryDeps, input: AttemptInput): Promise<AttemptOutcome> {
  const event = input.event ?? await deps.dataSource.getRepository(Event).findOneBy({ id: input.eventId });
  if (!event) return { kind: 'skipped', reason: 'event missing' };
  const target = await deps.webhookSecrets.signingTarget(event.merchant_id);
  const endpoint = event.endpoint ?? target?.webhookUrl;
  if (!target || !endpoint) return { kind: 'skipped', reason: 'no webhook endpoint configured' };
  const headers = signWebhook(event.id, new Date(), event.payload, target.secrets);
  const result = await postJson(endpoint, event.payload, { ...headers }, { timeoutMs: deps.webhooks.attemptTimeoutMs, livemode: event.livemode, policy: deps.webhooks.destinations });
  await deps.dataSource.getRepository(WebhookAttempt).insert({
    event_id: event.id,
    delivery_id: input.deliveryId,
    attempt: input.attempt,
    endpoint,
    status_code: result.statusCode,
    error: result.error,
    latency_ms: result.latencyMs,
    attempted_at_ms: Date.now(),
  });
  const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const refused = result.error?.startsWith(REFUSED_PREFIX) ?? false;
  deps.metrics.webhookDeliveries.inc({ result: delivered ? 'delivered' : refused ? 'refused' : result.error === 'timeout' ? 'timeout' : 'failed' });
  if (delivered) return { kind: 'delivered' };
  if (refused) return { kind: 'refused', error: result.error! };
  return { kind: 'failed', error: result.error ?? `endpoint answered ${result.statusCode}` };
}
