// Deliveries (docs/webhooks.md, "Delivery"): one per event and matching endpoint, or one to a
// Shape B `callback_url`, each with its own attempts and retry schedule. Planned when the event is
// recorded (or, if its recorder died first, by the sweeper that takes the event over), from the
// endpoints enabled at that moment, each with the URL and the body its api_version chooses.
import type { DataSource } from 'typeorm';
import { WebhookDelivery, WebhookEndpoint, WebhookSecret, type EventRow, type WebhookDeliveryStatus } from '../db/entities';
import { derivedId } from '../domain/ids';
import { bodyForVersion, endpointTakes } from '../domain/webhook-endpoints';
import type { WebhookSecrets } from './secrets';

/** What an event needs to be planned and sent. */
export type PlannableEvent = Pick<EventRow, 'id' | 'merchant_id' | 'livemode' | 'type' | 'payload' | 'payload_b' | 'endpoint'>;

/** One delivery, ready for its first attempt: no further read needed. */
export interface DeliveryTarget {
  id: string;
  eventId: string;
  merchantId: string;
  livemode: boolean;
  /** Null for a Shape B `callback_url` delivery. */
  endpointId: string | null;
  url: string;
  body: string;
  /** The secrets that sign it, newest first (kept in memory only). */
  secrets: string[];
  /** Its endpoint's circuit was open when it was planned: it waits behind the probe (src/webhooks/circuit.ts). */
  circuitOpen?: boolean;
}

/** The delivery id of (event, endpoint): the same in every process that plans it. */
export function deliveryIdOf(eventId: string, endpointId: string | null): string {
  return derivedId('webhookDelivery', `${eventId}:${endpointId ?? 'callback'}`);
}

/**
 * Writes the deliveries of an event (none twice: their ids are derived) and answers them with
 * their bodies and secrets.
 */
export async function planDeliveries(dataSource: DataSource, secrets: WebhookSecrets, event: PlannableEvent, nowMs = Date.now(), relayUntilMs = nowMs): Promise<DeliveryTarget[]> {
  return (await planDeliveriesOf(dataSource, secrets, [event], nowMs, relayUntilMs)).get(event.id) ?? [];
}

/**
 * The same for events recorded together (one change record's): the endpoints of each owner and
 * their secrets come in one statement, and every delivery is written in one more. `relayUntilMs`:
 * the relay owns the first attempts until then (their event's lease), so a delivery's next attempt
 * is due then at the latest and its endpoint's circuit does not send it alongside the relay;
 * a delivery planned behind an open circuit is due at once.
 */
export async function planDeliveriesOf(
  dataSource: DataSource, secrets: WebhookSecrets, events: readonly PlannableEvent[], nowMs = Date.now(), relayUntilMs = nowMs,
): Promise<Map<string, DeliveryTarget[]>> {
  const planned = new Map<string, DeliveryTarget[]>();
  const endpointsOf = new Map<string, Promise<EndpointRow[]>>();
  for (const event of events) {
    const targets: DeliveryTarget[] = [];
    planned.set(event.id, targets);
    if (event.endpoint) {
      targets.push({
        id: deliveryIdOf(event.id, null), eventId: event.id, merchantId: event.merchant_id, livemode: event.livemode,
        endpointId: null, url: event.endpoint, body: event.payload,
        secrets: await secrets.signing({ merchantId: event.merchant_id, endpointId: null }),
      });
      continue;
    }
    const owner = `${event.merchant_id}:${event.livemode}`;
    if (!endpointsOf.has(owner)) endpointsOf.set(owner, enabledEndpoints(dataSource, event.merchant_id, event.livemode, nowMs));
    const byEndpoint = new Map<string, DeliveryTarget>();
    for (const row of await endpointsOf.get(owner)!) {
      let target = byEndpoint.get(row.id);
      if (!target) {
        if (!endpointTakes(JSON.parse(row.enabled_events) as string[], event.type)) continue;
        target = {
          id: deliveryIdOf(event.id, row.id), eventId: event.id, merchantId: event.merchant_id, livemode: event.livemode,
          endpointId: row.id, url: row.url, body: bodyForVersion(event, row.api_version), secrets: [],
          ...(row.failing_since !== null ? { circuitOpen: true } : {}),
        };
        byEndpoint.set(row.id, target);
        targets.push(target);
      }
      if (row.secret_ciphertext) target.secrets.push(...secrets.openAll(event.merchant_id, [row.secret_ciphertext]));
    }
  }
  const all = [...planned.values()].flat();
  if (all.length) {
    await dataSource.getRepository(WebhookDelivery).createQueryBuilder().insert().orIgnore().values(all.map((t) => ({
      id: t.id, event_id: t.eventId, endpoint_id: t.endpointId, merchant_id: t.merchantId, livemode: t.livemode, url: t.url,
      status: 'pending' as const, attempts: 0, next_attempt_at: t.circuitOpen ? nowMs : relayUntilMs, created_at: nowMs, updated_at: nowMs,
    }))).execute();
  }
  return planned;
}

interface EndpointRow { id: string; url: string; api_version: string; enabled_events: string; failing_since: number | string | null; secret_ciphertext: string | null }

/** An owner's enabled endpoints, each with its active secrets (newest first), in one statement. */
function enabledEndpoints(dataSource: DataSource, merchantId: string, livemode: boolean, nowMs: number): Promise<EndpointRow[]> {
  return dataSource.getRepository(WebhookEndpoint).createQueryBuilder('e')
    .leftJoin(WebhookSecret.options.name, 's', 's.endpoint_id = e.id AND (s.expires_at IS NULL OR s.expires_at > :now)', { now: Math.floor(nowMs / 1000) })
    .select(['e.id AS id', 'e.url AS url', 'e.api_version AS api_version', 'e.enabled_events AS enabled_events', 'e.failing_since AS failing_since', 's.secret_ciphertext AS secret_ciphertext'])
    .where('e.merchant_id = :merchantId AND e.livemode = :livemode AND e.status = :enabled AND e.deleted_at IS NULL', { merchantId, livemode, enabled: 'enabled' })
    .orderBy('e.seq', 'ASC')
    .addOrderBy('s.created_at', 'DESC')
    .getRawMany<EndpointRow>();
}

/** An attempt's result on its delivery: one more attempt, and where the delivery stands now. */
export async function recordDeliveryOutcome(
  dataSource: DataSource, deliveryId: string, outcome: { status: WebhookDeliveryStatus; nextAttemptAt: number | null }, nowMs = Date.now(),
): Promise<void> {
  // A delivery that succeeded once stays succeeded: a later retry that fails does not undo it.
  await dataSource.query(
    `UPDATE webhook_deliveries SET attempts = attempts + 1,
       status = CASE WHEN status = 'succeeded' THEN status ELSE ? END,
       next_attempt_at = CASE WHEN status = 'succeeded' THEN NULL ELSE ? END,
       updated_at = ? WHERE id = ?`,
    [outcome.status, outcome.nextAttemptAt, nowMs, deliveryId],
  );
}

/** An attempt outside the schedule that got no 2xx: counted, the delivery's status and schedule unchanged. */
export async function recordExtraAttempt(dataSource: DataSource, deliveryId: string, nowMs = Date.now()): Promise<void> {
  await dataSource.query('UPDATE webhook_deliveries SET attempts = attempts + 1, updated_at = ? WHERE id = ?', [nowMs, deliveryId]);
}

/** A delivery whose schedule ended without a 2xx (3 days of retries, or nowhere to send it). */
export async function giveUpDelivery(dataSource: DataSource, deliveryId: string, nowMs = Date.now()): Promise<void> {
  await dataSource.getRepository(WebhookDelivery).update({ id: deliveryId, status: 'pending' }, { status: 'failed', next_attempt_at: null, updated_at: nowMs });
}

/** At most one manual attempt (the Events API's retry) per delivery in this long. */
export const MANUAL_ATTEMPT_INTERVAL_MS = 60_000;

/**
 * Claims the delivery's manual attempt: whether none was made in the last MANUAL_ATTEMPT_INTERVAL_MS.
 * One statement, so that concurrent retries (on any API process) claim it once.
 */
export async function claimManualAttempt(dataSource: DataSource, deliveryId: string, nowMs = Date.now()): Promise<boolean> {
  const result = await dataSource.getRepository(WebhookDelivery).createQueryBuilder().update()
    .set({ manual_attempt_at: nowMs })
    .where('id = :id AND (manual_attempt_at IS NULL OR manual_attempt_at <= :since)', { id: deliveryId, since: nowMs - MANUAL_ATTEMPT_INTERVAL_MS })
    .execute();
  return (result.affected ?? 0) > 0;
}
