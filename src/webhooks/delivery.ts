// One attempt to deliver an event: read it, sign it with the merchant's active secrets, POST it,
// record the attempt. Shared by the relay's first attempt and the WebhookDeliveryWorkflow's retries,
// so both send the same bytes under the same webhook-id and count in the same attempts table.
import type { DataSource } from 'typeorm';
import { Event, Merchant, WebhookAttempt } from '../db/entities';
import type { WorkerMetrics } from '../observability/worker-metrics';
import { postJson } from './http-post';
import type { WebhookSecrets } from './secrets';
import { signWebhook } from './signing';

export interface DeliveryDeps {
  dataSource: DataSource;
  webhookSecrets: WebhookSecrets;
  webhooks: { attemptTimeoutMs: number };
  metrics: WorkerMetrics;
}

export type AttemptOutcome =
  /** A 2xx answer: done. */
  | { kind: 'delivered' }
  /** Nothing to do: no endpoint, or no such event. Not retried. */
  | { kind: 'skipped'; reason: 'no webhook endpoint configured' | 'event missing' }
  /** The destination may never be called (a live event to a private address). Not retried. */
  | { kind: 'refused'; error: string }
  /** No 2xx (an error answer, a time-out, a reset): retried with backoff. */
  | { kind: 'failed'; error: string };

export interface AttemptInput {
  eventId: string;
  /** The delivery this attempt belongs to: the event id, or a resend's id. */
  deliveryId: string;
  /** 1 for the first attempt of the delivery. */
  attempt: number;
}

export async function attemptDelivery(deps: DeliveryDeps, input: AttemptInput): Promise<AttemptOutcome> {
  const event = await deps.dataSource.getRepository(Event).findOneBy({ id: input.eventId });
  if (!event) return { kind: 'skipped', reason: 'event missing' };
  const merchant = await deps.dataSource.getRepository(Merchant).findOneBy({ id: event.merchant_id });
  const endpoint = event.endpoint ?? merchant?.webhook_url;
  if (!merchant || !endpoint) return { kind: 'skipped', reason: 'no webhook endpoint configured' };
  const secrets = await deps.webhookSecrets.active(merchant.id);
  const headers = signWebhook(event.id, new Date(), event.payload, secrets);
  const result = await postJson(endpoint, event.payload, { ...headers }, { timeoutMs: deps.webhooks.attemptTimeoutMs, requirePublic: event.livemode });
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
  const refused = result.error?.startsWith('refused') ?? false;
  deps.metrics.webhookDeliveries.inc({ result: delivered ? 'delivered' : refused ? 'refused' : result.error === 'timeout' ? 'timeout' : 'failed' });
  if (delivered) return { kind: 'delivered' };
  if (refused) return { kind: 'refused', error: result.error! };
  return { kind: 'failed', error: result.error ?? `endpoint answered ${result.statusCode}` };
}
