// Real answers against the OpenAPI document: every served operation and a wide set of statuses
// (201 PROCESSING / REQUIRES_ACTION / FAILED, replays, 400 to 503 errors in both envelopes, list
// pages, refunds, payouts, health, metrics, the document and the docs page) are validated with ajv,
// and so is every webhook those changes deliver. Real MariaDB, Temporal, sandbox and worker.
import { randomUUID } from 'node:crypto';
import { openApiDocument } from '../../src/api/openapi/document';
import { OPERATIONS } from '../../src/api/operations';
import type { OpenApiDocument } from '../../src/api/openapi/types';
import { DEFAULT_VERSION, SHAPE_B_VERSION } from '../../src/representations/versions';
import { adminOps, call, type CallOptions, type CallResult, createMerchant, directPaymentBody, eventually, startTestApi, useTestApi } from '../helpers/api';
import { OpenApiValidator, openApiValidator, pointer } from '../helpers/openapi';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const CARD = {
  visa: '4242424242424242',
  declined: '4000000000000002',
  challenge: '4000000000003220',
  refundRejected: '4000009000000003',
  rateLimited: '4000004290000003',
  badGateway: '4000005020000007',
  unavailable: '4000005030000005',
  amex: '378282246310005',
} as const;

let receiver: WebhookReceiver;
/** Receives the Shape B `callback_url` POSTs. */
let callbacks: WebhookReceiver;
const validator = openApiValidator();

// The receivers start before the fixture: the merchant's webhooks go to one.
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  callbacks = await startWebhookReceiver();
});
const t = useTestApi({ merchant: () => ({ name: 'OpenAPI Shop', webhookUrl: receiver.url }) });
afterAll(async () => {
  await receiver.close();
  await callbacks.close();
});

/** Calls the API and validates the answer against the document; returns it for further checks. */
async function checked(method: string, pathTemplate: string, urlPath: string, options: CallOptions = {}): Promise<CallResult> {
  const res = await call(t.api, method, urlPath, options);
  const isJson = (res.headers.get('content-type') ?? '').startsWith('application/json');
  validator.validateResponse(method, pathTemplate, res.status, isJson ? res.json : res.text, res.headers);
  return res;
}

function expectCode(res: CallResult, status: number, code: string): void {
  expect({ status: res.status, code: res.json?.error?.code }).toEqual({ status, code });
}

const payment = (card: string, options: CallOptions = {}) => checked('POST', '/v1/payments', '/v1/payments', {
  key: t.merchant.testKey, body: directPaymentBody({}, { number: card }), ...options,
});

const getPayment = (id: string, options: CallOptions = {}) => checked('GET', '/v1/payments/{id}', `/v1/payments/${id}`, { key: t.merchant.testKey, ...options });

async function succeededPayment(card: string = CARD.visa): Promise<any> {
  const created = await payment(card);
  expect(created.status).toBe(201);
  return (await eventually(() => getPayment(created.json.id), (res) => res.json.status === 'SUCCEEDED')).json;
}

const payoutBody = (cardNumber: string) => ({
  amount: 2500,
  currency: 'EUR',
  initiator_ip_address: '203.0.113.7',
  recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' },
  destination: { card_number: cardNumber },
  merchant_reference: 1234567890,
});

const payout = (cardNumber: string, options: CallOptions = {}) => checked('POST', '/v1/payouts', '/v1/payouts', {
  key: t.merchant.testKey, body: payoutBody(cardNumber), ...options,
});

describe('the document and the page', () => {
  it('GET /openapi.json serves the current version\'s document for the configured public base URL, ?version= an older one', async () => {
    const res = await checked('GET', '/openapi.json', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.json.servers.map((server: { url: string }) => server.url)).toEqual([t.api.deps.config.publicBaseUrl]);
    expect(res.json).toEqual(JSON.parse(JSON.stringify(openApiDocument(t.api.deps.config.publicBaseUrl))));
    expect(res.json.info.version).toBe(DEFAULT_VERSION);
    expect(new OpenApiValidator(res.json as OpenApiDocument).compileAll()).toBeGreaterThan(60);
    const older = await checked('GET', '/openapi.json', `/openapi.json?version=${SHAPE_B_VERSION}`);
    expect(older.json).toEqual(JSON.parse(JSON.stringify(openApiDocument(t.api.deps.config.publicBaseUrl, SHAPE_B_VERSION))));
    expect((await checked('GET', '/openapi.json', `/openapi.json?version=${DEFAULT_VERSION}`)).json).toEqual(res.json);
    const unknown = await checked('GET', '/openapi.json', '/openapi.json?version=2031-01-01');
    expectCode(unknown, 400, 'invalid_request');
    expect(unknown.json.error.param).toBe('version');
    expect((await checked('GET', '/docs', `/docs?version=${SHAPE_B_VERSION}`)).text).toContain('id="op-refundPaymentB"');
  });

  it('GET /docs renders the reference, with no external assets and a strict CSP', async () => {
    const res = await checked('GET', '/docs', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+';/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.text).toContain('id="error-invalid_api_key"');
    expect(res.text).not.toMatch(/<script|src=/);
  });

  it('an error doc_url points at the anchor of its code on /docs', async () => {
    const res = await checked('GET', '/v1/payments/{id}', '/v1/payments/not-an-id', { key: t.merchant.testKey });
    expectCode(res, 400, 'invalid_request');
    const docUrl = new URL(res.json.error.doc_url);
    expect(docUrl.pathname).toBe('/docs');
    const page = await call(t.api, 'GET', '/docs');
    expect(page.text).toContain(`id="${docUrl.hash.slice(1)}"`);
  });
});

describe('service endpoints', () => {
  it('GET /v1/health and GET /metrics', async () => {
    expect((await checked('GET', '/v1/health', '/v1/health')).status).toBe(200);
    expect((await checked('GET', '/metrics', '/metrics')).status).toBe(200);
  });

  it('the service\'s own per-key rate limit answers a documented 429', async () => {
    const limitedApi = await startTestApi({ rateLimitPerSecond: 1, rateLimitBurst: 1 });
    try {
      const shop = await createMerchant(limitedApi, { name: 'Busy Shop' });
      const answers = [];
      for (let i = 0; i < 2; i += 1) answers.push(await call(limitedApi, 'GET', '/v1/payouts', { key: shop.testKey }));
      expectCode(answers[1]!, 429, 'rate_limit_exceeded');
      for (const res of answers) validator.validateResponse('GET', '/v1/payouts', res.status, res.json, res.headers);
    } finally {
      await limitedApi.close();
    }
  });

  it('an unmatched route answers the Shape A envelope with resource_not_found', async () => {
    const res = await call(t.api, 'DELETE', '/v1/payments', { key: t.merchant.testKey });
    expectCode(res, 404, 'resource_not_found');
    const validate = validator.of().validatorAt(pointer('components', 'schemas', 'Error'));
    expect({ valid: validate(res.json), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
  });
});

describe('payments', () => {
  it('201 PROCESSING, its replay, REQUIRES_ACTION and FAILED', async () => {
    const key = randomUUID();
    const processing = await payment(CARD.visa, { idempotencyKey: key });
    expect(processing.json.status).toBe('PROCESSING');
    const replay = await payment(CARD.visa, { idempotencyKey: key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await payment(CARD.challenge)).json).toMatchObject({ status: 'REQUIRES_ACTION', next_action: { reason: 'three_d_secure' } });
    expect((await payment(CARD.declined)).json).toMatchObject({ status: 'FAILED', failure_code: 'generic_decline' });
  });

  it('provider trouble: 429 with Retry-After, 502, 503', async () => {
    const limited = await payment(CARD.rateLimited);
    expectCode(limited, 429, 'rate_limit_exceeded');
    expect(limited.headers.get('retry-after')).toBe('1');
    expectCode(await payment(CARD.badGateway), 502, 'processing_error');
    expectCode(await payment(CARD.unavailable), 503, 'service_unavailable');
  });

  it('request errors: 400, 401, 403, 409, 422', async () => {
    expectCode(await payment(CARD.visa, { idempotencyKey: null }), 400, 'parameter_missing');
    expectCode(await checked('POST', '/v1/payments', '/v1/payments', { key: t.merchant.testKey, rawBody: '{', headers: { 'Content-Type': 'application/json' } }), 400, 'request_body_invalid');
    expectCode(await payment(CARD.visa, { headers: { 'Service-Version': '2031-01-01' } }), 400, 'parameter_invalid');
    expectCode(await payment(CARD.visa, { key: 'svc_test_sk_nope' }), 401, 'invalid_api_key');
    const key = randomUUID();
    expect((await payment(CARD.visa, { idempotencyKey: key })).status).toBe(201);
    const reused = await checked('POST', '/v1/payments', '/v1/payments', { key: t.merchant.testKey, idempotencyKey: key, body: directPaymentBody({ amount: 1 }) });
    expectCode(reused, 409, 'idempotency_key_reused');
    const unsupported = await checked('POST', '/v1/payments', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody({ currency: 'NOK' }) });
    expectCode(unsupported, 422, 'currency_not_supported');

    const closed = await createMerchant(t.api, { name: 'Closed Shop' });
    await adminOps(t.api).updateMerchant(closed.merchantId, { payments: false, payouts: false });
    expectCode(await payment(CARD.visa, { key: closed.testKey }), 403, 'payment_acceptance_unavailable');
    expectCode(await payout(CARD.visa, { key: closed.testKey }), 403, 'payout_submission_unavailable');
    const unprovisioned = await createMerchant(t.api, { name: 'Unprovisioned Shop' });
    await adminOps(t.api).updateMerchant(unprovisioned.merchantId, { provisioned: false });
    expectCode(await payment(CARD.visa, { key: unprovisioned.testKey }), 422, 'merchant_not_provisioned');
  });

  it('hosted payment page: 201 REQUIRES_ACTION with the hosted page', async () => {
    const res = await checked('POST', '/v1/payments/hpp', '/v1/payments/hpp', {
      key: t.merchant.testKey,
      body: { amount: 12000, currency: 'eur', customer_ip_address: '2001:db8::7', return_url: 'https://shop.example/return', billing_details: { email: 'ada@example.com' } },
    });
    expect(res.status).toBe(201);
    expect(res.json.integration_type).toBe('HOSTED_PAYMENT_PAGE');
    expectCode(await checked('POST', '/v1/payments/hpp', '/v1/payments/hpp', { key: t.merchant.testKey, body: { amount: 1 } }), 400, 'request_body_invalid');
  });

  it('retrieve: 200 SUCCEEDED, 404, and list pages with cursors', async () => {
    const succeeded = await succeededPayment();
    expect(succeeded.card).toMatchObject({ brand: 'VISA', last4: '4242' });
    expectCode(await getPayment(`pay_${'0'.repeat(24)}`), 404, 'object_not_found');
    const first = await checked('GET', '/v1/payments', '/v1/payments?limit=2', { key: t.merchant.testKey });
    expect(first.json.data).toHaveLength(2);
    expect(first.json.has_more).toBe(true);
    const last = first.json.data[1].id;
    const second = await checked('GET', '/v1/payments', `/v1/payments?limit=3&starting_after=${last}&status=FAILED&status=PROCESSING`, { key: t.merchant.testKey });
    expect(second.status).toBe(200);
    expectCode(await checked('GET', '/v1/payments', '/v1/payments?limit=0', { key: t.merchant.testKey }), 400, 'invalid_search_criteria');
  });

  it('Shape B errors use the Shape B envelope', async () => {
    const headers = { 'Service-Version': SHAPE_B_VERSION };
    const list = await checked('GET', '/v1/payments', '/v1/payments?limit=500', { key: t.merchant.testKey, headers });
    expect(list.status).toBe(400);
    expect(list.json.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_search_criteria' });
    const create = await checked('POST', '/v1/payments', '/v1/payments', {
      key: t.merchant.testKey, headers, body: { amount: 4999, currency: 'USD', card: { number: CARD.visa, exp_month: 12, exp_year: 2030, cvc: '123' } },
    });
    expect(create.status).toBe(400);
    expect(create.json.error.type).toBe('invalid_request_error');
    expect((await checked('GET', '/v1/payments/{id}', `/v1/payments/pay_${'0'.repeat(24)}`, { key: t.merchant.testKey, headers })).json.error.type).toBe('invalid_request_error');
  });

  it('Shape B success answers (201 succeeded, 402 card_declined, hosted, list, retrieve) validate against PaymentB', async () => {
    const headers = { 'Service-Version': SHAPE_B_VERSION };
    const card = (number: string) => ({ number, exp_month: 12, exp_year: 2030, cvc: '123' });
    const created = await checked('POST', '/v1/payments', '/v1/payments', { key: t.merchant.testKey, headers, body: { amount: 4999, currency: 'usd', card: card(CARD.visa) } });
    expect(created.json).toMatchObject({ object: 'payment', status: 'succeeded' });
    const declined = await checked('POST', '/v1/payments', '/v1/payments', { key: t.merchant.testKey, headers, body: { amount: 4999, currency: 'usd', card: card(CARD.declined) } });
    expect(declined.json.error).toMatchObject({ type: 'card_error', code: 'card_declined', decline_code: 'generic_decline' });
    const hosted = await checked('POST', '/v1/payments/hpp', '/v1/payments/hpp', {
      key: t.merchant.testKey, headers, body: { amount: 4999, currency: 'usd', redirect_url: 'https://shop.example/back', metadata: { order: '42' }, callback_url: callbacks.url },
    });
    expect(hosted.json).toMatchObject({ status: 'pending', card: null });
    // The shopper pays on the hosted page; the completed payment is POSTed to the callback_url (checked below).
    const form = await fetch(hosted.json.redirect_url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ card_number: CARD.visa, exp: `12/${String(new Date().getFullYear() + 2).slice(-2)}`, cvc: '123', cardholder_name: 'Ada Lovelace' }).toString(),
      redirect: 'manual',
    });
    expect(form.status).toBe(303);
    expect((await getPayment(created.json.id, { headers })).json).toEqual(created.json);
    expect((await checked('GET', '/v1/payments', '/v1/payments?limit=3&status=succeeded', { key: t.merchant.testKey, headers })).json.object).toBe('list');
  });
});

describe('refunds', () => {
  let paid: any;
  beforeAll(async () => { paid = await succeededPayment(); });

  const refund = (body: Record<string, unknown>, options: CallOptions = {}) => checked('POST', '/v1/refunds', '/v1/refunds', { key: t.merchant.testKey, body, ...options });

  it('201 PROCESSING, then the Payment shows it; 201 FAILED when rejected at submission', async () => {
    const created = await refund({ payment_id: paid.id, amount: 1000, reason: 'Damaged item' });
    expect(created.status).toBe(201);
    expect(created.json.status).toBe('PROCESSING');
    const settled = await eventually(() => getPayment(paid.id), (res) => res.json.refunds.every((r: any) => r.status === 'SUCCEEDED'));
    expect(settled.json.amount_refunded).toBe(1000);

    const rejectable = await succeededPayment(CARD.refundRejected);
    const rejected = await refund({ payment_id: rejectable.id, amount: 100, reason: 'Goodwill' });
    expect(rejected.json).toMatchObject({ status: 'FAILED', failure: { code: 'not_permitted' } });
    await getPayment(rejectable.id);
  });

  it('403, 404 and 422 answers', async () => {
    const { key } = await adminOps(t.api).createKey({ merchantId: t.merchant.merchantId, mode: 'test', refunds: false });
    expectCode(await refund({ payment_id: paid.id, amount: 1, reason: 'x' }, { key }), 403, 'actor_forbidden');
    expectCode(await refund({ payment_id: `pay_${'0'.repeat(24)}`, amount: 1, reason: 'x' }), 404, 'object_not_found');
    expectCode(await refund({ payment_id: paid.id, amount: 10_000_000, reason: 'x' }), 422, 'amount_exceeds_refundable');
    const failed = (await payment(CARD.declined)).json;
    expectCode(await refund({ payment_id: failed.id, amount: 1, reason: 'x' }), 422, 'payment_not_refundable');
  });

  it('the Shape B refund: 200 refunded, then 400 charge_already_refunded', async () => {
    const refundable = await succeededPayment();
    const refunded = await checked('POST', '/v1/payments/{id}/refund', `/v1/payments/${refundable.id}/refund`, { key: t.merchant.testKey });
    expect(refunded.status).toBe(200);
    expect(refunded.json).toMatchObject({ id: refundable.id, status: 'refunded' });
    expectCode(await checked('POST', '/v1/payments/{id}/refund', `/v1/payments/${refundable.id}/refund`, { key: t.merchant.testKey }), 400, 'charge_already_refunded');
  });
});

describe('payouts', () => {
  it('201 submissions (PROCESSING, PENDING), retrieval until FAILED, list and errors', async () => {
    const visa = await payout(CARD.visa);
    expect(visa.status).toBe(201);
    const pending = await payout(CARD.rateLimited);
    expect(pending.json.status).toBe('PENDING');
    const declined = await payout(CARD.declined);
    const failed = await eventually(
      () => checked('GET', '/v1/payouts/{payout_id}', `/v1/payouts/${declined.json.id}`, { key: t.merchant.testKey }),
      (res) => res.json.status === 'FAILED', 45_000, 250,
    );
    expect(failed.json.failure_code).toBe('generic_decline');

    const list = await checked('GET', '/v1/payouts', '/v1/payouts?limit=2&currency=eur', { key: t.merchant.testKey });
    expect(list.json.total_count).toBeGreaterThanOrEqual(3);
    await checked('GET', '/v1/payouts', `/v1/payouts?search=D%C3%ADaz&starting_after=${list.json.data[1].id}`, { key: t.merchant.testKey });

    expectCode(await payout(CARD.amex), 422, 'unsupported_card');
    expectCode(await payout('4242424242424241'), 422, 'invalid_card');
    expectCode(await checked('GET', '/v1/payouts/{payout_id}', '/v1/payouts/po_bad', { key: t.merchant.testKey }), 400, 'invalid_request');
    expectCode(await checked('GET', '/v1/payouts/{payout_id}', `/v1/payouts/po_${'0'.repeat(24)}`, { key: t.merchant.testKey }), 404, 'object_not_found');
    expectCode(await checked('GET', '/v1/payouts', '/v1/payouts?card_last4=12', { key: t.merchant.testKey }), 400, 'invalid_search_criteria');
    expectCode(await checked('GET', '/v1/payouts', '/v1/payouts', {}), 401, 'invalid_api_key');
  });
});

describe('webhook endpoints', () => {
  const endpointPath = '/v1/webhook_endpoints/{id}';
  it('create (and its replay), list, retrieve, update, rotate, delete, and their errors', async () => {
    const key = randomUUID();
    const body = { url: 'https://shop.example/hooks', enabled_events: ['payment.succeeded'], description: 'Orders' };
    const created = await checked('POST', '/v1/webhook_endpoints', '/v1/webhook_endpoints', { key: t.merchant.testKey, body, idempotencyKey: key });
    expect(created.status).toBe(201);
    expect((await checked('POST', '/v1/webhook_endpoints', '/v1/webhook_endpoints', { key: t.merchant.testKey, body, idempotencyKey: key })).headers.get('idempotent-replayed')).toBe('true');
    const id = created.json.id as string;
    expect((await checked('GET', '/v1/webhook_endpoints', '/v1/webhook_endpoints?limit=1', { key: t.merchant.testKey })).status).toBe(200);
    expect((await checked('GET', endpointPath, `/v1/webhook_endpoints/${id}`, { key: t.merchant.testKey })).status).toBe(200);
    expect((await checked('POST', endpointPath, `/v1/webhook_endpoints/${id}`, { key: t.merchant.testKey, body: { status: 'disabled', description: null } })).json.status).toBe('disabled');
    expect((await checked('POST', `${endpointPath}/rotate_secret`, `/v1/webhook_endpoints/${id}/rotate_secret`, { key: t.merchant.testKey, body: { grace_period_seconds: 60 } })).status).toBe(200);
    expect((await checked('DELETE', endpointPath, `/v1/webhook_endpoints/${id}`, { key: t.merchant.testKey })).json.deleted).toBe(true);

    expectCode(await checked('POST', '/v1/webhook_endpoints', '/v1/webhook_endpoints', { key: t.merchant.testKey, body: { ...body, url: 'http://10.0.0.1/' } }), 400, 'parameter_invalid');
    expectCode(await checked('POST', '/v1/webhook_endpoints', '/v1/webhook_endpoints', { key: t.merchant.testKey, body: { ...body, extra: 1 } }), 400, 'request_body_invalid');
    expectCode(await checked('POST', '/v1/webhook_endpoints', '/v1/webhook_endpoints', { key: t.merchant.testKey, body, idempotencyKey: null }), 400, 'parameter_missing');
    expectCode(await checked('POST', '/v1/webhook_endpoints', '/v1/webhook_endpoints', { key: t.merchant.testKey, body: { ...body, description: 'other' }, idempotencyKey: key }), 409, 'idempotency_key_reused');
    expectCode(await checked('GET', endpointPath, `/v1/webhook_endpoints/${id}`, { key: t.merchant.testKey }), 404, 'object_not_found');
    expectCode(await checked('GET', endpointPath, '/v1/webhook_endpoints/we_bad', { key: t.merchant.testKey }), 400, 'invalid_request');
    expectCode(await checked('POST', endpointPath, '/v1/webhook_endpoints/we_bad', { key: t.merchant.testKey, body: { status: 'enabled' } }), 400, 'invalid_request');
    expectCode(await checked('DELETE', endpointPath, `/v1/webhook_endpoints/we_${'0'.repeat(24)}`, { key: t.merchant.testKey }), 404, 'object_not_found');
    expectCode(await checked('POST', `${endpointPath}/rotate_secret`, `/v1/webhook_endpoints/${id}/rotate_secret`, { key: t.merchant.testKey }), 404, 'object_not_found');
    expectCode(await checked('GET', '/v1/webhook_endpoints', '/v1/webhook_endpoints?limit=101', { key: t.merchant.testKey }), 400, 'invalid_search_criteria');
    expectCode(await checked('GET', '/v1/webhook_endpoints', '/v1/webhook_endpoints', {}), 401, 'invalid_api_key');
  });

  it('an endpoint on 2024-06-01 gets payment events with the Shape B payment, as the webhooks section says', async () => {
    const shapeB = await startWebhookReceiver();
    try {
      await checked('POST', '/v1/webhook_endpoints', '/v1/webhook_endpoints', { key: t.merchant.testKey, body: { url: shapeB.url, enabled_events: ['payment.failed'], api_version: '2024-06-01' } });
      await payment(CARD.declined);
      const [webhook] = await eventually(async () => shapeB.received, (list) => list.length > 0);
      validator.validateWebhook(JSON.parse(webhook!.body), webhook!.headers, SHAPE_B_VERSION);
      expect(webhook!.json.data.object).toMatchObject({ object: 'payment', status: 'failed' });
      expect(() => validator.validateWebhook(JSON.parse(webhook!.body), webhook!.headers)).toThrow(/does not match/);
    } finally {
      await shapeB.close();
    }
  });
});

describe('webhooks', () => {
  it('every webhook the changes above delivered matches the document: type, envelope, snapshot and signature headers', async () => {
    const expected = ['payment.requires_action', 'payment.processing', 'payment.succeeded', 'payment.failed', 'payment.refunded',
      'refund.processing', 'refund.succeeded', 'refund.failed', 'payout.pending', 'payout.failed'];
    const types = () => new Set(receiver.received.map((webhook) => webhook.json.type));
    await eventually(async () => types(), (seen) => expected.every((type) => seen.has(type)), 45_000, 250);
    // Throws for a type the document does not list, a body or a header it does not describe.
    for (const webhook of receiver.received) validator.validateWebhook(JSON.parse(webhook.body), webhook.headers);
  });

  it('the Shape B callback_url POST matches the callback of POST /v1/payments/hpp', async () => {
    await eventually(async () => callbacks.received, (list) => list.length > 0);
    for (const callback of callbacks.received) validator.validateCallback('POST', '/v1/payments/hpp', 'paymentCompletedB', JSON.parse(callback.body), callback.headers, SHAPE_B_VERSION);
    expect(JSON.parse(callbacks.received[0]!.body)).toMatchObject({ object: 'payment', status: 'succeeded' });
  });
});

describe('events', () => {
  it('the events list, an event with its deliveries, and their errors match the document', async () => {
    const page = await checked('GET', '/v1/events', '/v1/events?limit=100&type=payment.*', { key: t.merchant.testKey });
    expect(page.status).toBe(200);
    expect(page.json.data.length).toBeGreaterThan(0);
    for (const event of page.json.data.slice(0, 5)) {
      expect((await checked('GET', '/v1/events/{id}', `/v1/events/${event.id}`, { key: t.merchant.testKey })).status).toBe(200);
    }
    const retried = await checked('POST', '/v1/events/{id}/retry', `/v1/events/${page.json.data[0].id}/retry`, { key: t.merchant.testKey });
    expect(retried.status).toBe(200);
    expectCode(await checked('POST', '/v1/events/{id}/retry', `/v1/events/${page.json.data[0].id}/retry`, {
      key: t.merchant.testKey, body: { webhook_endpoint_id: `we_${'0'.repeat(24)}` },
    }), 404, 'object_not_found');
    expectCode(await checked('GET', '/v1/events', '/v1/events?type=payment', { key: t.merchant.testKey }), 400, 'invalid_search_criteria');
    expectCode(await checked('GET', '/v1/events/{id}', '/v1/events/evt_bad', { key: t.merchant.testKey }), 400, 'invalid_request');
    expectCode(await checked('GET', '/v1/events/{id}', `/v1/events/evt_${'0'.repeat(24)}`, { key: t.merchant.testKey }), 404, 'object_not_found');
  });
});

describe('coverage', () => {
  it('validated every served operation and the wide set of statuses', () => {
    const validated = [...validator.validated];
    for (const operation of OPERATIONS) {
      const prefix = `${operation.method.toUpperCase()} ${operation.path} `;
      expect({ operation: operation.id, validated: validated.some((label) => label.startsWith(prefix)) }).toEqual({ operation: operation.id, validated: true });
    }
    const statuses = new Set(validated.map((label) => Number(label.slice(label.lastIndexOf(' ') + 1))));
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 201, 400, 401, 403, 404, 409, 422, 429, 502, 503]));
  });
});
