// Runs every main path once, then exports the finished workflow histories with the same code as
// `npm run histories:export` and replays them. RECORD_HISTORIES=<scenario>,... adds the named
// histories (a new path's) to the committed set in test/replay/histories (replayed in CI by
// test/replay/replay.test.ts); the released ones are never recorded again (docs/operations.md). The
// suite's clients and workers encrypt with the repository's test key, so the set is recorded encrypted.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { exportHistories, historyPayloads, readHistoryFiles, replayHistories } from '../../src/replay/histories';
import { keyIdOf } from '../../src/temporal/codec';
import { workflowBundle } from '../../workers/worker';
import { call, createMerchant, directPaymentBody, eventually, startTestApi, testConfig, useTestApi } from '../helpers/api';
import { pay as createPayment } from '../helpers/payments';
import { TEST_LOG_DIR } from '../helpers/processes';
import { RELEASED } from '../helpers/release';
import { clearSandboxFaults, openPage, setSandboxFaults, submitOutcome } from '../helpers/sandbox';
import { resetChoreSchedules, triggerSchedule } from '../helpers/schedules';
import { TEST_ENV } from '../helpers/test-env';
import { TEST_CODEC_KEYS } from '../replay/codec-test-key';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { deliveriesOf, newTestEvent, recordTestEvent } from '../helpers/webhooks';
import { startDelivery } from '../../src/temporal/start-delivery';

let receiver: WebhookReceiver;
let callbacks: WebhookReceiver;
const scenarios = new Map<string, string>(); // workflow id -> scenario name
/** The Payment whose first run continued as new: its two runs are two histories. */
let hotPayment: { id: string; firstRun: string } | null = null;
/** The Refund whose first run continued as new. */
let slowRefund: { id: string; firstRun: string } | null = null;

// The receivers start before the fixture (the merchant's webhooks go to one) and close after it.
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  callbacks = await startWebhookReceiver();
});
// A short refund window lets succeeded Payment workflows finish, so their histories are complete.
const t = useTestApi({ config: { refundWindowSeconds: 3 }, merchant: () => ({ webhookUrl: receiver.url }) });
afterAll(async () => {
  await callbacks.close();
  await receiver.close();
});

const pay = (card: string) => createPayment(t.api, t.merchant.testKey, { card: { number: card } });

async function statusOf(id: string, status: string, timeoutMs = 30_000) {
  return eventually(() => call(t.api, 'GET', `/v1/payments/${id}`, { key: t.merchant.testKey }), (r) => r.json?.status === status, timeoutMs);
}

async function payoutStatus(id: string, status: string) {
  return eventually(() => call(t.api, 'GET', `/v1/payouts/${id}`, { key: t.merchant.testKey }), (r) => r.json?.status === status, 60_000);
}

function payoutBody(card: string) {
  return { amount: 2500, currency: 'EUR', initiator_ip_address: '203.0.113.7', recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' }, destination: { card_number: card }, merchant_reference: 1234567890 };
}

it('records every main path and replays the exported histories', async () => {
  const frictionless = await pay('4242424242424242');
  scenarios.set(frictionless.id, 'payment-frictionless');

  const challenged = await pay('4000000000003220');
  scenarios.set(challenged.id, 'payment-3ds-authenticated');
  const challenge = await openPage(challenged.next_action.redirect_url);
  expect(challenge.status).toBe(200);
  expect((await submitOutcome(challenged.next_action.redirect_url, 'authenticate')).status).toBe(303);

  const abandoned = await pay('4000000000003063');
  scenarios.set(abandoned.id, 'payment-3ds-expired');

  const declined = await pay('4000000000000002');
  scenarios.set(declined.id, 'payment-declined');

  // A create the provider left unanswered (503) and nobody retried: after the action TTL the
  // workflow asks the provider under the Payment's key, finds nothing and ends without a Payment.
  const unansweredKey = randomUUID();
  const unanswered = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody({}, { number: '4000005030000005' }), idempotencyKey: unansweredKey });
  expect(unanswered.status).toBe(503);
  const [abandoned503] = await t.api.deps.dataSource.query('SELECT object_id FROM idempotency_records WHERE idempotency_key = ?', [unansweredKey]);
  scenarios.set(abandoned503.object_id, 'payment-unanswered-abandoned');

  const refundable = await pay('4242424242424242');
  const failing = await pay('4000000000005126');
  await statusOf(refundable.id, 'SUCCEEDED');
  await statusOf(failing.id, 'SUCCEEDED');
  const refundOk = await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, body: { payment_id: refundable.id, amount: 4999, reason: 'returned' } });
  const refundBad = await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, body: { payment_id: failing.id, amount: 1000, reason: 'partial return' } });
  expect([refundOk.status, refundBad.status]).toEqual([201, 201]);
  scenarios.set(refundable.id, 'payment-with-refund');
  scenarios.set(failing.id, 'payment-with-failed-refund');
  scenarios.set(refundOk.json.id, 'refund-succeeded');
  scenarios.set(refundBad.json.id, 'refund-failed');

  // The provider rejects a refund at its submission (the Payment's local activity): FAILED at once.
  const rejecting = await pay('4000009000000003');
  await statusOf(rejecting.id, 'SUCCEEDED');
  const refundRejected = await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, body: { payment_id: rejecting.id, amount: 1000, reason: 'rejected' } });
  expect([refundRejected.status, refundRejected.json.status]).toEqual([201, 'FAILED']);
  scenarios.set(rejecting.id, 'payment-with-rejected-refund');
  scenarios.set(refundRejected.json.id, 'refund-rejected-at-submission');

  // The submission is left unanswered (503): PROCESSING, and the RefundWorkflow resubmits.
  const unansweredRefund = await pay('4242424242424242');
  await statusOf(unansweredRefund.id, 'SUCCEEDED');
  await setSandboxFaults({ fail_next: 1, fail_status: 503, path_prefix: '/v1/refunds', method: 'POST' });
  const refundResubmitted = await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, body: { payment_id: unansweredRefund.id, amount: 4999, reason: 'unanswered' } })
    .finally(() => clearSandboxFaults());
  expect([refundResubmitted.status, refundResubmitted.json.status]).toEqual([201, 'PROCESSING']);
  scenarios.set(unansweredRefund.id, 'payment-with-unanswered-refund');
  scenarios.set(refundResubmitted.json.id, 'refund-unanswered-resubmitted');

  // A hot Payment continues as new every two refunds, with refunds arriving concurrently.
  const hotApi = await startTestApi({ refundWindowSeconds: 3, refundsPerRun: 2 });
  try {
    const res = await call(hotApi, 'POST', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody({}, { number: '4242424242424242' }) });
    const hot = res.json;
    const firstRun = (await t.api.deps.temporal.workflow.getHandle(hot.id).describe()).runId;
    await statusOf(hot.id, 'SUCCEEDED');
    const hotRefunds = await Promise.all([1, 2, 3].map((i) => call(hotApi, 'POST', '/v1/refunds', { key: t.merchant.testKey, body: { payment_id: hot.id, amount: 100, reason: `hot ${i}` } })));
    expect(hotRefunds.map((r) => r.status)).toEqual([201, 201, 201]);
    hotPayment = { id: hot.id, firstRun };
    scenarios.set(hot.id, 'payment-hot');
  } finally {
    await hotApi.close();
  }

  // A refund the provider takes long to settle (its look-ups unanswered) continues as new after
  // PROVIDER_POLLS_PER_RUN calls: its two runs are two histories (new after 1.0.0, patched).
  const patientApi = await startTestApi({ refundWindowSeconds: 3, providerPollsPerRun: 2 });
  try {
    const res = await call(patientApi, 'POST', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody({}, { number: '4242424242424242' }) });
    await statusOf(res.json.id, 'SUCCEEDED');
    await setSandboxFaults({ fail_next: 2, fail_status: 503, path_prefix: '/v1/refunds/', method: 'GET', new_objects_only: true });
    const slow = await call(patientApi, 'POST', '/v1/refunds', { key: t.merchant.testKey, body: { payment_id: res.json.id, amount: 1000, reason: 'slow provider' } });
    expect([slow.status, slow.json.status]).toEqual([201, 'PROCESSING']);
    await eventually(() => call(t.api, 'GET', `/v1/payments/${res.json.id}`, { key: t.merchant.testKey }), (r) => r.json.refunds?.[0]?.status === 'SUCCEEDED', 30_000);
    await clearSandboxFaults();
    const runs: { runId: string; start: number }[] = [];
    for await (const run of t.api.deps.temporal.workflow.list({ query: `WorkflowId = '${slow.json.id}'` })) runs.push({ runId: run.runId, start: run.startTime.getTime() });
    expect(runs).toHaveLength(2);
    slowRefund = { id: slow.json.id, firstRun: runs.sort((a, b) => a.start - b.start)[0]!.runId };
    scenarios.set(slow.json.id, 'refund-slow');
  } finally {
    await patientApi.close();
  }

  const pendingOk = await call(t.api, 'POST', '/v1/payouts', { key: t.merchant.testKey, body: payoutBody('4000004290000003') });
  const pendingBad = await call(t.api, 'POST', '/v1/payouts', { key: t.merchant.testKey, body: payoutBody('4000007100000006') });
  expect([pendingOk.json.status, pendingBad.json.status]).toEqual(['PENDING', 'PENDING']);
  scenarios.set(pendingOk.json.id, 'payout-pending-then-succeeded');
  scenarios.set(pendingBad.json.id, 'payout-pending-then-failed');
  // The first answer in time (one workflow task), and a provider that holds it back: answered
  // PENDING at the deadline while the submission goes on as a regular activity.
  const payoutOk = await call(t.api, 'POST', '/v1/payouts', { key: t.merchant.testKey, body: payoutBody('4242424242424242') });
  const payoutHung = await call(t.api, 'POST', '/v1/payouts', { key: t.merchant.testKey, body: payoutBody('4000007000000007') });
  expect([payoutOk.json.status, payoutHung.json.status]).toEqual(['PROCESSING', 'PENDING']);
  scenarios.set(payoutOk.json.id, 'payout-processing-then-succeeded');
  scenarios.set(payoutHung.json.id, 'payout-provider-hangs');

  // Shape B: the Direct create waits in the `settled` update; a 3DS card is declined; a hosted
  // payment completed on its page calls its callback_url back.
  const shapeB = { 'Service-Version': '2024-06-01' };
  const cardB = (number: string) => ({ amount: 4999, currency: 'usd', card: { number, exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123' } });
  const directB = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, headers: shapeB, body: cardB('4242424242424242') });
  expect(directB.json.status).toBe('succeeded');
  scenarios.set(directB.json.id, 'payment-shape-b-direct');
  const declinedBKey = randomUUID();
  expect((await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, headers: shapeB, body: cardB('4000000000003220'), idempotencyKey: declinedBKey })).status).toBe(402);
  const [declinedB] = await t.api.deps.dataSource.query('SELECT object_id FROM idempotency_records WHERE idempotency_key = ?', [declinedBKey]);
  scenarios.set(declinedB.object_id, 'payment-shape-b-3ds-declined');
  const hostedB = await call(t.api, 'POST', '/v1/payments/hpp', {
    key: t.merchant.testKey, headers: shapeB, body: { amount: 1500, currency: 'usd', redirect_url: 'https://shop.example/back', callback_url: callbacks.url },
  });
  scenarios.set(hostedB.json.id, 'payment-shape-b-hosted-callback');
  const submitted = await fetch(hostedB.json.redirect_url, {
    method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card_number: '4242424242424242', exp: `12/${String(new Date().getFullYear() + 2).slice(-2)}`, cvc: '123', cardholder_name: 'Ada Lovelace' }).toString(),
  });
  expect(submitted.status).toBe(303);

  await statusOf(frictionless.id, 'SUCCEEDED');
  await statusOf(challenged.id, 'SUCCEEDED');
  await statusOf(abandoned.id, 'EXPIRED', TEST_ENV.actionTtlSeconds * 1000 + 30_000);
  await eventually(() => call(t.api, 'GET', `/v1/payments/${failing.id}`, { key: t.merchant.testKey }), (r) => r.json.refunds?.[0]?.status === 'FAILED');
  await eventually(() => call(t.api, 'GET', `/v1/payments/${refundable.id}`, { key: t.merchant.testKey }), (r) => r.json.refunds?.[0]?.status === 'SUCCEEDED');
  await payoutStatus(pendingOk.json.id, 'SUCCEEDED');
  await payoutStatus(pendingBad.json.id, 'FAILED');
  await payoutStatus(payoutOk.json.id, 'SUCCEEDED');
  await payoutStatus(payoutHung.json.id, 'SUCCEEDED');
  await eventually(async () => callbacks.received.length, (n) => n > 0);
  // A delivery to an endpoint has no workflow (the relay's attempt, then its endpoint's circuit:
  // src/webhooks/circuit-sweeper.ts); a Shape B callback's, or one that may never be made, has one.
  const retrying = await startWebhookReceiver();
  try {
    // A delivery that may never be made gives up at once: an endpoint whose URL now names a private
    // address (live mode has no endpoint at a loopback http URL to refuse any more).
    const refusing = await createMerchant(t.api, { webhookUrl: retrying.url });
    await t.api.deps.dataSource.query("UPDATE webhook_endpoints SET url = 'http://10.255.255.1/hook' WHERE merchant_id = ? AND livemode = ?", [refusing.merchantId, false]);
    const event = newTestEvent(refusing.merchantId);
    const [refused] = await recordTestEvent(t.api, event);
    await startDelivery({ temporal: t.api.deps.temporal, taskQueue: TEST_ENV.taskQueue, webhooks: { initialRetrySeconds: 1 } }, { deliveryId: refused!.id, eventId: event.id });
    scenarios.set(refused!.id, 'webhook-delivery-refused');
  } finally {
    await retrying.close();
  }

  // The periodic chores, as their schedules start them (the CVC sweep with its previous run's result).
  // Registered here first: the schedules send their runs to the task queue of the worker that last
  // registered them, and earlier suites' workers on queues of their own may have been the last.
  await resetChoreSchedules(t.api.deps.temporal, testConfig());
  for (const chore of ['chore-idempotency-purge', 'chore-event-purge', 'chore-cvc-sweep']) {
    scenarios.set((await triggerSchedule(t.api.deps.temporal, chore)).workflowId, chore);
  }

  // Wait until every recorded workflow has finished (payments close after their refund window).
  const ids = [...scenarios.keys()];
  const query = `WorkflowId IN (${ids.map((id) => `'${id}'`).join(', ')}) AND ExecutionStatus != 'Running'`;
  await eventually(async () => {
    let n = 0;
    for await (const _ of t.api.deps.temporal.workflow.list({ query })) n += 1;
    return n;
  }, (n) => n === ids.length + 2, 120_000, 500); // the hot Payment and the slow Refund: two runs each

  const outDir = path.join(TEST_LOG_DIR, 'histories');
  fs.rmSync(outDir, { recursive: true, force: true });
  const written = await exportHistories(t.api.deps.temporal, query, outDir, (id, _type, runId) => {
    if (id === hotPayment?.id) return runId === hotPayment.firstRun ? 'payment-hot-continued-as-new' : 'payment-hot-after-continue-as-new';
    if (id === slowRefund?.id) return runId === slowRefund.firstRun ? 'refund-continued-as-new' : 'refund-after-continue-as-new';
    return scenarios.get(id)!;
  });
  expect(written).toHaveLength(ids.length + 2);

  const exported = readHistoryFiles(outDir);
  const outcomes = await replayHistories(await workflowBundle(), exported, TEST_CODEC_KEYS);
  expect(outcomes.filter((o) => !o.ok)).toEqual([]);
  // The exporter writes what the server keeps: every payload encrypted, under the test key.
  for (const { workflowId, history } of exported) {
    const keyIds = new Set((await historyPayloads(history as never)).map(keyIdOf));
    expect({ workflowId, keyIds: [...keyIds] }).toEqual({ workflowId, keyIds: [TEST_CODEC_KEYS.currentKeyId] });
  }

  // Until the first release no workflow carries a patch: changes re-record this set instead.
  for (const file of RELEASED ? [] : written) {
    const { events } = JSON.parse(fs.readFileSync(file, 'utf8')) as { events: HistoryEventJson[] };
    expect({ file: path.basename(file), patches: events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length })
      .toEqual({ file: path.basename(file), patches: 0 });
  }

  // RECORD_HISTORIES=<scenario>,... adds those histories to the committed set. A released history is
  // never recorded again: it is what the runs open in production replay against (docs/operations.md).
  // `<scenario>-patched-<change>` records the scenario's new path under a patch beside the released one.
  const recording = (process.env.RECORD_HISTORIES ?? '').split(',').filter(Boolean);
  const committed = path.join(__dirname, '..', 'replay', 'histories');
  for (const name of recording) {
    const scenario = name.replace(/-patched-[a-z0-9-]+$/, '');
    const file = written.find((f) => path.basename(f) === `${scenario}.json`);
    if (!file) throw new Error(`RECORD_HISTORIES: no scenario ${scenario}`);
    const target = path.join(committed, `${name}.json`);
    if (RELEASED && fs.existsSync(target)) throw new Error(`RECORD_HISTORIES: ${scenario} is a released history; it is never recorded again`);
    fs.copyFileSync(file, target);
  }
}, 240_000);

interface HistoryEventJson {
  eventType: string;
  markerRecordedEventAttributes?: { markerName: string };
}
