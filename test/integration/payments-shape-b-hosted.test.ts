// Shape B hosted payments (docs/shape-b.md, "Hosted payments" and "callback_url"): the create, the
// hosted page completed by plain HTTP, the browser return with `payment_id` and `status`, metadata
// bounds, and the signed `callback_url` POST of the Shape B payment through the webhook delivery
// path.
import { Webhook } from 'standardwebhooks';
import { call, type CallResult, eventually, useTestApi } from '../helpers/api';
import { validateResponse } from '../helpers/openapi';
import { FUTURE_YEAR, PAYMENT_ID, REQUEST_ID } from '../helpers/payments';
import { SANDBOX_URL, follow, submitOutcome } from '../helpers/sandbox';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../helpers/webhook-receiver';

const B = { 'Service-Version': '2024-06-01' };
const A = { 'Service-Version': '2025-09-01' };
const REDIRECT_URL = 'https://shop.example/back?order=42';
const EXP = `12/${String(FUTURE_YEAR).slice(-2)}`;

let callbacks: WebhookReceiver;
let webhooks: WebhookReceiver;

// The receivers start before the fixture: the merchant's webhooks go to one.
beforeAll(async () => {
  callbacks = await startWebhookReceiver();
  webhooks = await startWebhookReceiver();
});
const t = useTestApi({ config: { paymentActionTtlSeconds: 120 }, merchant: () => ({ name: 'Hosted B Shop', webhookUrl: webhooks.url }) });
afterAll(async () => {
  await callbacks.close();
  await webhooks.close();
});
beforeEach(() => callbacks.respondWith(200));

function hostedBodyB(overrides: Record<string, unknown> = {}) {
  return {
    amount: 2500,
    currency: 'eur',
    redirect_url: REDIRECT_URL,
    description: 'Order #42',
    customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', country: 'GB', phone: '+442071234567', address: '12 Analytical Row', city: 'London', zip: 'N1 9GU' },
    metadata: { order_id: '42', channel: 'web' },
    ...overrides,
  };
}

function createHostedB(overrides: Record<string, unknown> = {}): Promise<CallResult> {
  return call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, headers: B, body: hostedBodyB(overrides) });
}

function documented(method: string, template: string, res: CallResult): CallResult {
  validateResponse(method, template, res.status, res.json, res.headers);
  return res;
}

function expectErrorB(res: CallResult, status: number, code: string, param: string | null): void {
  const summary = `${res.status} ${res.text}`;
  expect({ status: res.status, code: res.json?.error?.code, param: res.json?.error?.param, summary }).toEqual({ status, code, param, summary });
  expect(res.json.error.type).toBe('invalid_request_error');
  expect(res.json.error.request_id).toMatch(REQUEST_ID);
}

async function submitCard(pageUrl: string, number: string) {
  const res = await fetch(pageUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card_number: number, exp: EXP, cvc: '123', cardholder_name: 'Ada Lovelace' }).toString(),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location') };
}

const readB = (id: string) => call(t.api, 'GET', `/v1/payments/${id}`, { key: t.merchant.testKey, headers: B });
const waitForB = (id: string, status: string) => eventually(() => readB(id), (r) => r.json?.status === status);

/** The browser return: the merchant's redirect_url with payment_id and the Shape B status added. */
function expectReturn(location: string | null, id: string, statuses: string[]): void {
  const url = new URL(location!);
  expect(`${url.origin}${url.pathname}`).toBe('https://shop.example/back');
  expect(url.searchParams.get('order')).toBe('42');
  expect(url.searchParams.get('payment_id')).toBe(id);
  expect(statuses).toContain(url.searchParams.get('status'));
}

describe('POST /v1/payments/hpp (Shape B)', () => {
  it('201 pending with the hosted page as redirect_url; the page is prefilled from customer', async () => {
    const res = documented('POST', '/v1/payments/hpp', await createHostedB());
    expect(res.status).toBe(201);
    expect(res.headers.get('service-version')).toBe('2024-06-01');
    expect(res.json).toEqual({
      id: expect.stringMatching(PAYMENT_ID), object: 'payment', amount: 2500, currency: 'eur', status: 'pending', description: 'Order #42',
      card: null, customer: { email: 'ada@example.com', name: 'Ada Lovelace' }, metadata: { order_id: '42', channel: 'web' },
      decline_code: null, decline_message: null, redirect_url: expect.stringMatching(new RegExp(`^${t.api.url}/checkout/[A-Za-z0-9]{32}$`)),
      refunded_at: null, succeeded_at: null, failed_at: null, created: expect.any(Number), livemode: false,
    });
    const page = await fetch(res.json.redirect_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('ada@example.com');

    // Shape A reads the same Payment: the customer became its billing details.
    const readA = (await call(t.api, 'GET', `/v1/payments/${res.json.id}`, { key: t.merchant.testKey, headers: A })).json;
    expect(readA).toMatchObject({
      status: 'REQUIRES_ACTION', integration_type: 'HOSTED_PAYMENT_PAGE', currency: 'EUR',
      next_action: { reason: 'hosted_payment_page', redirect_url: res.json.redirect_url },
      billing_details: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', phone: '+442071234567', address: { line1: '12 Analytical Row', city: 'London', postal_code: 'N1 9GU', country: 'GB' } },
    });
  });

  it('completing the page returns the browser with payment_id and status, then the payment is succeeded', async () => {
    const payment = (await createHostedB()).json;
    const res = await submitCard(payment.redirect_url, '4242424242424242');
    expect(res.status).toBe(303);
    expectReturn(res.location, payment.id, ['pending', 'succeeded']);
    const done = (await waitForB(payment.id, 'succeeded')).json;
    expect(done).toMatchObject({ card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: FUTURE_YEAR, country: 'US' }, redirect_url: payment.redirect_url, succeeded_at: expect.any(Number) });
    documented('GET', '/v1/payments/{id}', await readB(payment.id));
  });

  it('a declined card returns with status failed', async () => {
    const payment = (await createHostedB()).json;
    const res = await submitCard(payment.redirect_url, '4000000000000127');
    expectReturn(res.location, payment.id, ['failed']);
    expect((await readB(payment.id)).json).toMatchObject({ status: 'failed', decline_code: 'incorrect_cvc' });
  });

  it('3D Secure on the hosted page: the return through /checkout/return carries status too', async () => {
    const payment = (await createHostedB()).json;
    const res = await submitCard(payment.redirect_url, '4000000000003220');
    expect(res.location).toMatch(new RegExp(`^${SANDBOX_URL}/3ds/`));
    const done = await submitOutcome(res.location!, 'authenticate');
    expect(done.status).toBe(303);
    const returned = await follow(done.location!, res.location!);
    expect(returned.status).toBe(303);
    expectReturn(returned.location, payment.id, ['pending', 'succeeded']);
    await waitForB(payment.id, 'succeeded');
  });

  it('a Shape A hosted payment returns without status', async () => {
    const created = await call(t.api, 'POST', '/v1/payments/hpp', {
      key: t.merchant.testKey, headers: A, body: { amount: 100, currency: 'EUR', customer_ip_address: '203.0.113.7', return_url: REDIRECT_URL },
    });
    const res = await submitCard(created.json.next_action.redirect_url, '4242424242424242');
    expect(res.location).toBe(`${REDIRECT_URL}&payment_id=${created.json.id}`);
  });

  it.each([
    ['redirect_url missing', 400, 'request_body_invalid', 'redirect_url', { redirect_url: undefined }],
    ['redirect_url not a URL', 400, 'parameter_invalid', 'redirect_url', { redirect_url: 'shop.example/back' }],
    ['callback_url not a URL', 400, 'parameter_invalid', 'callback_url', { callback_url: 'not a url' }],
    ['uppercase currency', 400, 'parameter_invalid', 'currency', { currency: 'EUR' }],
    ['a Shape A field', 400, 'request_body_invalid', 'return_url', { return_url: REDIRECT_URL }],
    ['a customer field of Shape A', 400, 'request_body_invalid', 'customer.postal_code', { customer: { postal_code: 'N1' } }],
    ['a bad customer email', 400, 'parameter_invalid', 'customer.email', { customer: { email: 'not-an-email' } }],
    ['a description over 500', 400, 'parameter_invalid', 'description', { description: 'x'.repeat(501) }],
  ])('%s: %i %s', async (_name, status, code, param, overrides) => {
    const res = documented('POST', '/v1/payments/hpp', await createHostedB(overrides));
    expectErrorB(res, status, code, param);
  });
});

describe('metadata bounds (at most 50 keys, key 40, value 500, strings only)', () => {
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`key_${i}`, `value ${i}`]));

  it('50 keys, a 40-character key and a 500-character value are accepted', async () => {
    const many = await createHostedB({ metadata: keys(50) });
    expect(many.status).toBe(201);
    expect(Object.keys(many.json.metadata)).toHaveLength(50);
    const edges = await createHostedB({ metadata: { ['k'.repeat(40)]: 'v'.repeat(500) } });
    expect(edges.status).toBe(201);
    expect(edges.json.metadata).toEqual({ ['k'.repeat(40)]: 'v'.repeat(500) });
    expect((await readB(edges.json.id)).json.metadata).toEqual(edges.json.metadata);
    // Characters, not UTF-16 units: 40 and 500 emoji.
    const emoji = await createHostedB({ metadata: { ['🔑'.repeat(40)]: '😀'.repeat(500) } });
    expect(emoji.status).toBe(201);
    expect(emoji.json.metadata).toEqual({ ['🔑'.repeat(40)]: '😀'.repeat(500) });
  });

  it('51 keys, a 41-character key, a 501-character value are parameter_invalid; a number value is request_body_invalid', async () => {
    expectErrorB(await createHostedB({ metadata: keys(51) }), 400, 'parameter_invalid', 'metadata');
    expectErrorB(await createHostedB({ metadata: { ['k'.repeat(41)]: 'v' } }), 400, 'parameter_invalid', 'metadata');
    expectErrorB(await createHostedB({ metadata: { note: 'v'.repeat(501) } }), 400, 'parameter_invalid', 'metadata.note');
    expectErrorB(await createHostedB({ metadata: { count: 3 } }), 400, 'request_body_invalid', 'metadata.count');
    expectErrorB(await createHostedB({ metadata: { nested: { a: 'b' } } }), 400, 'request_body_invalid', 'metadata.nested');
    expectErrorB(await createHostedB({ metadata: ['a'] }), 400, 'request_body_invalid', 'metadata');
  });
});

describe('callback_url', () => {
  const callbacksFor = (id: string) => callbacks.received.filter((w) => (w.json as unknown as { id?: string }).id === id);
  const verify = (w: ReceivedWebhook) => new Webhook(t.merchant.webhookSecret).verify(w.body, w.headers);

  it('receives the completed Shape B payment, signed like webhooks with the merchant secret', async () => {
    const payment = (await createHostedB({ callback_url: callbacks.url })).json;
    await submitCard(payment.redirect_url, '4242424242424242');
    const [delivered] = await eventually(async () => callbacksFor(payment.id), (list) => list.length > 0);
    const body = verify(delivered!);
    const current = (await waitForB(payment.id, 'succeeded')).json;
    expect(body).toEqual(current);
    expect(delivered!.headers['webhook-id']).toMatch(/^evt_[A-Za-z0-9]{24}$/);
    expect(delivered!.headers['content-type']).toMatch(/^application\/json/);
    expect(() => new Webhook(`whsec_${Buffer.from('not the secret').toString('base64')}`).verify(delivered!.body, delivered!.headers)).toThrow();
    // Only the completion is called back; the merchant's webhooks still get their Shape A events.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(callbacksFor(payment.id)).toHaveLength(1);
    const events = await eventually(async () => webhooks.received.filter((w) => w.json.data?.object?.id === payment.id), (list) => list.some((w) => w.json.type === 'payment.succeeded'));
    expect(events.every((w) => w.json.data.object.status === w.json.data.object.status.toUpperCase())).toBe(true);
  });

  it('a declined payment calls back failed; an endpoint that fails is retried like a webhook', async () => {
    callbacks.respondWith(500, 200);
    const payment = (await createHostedB({ callback_url: callbacks.url })).json;
    await submitCard(payment.redirect_url, '4000000000009995');
    const attempts = await eventually(async () => callbacksFor(payment.id), (list) => list.length >= 2, 30_000);
    expect(new Set(attempts.map((w) => w.headers['webhook-id'])).size).toBe(1);
    expect(verify(attempts[1]!)).toMatchObject({ id: payment.id, status: 'failed', decline_code: 'insufficient_funds' });
  });
});
