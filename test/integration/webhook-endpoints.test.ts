// Webhook endpoints (docs/webhooks.md, "Endpoints"): the merchant's control plane,
// and delivery per endpoint: each matching endpoint gets its own delivery, body shape and
// signature, retried on its own.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { IdempotencyRecord, WebhookAttempt, WebhookSecret } from '../../src/db/entities';
import { randomBase62 } from '../../src/domain/ids';
import { MAX_WEBHOOK_ENDPOINTS } from '../../src/domain/webhook-endpoints';
import { adminOps, call, createMerchant, eventually, type TestMerchant, useTestApi } from '../helpers/api';
import { pay as createPayment } from '../helpers/payments';
import { TEST_ENV } from '../helpers/test-env';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../helpers/webhook-receiver';
import { deliveriesOf } from '../helpers/webhooks';

const t = useTestApi();
let receivers: WebhookReceiver[];
let merchant: TestMerchant;

beforeAll(async () => { receivers = await Promise.all([startWebhookReceiver(), startWebhookReceiver(), startWebhookReceiver()]); });
afterAll(async () => { for (const r of receivers) await r.close(); });
beforeEach(async () => {
  for (const r of receivers) r.respondWith(200);
  merchant = await createMerchant(t.api, { name: 'Endpoint Shop' });
});

const [A, B, C] = [0, 1, 2];
const url = (i: number) => receivers[i]!.url;

async function createEndpoint(body: Record<string, unknown>, key = merchant.testKey, idempotencyKey?: string) {
  return call(t.api, 'POST', '/v1/webhook_endpoints', { key, body, idempotencyKey });
}

const pay = (card = '4000000000000002', key = merchant.testKey): Promise<{ id: string }> => createPayment(t.api, key, { card: { number: card } });

function received(i: number, objectId: string): ReceivedWebhook[] {
  return receivers[i]!.received.filter((w) => w.json.data?.object?.id === objectId);
}

function verify(w: ReceivedWebhook, secret: string) {
  return new Webhook(secret).verify(w.body, w.headers);
}

describe('creating an endpoint', () => {
  it('answers 201 with the endpoint and its whsec_ secret, which is never shown again', async () => {
    const res = await createEndpoint({ url: url(A), enabled_events: ['payment.succeeded', 'payment.failed'], description: 'Orders' });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      id: expect.stringMatching(/^we_[A-Za-z0-9]{24}$/), object: 'webhook_endpoint', url: url(A),
      enabled_events: ['payment.succeeded', 'payment.failed'], description: 'Orders', api_version: '2025-09-01', status: 'enabled', disabled_reason: null,
      created_at: expect.any(Number), livemode: false, secret: expect.stringMatching(/^whsec_/),
    });
    const read = await call(t.api, 'GET', `/v1/webhook_endpoints/${res.json.id}`, { key: merchant.testKey });
    expect(read.status).toBe(200);
    expect(read.json).not.toHaveProperty('secret');
    expect(read.text).not.toContain(res.json.secret);
    // Sealed at rest: neither the secrets table nor the saved idempotent answer holds it in clear.
    const rows = await t.api.deps.dataSource.getRepository(WebhookSecret).findBy({ endpoint_id: res.json.id });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secret_ciphertext).not.toContain(res.json.secret.slice('whsec_'.length));
    const saved = await t.api.deps.dataSource.getRepository(IdempotencyRecord).findBy({ object_id: res.json.id });
    expect(saved[0]!.response_body).not.toContain(res.json.secret.slice('whsec_'.length));
  });

  it('requires an Idempotency-Key, and a replay answers the same bytes, secret included', async () => {
    const missing = await call(t.api, 'POST', '/v1/webhook_endpoints', { key: merchant.testKey, body: { url: url(A), enabled_events: ['*'] }, idempotencyKey: null });
    expect({ status: missing.status, code: missing.json.error.code, param: missing.json.error.param }).toEqual({ status: 400, code: 'parameter_missing', param: 'Idempotency-Key' });
    const key = randomUUID();
    const first = await createEndpoint({ url: url(A), enabled_events: ['*'] }, merchant.testKey, key);
    const again = await createEndpoint({ url: url(A), enabled_events: ['*'] }, merchant.testKey, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    const other = await createEndpoint({ url: url(B), enabled_events: ['*'] }, merchant.testKey, key);
    expect({ status: other.status, code: other.json.error.code }).toEqual({ status: 409, code: 'idempotency_key_reused' });
    const list = await call(t.api, 'GET', '/v1/webhook_endpoints', { key: merchant.testKey });
    expect(list.json.data).toHaveLength(1);
  });

  it.each([
    ['a missing url', { enabled_events: ['*'] }, 400, 'request_body_invalid', 'url'],
    ['a url of the wrong type', { url: 7, enabled_events: ['*'] }, 400, 'request_body_invalid', 'url'],
    ['an unknown field', { url: 'https://shop.example/hooks', enabled_events: ['*'], secret: 'whsec_x' }, 400, 'request_body_invalid', 'secret'],
    ['a relative url', { url: '/hooks', enabled_events: ['*'] }, 400, 'parameter_invalid', 'url'],
    ['an ftp url', { url: 'ftp://shop.example/hooks', enabled_events: ['*'] }, 400, 'parameter_invalid', 'url'],
    ['credentials in the url', { url: 'https://user:pw@shop.example/hooks', enabled_events: ['*'] }, 400, 'parameter_invalid', 'url'],
    ['a url of 2049 characters', { url: `https://shop.example/${'a'.repeat(2049 - 'https://shop.example/'.length)}`, enabled_events: ['*'] }, 400, 'parameter_invalid', 'url'],
    ['the sandbox control port', { url: `http://127.0.0.1:${TEST_ENV.sandboxPort}/_sandbox/reset`, enabled_events: ['*'] }, 400, 'parameter_invalid', 'url'],
    ['a private address', { url: 'http://10.0.0.8/hooks', enabled_events: ['*'] }, 400, 'parameter_invalid', 'url'],
    ['no enabled events', { url: 'https://shop.example/hooks', enabled_events: [] }, 400, 'parameter_invalid', 'enabled_events'],
    ['an unknown event type', { url: 'https://shop.example/hooks', enabled_events: ['payment.created'] }, 400, 'parameter_invalid', 'enabled_events.0'],
    ['an unknown api_version', { url: 'https://shop.example/hooks', enabled_events: ['*'], api_version: '2023-01-01' }, 400, 'parameter_invalid', 'api_version'],
    ['a description of 501 characters', { url: 'https://shop.example/hooks', enabled_events: ['*'], description: 'd'.repeat(501) }, 400, 'parameter_invalid', 'description'],
  ])('%s is refused with a catalogue error and creates nothing', async (_label, body, status, code, param) => {
    const res = await createEndpoint(body as Record<string, unknown>);
    expect({ status: res.status, code: res.json.error.code, param: res.json.error.param }).toEqual({ status, code, param });
    const list = await call(t.api, 'GET', '/v1/webhook_endpoints', { key: merchant.testKey });
    expect(list.json.data).toEqual([]);
  });

  it('live mode refuses loopback and private destinations that test mode allows', async () => {
    const live = await createEndpoint({ url: url(A), enabled_events: ['*'] }, merchant.liveKey);
    expect({ status: live.status, code: live.json.error.code, param: live.json.error.param }).toEqual({ status: 400, code: 'parameter_invalid', param: 'url' });
    expect(live.json.error.message).toMatch(/^`url` is refused: destination is a loopback address/);
    const named = await createEndpoint({ url: 'http://localhost:8080/hooks', enabled_events: ['*'] }, merchant.liveKey);
    expect(named.status).toBe(400);
    const test = await createEndpoint({ url: url(A), enabled_events: ['*'] });
    expect(test.status).toBe(201);
  });

  it(`allows at most ${MAX_WEBHOOK_ENDPOINTS} endpoints per merchant and mode; deleting one makes room`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i += 1) {
      const res = await createEndpoint({ url: `https://shop${i}.example/hooks`, enabled_events: ['*'] });
      expect(res.status).toBe(201);
      ids.push(res.json.id);
    }
    const over = await createEndpoint({ url: 'https://one-more.example/hooks', enabled_events: ['*'] });
    expect({ status: over.status, code: over.json.error.code, param: over.json.error.param }).toEqual({ status: 400, code: 'parameter_invalid', param: 'url' });
    // The other mode has its own sixteen.
    expect((await createEndpoint({ url: 'https://live.example/hooks', enabled_events: ['*'] }, merchant.liveKey)).status).toBe(201);
    expect((await call(t.api, 'DELETE', `/v1/webhook_endpoints/${ids[0]}`, { key: merchant.testKey })).status).toBe(200);
    expect((await createEndpoint({ url: 'https://one-more.example/hooks', enabled_events: ['*'] })).status).toBe(201);
  });
});

describe('reading, updating and deleting', () => {
  it('lists newest first with cursors, scoped to the merchant and mode', async () => {
    const made: string[] = [];
    for (let i = 0; i < 3; i += 1) made.push((await createEndpoint({ url: `https://s${i}.example/h`, enabled_events: ['*'] })).json.id);
    await createEndpoint({ url: 'https://live.example/h', enabled_events: ['*'] }, merchant.liveKey);
    const page1 = await call(t.api, 'GET', '/v1/webhook_endpoints?limit=2', { key: merchant.testKey });
    expect(page1.json).toMatchObject({ object: 'list', has_more: true, url: '/v1/webhook_endpoints' });
    expect(page1.json.data.map((e: { id: string }) => e.id)).toEqual([made[2], made[1]]);
    const page2 = await call(t.api, 'GET', `/v1/webhook_endpoints?limit=2&starting_after=${made[1]}`, { key: merchant.testKey });
    expect(page2.json.data.map((e: { id: string }) => e.id)).toEqual([made[0]]);
    expect(page2.json.has_more).toBe(false);
    const back = await call(t.api, 'GET', `/v1/webhook_endpoints?ending_before=${made[0]}`, { key: merchant.testKey });
    expect(back.json.data.map((e: { id: string }) => e.id)).toEqual([made[2], made[1]]);
    const bad = await call(t.api, 'GET', '/v1/webhook_endpoints?limit=0', { key: merchant.testKey });
    expect({ status: bad.status, code: bad.json.error.code, param: bad.json.error.param }).toEqual({ status: 400, code: 'invalid_search_criteria', param: 'limit' });
    const unknown = await call(t.api, 'GET', '/v1/webhook_endpoints?status=enabled', { key: merchant.testKey });
    expect({ status: unknown.status, code: unknown.json.error.code, param: unknown.json.error.param }).toEqual({ status: 400, code: 'invalid_search_criteria', param: 'status' });
  });

  it('another merchant\'s or mode\'s endpoint is 404 object_not_found; a malformed id is 400 invalid_request', async () => {
    const mine = (await createEndpoint({ url: 'https://s.example/h', enabled_events: ['*'] })).json.id as string;
    const other = await createMerchant(t.api, { name: 'Other Shop' });
    for (const [method, path, body] of [['GET', `/v1/webhook_endpoints/${mine}`], ['POST', `/v1/webhook_endpoints/${mine}`, { status: 'disabled' }],
      ['DELETE', `/v1/webhook_endpoints/${mine}`], ['POST', `/v1/webhook_endpoints/${mine}/rotate_secret`, {}]] as Array<[string, string, object?]>) {
      for (const key of [other.testKey, merchant.liveKey]) {
        const res = await call(t.api, method, path, { key, body });
        expect({ status: res.status, code: res.json.error.code }).toEqual({ status: 404, code: 'object_not_found' });
      }
    }
    const swapped = mine.slice(0, 3) + [...mine.slice(3)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    if (swapped !== mine) expect((await call(t.api, 'GET', `/v1/webhook_endpoints/${swapped}`, { key: merchant.testKey })).status).toBe(404);
    const malformed = await call(t.api, 'GET', '/v1/webhook_endpoints/we_short', { key: merchant.testKey });
    expect({ status: malformed.status, code: malformed.json.error.code, param: malformed.json.error.param }).toEqual({ status: 400, code: 'invalid_request', param: 'id' });
    expect((await call(t.api, 'PUT', `/v1/webhook_endpoints/${mine}`, { key: merchant.testKey, body: {} })).json.error.code).toBe('resource_not_found');
    expect((await call(t.api, 'GET', `/v1/webhook_endpoints/${mine}`, {})).status).toBe(401);
  });

  it('updates url, enabled_events, description and status; a refused url changes nothing', async () => {
    const id = (await createEndpoint({ url: 'https://s.example/h', enabled_events: ['*'] })).json.id as string;
    const res = await call(t.api, 'POST', `/v1/webhook_endpoints/${id}`, { key: merchant.testKey, body: { url: 'https://t.example/h', enabled_events: ['refund.succeeded'], description: 'Refunds', status: 'disabled' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id, url: 'https://t.example/h', enabled_events: ['refund.succeeded'], description: 'Refunds', status: 'disabled', disabled_reason: null });
    expect(res.json).not.toHaveProperty('secret');
    const refused = await call(t.api, 'POST', `/v1/webhook_endpoints/${id}`, { key: merchant.testKey, body: { url: 'http://169.254.169.254/latest', description: 'x' } });
    expect({ status: refused.status, code: refused.json.error.code, param: refused.json.error.param }).toEqual({ status: 400, code: 'parameter_invalid', param: 'url' });
    const badStatus = await call(t.api, 'POST', `/v1/webhook_endpoints/${id}`, { key: merchant.testKey, body: { status: 'paused' } });
    expect({ status: badStatus.status, param: badStatus.json.error.param }).toEqual({ status: 400, param: 'status' });
    const noApiVersion = await call(t.api, 'POST', `/v1/webhook_endpoints/${id}`, { key: merchant.testKey, body: { api_version: '2024-06-01' } });
    expect({ status: noApiVersion.status, code: noApiVersion.json.error.code }).toEqual({ status: 400, code: 'request_body_invalid' });
    expect((await call(t.api, 'GET', `/v1/webhook_endpoints/${id}`, { key: merchant.testKey })).json).toMatchObject({ url: 'https://t.example/h', description: 'Refunds' });
  });

  it('deletes: 200 with deleted true, then 404, and it is gone from the list', async () => {
    const id = (await createEndpoint({ url: 'https://s.example/h', enabled_events: ['*'] })).json.id as string;
    const res = await call(t.api, 'DELETE', `/v1/webhook_endpoints/${id}`, { key: merchant.testKey });
    expect(res.json).toEqual({ id, object: 'webhook_endpoint', deleted: true });
    expect((await call(t.api, 'GET', `/v1/webhook_endpoints/${id}`, { key: merchant.testKey })).status).toBe(404);
    expect((await call(t.api, 'DELETE', `/v1/webhook_endpoints/${id}`, { key: merchant.testKey })).status).toBe(404);
    expect((await call(t.api, 'GET', '/v1/webhook_endpoints', { key: merchant.testKey })).json.data).toEqual([]);
  });
});

describe('delivery per endpoint', () => {
  it('each matching enabled endpoint gets the event, signed with its own secret; others get nothing', async () => {
    const all = (await createEndpoint({ url: url(A), enabled_events: ['*'] })).json;
    const failedOnly = (await createEndpoint({ url: url(B), enabled_events: ['payment.failed'] })).json;
    const succeededOnly = (await createEndpoint({ url: url(C), enabled_events: ['payment.succeeded'] })).json;
    const payment = await pay('4000000000000002');
    const [toA] = await eventually(async () => received(A, payment.id), (l) => l.length >= 1);
    const [toB] = await eventually(async () => received(B, payment.id), (l) => l.length >= 1);
    expect(toA!.json.type).toBe('payment.failed');
    expect(toB!.body).toBe(toA!.body);
    expect(verify(toA!, all.secret)).toBeTruthy();
    expect(verify(toB!, failedOnly.secret)).toBeTruthy();
    expect(() => verify(toB!, all.secret)).toThrow();
    expect(toA!.headers['webhook-id']).toBe(toB!.headers['webhook-id']);
    await new Promise((r) => setTimeout(r, 500));
    expect(received(C, payment.id)).toEqual([]);
    void succeededOnly;
    const deliveries = await eventually(() => deliveriesOf(t.api, toA!.json.id), (rows) => rows.length === 2 && rows.every((d) => d.status === 'succeeded'));
    expect(deliveries.map((d) => d.endpoint_id).sort()).toEqual([all.id, failedOnly.id].sort());
  });

  it('a disabled or deleted endpoint gets nothing, and a live event never reaches a test endpoint', async () => {
    const disabled = (await createEndpoint({ url: url(A), enabled_events: ['*'] })).json.id;
    await call(t.api, 'POST', `/v1/webhook_endpoints/${disabled}`, { key: merchant.testKey, body: { status: 'disabled' } });
    const deleted = (await createEndpoint({ url: url(B), enabled_events: ['*'] })).json.id;
    await call(t.api, 'DELETE', `/v1/webhook_endpoints/${deleted}`, { key: merchant.testKey });
    await createEndpoint({ url: url(C), enabled_events: ['*'] });
    const payment = await pay('4000000000000002');
    await eventually(async () => received(C, payment.id), (l) => l.length >= 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(received(A, payment.id)).toEqual([]);
    expect(received(B, payment.id)).toEqual([]);
  });

  it('an endpoint that is down never delays another: the healthy one has its event at once, the other is retried on its own', async () => {
    receivers[A]!.respondWith(503, 503, 200);
    await createEndpoint({ url: url(A), enabled_events: ['*'] });
    await createEndpoint({ url: url(B), enabled_events: ['*'] });
    const started = Date.now();
    const payment = await pay('4000000000000002');
    const [healthy] = await eventually(async () => received(B, payment.id), (l) => l.length >= 1);
    expect(healthy!.at - started).toBeLessThan(2000);
    const retried = await eventually(async () => received(A, payment.id), (l) => l.length >= 3, 30_000);
    expect(new Set(retried.map((w) => w.headers['webhook-id']))).toEqual(new Set([healthy!.headers['webhook-id']]));
    const deliveries = await eventually(() => deliveriesOf(t.api, healthy!.json.id), (rows) => rows.every((d) => d.status === 'succeeded'), 30_000);
    expect(deliveries.map((d) => d.attempts).sort()).toEqual([1, 3]);
    const attempts = await t.api.deps.dataSource.getRepository(WebhookAttempt).find({ where: { event_id: healthy!.json.id }, order: { seq: 'ASC' } });
    expect(attempts.filter((a) => a.endpoint === url(A)).map((a) => a.status_code)).toEqual([503, 503, 200]);
    expect(attempts.filter((a) => a.endpoint === url(B)).map((a) => a.status_code)).toEqual([200]);
  });

  it('api_version chooses the body: 2024-06-01 gets the Shape B payment, 2025-09-01 the Shape A snapshot; refunds stay Shape A', async () => {
    await createEndpoint({ url: url(A), enabled_events: ['*'], api_version: '2024-06-01' });
    await createEndpoint({ url: url(B), enabled_events: ['*'], api_version: '2025-09-01' });
    const payment = await pay('4242424242424242');
    const shapeB = await eventually(async () => received(A, payment.id), (l) => l.some((w) => w.json.type === 'payment.succeeded'));
    const shapeA = await eventually(async () => received(B, payment.id), (l) => l.some((w) => w.json.type === 'payment.succeeded'));
    const b = shapeB.find((w) => w.json.type === 'payment.succeeded')!.json;
    const a = shapeA.find((w) => w.json.type === 'payment.succeeded')!.json;
    expect(b).toMatchObject({ id: a.id, type: 'payment.succeeded', livemode: false, data: { object: { id: payment.id, object: 'payment', status: 'succeeded', currency: 'usd' } } });
    expect(a.data.object).toMatchObject({ id: payment.id, status: 'SUCCEEDED', currency: 'USD' });
    const refund = await call(t.api, 'POST', '/v1/refunds', { key: merchant.testKey, body: { payment_id: payment.id, amount: 100, reason: 'return' } });
    expect(refund.status).toBe(201);
    const refundEvents = await eventually(async () => receivers[A]!.received.filter((w) => w.json.data?.object?.id === refund.json.id), (l) => l.length >= 1);
    expect(refundEvents[0]!.json.data.object).toMatchObject({ id: refund.json.id, payment_id: payment.id, status: expect.stringMatching(/^[A-Z]+$/) });
  });

  it('rotate_secret: both secrets sign during the grace period, then only the new one', async () => {
    const created = (await createEndpoint({ url: url(A), enabled_events: ['*'] })).json;
    const rotated = await call(t.api, 'POST', `/v1/webhook_endpoints/${created.id}/rotate_secret`, { key: merchant.testKey, body: { grace_period_seconds: 3600 } });
    expect(rotated.status).toBe(200);
    expect(rotated.json).toMatchObject({ id: created.id, object: 'webhook_endpoint', secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.json.secret).not.toBe(created.secret);
    const p1 = await pay();
    const [w1] = await eventually(async () => received(A, p1.id), (l) => l.length >= 1);
    expect(w1!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(w1!, created.secret)).toBeTruthy();
    expect(verify(w1!, rotated.json.secret)).toBeTruthy();

    const ended = await call(t.api, 'POST', `/v1/webhook_endpoints/${created.id}/rotate_secret`, { key: merchant.testKey, body: { grace_period_seconds: 0 } });
    const p2 = await pay();
    const [w2] = await eventually(async () => received(A, p2.id), (l) => l.length >= 1);
    expect(w2!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verify(w2!, ended.json.secret)).toBeTruthy();
    expect(() => verify(w2!, created.secret)).toThrow();
    expect(() => verify(w2!, rotated.json.secret)).toThrow();

    // No body means the default grace (a day); a bound outside 0..604800 is refused.
    const byDefault = await call(t.api, 'POST', `/v1/webhook_endpoints/${created.id}/rotate_secret`, { key: merchant.testKey });
    expect(byDefault.status).toBe(200);
    const tooLong = await call(t.api, 'POST', `/v1/webhook_endpoints/${created.id}/rotate_secret`, { key: merchant.testKey, body: { grace_period_seconds: 604801 } });
    expect({ status: tooLong.status, code: tooLong.json.error.code, param: tooLong.json.error.param }).toEqual({ status: 400, code: 'parameter_invalid', param: 'grace_period_seconds' });
  });

  it('no secret appears in an error message', async () => {
    const created = (await createEndpoint({ url: url(A), enabled_events: ['*'] })).json;
    const res = await call(t.api, 'POST', `/v1/webhook_endpoints/${created.id}`, { key: merchant.testKey, body: { url: `https://x.example/${created.secret}`, enabled_events: [created.secret] } });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain(created.secret);
  });
});

describe('the admin command\'s --webhook-url on the same model', () => {
  it('manages one endpoint per mode with enabled_events ["*"], signed with the secret the command printed', async () => {
    const m = await createMerchant(t.api, { name: 'Operator Shop', webhookUrl: url(A) });
    const test = await call(t.api, 'GET', '/v1/webhook_endpoints', { key: m.testKey });
    const live = await call(t.api, 'GET', '/v1/webhook_endpoints', { key: m.liveKey });
    expect(test.json.data).toEqual([expect.objectContaining({ url: url(A), enabled_events: ['*'], status: 'enabled', livemode: false })]);
    // A local http receiver is for test mode only: live events go over https to public addresses.
    expect(live.json.data).toEqual([]);
    const payment = await pay('4000000000000002', m.testKey);
    const [w] = await eventually(async () => received(A, payment.id), (l) => l.length >= 1);
    expect(verify(w!, m.webhookSecret)).toBeTruthy();

    await adminOps(t.api).updateMerchant(m.merchantId, { webhookUrl: url(B) });
    const moved = await call(t.api, 'GET', '/v1/webhook_endpoints', { key: m.testKey });
    expect(moved.json.data).toEqual([expect.objectContaining({ id: test.json.data[0].id, url: url(B) })]);
    const rotated = await adminOps(t.api).rotateWebhookSecret(m.merchantId, 0);
    const p2 = await pay('4000000000000002', m.testKey);
    const [w2] = await eventually(async () => received(B, p2.id), (l) => l.length >= 1);
    expect(verify(w2!, rotated.webhook_secret)).toBeTruthy();

    await adminOps(t.api).updateMerchant(m.merchantId, { webhookUrl: '' });
    expect((await call(t.api, 'GET', '/v1/webhook_endpoints', { key: m.testKey })).json.data).toEqual([]);
    expect((await adminOps(t.api).showMerchant(m.merchantId)).webhook_url).toBeNull();
  });
});

it('ids in paths compare byte for byte', async () => {
  const id = `we_${randomBase62(24)}`;
  expect((await call(t.api, 'GET', `/v1/webhook_endpoints/${id}`, { key: merchant.testKey })).status).toBe(404);
});
