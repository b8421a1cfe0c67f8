// Runs every main path once, then exports the finished workflow histories with the same code as
// `npm run histories:export` and replays them. With RECORD_HISTORIES=1 it replaces the committed
// set in test/replay/histories (replayed in CI by test/replay/replay.test.ts). Until the first
// release a workflow change re-records this set, with no patch (docs/operations.md). The suite's
// clients and workers encrypt with the repository's test key, so the set is recorded encrypted.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RunningApi } from '../../src/api/server';
import { exportHistories, historyPayloads, readHistoryFiles, replayHistories } from '../../src/replay/histories';
import { keyIdOf } from '../../src/temporal/codec';
import { workflowBundle } from '../../workers/worker';
import { call, createMerchant, directPaymentBody, eventually, startTestApi, type TestMerchant } from '../helpers/api';
import { TEST_LOG_DIR } from '../helpers/processes';
import { RELEASED } from '../helpers/release';
import { clearSandboxFaults, openPage, setSandboxFaults, submitOutcome } from '../helpers/sandbox';
import { TEST_ENV } from '../helpers/test-env';
import { TEST_CODEC_KEYS } from '../replay/codec-test-key';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { deliveriesOf, newTestEvent, recordTestEvent } from '../helpers/webhooks';
import { startDelivery } from '../../src/temporal/start-delivery';

let api: RunningApi;
let merchant: TestMerchant;
let receiver: WebhookReceiver;
let callbacks: WebhookReceiver;
const scenarios = new Map<string, string>(); // workflow id -> scenario name
/** The Payment whose first run continued as new: its two runs are two histories. */
let hotPayment: { id: string; firstRun: string } | null = null;

beforeAll(async () => {
  // A short refund window lets succeeded Payment workflows finish, so their histories are complete.
  api = await startTestApi({ refundWindowSeconds: 3 });
  receiver = await startWebhookReceiver();
  callbacks = await startWebhookReceiver();
  merchant = await createMerchant(api, { webhookUrl: receiver.url });
});
afterAll(async () => {
  await callbacks.close();
  await receiver.close();
  await api.close();
});

async function pay(card: string) {
  const res = await call(api, 'POST', '/v1/payments', { key: merchant.testKey, body: directPaymentBody({}, { number: card }) });
  expect(res.status).toBe(201);
  return res.json;
}

async function statusOf(id: string, status: string, timeoutMs = 30_000) {
  return eventually(() => call(api, 'GET', `/v1/payments/${id}`, { key: merchant.testKey }), (r) => r.json?.status === status, timeoutMs);
}

async function payoutStatus(id: string, status: string) {
  return eventually(() => call(api, 'GET', `/v1/payouts/${id}`, { key: merchant.testKey }), (r) => r.json?.status === status, 60_000);
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
  const unanswered = await call(api, 'POST', '/v1/payments', { key: merchant.testKey, body: directPaymentBody({}, { number: '4000005030000005' }), idempotencyKey: unansweredKey });
  expect(unanswered.status).toBe(503);
  const [abandoned503] = await api.deps.dataSource.query('SELECT object_id FROM idempotency_records WHERE idempotency_key = ?', [unansweredKey]);
  scenarios.set(abandoned503.object_id, 'payment-unanswered-abandoned');

  const refundable = await pay('4242424242424242');
  const failing = await pay('4000000000005126');
  await statusOf(refundable.id, 'SUCCEEDED');
  await statusOf(failing.id, 'SUCCEEDED');
  const refundOk = await call(api, 'POST', '/v1/refunds', { key: merchant.testKey, body: { payment_id: refundable.id, amount: 4999, reason: 'returned' } });
  const refundBad = await call(api, 'POST', '/v1/refunds', { key: merchant.testKey, body: { payment_id: failing.id, amount: 1000, reason: 'partial return' } });
  expect([refundOk.status, refundBad.status]).toEqual([201, 201]);
  scenarios.set(refundable.id, 'payment-with-refund');
  scenarios.set(failing.id, 'payment-with-failed-refund');
  scenarios.set(refundOk.json.id, 'refund-succeeded');
  scenarios.set(refundBad.json.id, 'refund-failed');

  // The provider rejects a refund at its submission (the Payment's local activity): FAILED at once.
  const rejecting = await pay('4000009000000003');
  await statusOf(rejecting.id, 'SUCCEEDED');
  const refundRejected = await call(api, 'POST', '/v1/refunds', { key: merchant.testKey, body: { payment_id: rejecting.id, amount: 1000, reason: 'rejected' } });
  expect([refundRejected.status, refundRejected.json.status]).toEqual([201, 'FAILED']);
  scenarios.set(rejecting.id, 'payment-with-rejected-refund');
  scenarios.set(refundRejected.json.id, 'refund-rejected-at-submission');

  // The submission is left unanswered (503): PROCESSING, and the RefundWorkflow resubmits.
  const unansweredRefund = await pay('4242424242424242');
  await statusOf(unansweredRefund.id, 'SUCCEEDED');
  await setSandboxFaults({ fail_next: 1, fail_status: 503, path_prefix: '/v1/refunds', method: 'POST' });
  const refundResubmitted = await call(api, 'POST', '/v1/refunds', { key: merchant.testKey, body: { payment_id: unansweredRefund.id, amount: 4999, reason: 'unanswered' } })
    .finally(() => clearSandboxFaults());
  expect([refundResubmitted.status, refundResubmitted.json.status]).toEqual([201, 'PROCESSING']);
  scenarios.set(unansweredRefund.id, 'payment-with-unanswered-refund');
  scenarios.set(refundResubmitted.json.id, 'refund-unanswered-resubmitted');

  // A hot Payment continues as new every two refunds, with refunds arriving concurrently.
  const hotApi = await startTestApi({ refundWindowSeconds: 3, refundsPerRun: 2 });
  try {
    const res = await call(hotApi, 'POST', '/v1/payments', { key: merchant.testKey, body: directPaymentBody({}, { number: '4242424242424242' }) });
    const hot = res.json;
    const firstRun = (await api.deps.temporal.workflow.getHandle(hot.id).describe()).runId;
    await statusOf(hot.id, 'SUCCEEDED');
    const hotRefunds = await Promise.all([1, 2, 3].map((i) => call(hotApi, 'POST', '/v1/refunds', { key: merchant.testKey, body: { payment_id: hot.id, amount: 100, reason: `hot ${i}` } })));
    expect(hotRefunds.map((r) => r.status)).toEqual([201, 201, 201]);
    hotPayment = { id: hot.id, firstRun };
    scenarios.set(hot.id, 'payment-hot');
  } finally {
    await hotApi.close();
  }

  const pendingOk = await call(api, 'POST', '/v1/payouts', { key: merchant.testKey, body: payoutBody('4000004290000003') });
  const pendingBad = await call(api, 'POST', '/v1/payouts', { key: merchant.testKey, body: payoutBody('4000007100000006') });
  expect([pendingOk.json.status, pendingBad.json.status]).toEqual(['PENDING', 'PENDING']);
  scenarios.set(pendingOk.json.id, 'payout-pending-then-succeeded');
  scenarios.set(pendingBad.json.id, 'payout-pending-then-failed');
  // The first answer in time (one workflow task), and a provider that holds it back: answered
  // PENDING at the deadline while the submission goes on as a regular activity.
  const payoutOk = await call(api, 'POST', '/v1/payouts', { key: merchant.testKey, body: payoutBody('4242424242424242') });
  const payoutHung = await call(api, 'POST', '/v1/payouts', { key: merchant.testKey, body: payoutBody('4000007000000007') });
  expect([payoutOk.json.status, payoutHung.json.status]).toEqual(['PROCESSING', 'PENDING']);
  scenarios.set(payoutOk.json.id, 'payout-processing-then-succeeded');
  scenarios.set(payoutHung.json.id, 'payout-provider-hangs');

  // Shape B: the Direct create waits in the `settled` update; a 3DS card is declined; a hosted
  // payment completed on its page calls its callback_url back.
  const shapeB = { 'Service-Version': '2024-06-01' };
  const cardB = (number: string) => ({ amount: 4999, currency: 'usd', card: { number, exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123' } });
  const directB = await call(api, 'POST', '/v1/payments', { key: merchant.testKey, headers: shapeB, body: cardB('4242424242424242') });
  expect(directB.json.status).toBe('succeeded');
  scenarios.set(directB.json.id, 'payment-shape-b-direct');
  const declinedBKey = randomUUID();
  expect((await call(api, 'POST', '/v1/payments', { key: merchant.testKey, headers: shapeB, body: cardB('4000000000003220'), idempotencyKey: declinedBKey })).status).toBe(402);
  const [declinedB] = await api.deps.dataSource.query('SELECT object_id FROM idempotency_records WHERE idempotency_key = ?', [declinedBKey]);
  scenarios.set(declinedB.object_id, 'payment-shape-b-3ds-declined');
  const hostedB = await call(api, 'POST', '/v1/payments/hpp', {
    key: merchant.testKey, headers: shapeB, body: { amount: 1500, currency: 'usd', redirect_url: 'https://shop.example/back', callback_url: callbacks.url },
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
  await eventually(() => call(api, 'GET', `/v1/payments/${failing.id}`, { key: merchant.testKey }), (r) => r.json.refunds?.[0]?.status === 'FAILED');
  await eventually(() => call(api, 'GET', `/v1/payments/${refundable.id}`, { key: merchant.testKey }), (r) => r.json.refunds?.[0]?.status === 'SUCCEEDED');
  await payoutStatus(pendingOk.json.id, 'SUCCEEDED');
  await payoutStatus(pendingBad.json.id, 'FAILED');
  await payoutStatus(payoutOk.json.id, 'SUCCEEDED');
  await payoutStatus(payoutHung.json.id, 'SUCCEEDED');
  await eventually(async () => callbacks.received.length, (n) => n > 0);
  // A first attempt that succeeds is the worker's relay's, with no workflow; a delivery workflow
  // runs when it fails, so this merchant's endpoint answers 503 once, then 200.
  const retrying = await startWebhookReceiver();
  try {
    retrying.respondWith(503, 200);
    const retried = await createMerchant(api, { webhookUrl: retrying.url });
    const res = await call(api, 'POST', '/v1/payments', { key: retried.testKey, body: directPaymentBody({}, { number: '4000000000000002' }) });
    const [delivered] = await eventually(async () => retrying.received.filter((w) => w.json.data.object.id === res.json.id), (l) => l.length >= 2, 30_000);
    // The workflow id is the delivery's (one per event and endpoint).
    const [delivery] = await deliveriesOf(api, delivered!.json.id);
    scenarios.set(delivery!.id, 'webhook-delivery');
    // A delivery that may never be made (a live event to the loopback URL) gives up at once.
    const live = newTestEvent(retried.merchantId, { livemode: true });
    const [refused] = await recordTestEvent(api, live);
    await startDelivery({ temporal: api.deps.temporal, taskQueue: TEST_ENV.taskQueue, webhooks: { initialRetrySeconds: 1 } }, { deliveryId: refused!.id, eventId: live.id });
    scenarios.set(refused!.id, 'webhook-delivery-refused');
  } finally {
    await retrying.close();
  }

  // Wait until every recorded workflow has finished (payments close after their refund window).
  const ids = [...scenarios.keys()];
  const query = `WorkflowId IN (${ids.map((id) => `'${id}'`).join(', ')}) AND ExecutionStatus != 'Running'`;
  await eventually(async () => {
    let n = 0;
    for await (const _ of api.deps.temporal.workflow.list({ query })) n += 1;
    return n;
  }, (n) => n === ids.length + 1, 60_000, 500); // the hot Payment: two runs

  const outDir = path.join(TEST_LOG_DIR, 'histories');
  fs.rmSync(outDir, { recursive: true, force: true });
  const written = await exportHistories(api.deps.temporal, query, outDir, (id, _type, runId) => {
    if (id !== hotPayment?.id) return scenarios.get(id)!;
    return runId === hotPayment.firstRun ? 'payment-hot-continued-as-new' : 'payment-hot-after-continue-as-new';
  });
  expect(written).toHaveLength(ids.length + 1);

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

  if (process.env.RECORD_HISTORIES === '1') {
    const committed = path.join(__dirname, '..', 'replay', 'histories');
    for (const file of fs.readdirSync(committed)) fs.rmSync(path.join(committed, file));
    for (const file of written) fs.copyFileSync(file, path.join(committed, path.basename(file)));
  }
}, 240_000);

interface HistoryEventJson {
  eventType: string;
  markerRecordedEventAttributes?: { markerName: string };
}
