// A failing endpoint is isolated (CONTRACT section 14, docs/webhooks.md "A failing endpoint"): while
// it fails, the workers' circuit sweepers probe it once per backoff step and its later events wait,
// pending, behind the probe; once it answers they go out in order. No workflow, for the endpoint or
// per delivery. 3 days (WEBHOOK_RETRY_SPAN_SECONDS) without a 2xx disable it; a delete ends what is
// pending. The suite's worker probes on a 1 s first step (test/helpers/test-env.ts).
import { WorkflowNotFoundError } from '@temporalio/client';
import { Event, WebhookDelivery, WebhookEndpoint } from '../../src/db/entities';
import { createLogger } from '../../src/observability/logger';
import { WorkerMetrics } from '../../src/observability/worker-metrics';
import { CircuitSweeper } from '../../src/webhooks/circuit-sweeper';
import { destinationPolicy } from '../../src/webhooks/destination';
import { WebhookSecrets } from '../../src/webhooks/secrets';
import { call, createMerchant, directPaymentBody, eventually, type TestMerchant, useTestApi } from '../helpers/api';
import { pay as createPayment } from '../helpers/payments';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

let down: WebhookReceiver;
let up: WebhookReceiver;
let merchant: TestMerchant;

beforeAll(async () => {
  [down, up] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
});
afterAll(async () => {
  await down?.close();
  await up?.close();
});
const t = useTestApi();
beforeEach(async () => {
  down.respondWith(503);
  up.respondWith(200);
  merchant = await createMerchant(t.api, { name: 'Circuit Shop' });
});

async function createEndpoint(url: string): Promise<string> {
  const res = await call(t.api, 'POST', '/v1/webhook_endpoints', { key: merchant.testKey, body: { url, enabled_events: ['*'] } });
  expect(res.status).toBe(201);
  return res.json.id as string;
}

/** A declined payment: one event (`payment.failed`) each. */
async function pay(): Promise<string> {
  return (await createPayment(t.api, merchant.testKey, { card: { number: '4000000000000002' } })).id as string;
}

/** The merchant's event ids in the order they were recorded. */
async function eventIds(): Promise<string[]> {
  return (await t.api.deps.dataSource.getRepository(Event).find({ where: { merchant_id: merchant.merchantId }, order: { seq: 'ASC' } })).map((e) => e.id);
}

const endpointRow = (id: string) => t.api.deps.dataSource.getRepository(WebhookEndpoint).findOneByOrFail({ id });
const deliveriesTo = (endpointId: string) => t.api.deps.dataSource.getRepository(WebhookDelivery).find({ where: { endpoint_id: endpointId }, order: { seq: 'ASC' } });
const idsAt = (receiver: WebhookReceiver, merchantEvents: string[]) => receiver.received.map((w) => w.headers['webhook-id']!).filter((id) => merchantEvents.includes(id));

/** The workflow under this id, if any: neither an endpoint nor a delivery to one has any. */
async function workflowStatus(id: string): Promise<string | null> {
  try {
    return (await t.api.deps.temporal.workflow.getHandle(id).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}

it('a down endpoint gets one probe per backoff step, its events wait and then go out in order, once each; the other endpoint is not held up', async () => {
  const failing = await createEndpoint(down.url);
  const healthy = await createEndpoint(up.url);
  const startedMs = Date.now();
  for (let i = 0; i < 8; i += 1) await pay();
  const events = await eventually(eventIds, (ids) => ids.length === 8);

  // The healthy endpoint got every event at once, each within a second of its delivery's planning.
  await eventually(async () => idsAt(up, events), (ids) => ids.length === 8, 10_000);
  const planned = new Map((await deliveriesTo(healthy)).map((d) => [d.event_id, Number(d.created_at)]));
  const lags = up.received.filter((w) => planned.has(w.headers['webhook-id']!)).map((w) => w.at - planned.get(w.headers['webhook-id']!)!);
  expect(Math.max(...lags)).toBeLessThan(1000);

  // Down for 6 s: the first failure opens the circuit; then only probes (1 and 3 s after it, each up
  // to a fifth later and a sweep later), each of the oldest delivery; the rest wait, unattempted.
  await new Promise((r) => setTimeout(r, Math.max(0, startedMs + 6000 - Date.now())));
  const open = await endpointRow(failing);
  expect(open.failing_since).not.toBeNull();
  expect(open.next_drain_at).not.toBeNull();
  // It recovers now: the next probe answers 2xx and the queue follows.
  const duringOutage = idsAt(down, events);
  down.respondWith(200);
  expect(duringOutage.length).toBeGreaterThanOrEqual(2);
  expect(duringOutage.length).toBeLessThanOrEqual(4);
  expect(new Set(duringOutage.slice(1))).toEqual(new Set([events[0]])); // every probe is of the oldest
  const waiting = await deliveriesTo(failing);
  expect(waiting.slice(1).every((d) => d.attempts === 0)).toBe(true);
  for (const id of [failing, ...waiting.map((d) => d.id)]) expect(await workflowStatus(id)).toBeNull();

  // Oldest first, each once.
  await eventually(async () => idsAt(down, events), (ids) => new Set(ids).size === 8, 20_000);
  const afterRecovery = idsAt(down, events).slice(duringOutage.length);
  expect(afterRecovery).toEqual(events);
  await eventually(async () => (await deliveriesTo(failing)).map((d) => d.status), (statuses) => statuses.every((st) => st === 'succeeded'), 5000);
  const closed = await eventually(() => endpointRow(failing), (row) => row.failing_since === null && row.drain_lease_until === null);
  expect(closed.next_drain_at).toBeNull();

  // Closed again: the next event goes out at once, from the relay.
  await pay();
  const [next] = (await eventually(eventIds, (ids) => ids.length === 9)).slice(8);
  await eventually(async () => idsAt(down, [next!]), (ids) => ids.length === 1, 5000);
}, 60_000);

it(`an endpoint without a 2xx for the retry span is disabled (failing); enabling it again delivers what waited`, async () => {
  const failing = await createEndpoint(down.url);
  await pay();
  const [event] = await eventually(eventIds, (ids) => ids.length === 1);
  await eventually(() => endpointRow(failing), (row) => row.failing_since !== null);
  // Failing since long before the retry span: its next drain disables it.
  await t.api.deps.dataSource.getRepository(WebhookEndpoint).update({ id: failing }, { failing_since: 1, next_drain_at: Date.now() });
  const disabled = await eventually(() => call(t.api, 'GET', `/v1/webhook_endpoints/${failing}`, { key: merchant.testKey }), (res) => res.json.status === 'disabled', 10_000, 200);
  expect(disabled.json.disabled_reason).toBe('failing');
  expect(await endpointRow(failing)).toMatchObject({ failing_since: null, next_drain_at: null });
  expect((await deliveriesTo(failing)).map((d) => d.status)).toEqual(['pending']);
  const attemptsWhileFailing = idsAt(down, [event!]).length;
  expect(attemptsWhileFailing).toBeLessThanOrEqual(3);

  // A disabled endpoint gets no new events, and no probe.
  await pay();
  const [, later] = await eventually(eventIds, (ids) => ids.length === 2);
  await eventually(async () => (await t.api.deps.dataSource.getRepository(Event).findOneByOrFail({ id: later! })).relay_lease_until_ms, (lease) => lease === null);
  expect(await deliveriesTo(failing)).toHaveLength(1);
  expect(idsAt(down, [event!])).toHaveLength(attemptsWhileFailing);

  down.respondWith(200);
  const enabled = await call(t.api, 'POST', `/v1/webhook_endpoints/${failing}`, { key: merchant.testKey, body: { status: 'enabled' } });
  expect(enabled.status).toBe(200);
  expect(enabled.json).toMatchObject({ status: 'enabled', disabled_reason: null });
  await eventually(async () => idsAt(down, [event!]), (ids) => ids.length === attemptsWhileFailing + 1, 10_000);
  expect(await deliveriesTo(failing)).toMatchObject([{ status: 'succeeded' }]);
}, 60_000);

it('the work a failing endpoint causes does not grow with its event rate, and none of it is in Temporal', async () => {
  // Two accounts, each with one endpoint that is down, at 0.5 and 4 events a second for 10 s.
  const slow = { merchant, endpoint: await createEndpoint(down.url) };
  merchant = await createMerchant(t.api, { name: 'Busy Shop' });
  const busy = { merchant, endpoint: await createEndpoint(down.url) };
  const drive = async (key: string, perSecond: number) => {
    const started = Date.now();
    const calls: Array<Promise<unknown>> = [];
    for (let i = 0; i < perSecond * 10; i += 1) {
      await new Promise((r) => setTimeout(r, Math.max(0, started + (i * 1000) / perSecond - Date.now())));
      calls.push(call(t.api, 'POST', '/v1/payments', { key, body: directPaymentBody({}, { number: '4000000000000002' }) }));
    }
    await Promise.all(calls);
  };
  await Promise.all([drive(slow.merchant.testKey, 0.5), drive(busy.merchant.testKey, 4)]);
  const figures = [];
  for (const [{ merchant: m, endpoint }, expected] of [[slow, 5], [busy, 40]] as const) {
    const events = (await eventually(() => t.api.deps.dataSource.getRepository(Event).findBy({ merchant_id: m.merchantId }), (rows) => rows.length === expected)).map((e) => e.id);
    const deliveries = await eventually(() => deliveriesTo(endpoint), (rows) => rows.length === events.length);
    const attempts = idsAt(down, events).length;
    const workflows = (await Promise.all([endpoint, ...deliveries.map((d) => d.id)].map(workflowStatus))).filter((status) => status !== null).length;
    figures.push({ events: events.length, attempts, workflows });
  }
  process.stdout.write(`webhook circuit figures (10 s down, 0.5/s and 4/s): ${JSON.stringify(figures)}\n`);
  const [few, many] = figures;
  expect(many!.events).toBeGreaterThanOrEqual(few!.events * 6);
  // The same schedule whatever the rate: a probe per step (1, 2, 4 s), plus the first attempts that
  // were in flight when the circuit opened (a few at 4/s on a loaded machine); 40 events would have
  // made 40 first attempts and their retries before.
  expect(many!.attempts).toBeLessThanOrEqual(few!.attempts + 6);
  expect(many!.workflows + few!.workflows).toBe(0);
}, 90_000);

it('deleting a failing endpoint ends its pending deliveries and its circuit', async () => {
  const failing = await createEndpoint(down.url);
  for (let i = 0; i < 3; i += 1) await pay();
  await eventually(() => deliveriesTo(failing), (rows) => rows.length === 3);
  await eventually(() => endpointRow(failing), (row) => row.failing_since !== null);
  const res = await call(t.api, 'DELETE', `/v1/webhook_endpoints/${failing}`, { key: merchant.testKey });
  expect(res.status).toBe(200);
  expect((await deliveriesTo(failing)).map((d) => d.status)).toEqual(['failed', 'failed', 'failed']);
  expect(await endpointRow(failing)).toMatchObject({ failing_since: null, next_drain_at: null });
  const attempts = down.received.length;
  down.respondWith(200);
  await new Promise((r) => setTimeout(r, 3000));
  expect(down.received.length).toBe(attempts);
}, 60_000);

it('however many sweepers look at once, one drains an endpoint: its waiting delivery is sent once', async () => {
  const failing = await createEndpoint(down.url);
  await pay();
  await eventually(() => endpointRow(failing), (row) => row.failing_since !== null && row.next_drain_at !== null);
  const [event] = await eventIds();
  const before = idsAt(down, [event!]).length;
  down.respondWith(200);
  // Five sweepers of this process race the suite worker's for the drain, made due now.
  const deps = {
    dataSource: t.api.deps.dataSource, webhookSecrets: new WebhookSecrets(t.api.deps.dataSource, t.api.deps.secretBox),
    webhooks: { attemptTimeoutMs: 2000, initialRetrySeconds: 1, destinations: destinationPolicy(t.api.deps.config) },
    metrics: new WorkerMetrics(), logger: createLogger('test', 'error'),
  };
  const sweepers = Array.from({ length: 5 }, () => new CircuitSweeper(deps, { sweepIntervalMs: 1000, concurrency: 4, leaseMs: 30_000, retrySpanMs: 3 * 86_400_000 }));
  const nowMs = Date.now();
  await t.api.deps.dataSource.getRepository(WebhookEndpoint).update({ id: failing }, { next_drain_at: nowMs });
  const claimed = await Promise.all(sweepers.map((sweeper) => sweeper.sweep(nowMs)));
  await Promise.all(sweepers.map((sweeper) => sweeper.stop()));
  expect(claimed.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1);
  await eventually(() => deliveriesTo(failing), (rows) => rows[0]!.status === 'succeeded', 10_000);
  expect(idsAt(down, [event!])).toHaveLength(before + 1);
}, 60_000);
