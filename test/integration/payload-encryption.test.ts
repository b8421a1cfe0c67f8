// Personal data never reaches Temporal in plaintext: a Direct and a hosted Payment, a Refund and a
// Payout carry distinctive names, e-mails, addresses, IP addresses and descriptions; their histories,
// read raw from the server (payloads base64-decoded, nothing decrypted), hold none of it, while the
// same histories decrypted with the key ring do. Then a key rotation: a run started under key 1
// completes under key 2, replays and decodes with the ring.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { RunningApi } from '../../src/api/server';
import type { CodecKeyRing } from '../../src/config';
import { historyPayloads, replayHistories } from '../../src/replay/histories';
import { keyIdOf } from '../../src/temporal/codec';
import { temporalCliPath } from '../../src/temporal/dev-server';
import { workflowBundle } from '../../workers/worker';
import { call, createMerchant, directPaymentBody, eventually, startTestApi, useTestApi } from '../helpers/api';
import { waitForStatus } from '../helpers/payments';
import type { ManagedProcess } from '../helpers/processes';
import { historyText, rawHistoryText } from '../helpers/scan';
import { startWorkerProcess } from '../helpers/temporal';
import { TEST_ENV } from '../helpers/test-env';

/** Values that occur nowhere else: any of them in a raw history is personal data in plaintext. */
const PERSONAL = {
  holderName: 'Zebulon Quillfeather',
  billingEmail: 'zebulon.quill@example.org',
  billingFirstName: 'Philippa',
  billingLastName: 'Ravenscroft',
  addressLine: '17 Marmalade Lane',
  customerIp: '198.51.100.77',
  description: 'Telescope for Zebulon',
  hostedEmail: 'oriel.vantongeren@example.net',
  hostedCardholder: 'Oriel Vantongeren',
  hostedIp: '198.51.100.78',
  refundReason: 'Returned by Quillfeather',
  recipientFirst: 'Evangelina',
  recipientLast: 'Thistlewood',
  payoutIp: '198.51.100.79',
};
const run = promisify(execFile);
const EXP = `12/${String(new Date().getFullYear() + 2).slice(-2)}`;

const workflows: Record<string, { id: string; personal: string[] }> = {};

const t = useTestApi({ config: { refundWindowSeconds: 20 }, merchant: { name: 'Encryption Shop' }, timeoutMs: 60_000 });

it('runs a Direct and a hosted Payment, a Refund and a Payout with personal data', async () => {
  const direct = await call(t.api, 'POST', '/v1/payments', {
    key: t.merchant.testKey,
    body: directPaymentBody({
      customer_ip_address: PERSONAL.customerIp,
      description: PERSONAL.description,
      billing_details: { email: PERSONAL.billingEmail, first_name: PERSONAL.billingFirstName, last_name: PERSONAL.billingLastName, address: { line1: PERSONAL.addressLine, city: 'Leeds', postal_code: 'LS1 4AP', country: 'GB' } },
    }, { holder_name: PERSONAL.holderName }),
  });
  expect(direct.status).toBe(201);
  await waitForStatus(t.api, t.merchant.testKey, direct.json.id, 'SUCCEEDED');
  workflows.direct = { id: direct.json.id, personal: [PERSONAL.holderName, PERSONAL.billingEmail, PERSONAL.billingFirstName, PERSONAL.billingLastName, PERSONAL.addressLine, PERSONAL.customerIp, PERSONAL.description] };

  const hosted = await call(t.api, 'POST', '/v1/payments/hpp', {
    key: t.merchant.testKey,
    body: { amount: 2500, currency: 'EUR', customer_ip_address: PERSONAL.hostedIp, return_url: 'https://shop.example/return', billing_details: { email: PERSONAL.hostedEmail } },
  });
  expect(hosted.status).toBe(201);
  const submitted = await fetch(hosted.json.next_action.redirect_url, {
    method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card_number: '4242424242424242', exp: EXP, cvc: '123', cardholder_name: PERSONAL.hostedCardholder }).toString(),
  });
  expect(submitted.status).toBe(303);
  await waitForStatus(t.api, t.merchant.testKey, hosted.json.id, 'SUCCEEDED');
  workflows.hosted = { id: hosted.json.id, personal: [PERSONAL.hostedEmail, PERSONAL.hostedCardholder, PERSONAL.hostedIp] };

  const refund = await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, body: { payment_id: direct.json.id, amount: 1000, reason: PERSONAL.refundReason } });
  expect(refund.status).toBe(201);
  await eventually(() => call(t.api, 'GET', `/v1/payments/${direct.json.id}`, { key: t.merchant.testKey }), (r) => r.json.refunds?.[0]?.status === 'SUCCEEDED');
  workflows.refund = { id: refund.json.id, personal: [PERSONAL.refundReason] };

  const payout = await call(t.api, 'POST', '/v1/payouts', {
    key: t.merchant.testKey,
    body: { amount: 2500, currency: 'EUR', initiator_ip_address: PERSONAL.payoutIp, recipient: { first_name: PERSONAL.recipientFirst, last_name: PERSONAL.recipientLast, country: 'ES' }, destination: { card_number: '4000004290000003' } },
  });
  expect(payout.status).toBe(201);
  await eventually(() => call(t.api, 'GET', `/v1/payouts/${payout.json.id}`, { key: t.merchant.testKey }), (r) => r.json.status === 'SUCCEEDED', 60_000);
  workflows.payout = { id: payout.json.id, personal: [PERSONAL.recipientFirst, PERSONAL.recipientLast, PERSONAL.payoutIp] };
}, 180_000);

describe.each(['direct', 'hosted', 'refund', 'payout'])('the %s history', (name) => {
  it('holds no personal data in plaintext, search attributes and summaries included', async () => {
    const { id, personal } = workflows[name]!;
    const raw = await rawHistoryText(t.api.deps.temporal, id);
    expect(raw).toContain(id);
    expect({ id, plaintext: personal.filter((value) => raw.includes(value)) }).toEqual({ id, plaintext: [] });
    // Nothing of the description's or a name's words either (a summary, a search attribute).
    expect({ id, words: ['Zebulon', 'Quillfeather', 'Vantongeren', 'Thistlewood', 'Marmalade'].filter((w) => raw.includes(w)) }).toEqual({ id, words: [] });
  });

  it('holds it encrypted: decrypted with the key ring, every value is there', async () => {
    const { id, personal } = workflows[name]!;
    const decrypted = await historyText(t.api.deps.temporal, id);
    expect({ id, missing: personal.filter((value) => !decrypted.includes(value)) }).toEqual({ id, missing: [] });
  });

  it('has every payload encrypted under the current key', async () => {
    const { id } = workflows[name]!;
    const payloads = await historyPayloads(await t.api.deps.temporal.workflow.getHandle(id).fetchHistory());
    expect(payloads.length).toBeGreaterThan(2);
    expect([...new Set(payloads.map(keyIdOf))]).toEqual([TEST_ENV.codecKeys.currentKeyId]);
  });
});

it('`temporal workflow show` prints the decrypted history through the codec server, and ciphertext without it', async () => {
  const { id } = workflows.direct!;
  const show = async (...extra: string[]) => (await run(temporalCliPath(), [
    'workflow', 'show', '--address', `127.0.0.1:${TEST_ENV.temporalPort}`, '--workflow-id', id, '--detailed', ...extra,
  ], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024, timeout: 30_000 })).stdout;
  const raw = await show();
  expect(raw).toContain(id);
  for (const value of workflows.direct!.personal) expect(raw).not.toContain(value);
  expect(raw).toContain(`metadata.encoding: ${Buffer.from('binary/encrypted').toString('base64')}`);
  const decoded = await show('--codec-endpoint', `http://127.0.0.1:${TEST_ENV.codecPort}`);
  expect(decoded).toContain(PERSONAL.holderName);
  expect(decoded).toContain(PERSONAL.billingEmail);
}, 90_000);

describe('key rotation', () => {
  const keyEnv = (ring: CodecKeyRing) => ({
    TEMPORAL_CODEC_KEYS: Object.entries(ring.keys).map(([id, hex]) => `${id}:${hex}`).join(','),
    TEMPORAL_CODEC_KEY_ID: ring.currentKeyId,
  });
  const k1 = randomBytes(32).toString('hex');
  const k2 = randomBytes(32).toString('hex');
  const before: CodecKeyRing = { currentKeyId: 'k1', keys: { k1 } };
  const after: CodecKeyRing = { currentKeyId: 'k2', keys: { k1, k2 } };
  const taskQueue = `rotation-${Date.now()}`;
  let worker: ManagedProcess | null = null;
  let rotatedApi: RunningApi | null = null;

  afterAll(async () => {
    await worker?.stop();
    await rotatedApi?.close();
  });

  it('a run started under key 1 completes under key 2, replays and decodes with the ring', async () => {
    // Under key 1: a Payment that succeeds and stays open for refunds.
    worker = await startWorkerProcess('worker-key1', taskQueue, keyEnv(before));
    // The window outlasts a worker restart on a loaded machine (starting one bundles the workflows).
    const oldApi = await startTestApi({ taskQueue, temporalCodec: before, refundWindowSeconds: 60 });
    const shop = await createMerchant(oldApi, { name: 'Rotation Shop' });
    let paymentId: string;
    try {
      const created = await call(oldApi, 'POST', '/v1/payments', { key: shop.testKey, body: directPaymentBody({}, { holder_name: PERSONAL.holderName }) });
      expect(created.status).toBe(201);
      paymentId = created.json.id;
      await waitForStatus(oldApi, shop.testKey, paymentId, 'SUCCEEDED');
    } finally {
      await oldApi.close();
      await worker.stop();
    }

    // Rotated: key 2 current, key 1 kept. A new worker (no cache) replays the run's key-1 history
    // to take a refund, sent under key 2.
    worker = await startWorkerProcess('worker-key2', taskQueue, keyEnv(after));
    rotatedApi = await startTestApi({ taskQueue, temporalCodec: after });
    const refund = await call(rotatedApi, 'POST', '/v1/refunds', { key: shop.testKey, body: { payment_id: paymentId, amount: 4999, reason: 'rotation' } });
    expect(refund.status).toBe(201);
    const closed = `WorkflowId = '${paymentId}' AND ExecutionStatus = 'Completed'`;
    await eventually(async () => (await rotatedApi!.deps.temporal.workflow.count(closed)).count, (n) => n === 1, 120_000, 500);
    expect((await call(rotatedApi, 'GET', `/v1/payments/${paymentId}`, { key: shop.testKey })).json.refunds[0].status).toBe('SUCCEEDED');

    const history = await rotatedApi.deps.temporal.workflow.getHandle(paymentId).fetchHistory();
    const keyIds = (await historyPayloads(history)).map(keyIdOf);
    expect(new Set(keyIds)).toEqual(new Set(['k1', 'k2']));
    expect(keyIds[0]).toBe('k1');

    // Replays with the ring; without key 1 it cannot.
    expect(await replayHistories(await workflowBundle(), [{ workflowId: paymentId, history }], after)).toEqual([{ workflowId: paymentId, ok: true }]);
    const [withoutOld] = await replayHistories(await workflowBundle(), [{ workflowId: paymentId, history }], { currentKeyId: 'k2', keys: { k2 } });
    expect(withoutOld!.ok).toBe(false);
    expect(withoutOld!.error).toMatch(/key \\*"k1\\*", which is not in the codec's key ring/);
    // And decodes: the key-1 input and the key-2 refund both read back.
    const decrypted = await historyText(rotatedApi.deps.temporal, paymentId);
    expect(decrypted).toContain(PERSONAL.holderName);
    expect(decrypted).toContain(refund.json.id);
  }, 240_000);
});
