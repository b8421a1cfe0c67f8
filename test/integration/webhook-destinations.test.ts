// Test-mode webhooks and callbacks may go to loopback (local development), but never to a port of
// the service itself: a POST to the sandbox's `/_sandbox/reset` would wipe the acquirer's state.
// Checked when a URL is accepted (admin command, Shape B `callback_url`) and again at delivery, on
// every address the name resolves to; redirects are never followed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { IdempotencyRecord, WebhookAttempt } from '../../src/db/entities';
import { randomBase62 } from '../../src/domain/ids';
import { destinationPolicy } from '../../src/webhooks/destination';
import { guardedLookup, postJson, RefusedDestinationError } from '../../src/webhooks/http-post';
import { startDelivery } from '../../src/temporal/start-delivery';
import { adminOps, call, createMerchant, eventually, useTestApi } from '../helpers/api';
import { sandboxControl } from '../helpers/sandbox';
import { TEST_ENV } from '../helpers/test-env';
import { newTestEvent, recordTestEvent } from '../helpers/webhooks';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const SANDBOX_PORT = TEST_ENV.sandboxPort;
/** A fault only a path nobody calls would meet: if it survives, nobody reset the sandbox. */
const MARKER = { fail_next: 7, path_prefix: '/v1/never-called', method: 'GET' };

const t = useTestApi({ merchant: { name: 'Destination Shop' } });
let receiver: WebhookReceiver;

beforeAll(async () => { receiver = await startWebhookReceiver(); });
afterAll(async () => {
  await sandboxControl('/_sandbox/faults', { method: 'DELETE' });
  await receiver.close();
});
beforeEach(async () => {
  const set = await sandboxControl('/_sandbox/faults', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(MARKER) });
  expect(set.status).toBe(200);
});

async function sandboxWasNotReset(): Promise<void> {
  const faults = await (await sandboxControl('/_sandbox/faults')).json();
  expect(faults).toMatchObject({ fail_next: 7, path_prefix: '/v1/never-called' });
}

/** A test-mode event whose delivery goes to `url` (as a Shape B callback's does), delivered by the suite's worker. */
async function deliverTestEvent(url: string) {
  const event = newTestEvent(t.merchant.merchantId, { payload: '{}', endpoint: url });
  const eventId = event.id;
  const [delivery] = await recordTestEvent(t.api, event);
  await startDelivery({ temporal: t.api.deps.temporal, taskQueue: TEST_ENV.taskQueue, webhooks: { initialRetrySeconds: 1 } }, { deliveryId: delivery!.id, eventId });
  const attempts = await eventually(() => t.api.deps.dataSource.getRepository(WebhookAttempt).findBy({ event_id: eventId }), (rows) => rows.length >= 1);
  // A refused delivery is not retried (retries start after 1 s here).
  await new Promise((resolve) => setTimeout(resolve, 2500));
  return { first: attempts[0]!, count: await t.api.deps.dataSource.getRepository(WebhookAttempt).countBy({ event_id: eventId }) };
}

describe('at delivery, in test mode', () => {
  it.each([
    ['the sandbox reset by address', `http://127.0.0.1:${SANDBOX_PORT}/_sandbox/reset`],
    ['the sandbox reset by name (localhost may resolve to ::1)', `http://localhost:${SANDBOX_PORT}/_sandbox/reset`],
    ['the sandbox faults over IPv4-mapped IPv6', `http://[::ffff:127.0.0.1]:${SANDBOX_PORT}/_sandbox/faults`],
    ['the sandbox through 0.0.0.0, which Linux connects to this host', `http://0.0.0.0:${SANDBOX_PORT}/_sandbox/reset`],
    ['the sandbox through another loopback address', `http://127.0.0.53:${SANDBOX_PORT}/_sandbox/reset`],
    ['the worker\'s own metrics port', `http://127.0.0.1:${TEST_ENV.workerMetricsPort}/metrics`],
    ['the Temporal frontend', `http://127.0.0.1:${TEST_ENV.temporalPort}/`],
    ['the Temporal UI', `http://127.0.0.1:${TEST_ENV.temporalUiPort}/api/v1/namespaces`],
  ])('a POST to %s is refused, recorded once and not retried', async (_label, url) => {
    const { first, count } = await deliverTestEvent(url);
    expect({ status: first.status_code, error: first.error }).toEqual({ status: null, error: expect.stringMatching(/^refused: destination is /) });
    expect(count).toBe(1);
    await sandboxWasNotReset();
  });

  it('a local receiver on another port still gets its events', async () => {
    const { first } = await deliverTestEvent(receiver.url);
    expect(first).toMatchObject({ status_code: 200, error: null });
  });

  it('a redirect to the sandbox is not followed: the attempt failed with its 3xx', async () => {
    const redirecting = http.createServer((_req, res) => {
      res.writeHead(307, { Location: `http://127.0.0.1:${SANDBOX_PORT}/_sandbox/reset` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/hook`;
      const result = await postJson(url, '{}', {}, { timeoutMs: 2000, livemode: false, policy: destinationPolicy(t.api.deps.config) });
      expect(result).toMatchObject({ statusCode: 307, error: null });
      await sandboxWasNotReset();
    } finally {
      await new Promise<void>((resolve) => redirecting.close(() => resolve()));
    }
  });

  it('every address a name resolves to is checked with the port of the URL', async () => {
    const policy = destinationPolicy(t.api.deps.config);
    const lookup = (port: number) => new Promise<{ error: Error | null; addresses: unknown }>((resolve) => {
      guardedLookup(port, { timeoutMs: 1000, livemode: false, policy })('localhost', { all: true }, (error, addresses) => resolve({ error, addresses }));
    });
    const refused = await lookup(SANDBOX_PORT);
    expect(refused.error).toBeInstanceOf(RefusedDestinationError);
    expect(refused.error!.message).toContain(`port ${SANDBOX_PORT}`);
    const allowed = await lookup(Number(new URL(receiver.url).port));
    expect(allowed.error).toBeNull();
    expect(allowed.addresses).toEqual(expect.arrayContaining([expect.objectContaining({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) })]));
  });
});

describe('when a URL is accepted', () => {
  it('the admin command refuses a webhook URL on a port of the service, and keeps a local receiver', async () => {
    await expect(adminOps(t.api).createMerchant({ name: 'Reset Shop', webhookUrl: `http://127.0.0.1:${SANDBOX_PORT}/_sandbox/reset` }))
      .rejects.toThrow(`--webhook-url "http://127.0.0.1:${SANDBOX_PORT}/_sandbox/reset" is refused: destination is port ${SANDBOX_PORT} of this host`);
    await expect(adminOps(t.api).updateMerchant(t.merchant.merchantId, { webhookUrl: `http://localhost:${SANDBOX_PORT}/_sandbox/faults` })).rejects.toThrow(/is refused/);
    await expect(adminOps(t.api).updateMerchant(t.merchant.merchantId, { webhookUrl: 'http://169.254.169.254/latest/meta-data/' })).rejects.toThrow(/not a public address/);
    expect((await adminOps(t.api).updateMerchant(t.merchant.merchantId, { webhookUrl: receiver.url })).webhook_url).toBe(receiver.url);
    expect((await adminOps(t.api).updateMerchant(t.merchant.merchantId, { webhookUrl: '' })).webhook_url).toBeNull();
  });

  it('a Shape B callback_url on a port of the service is 400 parameter_invalid, and the key stays unclaimed', async () => {
    const key = `dest-${randomBase62(12)}`;
    const body = (callbackUrl: string) => ({ amount: 1500, currency: 'eur', redirect_url: 'https://shop.example/back', callback_url: callbackUrl });
    for (const url of [`http://127.0.0.1:${SANDBOX_PORT}/_sandbox/reset`, `http://localhost:${SANDBOX_PORT}/_sandbox/records`, `https://[::1]:${TEST_ENV.temporalPort}/`]) {
      const refused = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, headers: { 'Service-Version': '2024-06-01' }, idempotencyKey: key, body: body(url) });
      expect({ status: refused.status, code: refused.json?.error?.code, param: refused.json?.error?.param }).toEqual({ status: 400, code: 'parameter_invalid', param: 'callback_url' });
      expect(refused.json.error.message).toMatch(/^`callback_url` is refused: destination is port \d+ of this host/);
    }
    expect(await t.api.deps.dataSource.getRepository(IdempotencyRecord).countBy({ idempotency_key: key })).toBe(0);
    const accepted = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, headers: { 'Service-Version': '2024-06-01' }, idempotencyKey: key, body: body(receiver.url) });
    expect(accepted.status).toBe(201);
    await sandboxWasNotReset();
  });
});
