// The Hosted Payment Page in a real browser (Chromium, no JavaScript needed by the page): the
// shopper fills the form, goes through the sandbox's 3D Secure page when asked, and lands on the
// merchant's return page; the merchant then reads the result from the API.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningApi } from '../../src/api/server';
import { call, createMerchant, startTestApi, type TestMerchant } from '../helpers/api';
import { collectCspViolations, launchBrowser, screenshot, startReturnServer, type ReturnServer } from '../helpers/browser';
import { FUTURE_YEAR, getPayment, waitForStatus } from '../helpers/payments';
import { SANDBOX_URL } from '../helpers/sandbox';

const EXP = `12/${String(FUTURE_YEAR).slice(-2)}`;

let api: RunningApi;
let merchant: TestMerchant;
let browser: Browser;
let shop: ReturnServer;
let context: BrowserContext;
let page: Page;
let cspViolations: string[];

beforeAll(async () => {
  api = await startTestApi({ paymentActionTtlSeconds: 120 });
  merchant = await createMerchant(api, { name: 'Northwind Coffee Roasters' });
  shop = await startReturnServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await api?.close();
});
beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 720, height: 900 } });
  page = await context.newPage();
  cspViolations = collectCspViolations(page);
});
afterEach(async () => {
  await context.close();
  // The pages work within their own Content-Security-Policy (style hash, form-action origins).
  expect(cspViolations).toEqual([]);
});

async function createHosted(target: RunningApi = api, overrides: Record<string, unknown> = {}) {
  const res = await call(target, 'POST', '/v1/payments/hpp', {
    key: merchant.testKey,
    body: {
      amount: 4999,
      currency: 'USD',
      customer_ip_address: '203.0.113.7',
      return_url: `${shop.url}/return?order=1042`,
      description: 'Order #1042 · 2 × Ethiopia Guji, 250 g',
      billing_details: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', address: { line1: '12 Analytical St', city: 'London', postal_code: 'N1 9GU', country: 'GB' } },
      ...overrides,
    },
  });
  expect(res.status).toBe(201);
  return res.json;
}

async function fillCard(number: string): Promise<void> {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry date').fill(EXP);
  await page.getByLabel('Security code').fill('123');
}

/** Waits until the browser is back on the merchant's return page and returns the payment_id it brought. */
async function backAtShop(): Promise<string | null> {
  await page.waitForURL((url) => url.toString().startsWith(`${shop.url}/return`));
  await page.getByRole('heading', { name: 'Back at the shop' }).waitFor();
  const url = new URL(page.url());
  expect(url.searchParams.get('order')).toBe('1042');
  return url.searchParams.get('payment_id');
}

it('frictionless card: the form, then the return page, then SUCCEEDED', async () => {
  const payment = await createHosted();
  const response = await page.goto(payment.next_action.redirect_url);
  expect(response?.status()).toBe(200);
  await expect(page.title()).resolves.toBe('Pay $49.99 to Northwind Coffee Roasters');
  await page.getByText('Northwind Coffee Roasters').first().waitFor();
  // Prefilled from the billing details.
  expect(await page.getByLabel('Name on card').inputValue()).toBe('Ada Lovelace');
  await page.getByText('ada@example.com').waitFor();
  await screenshot(page, 'hosted-page-form.png');

  await fillCard('4242 4242 4242 4242');
  await page.getByRole('button', { name: 'Pay $49.99' }).click();
  expect(await backAtShop()).toBe(payment.id);
  const succeeded = await waitForStatus(api, merchant.testKey, payment.id, 'SUCCEEDED');
  expect(succeeded.card).toMatchObject({ brand: 'VISA', last4: '4242', cardholder_name: 'Ada Lovelace' });

  // Back in history and submitting again authorizes nothing: the page now says it is done.
  await page.goto(payment.next_action.redirect_url);
  await page.getByRole('heading', { name: 'This payment is already completed' }).waitFor();
});

it('3D Secure challenge, authenticated: sandbox page, Authenticate, return page, SUCCEEDED', async () => {
  const payment = await createHosted();
  await page.goto(payment.next_action.redirect_url);
  await fillCard('4000000000003220');
  await page.getByRole('button', { name: /^Pay / }).click();
  await page.waitForURL((url) => url.toString().startsWith(`${SANDBOX_URL}/3ds/`));
  await page.getByRole('heading', { name: 'Confirm your payment' }).waitFor();
  const waiting = (await getPayment(api, merchant.testKey, payment.id)).json;
  expect(waiting.next_action).toEqual({ type: 'redirect', reason: 'three_d_secure', redirect_url: page.url() });
  await screenshot(page, 'hosted-page-3ds.png');

  await page.getByRole('button', { name: 'Authenticate' }).click();
  expect(await backAtShop()).toBe(payment.id);
  await waitForStatus(api, merchant.testKey, payment.id, 'SUCCEEDED');
});

it('3D Secure challenge, failed: Fail, return page, FAILED three_d_secure_failed', async () => {
  const payment = await createHosted();
  await page.goto(payment.next_action.redirect_url);
  await fillCard('4000000000003220');
  await page.getByRole('button', { name: /^Pay / }).click();
  await page.getByRole('button', { name: 'Fail' }).click();
  expect(await backAtShop()).toBe(payment.id);
  const failed = await waitForStatus(api, merchant.testKey, payment.id, 'FAILED');
  expect(failed.failure_code).toBe('three_d_secure_failed');
});

it('3D Secure device step continues by itself into the challenge', async () => {
  const payment = await createHosted(api, { currency: 'JPY', amount: 4999 });
  await page.goto(payment.next_action.redirect_url);
  await page.getByText('¥4,999').first().waitFor();
  await fillCard('4000000000003063');
  await page.getByRole('button', { name: 'Pay ¥4,999' }).click();
  await page.getByRole('heading', { name: 'Confirm your payment' }).waitFor();
  await page.getByRole('button', { name: 'Authenticate' }).click();
  expect(await backAtShop()).toBe(payment.id);
  await waitForStatus(api, merchant.testKey, payment.id, 'SUCCEEDED');
});

it('an invalid card number re-renders the form with an accessible message; the Payment stays open', async () => {
  const payment = await createHosted();
  await page.goto(payment.next_action.redirect_url);
  await fillCard('4242 4242 4242 4241');
  const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: /^Pay / }).click()]);
  expect(response.status()).toBe(422);
  await page.getByRole('alert').getByText('This card number is not valid. Check it and try again.').waitFor();
  const number = page.getByLabel('Card number');
  expect(await number.getAttribute('aria-invalid')).toBe('true');
  expect(await number.inputValue()).toBe('');
  expect(await page.getByLabel('Expiry date').inputValue()).toBe(EXP);
  await screenshot(page, 'hosted-page-invalid.png');
  expect((await getPayment(api, merchant.testKey, payment.id)).json).toMatchObject({ status: 'REQUIRES_ACTION', next_action: { reason: 'hosted_payment_page' } });

  // Corrected, it goes through.
  await fillCard('4242 4242 4242 4242');
  await page.getByRole('button', { name: /^Pay / }).click();
  expect(await backAtShop()).toBe(payment.id);
});

describe('expiry', () => {
  let shortApi: RunningApi;
  beforeAll(async () => { shortApi = await startTestApi({ paymentActionTtlSeconds: 2 }); });
  afterAll(async () => { await shortApi?.close(); });

  it('an expired payment shows the expiry page', async () => {
    const payment = await createHosted(shortApi);
    await waitForStatus(shortApi, merchant.testKey, payment.id, 'EXPIRED');
    const response = await page.goto(payment.next_action.redirect_url);
    expect(response?.status()).toBe(410);
    await page.getByRole('heading', { name: 'This payment page has expired' }).waitFor();
    expect(await page.locator('form').count()).toBe(0);
    await screenshot(page, 'hosted-page-expired.png');
    await page.getByRole('link', { name: 'Return to Northwind Coffee Roasters' }).click();
    expect(await backAtShop()).toBe(payment.id);
  });
});
