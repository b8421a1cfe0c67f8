// The Events API (docs/events.md) and payment.refunded: lists newest
// first with cursors and filters, retrieve with deliveries and attempts, scoping to merchant and
// mode, invalid criteria, and the retention purge. Most events here are written straight into the
// table, so each list is known exactly; payment.refunded goes through a real refund.
import { Webhook } from 'standardwebhooks';
import { Event, WebhookAttempt, WebhookDelivery } from '../../src/db/entities';
import { newId } from '../../src/domain/ids';
import { purgeEventsBefore } from '../../src/read-models/events';
import { purgeExpiredEvents } from '../../src/services/events';
import { call, createMerchant, eventually, type TestMerchant, useTestApi } from '../helpers/api';
import { createDirectPayment, expectError, waitForStatus } from '../helpers/payments';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

/** t.merchant is the shop whose events are listed. */
const t = useTestApi({ merchant: { name: 'Events Shop' } });
let other: TestMerchant;

interface Seeded { id: string; type: string; object_id: string; created_at: number; livemode: boolean }
/** The shop's test-mode events, newest first. */
let seeded: Seeded[] = [];

/** Within retention: the purge test below purges at the current time. */
const T0 = Math.floor(Date.now() / 1000) - 86_400;
const list = (key: string, query = '') => call(t.api, 'GET', `/v1/events${query ? `?${query}` : ''}`, { key });
const ids = (res: { json: any }) => (res.json.data as Array<{ id: string }>).map((e) => e.id);
const objectIdOf = (type: string, n: number) => `${type.startsWith('payment') ? 'pay_' : type.startsWith('refund') ? 'ref_' : 'po_'}${String(n).padStart(24, '0')}`;

async function insertEvent(merchantId: string, livemode: boolean, type: string, objectId: string, createdAt: number, extra: Partial<{ endpoint: string }> = {}): Promise<Seeded> {
  const id = newId('event');
  const payload = JSON.stringify({ id, type, created_at: createdAt, livemode, data: { object: { id: objectId, marker: type } } });
  await t.api.deps.dataSource.getRepository(Event).insert({
    id, merchant_id: merchantId, livemode, type, object_id: objectId, payload, payload_b: null, endpoint: extra.endpoint ?? null, created_at: createdAt, relay_lease_until_ms: null,
  });
  return { id, type, object_id: objectId, created_at: createdAt, livemode };
}

async function insertDelivery(eventId: string, merchantId: string, status: 'pending' | 'succeeded' | 'failed', endpointId = newId('webhookEndpoint')) {
  const id = newId('webhookDelivery');
  await t.api.deps.dataSource.getRepository(WebhookDelivery).insert({
    id, event_id: eventId, endpoint_id: endpointId, merchant_id: merchantId, livemode: false, url: 'https://shop.example/hooks',
    status, attempts: 0, next_attempt_at: status === 'pending' ? 1_767_000_500_000 : null, created_at: Date.now(), updated_at: Date.now(),
  });
  return { id, endpointId };
}

const TYPES = ['payment.processing', 'payment.succeeded', 'refund.processing', 'refund.succeeded', 'payout.pending', 'payout.succeeded', 'payment.refunded'];

beforeAll(async () => {
  other = await createMerchant(t.api, { name: 'Other Shop' });
  // 28 test-mode events, some sharing a second, over 7 types and 14 objects; live-mode and another
  // merchant's events in between, which no list of the shop's test key may show.
  for (let i = 0; i < 28; i += 1) {
    const type = TYPES[i % TYPES.length]!;
    seeded.unshift(await insertEvent(t.merchant.merchantId, false, type, objectIdOf(type, i % 14), T0 + Math.floor(i / 2)));
    if (i % 5 === 0) await insertEvent(t.merchant.merchantId, true, type, objectIdOf(type, i % 14), T0 + i);
    if (i % 7 === 0) await insertEvent(other.merchantId, false, type, objectIdOf(type, i % 14), T0 + i);
  }
  // A Shape B callback copy (its `endpoint` set) is no event of the API.
  await insertEvent(t.merchant.merchantId, false, 'payment.succeeded', objectIdOf('payment.succeeded', 1), T0 + 100, { endpoint: 'https://shop.example/callback' });
}, 60_000);

describe('order, envelope and cursors', () => {
  it('lists the key\'s merchant and mode only, newest first, in the list envelope; the default limit is 10', async () => {
    const all = await list(t.merchant.testKey, 'limit=100');
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ object: 'list', has_more: false, url: '/v1/events' });
    expect(ids(all)).toEqual(seeded.map((e) => e.id));
    const first = await list(t.merchant.testKey);
    expect(ids(first)).toEqual(seeded.slice(0, 10).map((e) => e.id));
    expect(first.json.has_more).toBe(true);
  });

  it('an event reads as delivered, with object "event"', async () => {
    const [newest] = (await list(t.merchant.testKey, 'limit=1')).json.data;
    const event = seeded[0]!;
    expect(newest).toEqual({ id: event.id, object: 'event', type: event.type, created_at: event.created_at, livemode: false, data: { object: { id: event.object_id, marker: event.type } } });
  });

  it('starting_after walks forward and ending_before walks back, page by page, without gaps or repeats', async () => {
    const walked: string[] = [];
    let cursor = '';
    for (;;) {
      const page = await list(t.merchant.testKey, `limit=6${cursor ? `&starting_after=${cursor}` : ''}`);
      walked.push(...ids(page));
      if (!page.json.has_more) break;
      cursor = walked[walked.length - 1]!;
    }
    expect(walked).toEqual(seeded.map((e) => e.id));
    const back = await list(t.merchant.testKey, `limit=6&ending_before=${seeded[12]!.id}`);
    expect(ids(back)).toEqual(seeded.slice(6, 12).map((e) => e.id));
    expect(back.json.has_more).toBe(true);
  });

  it('a cursor of another merchant or mode, or both cursors, is invalid_search_criteria', async () => {
    const foreign = (await list(other.testKey, 'limit=1')).json.data[0].id;
    expectError(await list(t.merchant.testKey, `starting_after=${foreign}`), 400, 'invalid_search_criteria', 'starting_after');
    const live = (await list(t.merchant.liveKey, 'limit=1')).json.data[0].id;
    expectError(await list(t.merchant.testKey, `ending_before=${live}`), 400, 'invalid_search_criteria', 'ending_before');
    expectError(await list(t.merchant.testKey, `starting_after=${seeded[0]!.id}&ending_before=${seeded[3]!.id}`), 400, 'invalid_search_criteria', 'ending_before');
  });
});

describe('filters', () => {
  it('type filters by an exact type', async () => {
    const res = await list(t.merchant.testKey, 'type=refund.succeeded&limit=100');
    expect(ids(res)).toEqual(seeded.filter((e) => e.type === 'refund.succeeded').map((e) => e.id));
  });

  it('a prefix wildcard matches every type under it, newest first across types, and pages by cursor', async () => {
    const expected = seeded.filter((e) => e.type.startsWith('payment.')).map((e) => e.id);
    expect(ids(await list(t.merchant.testKey, 'type=payment.*&limit=100'))).toEqual(expected);
    const first = await list(t.merchant.testKey, 'type=payment.*&limit=5');
    expect(ids(first)).toEqual(expected.slice(0, 5));
    expect(first.json.has_more).toBe(true);
    const next = await list(t.merchant.testKey, `type=payment.*&limit=5&starting_after=${expected[4]}`);
    expect(ids(next)).toEqual(expected.slice(5, 10));
  });

  it('repeated type values match any one of them', async () => {
    const res = await list(t.merchant.testKey, 'type=refund.processing&type=payout.*&limit=100');
    expect(ids(res)).toEqual(seeded.filter((e) => e.type === 'refund.processing' || e.type.startsWith('payout.')).map((e) => e.id));
  });

  it('object_id lists one object\'s events, and combines with type', async () => {
    const objectId = seeded[0]!.object_id;
    expect(ids(await list(t.merchant.testKey, `object_id=${objectId}`))).toEqual(seeded.filter((e) => e.object_id === objectId).map((e) => e.id));
    const payment = objectIdOf('payment.processing', 0);
    expect(ids(await list(t.merchant.testKey, `object_id=${payment}&type=payment.succeeded`)))
      .toEqual(seeded.filter((e) => e.object_id === payment && e.type === 'payment.succeeded').map((e) => e.id));
  });

  it('created[gte] and created[lt] bound the creation time', async () => {
    const res = await list(t.merchant.testKey, `created[gte]=${T0 + 3}&created[lt]=${T0 + 9}&limit=100`);
    expect(ids(res)).toEqual(seeded.filter((e) => e.created_at >= T0 + 3 && e.created_at < T0 + 9).map((e) => e.id));
    expect(ids(res)).toHaveLength(12);
  });

  it('delivery_success=true lists events whose every delivery succeeded (none counts); false those with one that has not', async () => {
    const [failed, pending, mixed, ok] = seeded.slice(0, 4);
    await insertDelivery(failed!.id, t.merchant.merchantId, 'failed');
    await insertDelivery(pending!.id, t.merchant.merchantId, 'pending');
    await insertDelivery(mixed!.id, t.merchant.merchantId, 'succeeded');
    await insertDelivery(mixed!.id, t.merchant.merchantId, 'failed');
    await insertDelivery(ok!.id, t.merchant.merchantId, 'succeeded');
    expect(ids(await list(t.merchant.testKey, 'delivery_success=false&limit=100'))).toEqual([failed!.id, pending!.id, mixed!.id]);
    expect(ids(await list(t.merchant.testKey, 'delivery_success=true&limit=100'))).toEqual(seeded.slice(3).map((e) => e.id));
  });

  it('bad criteria are invalid_search_criteria naming the parameter, and change nothing', async () => {
    const cases: Array<[string, string]> = [
      ['type=payment.refund', 'type'], ['type=pay*', 'type'], ['type=*.succeeded', 'type'], ['type=dispute.*', 'type'], ['type=PAYMENT.SUCCEEDED', 'type'],
      ['object_id=cus_123', 'object_id'], [`object_id=${seeded[0]!.id}`, 'object_id'],
      ['limit=0', 'limit'], ['limit=101', 'limit'], ['starting_after=pay_x', 'starting_after'], [`starting_after=${'evt_'.padEnd(28, 'z')}`, 'starting_after'],
      ['created[gte]=yesterday', 'created[gte]'], [`created[gte]=${T0 + 9}&created[lt]=${T0 + 3}`, 'created[lt]'],
      ['delivery_success=maybe', 'delivery_success'], ['colour=blue', 'colour'],
    ];
    for (const [query, param] of cases) expectError(await list(t.merchant.testKey, query), 400, 'invalid_search_criteria', param);
  });
});

describe('retrieve', () => {
  it('shows the event with one entry per delivery, each with every attempt oldest first and the next attempt time', async () => {
    const event = seeded[5]!;
    const delivery = await insertDelivery(event.id, t.merchant.merchantId, 'pending');
    const attempts = t.api.deps.dataSource.getRepository(WebhookAttempt);
    await attempts.insert({ event_id: event.id, delivery_id: delivery.id, attempt: 1, endpoint: 'https://shop.example/hooks', status_code: 500, error: null, latency_ms: 12, attempted_at_ms: 1_767_000_100_000 });
    await attempts.insert({ event_id: event.id, delivery_id: delivery.id, attempt: 2, endpoint: 'https://shop.example/hooks', status_code: null, error: 'timeout', latency_ms: 10_000, attempted_at_ms: 1_767_000_200_999 });
    const res = await call(t.api, 'GET', `/v1/events/${event.id}`, { key: t.merchant.testKey });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: event.id, object: 'event', type: event.type, created_at: event.created_at, livemode: false, data: { object: { id: event.object_id, marker: event.type } },
      deliveries: [{
        webhook_endpoint_id: delivery.endpointId, url: 'https://shop.example/hooks', status: 'pending', next_attempt_at: 1_767_000_500,
        attempts: [
          { attempted_at: 1_767_000_100, http_status: 500, error: null, duration_ms: 12 },
          { attempted_at: 1_767_000_200, http_status: null, error: 'timeout', duration_ms: 10_000 },
        ],
      }],
    });
  });

  it('another merchant\'s or mode\'s event, or a case-swapped id, is object_not_found; a malformed id is invalid_request', async () => {
    const event = seeded[0]!;
    expectError(await call(t.api, 'GET', `/v1/events/${event.id}`, { key: other.testKey }), 404, 'object_not_found', 'id');
    expectError(await call(t.api, 'GET', `/v1/events/${event.id}`, { key: t.merchant.liveKey }), 404, 'object_not_found', 'id');
    const swapped = `evt_${[...event.id.slice(4)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')}`;
    if (swapped !== event.id) expectError(await call(t.api, 'GET', `/v1/events/${swapped}`, { key: t.merchant.testKey }), 404, 'object_not_found', 'id');
    expectError(await call(t.api, 'GET', '/v1/events/evt_short', { key: t.merchant.testKey }), 400, 'invalid_request', 'id');
    expectError(await call(t.api, 'GET', `/v1/events/${event.id}`, {}), 401, 'invalid_api_key');
  });
});

describe('retention', () => {
  it('the purge deletes events past retention with their deliveries and attempts, and keeps the rest', async () => {
    const nowMs = Date.now();
    const day = 86_400;
    const now = Math.floor(nowMs / 1000);
    const old = await insertEvent(t.merchant.merchantId, false, 'payout.failed', objectIdOf('payout.failed', 99), now - 31 * day);
    const kept = await insertEvent(t.merchant.merchantId, false, 'payout.failed', objectIdOf('payout.failed', 98), now - 29 * day);
    for (const event of [old, kept]) {
      const delivery = await insertDelivery(event.id, t.merchant.merchantId, 'failed');
      await t.api.deps.dataSource.getRepository(WebhookAttempt).insert({ event_id: event.id, delivery_id: delivery.id, attempt: 1, endpoint: 'https://shop.example/hooks', status_code: 500, error: null, latency_ms: 5, attempted_at_ms: nowMs });
    }
    expect(await purgeExpiredEvents(t.api.deps.dataSource, 30, nowMs)).toBeGreaterThanOrEqual(1);
    const count = async (eventId: string) => ({
      events: await t.api.deps.dataSource.getRepository(Event).countBy({ id: eventId }),
      deliveries: await t.api.deps.dataSource.getRepository(WebhookDelivery).countBy({ event_id: eventId }),
      attempts: await t.api.deps.dataSource.getRepository(WebhookAttempt).countBy({ event_id: eventId }),
    });
    expect(await count(old.id)).toEqual({ events: 0, deliveries: 0, attempts: 0 });
    expect(await count(kept.id)).toEqual({ events: 1, deliveries: 1, attempts: 1 });
    expectError(await call(t.api, 'GET', `/v1/events/${old.id}`, { key: t.merchant.testKey }), 404, 'object_not_found');
    expect(ids(await list(t.merchant.testKey, 'limit=100'))).toEqual(expect.arrayContaining(seeded.map((e) => e.id)));
  });

  it('the purge goes in batches until nothing past the cutoff is left', async () => {
    const merchant = await createMerchant(t.api, { name: 'Old Shop' });
    for (let i = 0; i < 5; i += 1) await insertEvent(merchant.merchantId, false, 'payout.pending', objectIdOf('payout.pending', 200 + i), 1_000 + i);
    expect(await purgeEventsBefore(t.api.deps.dataSource, 2_000, 2)).toBe(5);
    expect(await t.api.deps.dataSource.getRepository(Event).countBy({ merchant_id: merchant.merchantId })).toBe(0);
  });
});

describe('payment.refunded', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => { receiver = await startWebhookReceiver(); });
  afterAll(async () => { await receiver.close(); });

  it('each succeeded refund sends payment.refunded with the Payment after it, and the Events API lists it', async () => {
    const merchant = await createMerchant(t.api, { name: 'Refund Shop', webhookUrl: receiver.url });
    const created = await createDirectPayment(t.api, merchant.testKey);
    expect(created.status).toBe(201);
    const paymentId = created.json.id as string;
    await waitForStatus(t.api, merchant.testKey, paymentId, 'SUCCEEDED');
    const refunds: string[] = [];
    for (const amount of [1000, 999]) {
      const refund = await call(t.api, 'POST', '/v1/refunds', { key: merchant.testKey, body: { payment_id: paymentId, amount, reason: 'return' } });
      expect(refund.status).toBe(201);
      refunds.push(refund.json.id);
      const refunded = (list: typeof receiver.received) => list.filter((w) => w.json.type === 'payment.refunded' && w.json.data.object.id === paymentId);
      const got = await eventually(async () => refunded(receiver.received), (l) => l.some((w) => w.json.data.object.refunds.some((r: any) => r.id === refund.json.id)), 30_000);
      const body = got.find((w) => w.json.data.object.refunds.some((r: any) => r.id === refund.json.id))!.json.data.object;
      const refundedSoFar = refunds.length === 1 ? 1000 : 1999;
      expect(body).toMatchObject({ id: paymentId, status: 'SUCCEEDED', amount_refunded: refundedSoFar, amount_refundable: 4999 - refundedSoFar });
      expect(body.refunds.find((r: any) => r.id === refund.json.id)).toMatchObject({ amount, status: 'SUCCEEDED' });
    }
    const listed = await eventually(() => list(merchant.testKey, `object_id=${paymentId}&type=payment.refunded`), (r) => r.json.data.length === 2);
    expect(listed.json.data.map((e: any) => e.data.object.amount_refunded)).toEqual([1999, 1000]);
    const delivered = receiver.received.find((w) => w.json.id === listed.json.data[0].id)!;
    const retrieved = await call(t.api, 'GET', `/v1/events/${delivered.json.id}`, { key: merchant.testKey });
    expect(retrieved.json.data).toEqual(delivered.json.data);
  });
});

describe('retry', () => {
  let a: WebhookReceiver;
  let b: WebhookReceiver;
  let merchant: TestMerchant;
  const endpoints: Array<{ id: string; secret: string; receiver: () => WebhookReceiver }> = [];
  let eventId = '';
  const retry = (id: string, options: { body?: unknown; key?: string; idempotencyKey?: string | null } = {}) =>
    call(t.api, 'POST', `/v1/events/${id}/retry`, { key: options.key ?? merchant.testKey, body: options.body, idempotencyKey: options.idempotencyKey });
  const sent = (receiver: WebhookReceiver) => receiver.received.filter((w) => w.json.id === eventId);

  beforeAll(async () => {
    a = await startWebhookReceiver();
    b = await startWebhookReceiver();
    merchant = await createMerchant(t.api, { name: 'Retry Shop' });
    for (const receiver of [() => a, () => b]) {
      const created = await call(t.api, 'POST', '/v1/webhook_endpoints', { key: merchant.testKey, body: { url: receiver().url, enabled_events: ['payment.succeeded'] } });
      expect(created.status).toBe(201);
      endpoints.push({ id: created.json.id, secret: created.json.secret, receiver });
    }
    const payment = await createDirectPayment(t.api, merchant.testKey);
    await eventually(async () => a.received.concat(b.received), (l) => l.filter((w) => w.json.data.object.id === payment.json.id).length === 2, 30_000);
    eventId = a.received.find((w) => w.json.data.object.id === payment.json.id)!.json.id;
    await eventually(() => call(t.api, 'GET', `/v1/events/${eventId}`, { key: merchant.testKey }), (r) => r.json.deliveries?.every((d: any) => d.status === 'succeeded'));
  }, 60_000);
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  const detail = () => call(t.api, 'GET', `/v1/events/${eventId}`, { key: merchant.testKey });
  const attemptCounts = async () => (await detail()).json.deliveries.map((d: any) => d.attempts.length);
  /** A minute has passed since the last manual attempts of the event. */
  const aMinuteLater = () => t.api.deps.dataSource.getRepository(WebhookDelivery).update({ event_id: eventId }, { manual_attempt_at: Date.now() - 61_000 });

  it('answers the event at once and sends one new attempt to every endpoint in the background, same webhook-id, freshly signed', async () => {
    const before = (await detail()).json;
    expect(before.deliveries.map((d: any) => [d.webhook_endpoint_id, d.status, d.attempts.length])).toEqual(endpoints.map((e) => [e.id, 'succeeded', 1]));
    const res = await retry(eventId, { idempotencyKey: 'retry-all' });
    expect(res.status).toBe(200);
    expect({ ...res.json, deliveries: undefined }).toEqual({ ...before, deliveries: undefined });
    expect(res.json.deliveries.map((d: any) => d.webhook_endpoint_id)).toEqual(endpoints.map((e) => e.id));
    const after = await eventually(detail, (r) => r.json.deliveries.every((d: any) => d.attempts.length === 2));
    expect(after.json.deliveries.map((d: any) => [d.status, d.attempts[1].http_status])).toEqual([['succeeded', 200], ['succeeded', 200]]);
    for (const endpoint of endpoints) {
      const [first, again] = sent(endpoint.receiver());
      expect(again!.headers['webhook-id']).toBe(eventId);
      expect(again!.body).toBe(first!.body);
      expect(Number(again!.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(Number(first!.headers['webhook-timestamp']));
      expect(new Webhook(endpoint.secret).verify(again!.body, again!.headers)).toEqual(JSON.parse(first!.body));
    }
  });

  it('five retries in a row make one attempt per endpoint: at most one manual attempt per endpoint and event a minute', async () => {
    await aMinuteLater();
    const counts = [sent(a).length, sent(b).length];
    for (let i = 0; i < 5; i += 1) expect((await retry(eventId)).status).toBe(200);
    await eventually(async () => [sent(a).length, sent(b).length], (n) => n[0] === counts[0]! + 1 && n[1] === counts[1]! + 1);
    await new Promise((r) => setTimeout(r, 1000));
    expect([sent(a).length, sent(b).length]).toEqual([counts[0]! + 1, counts[1]! + 1]);
    // Concurrent retries claim it once as well.
    await aMinuteLater();
    await Promise.all(Array.from({ length: 5 }, () => retry(eventId)));
    await eventually(async () => [sent(a).length, sent(b).length], (n) => n[0] === counts[0]! + 2 && n[1] === counts[1]! + 2);
    await new Promise((r) => setTimeout(r, 1000));
    expect([sent(a).length, sent(b).length]).toEqual([counts[0]! + 2, counts[1]! + 2]);
    await eventually(attemptCounts, (n) => n[0] === 4 && n[1] === 4);
  });

  it('answers before a slow endpoint does', async () => {
    await aMinuteLater();
    b.respondWith('hang');
    try {
      const hanging = sent(b).length;
      const started = Date.now();
      const res = await retry(eventId, { body: { webhook_endpoint_id: endpoints[1]!.id } });
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1000);
      await eventually(async () => sent(b).length, (n) => n === hanging + 1);
    } finally {
      b.respondWith(200);
    }
  });

  it('a replay with the same Idempotency-Key answers the saved event and sends nothing', async () => {
    await aMinuteLater();
    const counts = [sent(a).length, sent(b).length];
    const replay = await retry(eventId, { idempotencyKey: 'retry-all' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await new Promise((r) => setTimeout(r, 500));
    expect([sent(a).length, sent(b).length]).toEqual(counts);
    expectError(await retry(eventId, { idempotencyKey: 'retry-all', body: { webhook_endpoint_id: endpoints[1]!.id } }), 409, 'idempotency_key_reused');
  });

  it("webhook_endpoint_id retries one endpoint, at its current URL; a failed extra attempt is recorded and leaves the delivery as it was", async () => {
    await aMinuteLater();
    const c = await startWebhookReceiver();
    try {
      c.respondWith(500);
      const moved = await call(t.api, 'POST', `/v1/webhook_endpoints/${endpoints[1]!.id}`, { key: merchant.testKey, body: { url: c.url } });
      expect(moved.status).toBe(200);
      const counts = [sent(a).length, sent(b).length];
      const attemptsBefore = await attemptCounts();
      const res = await retry(eventId, { body: { webhook_endpoint_id: endpoints[1]!.id } });
      expect(res.status).toBe(200);
      const after = await eventually(detail, (r) => r.json.deliveries[1].attempts.length === attemptsBefore[1] + 1);
      expect(c.received.filter((w) => w.json.id === eventId)).toHaveLength(1);
      expect([sent(a).length, sent(b).length]).toEqual(counts);
      const [first, second] = after.json.deliveries;
      expect([first.attempts.length, first.status]).toEqual([attemptsBefore[0], 'succeeded']);
      expect([second.status, second.attempts.at(-1).http_status, second.next_attempt_at]).toEqual(['succeeded', 500, null]);
    } finally {
      await call(t.api, 'POST', `/v1/webhook_endpoints/${endpoints[1]!.id}`, { key: merchant.testKey, body: { url: b.url } });
      await c.close();
    }
  });

  it('refuses what it cannot retry, with catalogue errors, and sends nothing', async () => {
    const counts = [sent(a).length, sent(b).length];
    expectError(await retry(eventId, { idempotencyKey: null }), 400, 'parameter_missing');
    expectError(await retry(eventId, { body: { webhook_endpoint_id: `we_${'0'.repeat(24)}` } }), 404, 'object_not_found', 'webhook_endpoint_id');
    expectError(await retry(eventId, { body: { webhook_endpoint_id: 'we_x' } }), 400, 'parameter_invalid', 'webhook_endpoint_id');
    expectError(await retry(eventId, { body: { url: 'https://elsewhere.example' } }), 400, 'request_body_invalid', 'url');
    expectError(await retry(eventId, { key: t.merchant.testKey }), 404, 'object_not_found', 'id');
    expectError(await retry(eventId, { key: merchant.liveKey }), 404, 'object_not_found', 'id');
    expectError(await retry('evt_bad'), 400, 'invalid_request', 'id');
    expect([sent(a).length, sent(b).length]).toEqual(counts);
  });
});
