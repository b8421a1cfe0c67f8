// The Hosted Payment Page over HTTP, as a browser without JavaScript would use it: the API create,
// the rendered form, its headers, invalid input, provider errors, frictionless, declined and 3D
// Secure submissions, double submits and expiry, against the real sandbox, Temporal and MariaDB.
import fs from 'node:fs';
import path from 'node:path';
import type { RunningApi } from '../../src/api/server';
import { call, createMerchant, eventually, startTestApi, useTestApi } from '../helpers/api';
import { FUTURE_YEAR, PAYMENT_ID, getPayment, waitForStatus } from '../helpers/payments';
import { TEST_LOG_DIR, type ManagedProcess } from '../helpers/processes';
import { startWorkerProcess } from '../helpers/temporal';
import { SANDBOX_URL, clearSandboxFaults, follow, sandboxRecords, setSandboxFaults, submitOutcome } from '../helpers/sandbox';
import { historyText } from '../helpers/scan';

const RETURN_URL = 'https://shop.example/return?order=42';
const EXP = `12/${String(FUTURE_YEAR).slice(-2)}`;
const NBSP = /\u00a0/g;


// Long enough for the 3DS round trips below on a busy machine; expiry has its own API.
const t = useTestApi({ config: { paymentActionTtlSeconds: 120 }, merchant: { name: 'Northwind Coffee & Co' } });

function hostedBody(overrides: Record<string, unknown> = {}) {
  return {
    amount: 4999,
    currency: 'USD',
    customer_ip_address: '203.0.113.7',
    return_url: RETURN_URL,
    description: 'Order #42',
    billing_details: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
    ...overrides,
  };
}

async function createHosted(target: RunningApi = t.api, overrides: Record<string, unknown> = {}, key = t.merchant.testKey) {
  const res = await call(target, 'POST', '/v1/payments/hpp', { key, body: hostedBody(overrides) });
  expect(res.status).toBe(201);
  return res.json;
}

/** The page path of a hosted Payment, e.g. /checkout/AbC... */
const pagePath = (payment: { next_action: { redirect_url: string } }) => new URL(payment.next_action.redirect_url).pathname;

async function openPage(target: RunningApi, pagePathname: string) {
  const res = await fetch(`${target.url}${pagePathname}`, { redirect: 'manual' });
  return { status: res.status, headers: res.headers, html: (await res.text()).replace(NBSP, ' ') };
}

async function submitCard(target: RunningApi, pagePathname: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${target.url}${pagePathname}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: res.status, headers: res.headers, location: res.headers.get('location'), html: (await res.text()).replace(NBSP, ' ') };
}

const card = (number: string, overrides: Record<string, string> = {}) => ({ card_number: number, exp: EXP, cvc: '123', cardholder_name: 'Ada Lovelace', ...overrides });

const returnUrlFor = (id: string) => `https://shop.example/return?order=42&payment_id=${id}`;

async function vaultRows(merchantId: string): Promise<number> {
  const rows: Array<{ n: number | string }> = await t.api.deps.dataSource.query('SELECT COUNT(*) AS n FROM card_vault WHERE merchant_id = ?', [merchantId]);
  return Number(rows[0]!.n);
}

function expectPageHeaders(headers: Headers): void {
  expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
  const csp = headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('cache-control')).toBe('no-store');
}

describe('POST /v1/payments/hpp', () => {
  it('201 HOSTED_PAYMENT_PAGE, REQUIRES_ACTION with the exact hosted page URL; no card and nothing refundable', async () => {
    const res = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, body: hostedBody({ merchant_reference: 1234567890 }) });
    expect(res.status).toBe(201);
    const payment = res.json;
    expect(payment).toMatchObject({
      amount: 4999, currency: 'USD', status: 'REQUIRES_ACTION', integration_type: 'HOSTED_PAYMENT_PAGE', merchant_reference: 1234567890,
      description: 'Order #42', card: null, failure_code: null, amount_refunded: 0, amount_refundable: 0, refunds: [], livemode: false,
      billing_details: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', phone: null, address: null },
    });
    expect(payment.id).toMatch(PAYMENT_ID);
    expect(payment.next_action).toEqual({ type: 'redirect', reason: 'hosted_payment_page', redirect_url: expect.stringMatching(new RegExp(`^${t.api.url}/checkout/[A-Za-z0-9]{32}$`)) });
    expect(typeof payment.status_transitions.requires_action_at).toBe('number');

    const read = await getPayment(t.api, t.merchant.testKey, payment.id);
    expect(read.json).toEqual(payment);
    // The page at that exact URL is this payment's form.
    const page = await fetch(payment.next_action.redirect_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Order #42');
  });

  it('every payment gets its own hosted URL', async () => {
    const [a, b] = await Promise.all([createHosted(), createHosted()]);
    expect(a.next_action.redirect_url).not.toBe(b.next_action.redirect_url);
  });

  it('the idempotency identity uses the normalised currency: " eur" and "EUR" with one key replay', async () => {
    const key = `hpp-${Date.now()}`;
    const first = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, idempotencyKey: key, body: hostedBody({ currency: ' eur' }) });
    expect(first.status).toBe(201);
    expect(first.json.currency).toBe('EUR');
    const replay = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, idempotencyKey: key, body: hostedBody({ currency: 'EUR' }) });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    const changed = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, idempotencyKey: key, body: hostedBody({ currency: 'GBP' }) });
    expect(changed.status).toBe(409);
    expect(changed.json.error.code).toBe('idempotency_key_reused');
  });
});

describe('GET /checkout/:token', () => {
  it('shows the merchant, the amount, prefilled billing details and an accessible card form, with strict headers', async () => {
    const payment = await createHosted(t.api, { billing_details: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', address: { line1: '12 Analytical St', city: 'London', postal_code: 'N1 9GU', country: 'GB' } } });
    const page = await openPage(t.api, pagePath(payment));
    expect(page.status).toBe(200);
    expectPageHeaders(page.headers);
    // form-action: this service, the sandbox 3DS pages and the merchant's return page (redirect targets of the POST).
    expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' https://shop.example ${SANDBOX_URL}`);
    const { html } = page;
    expect(html).toContain('Northwind Coffee &amp; Co');
    expect(html).toContain('$49.99');
    expect(html).toContain('Order #42');
    expect(html).toContain('ada@example.com');
    expect(html).toContain('12 Analytical St');
    expect(html).toMatch(/<form method="post"/);
    expect(html).not.toMatch(/<script|<link |src="http/i);
    for (const [name, autocomplete] of [['card_number', 'cc-number'], ['exp', 'cc-exp'], ['cvc', 'cc-csc'], ['cardholder_name', 'cc-name']]) {
      expect(html).toContain(`<label for="${name}">`);
      expect(html).toMatch(new RegExp(`<input id="${name}" name="${name}"[^>]*autocomplete="${autocomplete}"`));
    }
    expect(html).toMatch(/<input id="cardholder_name"[^>]*value="Ada Lovelace"/);
    expect(html).toContain('Pay $49.99');
  });

  it.each([
    ['USD', 4999, '$49.99'],
    ['JPY', 4999, '¥4,999'],
    ['KWD', 1234, 'KWD 1.234'],
    ['EUR', 5, '€0.05'],
  ])('formats %s %i as %s', async (currency, amount, shown) => {
    const payment = await createHosted(t.api, { currency, amount });
    const page = await openPage(t.api, pagePath(payment));
    expect(page.html).toContain(`<p class="amount">${shown}</p>`);
    expect(page.html).toContain(`Pay ${shown}`);
  });

  it('an unknown or malformed token is a 404 page', async () => {
    for (const token of ['A'.repeat(32), 'not-a-token', 'return']) {
      const page = await openPage(t.api, `/checkout/${token}`);
      expect(page.status).toBe(404);
      expectPageHeaders(page.headers);
      expect(page.html).toContain('Payment page not found');
    }
  });
});

describe('POST /checkout/:token', () => {
  it('invalid input re-renders the form with messages (422) and keeps the Payment open; the form then still works', async () => {
    const payment = await createHosted();
    const page = pagePath(payment);
    const invalid = await submitCard(t.api, page, card('4242424242424241', { exp: '13/40', cvc: '12', cardholder_name: 'Grace Hopper' }));
    expect(invalid.status).toBe(422);
    expectPageHeaders(invalid.headers);
    expect(invalid.html).toContain('This card number is not valid');
    expect(invalid.html).toContain('The expiry month must be between 01 and 12.');
    expect(invalid.html).toContain('The security code is the 3 or 4 digits on your card.');
    expect(invalid.html).toMatch(/<input id="card_number"[^>]*aria-describedby="card_number-error" aria-invalid="true"/);
    expect(invalid.html).toMatch(/<input id="cardholder_name"[^>]*value="Grace Hopper"/);
    // Nothing typed into the card number or CVC comes back.
    expect(invalid.html).not.toContain('4242424242424241');

    const after = await getPayment(t.api, t.merchant.testKey, payment.id);
    expect(after.json).toMatchObject({ status: 'REQUIRES_ACTION', card: null, next_action: payment.next_action });
    expect((await sandboxRecords(payment.id)).authorizations).toHaveLength(0);
    expect((await openPage(t.api, page)).status).toBe(200);

    const valid = await submitCard(t.api, page, card('4242 4242 4242 4242'));
    expect(valid.status).toBe(303);
    expect(valid.location).toBe(returnUrlFor(payment.id));
  });

  it('frictionless: 303 to return_url with payment_id, then SUCCEEDED; the card vault is emptied', async () => {
    const payment = await createHosted(t.api, { amount: 2500 });
    const res = await submitCard(t.api, pagePath(payment), card('5555555555554444', { cardholder_name: 'Grace Hopper' }));
    expect(res.status).toBe(303);
    expect(res.location).toBe(returnUrlFor(payment.id));
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');

    const processing = await getPayment(t.api, t.merchant.testKey, payment.id);
    expect(['PROCESSING', 'SUCCEEDED']).toContain(processing.json.status);
    expect(processing.json).toMatchObject({
      integration_type: 'HOSTED_PAYMENT_PAGE', next_action: null,
      card: { brand: 'MASTERCARD', last4: '4444', exp_month: 12, exp_year: FUTURE_YEAR, cardholder_name: 'Grace Hopper', country: 'US' },
    });
    const succeeded = await waitForStatus(t.api, t.merchant.testKey, payment.id, 'SUCCEEDED');
    expect(succeeded).toMatchObject({ amount_refundable: 2500, amount_refunded: 0, failure_code: null });
    const records = await sandboxRecords(payment.id);
    expect(records.authorizations).toHaveLength(1);
    expect(records.authorizations[0]).toMatchObject({ amount: 2500, currency: 'USD', status: 'succeeded' });
    await eventually(() => vaultRows(t.merchant.merchantId), (n) => n === 0);
  });

  it('a second POST after success shows "already completed" and authorizes nothing more', async () => {
    const payment = await createHosted();
    const page = pagePath(payment);
    expect((await submitCard(t.api, page, card('4242424242424242'))).status).toBe(303);
    const again = await submitCard(t.api, page, card('5555555555554444'));
    expect(again.status).toBe(409);
    expectPageHeaders(again.headers);
    expect(again.html).toMatch(/This payment is already (completed|being processed)/);
    expect(again.html).toContain(`href="${returnUrlFor(payment.id).replace(/&/g, '&amp;')}"`);
    await waitForStatus(t.api, t.merchant.testKey, payment.id, 'SUCCEEDED');
    const done = await submitCard(t.api, page, card('5555555555554444'));
    expect(done.status).toBe(409);
    expect(done.html).toContain('This payment is already completed');
    const shown = await openPage(t.api, page);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain('This payment is already completed');
    expect((await sandboxRecords(payment.id)).authorizations).toHaveLength(1);
    expect((await getPayment(t.api, t.merchant.testKey, payment.id)).json.card.last4).toBe('4242');
  });

  it('submissions at once authorize once, and every card leaves the vault', async () => {
    const payment = await createHosted();
    const page = pagePath(payment);
    // Several at once, so some reach the workflow in one workflow task: its handlers then start
    // together and only one may authorize (the others' cards are shredded unused).
    const cards = ['4242424242424242', '5555555555554444', '4000056655665556', '5200828282828210'];
    const answers = await Promise.all(cards.map((number) => submitCard(t.api, page, card(number))));
    expect(answers.some((a) => a.status === 303)).toBe(true);
    await eventually(() => getPayment(t.api, t.merchant.testKey, payment.id), (r) => r.json.status !== 'REQUIRES_ACTION');
    const authorizations = (await sandboxRecords(payment.id)).authorizations;
    expect(authorizations).toHaveLength(1);
    // The Payment shows the card the acquirer authorized, not a later submission's.
    expect((await getPayment(t.api, t.merchant.testKey, payment.id)).json.card.last4).toBe(authorizations[0]!.card_last4);
    await eventually(() => vaultRows(t.merchant.merchantId), (n) => n === 0);
  });

  it('declined: 303 to return_url with payment_id; the merchant reads FAILED', async () => {
    const payment = await createHosted();
    const res = await submitCard(t.api, pagePath(payment), card('4000000000009995'));
    expect(res.status).toBe(303);
    expect(res.location).toBe(returnUrlFor(payment.id));
    const failed = (await getPayment(t.api, t.merchant.testKey, payment.id)).json;
    expect(failed).toMatchObject({ status: 'FAILED', failure_code: 'insufficient_funds', card: { last4: '9995' }, next_action: null, amount_refundable: 0 });
    const shown = await openPage(t.api, pagePath(payment));
    expect(shown.html).toContain('This payment was not completed');
  });

  it('3D Secure: 303 to the challenge, which next_action now shows; authenticate returns to the merchant, then SUCCEEDED', async () => {
    const payment = await createHosted();
    const res = await submitCard(t.api, pagePath(payment), card('4000000000003220'));
    expect(res.status).toBe(303);
    expect(res.location).toMatch(new RegExp(`^${SANDBOX_URL}/3ds/`));
    const waiting = (await getPayment(t.api, t.merchant.testKey, payment.id)).json;
    expect(waiting).toMatchObject({ status: 'REQUIRES_ACTION', next_action: { type: 'redirect', reason: 'three_d_secure', redirect_url: res.location }, card: { last4: '3220' } });
    expect(waiting.status_transitions.requires_action_at).toBe(payment.status_transitions.requires_action_at);

    // Back on the hosted page meanwhile: no second form, a way on to the bank.
    const back = await openPage(t.api, pagePath(payment));
    expect(back.status).toBe(200);
    expect(back.html).toContain('Continue to your bank');
    expect(back.html).toContain(`href="${res.location}"`);
    expect((await submitCard(t.api, pagePath(payment), card('4242424242424242'))).status).toBe(409);

    const done = await submitOutcome(res.location!, 'authenticate');
    expect(done.status).toBe(303);
    const returned = await follow(done.location!, res.location!);
    expect(returned.status).toBe(303);
    expect(returned.location).toBe(returnUrlFor(payment.id));
    await waitForStatus(t.api, t.merchant.testKey, payment.id, 'SUCCEEDED');
  });

  it('3D Secure failed: FAILED three_d_secure_failed', async () => {
    const payment = await createHosted();
    const res = await submitCard(t.api, pagePath(payment), card('4000000000003220'));
    const done = await submitOutcome(res.location!, 'fail');
    expect(done.status).toBe(303);
    expect((await follow(done.location!, res.location!)).location).toBe(returnUrlFor(payment.id));
    await waitForStatus(t.api, t.merchant.testKey, payment.id, 'FAILED');
    expect((await getPayment(t.api, t.merchant.testKey, payment.id)).json.failure_code).toBe('three_d_secure_failed');
  });

  it.each([['4000004290000003'], ['4000005020000007'], ['4000005030000005']])('provider error (%s): re-rendered with "try again", the Payment stays open', async (number) => {
    const payment = await createHosted();
    const page = pagePath(payment);
    const res = await submitCard(t.api, page, card(number));
    expect(res.status).toBe(503);
    expectPageHeaders(res.headers);
    expect(res.html).toContain('Please try again in a moment.');
    expect(res.html).toContain('<form method="post"');
    const after = (await getPayment(t.api, t.merchant.testKey, payment.id)).json;
    expect(after).toMatchObject({ status: 'REQUIRES_ACTION', next_action: payment.next_action });
    // The refused card does not stay in the vault.
    expect(await vaultRows(t.merchant.merchantId)).toBe(0);

    const retry = await submitCard(t.api, page, card('4242424242424242'));
    expect(retry.status).toBe(303);
    expect(retry.location).toBe(returnUrlFor(payment.id));
    await waitForStatus(t.api, t.merchant.testKey, payment.id, 'SUCCEEDED');
  });

  it('a card whose authorization got no answer, then another card: the Payment is the authorization the provider holds, on the first card', async () => {
    const payment = await createHosted();
    const page = pagePath(payment);
    // The acquirer authorizes the first card, then the connection drops before its answer.
    await setSandboxFaults({ reset_after_next: 1, path_prefix: '/v1/authorizations', method: 'POST' });
    const first = await submitCard(t.api, page, card('4242424242424242'));
    await clearSandboxFaults();
    expect(first.status).toBe(503);
    expect(first.html).toContain('Please try again in a moment.');
    expect((await sandboxRecords(payment.id)).authorizations).toHaveLength(1);

    // Under the same provider key the second card would be answered with the first one's authorization.
    const second = await submitCard(t.api, page, card('5555555555554444'));
    expect(second.status).toBe(303);
    expect(second.location).toBe(returnUrlFor(payment.id));
    const settled = await waitForStatus(t.api, t.merchant.testKey, payment.id, 'SUCCEEDED');
    expect(settled.card).toMatchObject({ brand: 'VISA', last4: '4242' });
    expect((await sandboxRecords(payment.id)).authorizations.map((a) => a.card_last4)).toEqual(['4242']);
    await eventually(() => vaultRows(t.merchant.merchantId), (n) => n === 0);
  });

  it('refuses a POST a browser marks as cross-site', async () => {
    const payment = await createHosted();
    const res = await submitCard(t.api, pagePath(payment), card('4242424242424242'), { 'Sec-Fetch-Site': 'cross-site' });
    expect(res.status).toBe(403);
    expect((await getPayment(t.api, t.merchant.testKey, payment.id)).json.status).toBe('REQUIRES_ACTION');
  });

  it('an unknown token is a 404 page', async () => {
    const res = await submitCard(t.api, `/checkout/${'b'.repeat(32)}`, card('4242424242424242'));
    expect(res.status).toBe(404);
    expect(res.html).toContain('Payment page not found');
  });

  it('no card number reaches the database, the logs or the workflow history', async () => {
    const payment = await createHosted();
    const number = '6011111111111117';
    expect((await submitCard(t.api, pagePath(payment), card(number))).status).toBe(303);
    await waitForStatus(t.api, t.merchant.testKey, payment.id, 'SUCCEEDED');
    const rows = await t.api.deps.dataSource.query('SELECT * FROM payments WHERE id = ?', [payment.id]);
    // Payloads decrypted: the submission is there, with the masked card only.
    const history = await historyText(t.api.deps.temporal, payment.id);
    expect(history.includes('submitHostedCard') && history.includes('1117')).toBe(true);
    const logs = ['api.log', 'worker.log'].map((file) => fs.readFileSync(path.join(TEST_LOG_DIR, file), 'utf8'));
    for (const [where, text] of [['payments row', JSON.stringify(rows)], ['history', history], ['api.log', logs[0]!], ['worker.log', logs[1]!]]) {
      expect({ where, leaked: text!.includes(number) }).toEqual({ where, leaked: false });
    }
  });
});

describe('expiry', () => {
  let shortApi: RunningApi;
  beforeAll(async () => { shortApi = await startTestApi({ paymentActionTtlSeconds: 2 }); });
  afterAll(async () => { await shortApi.close(); });

  it('an EXPIRED Payment shows the expiry page (410) and takes no card', async () => {
    const payment = await createHosted(shortApi);
    await waitForStatus(shortApi, t.merchant.testKey, payment.id, 'EXPIRED');
    const page = await openPage(shortApi, pagePath(payment));
    expect(page.status).toBe(410);
    expectPageHeaders(page.headers);
    expect(page.html).toContain('This payment page has expired');
    expect(page.html).not.toContain('<form');
    const res = await submitCard(shortApi, pagePath(payment), card('4242424242424242'));
    expect(res.status).toBe(410);
    expect((await sandboxRecords(payment.id)).authorizations).toHaveLength(0);
    expect(await vaultRows(t.merchant.merchantId)).toBe(0);
  });
});

describe('submissions that reach the workflow in one workflow task', () => {
  const QUEUE = 'hosted-page-together';
  let together: RunningApi;
  let worker: ManagedProcess;

  beforeAll(async () => {
    // Payments of this API run on a queue only this block's worker polls, so the worker can be
    // away while submissions queue up.
    together = await startTestApi({ taskQueue: QUEUE, paymentActionTtlSeconds: 120 });
    worker = await startWorkerProcess(`hosted-together-${Date.now()}`, QUEUE);
  }, 150_000);
  afterAll(async () => {
    await worker.stop();
    await together.close();
  });

  it('only one authorizes; the Payment shows the card the acquirer authorized; every card leaves the vault', async () => {
    const shop = await createMerchant(together, { name: 'Together Shop' });
    const payment = await createHosted(together, {}, shop.testKey);
    const page = pagePath(payment);
    await worker.stop();
    const cards = ['4242424242424242', '5555555555554444', '4000056655665556', '5200828282828210'];
    const answers = Promise.all(cards.map((number) => submitCard(together, page, card(number))));
    // Every submission has sealed its card and sent its update; none can start before the worker is back.
    await eventually(() => vaultRows(shop.merchantId), (n) => n === cards.length);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    worker = await startWorkerProcess(`hosted-together-${Date.now()}`, QUEUE);

    expect((await answers).map((a) => a.status).filter((s) => s !== 303 && s !== 409)).toEqual([]);
    const authorizations = (await sandboxRecords(payment.id)).authorizations;
    expect(authorizations).toHaveLength(1);
    const shown = await eventually(() => getPayment(together, shop.testKey, payment.id), (r) => r.json.status !== 'REQUIRES_ACTION');
    expect(shown.json.card.last4).toBe(authorizations[0]!.card_last4);
    await eventually(() => vaultRows(shop.merchantId), (n) => n === 0);
  }, 180_000);
});
