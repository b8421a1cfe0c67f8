// A failing endpoint is isolated (CONTRACT section 14, docs/webhooks.md "A failing endpoint"): while
// it fails, one circuit workflow per endpoint probes it once per backoff step and its later events
// wait, pending, behind the probe; once it answers they go out in order. No workflow per delivery.
// 3 days (here WEBHOOK_RETRY_SPAN_SECONDS) without a 2xx disable it; a delete ends what is pending.
// Its own worker (and task queue) runs with a short retry span.
import { WorkflowNotFoundError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Event, WebhookDelivery, WebhookEndpoint } from '../../src/db/entities';
import { call, createMerchant, directPaymentBody, eventually, type TestMerchant, useTestApi } from '../helpers/api';
import { pay as createPayment } from '../helpers/payments';
import { spawnTs, waitForLog, type ManagedProcess } from '../helpers/processes';
import { workerEnv } from '../helpers/test-env';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const QUEUE = 'webhook-circuit';
/** Probes come 1, 2, 4, 8 s apart (WEBHOOK_INITIAL_RETRY_SECONDS 1): the 5th, 15 s after the first failure, disables. */
const SPAN_SECONDS = 12;

let worker: ManagedProcess;
let down: WebhookReceiver;
let up: WebhookReceiver;
let merchant: TestMerchant;

// The file's worker boots while the fixture starts the API; it and the receivers stop before the
// fixture's afterAll closes the API.
beforeAll(async () => {
  worker = spawnTs('worker-webhook-circuit', 'workers/main.ts', workerEnv({ TEMPORAL_TASK_QUEUE: QUEUE, WEBHOOK_RETRY_SPAN_SECONDS: String(SPAN_SECONDS) }));
  [down, up] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
});
afterAll(async () => {
  await worker?.stop();
  await down?.close();
  await up?.close();
});
const t = useTestApi({ config: { taskQueue: QUEUE, webhookRetrySpanSeconds: SPAN_SECONDS } });
beforeAll(async () => { await waitForLog(worker.logFile, 'worker running', 120_000); }, 180_000);
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
  const payments: string[] = [];
  for (let i = 0; i < 8; i += 1) payments.push(await pay());
  const events = await eventually(eventIds, (ids) => ids.length === 8);

  // The healthy endpoint got every event at once, each within a second of its delivery's planning.
  await eventually(async () => idsAt(up, events), (ids) => ids.length === 8, 10_000);
  const planned = new Map((await deliveriesTo(healthy)).map((d) => [d.event_id, Number(d.created_at)]));
  const lags = up.received.filter((w) => planned.has(w.headers['webhook-id']!)).map((w) => w.at - planned.get(w.headers['webhook-id']!)!);
  expect(Math.max(...lags)).toBeLessThan(1000);

  // Down for 6 s: the first failure opens the circuit; then only probes (1 and 3 s after it), each
  // of the oldest delivery; the rest wait, unattempted, without workflows of their own.
  await new Promise((r) => setTimeout(r, Math.max(0, startedMs + 6000 - Date.now())));
  expect((await endpointRow(failing)).failing_since).not.toBeNull();
  expect(await workflowStatus(failing)).toBe('RUNNING');
  // It recovers now: the next probe (7 s after the first failure) answers 2xx and the queue follows.
  const duringOutage = idsAt(down, events);
  down.respondWith(200);
  expect(duringOutage.length).toBeGreaterThanOrEqual(2);
  expect(duringOutage.length).toBeLessThanOrEqual(4);
  expect(new Set(duringOutage.slice(1))).toEqual(new Set([events[0]])); // every probe is of the oldest
  const waiting = await deliveriesTo(failing);
  expect(waiting.slice(1).every((d) => d.attempts === 0)).toBe(true);
  for (const delivery of waiting) expect(await workflowStatus(delivery.id)).toBeNull();

  // Oldest first, each once.
  await eventually(async () => idsAt(down, events), (ids) => new Set(ids).size === 8, 20_000);
  const afterRecovery = idsAt(down, events).slice(duringOutage.length);
  expect(afterRecovery).toEqual(events);
  await eventually(async () => (await deliveriesTo(failing)).map((d) => d.status), (statuses) => statuses.every((st) => st === 'succeeded'), 5000);
  await eventually(() => workflowStatus(failing), (status) => status === 'COMPLETED');
  expect((await endpointRow(failing)).failing_since).toBeNull();

  // Closed again: the next event goes out at once, from the relay.
  await pay();
  const [next] = (await eventually(eventIds, (ids) => ids.length === 9)).slice(8);
  await eventually(async () => idsAt(down, [next!]), (ids) => ids.length === 1, 5000);
}, 60_000);

it(`an endpoint without a 2xx for the retry span is disabled (failing); enabling it again delivers what waited`, async () => {
  const failing = await createEndpoint(down.url);
  await pay();
  const [event] = await eventually(eventIds, (ids) => ids.length === 1);
  const disabled = await eventually(() => call(t.api, 'GET', `/v1/webhook_endpoints/${failing}`, { key: merchant.testKey }), (res) => res.json.status === 'disabled', SPAN_SECONDS * 1000 + 15_000, 500);
  expect(disabled.json.disabled_reason).toBe('failing');
  await eventually(() => workflowStatus(failing), (status) => status === 'COMPLETED');
  expect((await deliveriesTo(failing)).map((d) => d.status)).toEqual(['pending']);
  const attemptsWhileFailing = idsAt(down, [event!]).length;
  expect(attemptsWhileFailing).toBeLessThanOrEqual(6);

  // A disabled endpoint gets no new events.
  await pay();
  const [, later] = await eventually(eventIds, (ids) => ids.length === 2);
  await eventually(async () => (await t.api.deps.dataSource.getRepository(Event).findOneByOrFail({ id: later! })).relay_lease_until_ms, (lease) => lease === null);
  expect(await deliveriesTo(failing)).toHaveLength(1);

  down.respondWith(200);
  const enabled = await call(t.api, 'POST', `/v1/webhook_endpoints/${failing}`, { key: merchant.testKey, body: { status: 'enabled' } });
  expect(enabled.status).toBe(200);
  expect(enabled.json).toMatchObject({ status: 'enabled', disabled_reason: null });
  await eventually(async () => idsAt(down, [event!]), (ids) => ids.length === attemptsWhileFailing + 1, 10_000);
  expect(await deliveriesTo(failing)).toMatchObject([{ status: 'succeeded' }]);
}, 60_000);

it('the work a failing endpoint causes does not grow with its event rate', async () => {
  // Two accounts, each with one endpoint that is down, at 0.5 and 4 events a second for 10 s (less
  // than the retry span, after which an endpoint is disabled and gets no more events).
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
    await eventually(() => deliveriesTo(endpoint), (rows) => rows.length === events.length);
    const attempts = idsAt(down, events).length;
    const history = await t.api.deps.temporal.workflow.getHandle(endpoint).fetchHistory();
    // Temporal actions: the start, signals, activities and timers, and the drain's retries (its
    // backoff), which no history shows: the pending drain's attempts.
    const retries = ((await t.api.deps.temporal.workflow.getHandle(endpoint).describe()).raw.pendingActivities ?? []).reduce((n, a) => n + Math.max(0, (a.attempt ?? 1) - 1), 0);
    const actions = retries + (history.events ?? []).filter((e) => /ACTIVITY_TASK_SCHEDULED|TIMER_STARTED|SIGNALED|EXECUTION_STARTED/.test(String(temporal.api.enums.v1.EventType[e.eventType ?? 0]))).length;
    const ownWorkflows = await Promise.all((await deliveriesTo(endpoint)).map((d) => workflowStatus(d.id)));
    figures.push({ events: events.length, attempts, actions, historyEvents: history.events?.length ?? 0, workflowsPerDelivery: ownWorkflows.filter((s) => s !== null).length });
  }
  process.stdout.write(`webhook circuit figures (10 s down, 0.5/s and 4/s): ${JSON.stringify(figures)}\n`);
  const [few, many] = figures;
  expect(many!.events).toBeGreaterThanOrEqual(few!.events * 6);
  // The same schedule whatever the rate: a probe per step (1, 2, 4 s), plus the first attempts that
  // were in flight when the circuit opened (a few at 4/s on a loaded machine); 40 events would have
  // made 40 first attempts and their retries before.
  expect(many!.attempts).toBeLessThanOrEqual(few!.attempts + 6);
  expect(few!.actions).toBeGreaterThan(0);
  expect(many!.actions).toBeLessThanOrEqual(few!.actions + 4);
  expect(many!.workflowsPerDelivery + few!.workflowsPerDelivery).toBe(0);
  // The backoff is the drain's own retry: a step adds no workflow task, timer or history event
  // (the start, the signal, the patch marker, one drain scheduled: about ten events whatever the
  // outage's length; a timer per step made 45 in these 10 s).
  for (const figure of figures) expect(figure.historyEvents).toBeLessThanOrEqual(15);
}, 90_000);

it('deleting a failing endpoint ends its pending deliveries and its circuit workflow', async () => {
  const failing = await createEndpoint(down.url);
  for (let i = 0; i < 3; i += 1) await pay();
  await eventually(() => deliveriesTo(failing), (rows) => rows.length === 3);
  await eventually(() => workflowStatus(failing), (status) => status === 'RUNNING');
  const res = await call(t.api, 'DELETE', `/v1/webhook_endpoints/${failing}`, { key: merchant.testKey });
  expect(res.status).toBe(200);
  expect((await deliveriesTo(failing)).map((d) => d.status)).toEqual(['failed', 'failed', 'failed']);
  await eventually(() => workflowStatus(failing), (status) => status === 'COMPLETED', 10_000);
  const attempts = down.received.length;
  down.respondWith(200);
  await new Promise((r) => setTimeout(r, 3000));
  expect(down.received.length).toBe(attempts);
}, 60_000);
