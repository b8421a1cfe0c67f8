// Recording events as `publishEvents` does, for tests that drive deliveries by hand.
import type { RunningApi } from '../../src/api/server';
import { Event, WebhookDelivery, type EventRow } from '../../src/db/entities';
import { randomBase62 } from '../../src/domain/ids';
import { planDeliveries, type DeliveryTarget } from '../../src/webhooks/deliveries';
import { WebhookSecrets } from '../../src/webhooks/secrets';

export type TestEvent = Pick<EventRow, 'id' | 'merchant_id' | 'livemode' | 'type' | 'payload' | 'payload_b' | 'endpoint'>;

/** A test event (a fresh id: a delivery workflow's id derives from it, and a Temporal server outlives a run). */
export function newTestEvent(merchantId: string, fields: Partial<TestEvent> = {}): TestEvent {
  const id = `evt_${randomBase62(24)}`;
  return {
    id, merchant_id: merchantId, livemode: false, type: 'payment.succeeded',
    payload: JSON.stringify({ id, type: 'payment.succeeded', created_at: 1, livemode: fields.livemode ?? false, data: { object: { id: 'pay_test' } } }),
    payload_b: null, endpoint: null, ...fields,
  };
}

/** Writes the event (with a relay lease, or none) and, unless `plan` is false, its deliveries. */
export async function recordTestEvent(api: RunningApi, event: TestEvent, options: { leaseUntilMs?: number | null; plan?: boolean } = {}): Promise<DeliveryTarget[]> {
  await api.deps.dataSource.getRepository(Event).insert({ ...event, object_id: 'pay_test', created_at: 1, relay_lease_until_ms: options.leaseUntilMs ?? null });
  if (options.plan === false) return [];
  // As the recorder plans them: due when the relay's lease ends.
  return planDeliveries(api.deps.dataSource, new WebhookSecrets(api.deps.dataSource, api.deps.secretBox), event, Date.now(), options.leaseUntilMs ?? Date.now());
}

export function deliveriesOf(api: RunningApi, eventId: string) {
  return api.deps.dataSource.getRepository(WebhookDelivery).find({ where: { event_id: eventId }, order: { seq: 'ASC' } });
}
