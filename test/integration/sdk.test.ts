// The SDK (sdk/, @card-payments/sdk) against the real service: a merchant's journey through every
// resource (payments, refunds, payouts, webhook endpoints, events), lists awaited as a page and
// iterated across pages, errors as PaymentsApiError, and webhooks.verify on a real delivery (and
// its refusal of a tampered one). Real MariaDB, Temporal, sandbox and worker.
import { randomUUID } from 'node:crypto';
import {
  PaymentsApiError, PaymentsClient, WebhookSignatureError, type Payment, type PaymentCreateParams, type WebhookEvent,
} from '../../sdk/src';
import { createMerchant, eventually, useTestApi } from '../helpers/api';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const t = useTestApi({ merchant: { name: 'SDK Shop' } });
let client: PaymentsClient;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  client = new PaymentsClient({ apiKey: t.merchant.testKey, baseUrl: t.api.url });
});
afterAll(async () => { await receiver.close(); });

const paymentParams = (number = '4242424242424242', overrides: Partial<PaymentCreateParams> = {}): PaymentCreateParams => ({
  amount: 4999,
  currency: 'EUR',
  customer_ip_address: '203.0.113.7',
  return_url: 'https://shop.example/return',
  merchant_reference: 1234567890,
  payment_method_data: { type: 'card', card: { number, exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123', holder_name: 'Ada Lovelace' } },
  ...overrides,
});

async function succeeded(payment: Payment): Promise<Payment> {
  return eventually(() => client.payments.retrieve(payment.id), (current) => current.status === 'SUCCEEDED');
}

describe('payments', () => {
  it('create, createHosted and retrieve, typed, with the request pinned to the SDK\'s version', async () => {
    const created = await client.payments.create(paymentParams());
    expect(created).toMatchObject({ id: expect.stringMatching(/^pay_/), status: 'PROCESSING', amount: 4999, currency: 'EUR', integration_type: 'DIRECT' });
    expect(created.lastResponse).toMatchObject({ status: 201, requestId: expect.stringMatching(/^req_/), idempotencyKey: expect.any(String), replayed: false, attempts: 1 });
    expect(JSON.stringify(created)).not.toContain('lastResponse');
    const hosted = await client.payments.createHosted({ amount: 12000, currency: 'EUR', customer_ip_address: '2001:db8::7', return_url: 'https://shop.example/return' });
    expect(hosted).toMatchObject({ status: 'REQUIRES_ACTION', next_action: { reason: 'hosted_payment_page' } });
    expect((await succeeded(created)).amount_refundable).toBe(4999);

    // The merchant's default version may be another: the SDK's requests still speak its own.
    const older = await createMerchant(t.api, { name: 'Older Shop', defaultVersion: '2024-06-01' });
    const pinned = new PaymentsClient({ apiKey: older.testKey, baseUrl: t.api.url });
    expect((await pinned.payments.create(paymentParams())).status).toBe('PROCESSING');
  });

  it('the same idempotencyKey creates one Payment: the second call is the saved answer', async () => {
    const idempotencyKey = randomUUID();
    const first = await client.payments.create(paymentParams(), { idempotencyKey });
    const second = await client.payments.create(paymentParams(), { idempotencyKey });
    expect(second.id).toBe(first.id);
    expect(second.lastResponse).toMatchObject({ replayed: true, idempotencyKey });
    // Without one, every call is a new Payment.
    expect((await client.payments.create(paymentParams())).id).not.toBe(first.id);
  });

  it('list: awaited, one page; iterated, every Payment of every page, newest first, filters kept', async () => {
    const shop = await createMerchant(t.api, { name: 'List Shop' });
    const lister = new PaymentsClient({ apiKey: shop.testKey, baseUrl: t.api.url });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await lister.payments.create(paymentParams(i === 2 ? '4000000000000002' : undefined))).id);
    const newestFirst = [...ids].reverse();

    const page = await lister.payments.list({ limit: 2 });
    expect(page.object).toBe('list');
    expect(page.data.map((payment) => payment.id)).toEqual(newestFirst.slice(0, 2));
    expect(page.has_more).toBe(true);

    const all: string[] = [];
    for await (const payment of lister.payments.list({ limit: 2 })) all.push(payment.id);
    expect(all).toEqual(newestFirst);

    const failed: string[] = [];
    for await (const payment of lister.payments.list({ limit: 1, status: ['FAILED'] })) failed.push(payment.id);
    expect(failed).toEqual([ids[2]]);
    expect((await lister.payments.list({ limit: 1 }).toArray({ limit: 3 })).map((payment) => payment.id)).toEqual(newestFirst.slice(0, 3));

    // Backwards from an old Payment: the newer ones, page by page.
    const newer: string[] = [];
    for await (const payment of lister.payments.list({ limit: 1, ending_before: ids[1] })) newer.push(payment.id);
    expect(newer.sort()).toEqual(ids.slice(2).sort());

    // One list object: awaiting it twice, or awaiting then iterating, asks for the first page once.
    const list = lister.payments.list({ limit: 5 });
    const [a, b] = await Promise.all([list, list]);
    expect(a).toBe(b);
  });
});

describe('refunds and payouts', () => {
  it('refunds.create refunds a succeeded Payment; the Payment shows it', async () => {
    const payment = await succeeded(await client.payments.create(paymentParams()));
    const refund = await client.refunds.create({ payment_id: payment.id, amount: 1000, reason: 'Damaged item' });
    expect(refund).toMatchObject({ id: expect.stringMatching(/^ref_/), payment_id: payment.id, status: 'PROCESSING', refund_type: 'PARTIAL', currency: 'EUR' });
    const after = await eventually(() => client.payments.retrieve(payment.id), (current) => current.amount_refunded === 1000);
    expect(after.refunds.map((item) => item.id)).toEqual([refund.id]);
  });

  it('payouts.create, retrieve, list with total_count, and iteration', async () => {
    const shop = await createMerchant(t.api, { name: 'Payout Shop' });
    const payer = new PaymentsClient({ apiKey: shop.testKey, baseUrl: t.api.url });
    const created = [];
    for (const cardNumber of ['4242424242424242', '5555555555554444', '4000000000000002']) {
      created.push(await payer.payouts.create({
        amount: 2500, currency: 'EUR', initiator_ip_address: '203.0.113.7',
        recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' }, destination: { card_number: cardNumber },
      }));
    }
    expect(created[0]).toMatchObject({ id: expect.stringMatching(/^po_/), recipient: { last_name: 'Díaz' }, destination: { last4: '4242' } });
    expect((await payer.payouts.retrieve(created[1]!.id)).destination.brand).toBe('MASTERCARD');
    const page = await payer.payouts.list({ limit: 1, card_brand: ['VISA'] });
    expect(page.total_count).toBe(2);
    const visa: string[] = [];
    for await (const payout of payer.payouts.list({ limit: 1, card_brand: ['VISA'] })) visa.push(payout.id);
    expect(visa).toEqual([created[2]!.id, created[0]!.id]);
  });
});

describe('webhook endpoints, events and webhooks.verify', () => {
  it('create (with its secret), list, retrieve, update, rotateSecret, del', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: 'https://shop.example/hooks', enabled_events: ['payment.succeeded'], description: 'Orders' });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await client.webhookEndpoints.list({ limit: 100 })).data.map((item) => item.id)).toContain(endpoint.id);
    const read = await client.webhookEndpoints.retrieve(endpoint.id);
    expect(read).toMatchObject({ id: endpoint.id, status: 'enabled' });
    expect('secret' in read).toBe(false);
    expect(await client.webhookEndpoints.update(endpoint.id, { status: 'disabled', description: null })).toMatchObject({ status: 'disabled', description: null });
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id, { grace_period_seconds: 0 });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(await client.webhookEndpoints.del(endpoint.id)).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
    const gone = await client.webhookEndpoints.retrieve(endpoint.id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(PaymentsApiError);
    expect(gone).toMatchObject({ status: 404, code: 'object_not_found', param: 'id', requestId: expect.stringMatching(/^req_/) });
  });

  it('a real delivery verifies with the endpoint\'s secret into a typed event; a tampered one is refused', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: receiver.url, enabled_events: ['payment.succeeded', 'payment.failed'] });
    const payment = await client.payments.create(paymentParams('4000000000000002'));
    const delivery = await eventually(async () => receiver.received.find((item) => item.json.data.object.id === payment.id), (found) => found !== undefined);

    const event: WebhookEvent = client.webhooks.verify(delivery!.body, delivery!.headers, endpoint.secret);
    expect(event).toMatchObject({ id: delivery!.headers['webhook-id'], type: 'payment.failed', data: { object: { id: payment.id, status: 'FAILED' } } });
    // Narrowing on `type` gives the object's type.
    if (event.type !== 'payment.failed') throw new Error(`unexpected ${event.type}`);
    expect(event.data.object.failure_code).toBe('generic_decline');
    // Buffers and fetch's Headers are taken too.
    expect(client.webhooks.verify(Buffer.from(delivery!.body), new Headers(delivery!.headers), endpoint.secret).id).toBe(event.id);

    const refuse = (body: string, headers: Record<string, string>, secret = endpoint.secret) => {
      try {
        client.webhooks.verify(body, headers, secret);
        return 'verified';
      } catch (error) {
        return error instanceof WebhookSignatureError ? 'refused' : `threw ${String(error)}`;
      }
    };
    expect(refuse(delivery!.body.replace('"FAILED"', '"SUCCEEDED"'), delivery!.headers)).toBe('refused');
    expect(refuse(delivery!.body, { ...delivery!.headers, 'webhook-id': 'evt_other' })).toBe('refused');
    expect(refuse(delivery!.body, { ...delivery!.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) })).toBe('refused');
    expect(refuse(delivery!.body, delivery!.headers, t.merchant.webhookSecret)).toBe('refused');
    const { 'webhook-signature': _removed, ...unsigned } = delivery!.headers;
    expect(refuse(delivery!.body, unsigned)).toBe('refused');
    await client.webhookEndpoints.del(endpoint.id);
  });

  it('events: list, retrieve with deliveries, retry', async () => {
    const payment = await client.payments.create(paymentParams('4000000000000002'));
    const page = await eventually(() => client.events.list({ object_id: payment.id }), (found) => found.data.length > 0);
    const [event] = page.data;
    expect(event).toMatchObject({ object: 'event', type: 'payment.failed', data: { object: { id: payment.id } } });
    const types: string[] = [];
    for await (const item of client.events.list({ limit: 2, type: ['payment.*'] })) {
      types.push(item.type);
      if (types.length === 5) break;
    }
    expect(types.length).toBeGreaterThan(0);
    expect(types.every((type) => type.startsWith('payment.'))).toBe(true);
    const detail = await client.events.retrieve(event!.id);
    expect(detail).toMatchObject({ id: event!.id, deliveries: expect.any(Array) });
    const retried = await client.events.retry(event!.id);
    expect(retried.id).toBe(event!.id);
    expect(retried.lastResponse.idempotencyKey).toEqual(expect.any(String));
  });
});

describe('errors', () => {
  it('a refused request is a PaymentsApiError with status, code, param and the Request-Id', async () => {
    const error = await client.payments.create(paymentParams(undefined, { currency: 'NOK' })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PaymentsApiError);
    const apiError = error as PaymentsApiError;
    expect(apiError).toMatchObject({ status: 422, code: 'currency_not_supported', param: 'currency', requestId: expect.stringMatching(/^req_[A-Za-z0-9]{24}$/) });
    expect(apiError.message).toMatch(/NOK|currency/);
    expect(apiError.docUrl).toContain('/docs#error-currency_not_supported');
    const unauthorized = await new PaymentsClient({ apiKey: 'svc_test_sk_nope', baseUrl: t.api.url }).payments.list().catch((caught: unknown) => caught);
    expect(unauthorized).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(() => new PaymentsClient({ apiKey: '', baseUrl: t.api.url })).toThrow(/apiKey is required/);
  });
});
