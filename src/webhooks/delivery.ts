// One attempt of a delivery: read it (unless the relay hands it over as planned), sign it with the
// endpoint's active secrets, POST it, record the attempt and where the delivery stands. Shared by
// the relay's first attempt and the WebhookDeliveryWorkflow's retries, so both send the same bytes
// under the same webhook-id (the event id) and count in the same attempts table.
import type { DataSource } from 'typeorm';
import { Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../db/entities';
import { bodyForVersion, retryDelayMs, retryDelaySeconds } from '../domain/webhook-endpoints';
import type { WorkerMetrics } from '../observability/worker-metrics';
import { giveUpDelivery, recordDeliveryOutcome, recordExtraAttempt, type DeliveryTarget } from './deliveries';
import type { DestinationPolicy } from './destination';
import { postJson, REFUSED_PREFIX } from './http-post';
import type { WebhookSecrets } from './secrets';
import { signWebhook } from './signing';

export interface DeliveryDeps {
  dataSource: DataSource;
  webhookSecrets: WebhookSecrets;
  webhooks: { attemptTimeoutMs: number; initialRetrySeconds: number; destinations: DestinationPolicy };
  /** A worker's, or the API's for the Events API's retries. */
  metrics: Pick<WorkerMetrics, 'webhookDeliveries'>;
}

export type SkipReason = 'delivery missing' | 'endpoint disabled or deleted' | 'no signing secret';

export type AttemptOutcome =
  /** A 2xx answer: done. */
  | { kind: 'delivered' }
  /** Nothing to send: no such delivery, or its endpoint is gone or disabled. Not retried. */
  | { kind: 'skipped'; reason: SkipReason }
  /** The destination may never be called (destination.ts: a live event to a private address, a port of the service). Not retried. */
  | { kind: 'refused'; error: string }
  /** No 2xx (an error answer, a time-out, a reset): retried with backoff, next at `nextAttemptAtMs` (null: an extra attempt, off the schedule). */
  | { kind: 'failed'; error: string; nextAttemptAtMs: number | null };

export interface AttemptInput {
  deliveryId: string;
  /** The delivery as its planner just wrote it, so that the relay's first attempt reads nothing back. */
  target?: DeliveryTarget;
  /** The attempt's number when the caller knows it (the relay's first); else one more than recorded. */
  attempt?: number;
  /**
   * An attempt outside the delivery's schedule (`POST /v1/events/{id}/retry`): a 2xx marks the
   * delivery succeeded; anything else is recorded and leaves its status and schedule as they were.
   */
  extra?: boolean;
}

/** The delivery as an attempt needs it, read back (the workflow's retries), or why there is nothing to send. */
async function loadTarget(deps: DeliveryDeps, deliveryId: string): Promise<{ target: DeliveryTarget; attempts: number } | { skip: SkipReason }> {
  const { dataSource } = deps;
  const delivery = await dataSource.getRepository(WebhookDelivery).findOneBy({ id: deliveryId });
  const event = delivery && await dataSource.getRepository(Event).findOneBy({ id: delivery.event_id });
  if (!delivery || !event) return { skip: 'delivery missing' };
  let body = event.payload;
  let endpointUrl: string | null = null;
  if (delivery.endpoint_id !== null) {
    const endpoint = await dataSource.getRepository(WebhookEndpoint).findOneBy({ id: delivery.endpoint_id });
    if (!endpoint || endpoint.deleted_at !== null || endpoint.status !== 'enabled') return { skip: 'endpoint disabled or deleted' };
    body = bodyForVersion(event, endpoint.api_version);
    endpointUrl = endpoint.url;
  }
  const secrets = await deps.webhookSecrets.signing({ merchantId: delivery.merchant_id, endpointId: delivery.endpoint_id });
  return {
    attempts: delivery.attempts,
    target: {
      id: delivery.id, eventId: delivery.event_id, merchantId: delivery.merchant_id, livemode: delivery.livemode,
      // An endpoint's current URL: a merchant fixing a broken one gets what waited for it there.
      endpointId: delivery.endpoint_id, url: endpointUrl ?? delivery.url, body, secrets,
    },
  };
}

export async function attemptDelivery(deps: DeliveryDeps, input: AttemptInput): Promise<AttemptOutcome> {
  let target = input.target;
  let attempt = input.attempt ?? 1;
  if (!target) {
    const loaded = await loadTarget(deps, input.deliveryId);
    if ('skip' in loaded) {
      await giveUpDelivery(deps.dataSource, input.deliveryId);
      return { kind: 'skipped', reason: loaded.skip };
    }
    target = loaded.target;
    attempt = input.attempt ?? loaded.attempts + 1;
  }
  if (!target.secrets.length) {
    await giveUpDelivery(deps.dataSource, target.id);
    return { kind: 'skipped', reason: 'no signing secret' };
  }
  const headers = signWebhook(target.eventId, new Date(), target.body, target.secrets);
  const result = await postJson(target.url, target.body, { ...headers }, { timeoutMs: deps.webhooks.attemptTimeoutMs, livemode: target.livemode, policy: deps.webhooks.destinations });
  const nowMs = Date.now();
  await deps.dataSource.getRepository(WebhookAttempt).insert({
    event_id: target.eventId,
    delivery_id: target.id,
    attempt,
    endpoint: target.url,
    status_code: result.statusCode,
    error: result.error,
    latency_ms: result.latencyMs,
    attempted_at_ms: nowMs,
  });
  const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const refused = result.error?.startsWith(REFUSED_PREFIX) ?? false;
  // An endpoint's circuits all opened by one outage would probe in step: a little jitter spreads them.
  const nextAttemptAtMs = input.extra ? null
    : nowMs + (target.endpointId !== null ? retryDelayMs(deps.webhooks.initialRetrySeconds, attempt) : retryDelaySeconds(deps.webhooks.initialRetrySeconds, attempt) * 1000);
  if (input.extra && !delivered) await recordExtraAttempt(deps.dataSource, target.id, nowMs);
  else {
    await recordDeliveryOutcome(deps.dataSource, target.id, delivered ? { status: 'succeeded', nextAttemptAt: null }
      : refused ? { status: 'failed', nextAttemptAt: null }
        : { status: 'pending', nextAttemptAt: nextAttemptAtMs }, nowMs);
  }
  deps.metrics.webhookDeliveries.inc({ result: delivered ? 'delivered' : refused ? 'refused' : result.error === 'timeout' ? 'timeout' : 'failed' });
  if (delivered) return { kind: 'delivered' };
  if (refused) return { kind: 'refused', error: result.error! };
  return { kind: 'failed', error: result.error ?? `endpoint answered ${result.statusCode}`, nextAttemptAtMs };
}
