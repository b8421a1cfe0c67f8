// Events and webhooks (docs/webhooks.md): signed with Standard Webhooks, retried by Temporal,
// recorded per attempt, never blocking the object's own workflow.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ActivityDeps } from '../../activities/deps';
import { publishEvents } from '../../activities/webhooks';
import { Webhook } from 'standardwebhooks';
import { Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../src/db/entities';
import type { PendingEvent } from '../../src/domain/events';
import { randomBase62 } from '../../src/domain/ids';
import type { RefundView } from '../../src/domain/payment';
import { WorkerMetrics } from '../../src/observability/worker-metrics';
import { destinationPolicy } from '../../src/webhooks/destination';
import { postJson } from '../../src/webhooks/http-post';
import type { DeliveryTarget } from '../../src/webhooks/deliveries';
import { WebhookRelay } from '../../src/webhooks/relay';
import { WebhookSecrets } from '../../src/webhooks/secrets';
import { startDelivery } from '../../src/temporal/start-delivery';
import { adminOps, call, createMerchant, directPaymentBody, eventually, startTestApi, type TestMerchant, useTestApi } from '../helpers/api';
import { pay as createPayment } from '../helpers/payments';
import { spawnTs, waitForLog } from '../helpers/processes';
import { TEST_ENV, workerEnv } from '../helpers/test-env';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { deliveriesOf, newTestEvent, recordTestEvent } from '../helpers/webhooks';

const t = useTestApi();
let receiver: WebhookReceiver;
let merchant: TestMerchant;

beforeAll(async () => { receiver = await startWebhookReceiver(); });
afterAll(async () => { await receiver.close(); });
// A fresh account (and endpoint) per test: an endpoint's circuit, left open by a test that made it
// fail, would hold the next test's deliveries behind its probe.
beforeEach(async () => {
  receiver.respondWith(200);
  merchant = await createMerchant(t.api, { webhookUrl: receiver.url });
});

const pay = (card: string, extra: Record<string, unknown> = {}) => createPayment(t.api, merchant.testKey, { body: extra, card: { number: card } });

function eventsFor(objectId: string) {
  return receiver.received.filter((w) => w.json.data?.object?.id === objectId);
}

async function relayLease(eventId: string): Promise<number | null | undefined> {
  return (await t.api.deps.dataSource.getRepository(Event).findOneBy({ id: eventId }))?.relay_lease_until_ms;
}

/** The one delivery of an event to the suite merchant's endpoint, once planned. */
async function deliveryOf(eventId: string) {
  const [delivery] = await eventually(() => deliveriesOf(t.api, eventId), (rows) => rows.length >= 1);
  return delivery!;
}

/**
 * A delivery to an endpoint that needed more than the relay's attempt went behind its endpoint's
 * circuit and was sent from there: no workflow, of its own or of the endpoint.
 */
async function expectSentByCircuit(delivery: { id: string; endpoint_id: string | null }) {
  await eventually(async () => (await t.api.deps.dataSource.getRepository(WebhookDelivery).findOneByOrFail({ id: delivery.id })).status, (status) => status === 'succeeded', 20_000);
  for (const id of [delivery.id, delivery.endpoint_id!]) await expect(t.api.deps.temporal.workflow.getHandle(id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
}

function verify(w: { headers: Record<string, string>; body: string }, secret: string) {
  return new Webhook(secret).verify(w.body, w.headers);
}

it('a frictionless payment sends payment.processing and payment.succeeded, signed and verifiable', async () => {
  const payment = await pay('4242424242424242');
  const got = await eventually(async () => eventsFor(payment.id), (list) => list.some((w) => w.json.type === 'payment.succeeded'));
  const types = got.map((w) => w.json.type).sort();
  expect(types).toEqual(['payment.processing', 'payment.succeeded']);
  for (const w of got) {
    expect(w.json.id).toMatch(/^evt_[A-Za-z0-9]{24}$/);
    expect(w.headers['webhook-id']).toBe(w.json.id);
    expect(verify(w, merchant.webhookSecret)).toEqual(w.json);
    expect(w.json.livemode).toBe(false);
    expect(w.json.data.object).toMatchObject({ id: payment.id, amount: 4999, currency: 'USD' });
  }
  const succeeded = got.find((w) => w.json.type === 'payment.succeeded')!;
  expect(succeeded.json.data.object.status).toBe('SUCCEEDED');
  const processing = got.find((w) => w.json.type === 'payment.processing')!;
  expect(processing.json.data.object.status).toBe('PROCESSING');
  // A tampered body fails verification.
  expect(() => verify({ ...succeeded, body: succeeded.body.replace('SUCCEEDED', 'FAILED') }, merchant.webhookSecret)).toThrow();
});

it('a declined payment sends payment.failed with the failure code', async () => {
  const payment = await pay('4000000000000002');
  const [failed] = await eventually(async () => eventsFor(payment.id), (list) => list.length >= 1);
  expect(failed!.json.type).toBe('payment.failed');
  expect(failed!.json.data.object.failure_code).toBe('generic_decline');
  expect(verify(failed!, merchant.webhookSecret)).toBeTruthy();
});

it('a 3DS payment that is left alone sends payment.requires_action then payment.expired', async () => {
  const payment = await pay('4000000000003220');
  const got = await eventually(async () => eventsFor(payment.id), (list) => list.some((w) => w.json.type === 'payment.expired'), TEST_ENV.actionTtlSeconds * 1000 + 20_000);
  expect(got.map((w) => w.json.type).sort()).toEqual(['payment.expired', 'payment.requires_action']);
  expect(got.find((w) => w.json.type === 'payment.requires_action')!.json.data.object.next_action.reason).toBe('three_d_secure');
});

it('refunds send refund.processing and refund.succeeded; a failing refund sends refund.failed', async () => {
  const payment = await pay('4000000000005126');
  await eventually(() => call(t.api, 'GET', `/v1/payments/${payment.id}`, { key: merchant.testKey }), (r) => r.json.status === 'SUCCEEDED');
  const refund = await call(t.api, 'POST', '/v1/refunds', { key: merchant.testKey, body: { payment_id: payment.id, amount: 1000, reason: 'customer request' } });
  expect(refund.status).toBe(201);
  const got = await eventually(async () => eventsFor(refund.json.id), (list) => list.some((w) => w.json.type === 'refund.failed'));
  expect(got.map((w) => w.json.type).sort()).toEqual(['refund.failed', 'refund.processing']);
  const failed = got.find((w) => w.json.type === 'refund.failed')!;
  expect(failed.json.data.object).toMatchObject({ id: refund.json.id, payment_id: payment.id, status: 'FAILED', failure: { code: 'processor_error' } });

  const ok = await pay('4242424242424242');
  await eventually(() => call(t.api, 'GET', `/v1/payments/${ok.id}`, { key: merchant.testKey }), (r) => r.json.status === 'SUCCEEDED');
  const good = await call(t.api, 'POST', '/v1/refunds', { key: merchant.testKey, body: { payment_id: ok.id, amount: 4999, reason: 'return' } });
  const gotGood = await eventually(async () => eventsFor(good.json.id), (list) => list.some((w) => w.json.type === 'refund.succeeded'));
  expect(gotGood.map((w) => w.json.type).sort()).toEqual(['refund.processing', 'refund.succeeded']);
  for (const w of gotGood) expect(verify(w, merchant.webhookSecret)).toBeTruthy();
});

it('payouts send payout.pending, then payout.succeeded or payout.failed, with both recipient names', async () => {
  const body = (card: string) => ({ amount: 2500, currency: 'EUR', initiator_ip_address: '203.0.113.7', recipient: { first_name: ' Ana ', last_name: "O'Díaz", country: 'ES' }, destination: { card_number: card } });
  const ok = await call(t.api, 'POST', '/v1/payouts', { key: merchant.testKey, body: body('4000004290000003') });
  const bad = await call(t.api, 'POST', '/v1/payouts', { key: merchant.testKey, body: body('4000007100000006') });
  const direct = await call(t.api, 'POST', '/v1/payouts', { key: merchant.testKey, body: body('4242424242424242') });
  expect([ok.json.status, bad.json.status]).toEqual(['PENDING', 'PENDING']);
  const gotOk = await eventually(async () => eventsFor(ok.json.id), (l) => l.some((w) => w.json.type === 'payout.succeeded'), 60_000);
  expect(gotOk.map((w) => w.json.type)).toContain('payout.pending');
  const gotBad = await eventually(async () => eventsFor(bad.json.id), (l) => l.some((w) => w.json.type === 'payout.failed'), 60_000);
  expect(gotBad.find((w) => w.json.type === 'payout.failed')!.json.data.object).toMatchObject({ status: 'FAILED', failure_code: 'processor_unavailable' });
  const gotDirect = await eventually(async () => eventsFor(direct.json.id), (l) => l.some((w) => w.json.type === 'payout.succeeded'), 60_000);
  expect(gotDirect.map((w) => w.json.type).sort()).toEqual(['payout.processing', 'payout.succeeded']);
  for (const w of [...gotOk, ...gotBad, ...gotDirect]) {
    expect(verify(w, merchant.webhookSecret)).toBeTruthy();
    expect(w.json.data.object.recipient).toEqual({ first_name: ' Ana ', last_name: "O'Díaz", country: 'ES' });
    expect(w.body).not.toContain('4000004290000003');
  }
});

it('an endpoint answering 500 then 200 gets the same webhook-id twice, and each attempt is recorded', async () => {
  receiver.respondWith(500, 200);
  const payment = await pay('4000000000000002');
  const got = await eventually(async () => eventsFor(payment.id), (list) => list.length >= 2);
  expect(got[0]!.headers['webhook-id']).toBe(got[1]!.headers['webhook-id']);
  expect(got[0]!.body).toBe(got[1]!.body);
  const attempts = await eventually(
    () => t.api.deps.dataSource.getRepository(WebhookAttempt).find({ where: { event_id: got[0]!.json.id }, order: { seq: 'ASC' } }),
    (rows) => rows.length >= 2,
  );
  expect(attempts.map((a) => a.status_code)).toEqual([500, 200]);
  expect(attempts.map((a) => a.attempt)).toEqual([1, 2]);
  for (const a of attempts) expect(a.latency_ms).toBeGreaterThanOrEqual(0);
  // The relay made the first attempt; the failure opened the endpoint's circuit, whose workflow
  // went on from attempt 2.
  const delivery = await deliveryOf(got[0]!.json.id);
  expect(attempts.map((a) => a.delivery_id)).toEqual([delivery.id, delivery.id]);
  await expectSentByCircuit(delivery);
  expect(await eventually(() => deliveryOf(got[0]!.json.id), (d) => d.status === 'succeeded')).toMatchObject({ attempts: 2, next_attempt_at: null });
  expect(await relayLease(got[0]!.json.id)).toBeNull();
});

it('a first attempt that succeeds is made by the relay, without a delivery workflow', async () => {
  const payment = await pay('4242424242424242');
  const got = await eventually(async () => eventsFor(payment.id), (list) => list.length >= 2);
  for (const w of got) {
    const delivery = await deliveryOf(w.json.id);
    const attempts = await eventually(() => t.api.deps.dataSource.getRepository(WebhookAttempt).findBy({ event_id: w.json.id }), (rows) => rows.length >= 1);
    expect(attempts).toMatchObject([{ delivery_id: delivery.id, attempt: 1, status_code: 200 }]);
    await eventually(() => relayLease(w.json.id), (lease) => lease === null);
    expect(await deliveryOf(w.json.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    await expect(t.api.deps.temporal.workflow.getHandle(delivery.id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  }
});

it.each([
  ['before planning its deliveries', false],
  ['after planning its deliveries, before their first attempts', true],
])('an event whose worker died %s is delivered by a sweeper when its lease runs out', async (_when, plan) => {
  // What a worker leaves when it dies right after recording the event: a lease, and no attempt.
  const event = newTestEvent(merchant.merchantId);
  const lease = Date.now() + 1500;
  await recordTestEvent(t.api, event, { leaseUntilMs: lease, plan });
  const [webhook] = await eventually(async () => receiver.received.filter((w) => w.headers['webhook-id'] === event.id), (list) => list.length >= 1, 20_000);
  expect(webhook!.at).toBeGreaterThanOrEqual(lease);
  expect(verify(webhook!, merchant.webhookSecret)).toEqual(JSON.parse(event.payload));
  await expectSentByCircuit(await deliveryOf(event.id));
  await eventually(() => relayLease(event.id), (value) => value === null);
});

describe('the relay of a worker that stops or falls behind', () => {
  function relay(concurrency: number) {
    return new WebhookRelay({
      dataSource: t.api.deps.dataSource, temporal: t.api.deps.temporal, taskQueue: TEST_ENV.taskQueue, logger: t.api.deps.logger,
      webhookSecrets: new WebhookSecrets(t.api.deps.dataSource, t.api.deps.secretBox), metrics: new WorkerMetrics(),
      webhooks: { attemptTimeoutMs: 2000, initialRetrySeconds: 1, destinations: destinationPolicy(t.api.deps.config) },
    }, { leaseMs: 30_000, sweepIntervalMs: 60_000, concurrency });
  }

  /** Records an event as `publishEvents` does and returns what it hands to the relay. */
  async function recordEvent(leaseUntilMs: number): Promise<{ id: string; targets: DeliveryTarget[] }> {
    const event = newTestEvent(merchant.merchantId);
    return { id: event.id, targets: await recordTestEvent(t.api, event, { leaseUntilMs }) };
  }

  it('sends the delivery it was handed without reading it back', async () => {
    // Never written: an attempt that read the event or its delivery would find nothing and skip it.
    const id = `evt_${randomBase62(24)}`;
    const target: DeliveryTarget = {
      id: `wdl_${randomBase62(24)}`, eventId: id, merchantId: merchant.merchantId, livemode: false, endpointId: null,
      url: receiver.url, body: JSON.stringify({ id }), secrets: [merchant.webhookSecret],
    };
    const r = relay(4);
    r.enqueue(id, [target], r.leaseUntil());
    const [webhook] = await eventually(async () => receiver.received.filter((w) => w.headers['webhook-id'] === id), (list) => list.length >= 1);
    expect(verify(webhook!, merchant.webhookSecret)).toEqual({ id });
    await r.stop();
  });

  it('puts an event whose lease is too close to its end behind its endpoint\'s circuit instead of attempting it', async () => {
    const r = relay(4);
    const event = await recordEvent(Date.now() + 1000);
    r.enqueue(event.id, event.targets, Date.now() + 1000);
    const eventId = event.id;
    await r.stop();
    await expectSentByCircuit(await deliveryOf(eventId));
    expect(await relayLease(eventId)).toBeNull();
    const attempts = await eventually(() => t.api.deps.dataSource.getRepository(WebhookAttempt).findBy({ event_id: eventId }), (rows) => rows.length >= 1);
    expect(attempts).toMatchObject([{ attempt: 1, status_code: 200 }]);
  });

  it('on stop, finishes the attempt in flight and puts queued events behind their endpoint\'s circuit', async () => {
    receiver.respondWith('hang', 200, 200);
    const r = relay(1);
    const lease = r.leaseUntil();
    const firstEvent = await recordEvent(lease);
    const secondEvent = await recordEvent(lease);
    r.enqueue(firstEvent.id, firstEvent.targets, lease);
    r.enqueue(secondEvent.id, secondEvent.targets, lease);
    const [first, second] = [firstEvent.id, secondEvent.id];
    await eventually(async () => receiver.received.filter((w) => w.headers['webhook-id'] === first), (list) => list.length >= 1);
    await r.stop();
    // The first timed out in the relay and went out again from its circuit as attempt 2; the second
    // was never tried by the relay.
    for (const event of [firstEvent, secondEvent]) {
      await expectSentByCircuit(await deliveryOf(event.id));
      expect(await relayLease(event.id)).toBeNull();
    }
    const attemptsOf = (id: string) => t.api.deps.dataSource.getRepository(WebhookAttempt).find({ where: { event_id: id }, order: { seq: 'ASC' } });
    expect(await eventually(() => attemptsOf(first), (rows) => rows.some((a) => a.status_code === 200), 20_000)).toMatchObject([{ attempt: 1, error: 'timeout' }, { attempt: 2, status_code: 200 }]);
    expect(await eventually(() => attemptsOf(second), (rows) => rows.length >= 1)).toMatchObject([{ attempt: 1, status_code: 200 }]);
  });
});

describe('the outbox write of one change', () => {
  const refund = (id: string, status: 'PROCESSING' | 'SUCCEEDED'): RefundView => ({
    id, payment_id: 'pay_outbox_test', amount: 100, currency: 'USD', merchant_reference: null, reason: 'requested_by_customer',
    refund_type: 'PARTIAL', status, failure_code: null, failure_message: null, created_at: 100, updated_at: 101, completed_at: status === 'SUCCEEDED' ? 101 : null,
  });
  const eventOf = (r: RefundView): PendingEvent => ({
    id: `evt_${randomBase62(24)}`, type: r.status === 'SUCCEEDED' ? 'refund.succeeded' : 'refund.processing', merchantId: merchant.merchantId,
    livemode: false, objectId: r.id, createdAt: 101, subject: { kind: 'refund', refund: r, livemode: false },
  });

  it('records its events in one statement and their deliveries in one more, once, and sends each', async () => {
    const relay = new WebhookRelay({
      dataSource: t.api.deps.dataSource, temporal: t.api.deps.temporal, taskQueue: TEST_ENV.taskQueue, logger: t.api.deps.logger,
      webhookSecrets: new WebhookSecrets(t.api.deps.dataSource, t.api.deps.secretBox), metrics: new WorkerMetrics(),
      webhooks: { attemptTimeoutMs: 2000, initialRetrySeconds: 1, destinations: destinationPolicy(t.api.deps.config) },
    }, { leaseMs: 30_000, sweepIntervalMs: 60_000, concurrency: 4 });
    const deps = { dataSource: t.api.deps.dataSource, relay, metrics: new WorkerMetrics(), webhookSecrets: new WebhookSecrets(t.api.deps.dataSource, t.api.deps.secretBox) } as unknown as ActivityDeps;
    const refundId = `ref_${randomBase62(24)}`;
    const events = [eventOf(refund(refundId, 'PROCESSING')), eventOf(refund(refundId, 'SUCCEEDED'))];

    const runner = t.api.deps.dataSource.createQueryRunner();
    const query = jest.spyOn(Object.getPrototypeOf(runner) as { query: (sql: string) => Promise<unknown> }, 'query');
    await runner.release();
    try {
      await publishEvents(deps, events);
      const sent = query.mock.calls.map(([sql]) => String(sql).trim().replace(/\s+/g, ' '));
      expect(sent.filter((sql) => /^INSERT INTO `events`/.test(sql))).toHaveLength(1);
      expect(sent.filter((sql) => /FROM `webhook_endpoints`/.test(sql))).toHaveLength(1);
      expect(sent.filter((sql) => /^INSERT (IGNORE )?INTO `webhook_deliveries`/i.test(sql.replace('INSERT  IGNORE', 'INSERT IGNORE')))).toHaveLength(1);
    } finally {
      query.mockRestore();
    }
    // A retried change record (its activity run again) records and sends nothing more.
    await publishEvents(deps, events);
    for (const event of events) {
      await eventually(() => relayLease(event.id), (lease) => lease === null);
      expect(await deliveriesOf(t.api, event.id)).toHaveLength(1);
      // A delivery the relay handed to its endpoint's workflow (its slots for the URL were busy) is
      // settled at the hand-over and sent just after.
      await eventually(async () => receiver.received.filter((w) => w.json.id === event.id), (got) => got.length >= 1);
    }
    // Once each: nothing more arrives.
    await new Promise((r) => setTimeout(r, 500));
    for (const event of events) expect(receiver.received.filter((w) => w.json.id === event.id)).toHaveLength(1);
    expect(receiver.received.filter((w) => w.json.data?.object?.id === refundId).map((w) => w.json.type).sort()).toEqual(['refund.processing', 'refund.succeeded']);
    await relay.stop();
  });
});

it('an endpoint that hangs is timed out and retried', async () => {
  receiver.respondWith('hang', 200);
  const payment = await pay('4000000000009995');
  const got = await eventually(async () => eventsFor(payment.id), (list) => list.length >= 2, 30_000);
  expect(got[0]!.headers['webhook-id']).toBe(got[1]!.headers['webhook-id']);
  const attempts = await eventually(
    () => t.api.deps.dataSource.getRepository(WebhookAttempt).find({ where: { event_id: got[0]!.json.id }, order: { seq: 'ASC' } }),
    (rows) => rows.some((r) => r.status_code === 200),
  );
  expect(attempts[0]).toMatchObject({ status_code: null, error: 'timeout' });
});

it('delivery never blocks the payment: with the endpoint failing, the payment still succeeds', async () => {
  receiver.respondWith(503);
  const payment = await pay('4242424242424242');
  const done = await eventually(() => call(t.api, 'GET', `/v1/payments/${payment.id}`, { key: merchant.testKey }), (r) => r.json.status === 'SUCCEEDED');
  expect(done.json.status).toBe('SUCCEEDED');
  receiver.respondWith(200);
  await eventually(async () => eventsFor(payment.id), (list) => list.some((w) => w.json.type === 'payment.succeeded' && list.length >= 3), 30_000);
});

it('events are recorded in the database and can be listed and resent by an operator', async () => {
  const payment = await pay('4000000000000101');
  const [first] = await eventually(async () => eventsFor(payment.id), (list) => list.length >= 1);
  const rows = await t.api.deps.dataSource.getRepository(Event).findBy({ object_id: payment.id });
  expect(rows.map((r) => r.type)).toEqual(['payment.failed']);
  expect(JSON.parse(rows[0]!.payload)).toEqual(first!.json);

  const ops = adminOps(t.api);
  const listed = await ops.listEvents(merchant.merchantId, 50);
  expect(listed.events.find((e) => e.id === first!.json.id)).toMatchObject({ type: 'payment.failed', delivered: true, attempts: 1, last_status_code: 200 });
  const detail = await ops.eventAttempts(first!.json.id);
  expect(detail.attempts).toHaveLength(1);

  const [resend] = await ops.resendTargets(first!.json.id);
  await startDelivery({ temporal: t.api.deps.temporal, taskQueue: TEST_ENV.taskQueue, webhooks: { initialRetrySeconds: 1 } }, resend!, 0, resend!.workflowId);
  const again = await eventually(async () => eventsFor(payment.id), (list) => list.length >= 2);
  expect(again[1]!.headers['webhook-id']).toBe(first!.json.id);
  // The resend is one more attempt of the same delivery.
  expect(await eventually(() => deliveryOf(first!.json.id), (d) => d.attempts === 2)).toMatchObject({ id: resend!.deliveryId, status: 'succeeded' });
});

it('a rotated secret signs alongside the old one during the grace period', async () => {
  const m = await createMerchant(t.api, { webhookUrl: receiver.url });
  const rotated = await adminOps(t.api).rotateWebhookSecret(m.merchantId, 3600);
  const res = await call(t.api, 'POST', '/v1/payments', { key: m.testKey, body: directPaymentBody({}, { number: '4000000000000002' }) });
  const [w] = await eventually(async () => eventsFor(res.json.id), (list) => list.length >= 1);
  expect(w!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
  expect(verify(w!, m.webhookSecret)).toBeTruthy();
  expect(verify(w!, rotated.webhook_secret)).toBeTruthy();

  // After the grace period only the new secret signs.
  const ended = await adminOps(t.api).rotateWebhookSecret(m.merchantId, 0);
  const res2 = await call(t.api, 'POST', '/v1/payments', { key: m.testKey, body: directPaymentBody({}, { number: '4000000000000002' }) });
  const [w2] = await eventually(async () => eventsFor(res2.json.id), (list) => list.length >= 1);
  expect(w2!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
  expect(verify(w2!, ended.webhook_secret)).toBeTruthy();
  expect(() => verify(w2!, m.webhookSecret)).toThrow();
});

describe('live mode refuses private destinations (SSRF)', () => {
  it.each([
    ['loopback v4', 'http://127.0.0.1:9/hook'],
    ['private 10.x', 'http://10.1.2.3/hook'],
    ['link-local metadata', 'http://169.254.169.254/latest/meta-data'],
    ['loopback v6', 'http://[::1]:9/hook'],
    ['hostname resolving to loopback', 'http://localhost:9/hook'],
  ])('%s', async (_label, url) => {
    const result = await postJson(url, '{}', {}, { timeoutMs: 2000, livemode: true, policy: destinationPolicy(t.api.deps.config) });
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/^refused/);
  });

  it('the same addresses are allowed in test mode (the receiver is on loopback)', async () => {
    const result = await postJson(receiver.url, '{}', {}, { timeoutMs: 2000, livemode: false, policy: destinationPolicy(t.api.deps.config) });
    expect(result.statusCode).toBe(200);
  });

  it('a live event to a loopback endpoint is refused at delivery and not retried', async () => {
    // A live endpoint on a loopback URL, as the admin command made one before it kept such URLs to
    // test mode: the test-mode endpoint it makes now, moved to live mode.
    const m = await createMerchant(t.api, { webhookUrl: receiver.url });
    await t.api.deps.dataSource.getRepository(WebhookEndpoint).update({ merchant_id: m.merchantId, livemode: false }, { livemode: true });
    const event = newTestEvent(m.merchantId, { livemode: true, payload: '{}' });
    const eventId = event.id;
    const [delivery] = await recordTestEvent(t.api, event);
    await startDelivery({ temporal: t.api.deps.temporal, taskQueue: TEST_ENV.taskQueue, webhooks: { initialRetrySeconds: 1 } }, { deliveryId: delivery!.id, eventId });
    const attempts = await eventually(() => t.api.deps.dataSource.getRepository(WebhookAttempt).findBy({ event_id: eventId }), (rows) => rows.length >= 1);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await t.api.deps.dataSource.getRepository(WebhookAttempt).countBy({ event_id: eventId })).toBe(1);
    expect(attempts[0]!.error).toMatch(/^refused/);
    expect(receiver.received.filter((w) => w.headers['webhook-id'] === eventId)).toEqual([]);
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'failed', next_attempt_at: null });
  });
});

it('deliveries survive a worker restart', async () => {
  const queue = 'webhooks-restart';
  const own = await startTestApi({ taskQueue: queue });
  const worker1 = spawnTs('worker-webhooks-1', 'workers/main.ts', workerEnv({ TEMPORAL_TASK_QUEUE: queue }));
  await waitForLog(worker1.logFile, 'worker running', 120_000);
  try {
    receiver.respondWith(503);
    const m = await createMerchant(own, { webhookUrl: receiver.url });
    const res = await call(own, 'POST', '/v1/payments', { key: m.testKey, body: directPaymentBody({}, { number: '4000000000000002' }) });
    expect(res.status).toBe(201);
    await eventually(async () => eventsFor(res.json.id), (list) => list.length >= 1);
    await worker1.stop('SIGKILL');
    receiver.respondWith(200);
    const worker2 = spawnTs('worker-webhooks-2', 'workers/main.ts', workerEnv({ TEMPORAL_TASK_QUEUE: queue }));
    try {
      await waitForLog(worker2.logFile, 'worker running', 120_000);
      const attempts = await eventually(
        async () => {
          const [event] = await own.deps.dataSource.getRepository(Event).findBy({ object_id: res.json.id });
          return event ? own.deps.dataSource.getRepository(WebhookAttempt).findBy({ event_id: event.id }) : [];
        },
        (rows) => rows.some((r) => r.status_code === 200),
        // A drain that died with its worker is retried once its heartbeat times out (30 s).
        120_000,
      );
      expect(attempts.filter((a) => a.status_code === 200)).toHaveLength(1);
      expect(attempts[0]!.status_code).toBe(503);
    } finally {
      await worker2.stop();
    }
  } finally {
    await worker1.stop('SIGKILL');
    await own.close();
  }
}, 300_000);
