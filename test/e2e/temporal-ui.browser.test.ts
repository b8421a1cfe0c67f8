// Operators find stuck payouts in the Temporal UI of the dev server with the query of
// docs/operations.md, and read a Payment's decrypted input through the codec server the UI is
// configured with (test/helpers/global-setup.ts), in a real browser.
import type { Browser } from 'playwright-core';
import type { RunningApi } from '../../src/api/server';
import { call, createMerchant, directPaymentBody, eventually, startTestApi } from '../helpers/api';
import { launchBrowser, screenshot } from '../helpers/browser';
import { clearSandboxFaults, setSandboxFaults } from '../helpers/sandbox';
import { rawHistoryText } from '../helpers/scan';
import { TEST_ENV } from '../helpers/test-env';

let api: RunningApi;
let browser: Browser;

beforeAll(async () => {
  api = await startTestApi();
  browser = await launchBrowser();
});
afterAll(async () => {
  await clearSandboxFaults();
  await browser.close();
  await api.close();
});

it('the stuck-payout query lists a pending payout with its search attributes', async () => {
  const merchant = await createMerchant(api, { name: 'UI Shop' });
  // The provider keeps answering 503: the payout is accepted as PENDING and stays there.
  await setSandboxFaults({ fail_next: 10_000, fail_status: 503, path_prefix: '/v1/payouts' });
  const res = await call(api, 'POST', '/v1/payouts', {
    key: merchant.testKey,
    body: { amount: 2500, currency: 'EUR', initiator_ip_address: '203.0.113.7', recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' }, destination: { card_number: '4242424242424242' } },
  });
  expect(res.status).toBe(201);
  expect(res.json.status).toBe('PENDING');
  const payoutId: string = res.json.id;

  // Visibility is eventually consistent: wait until the server answers the same query.
  const query = 'ObjectType="payout" AND ObjectStatus="PENDING"';
  await eventually(async () => {
    const ids: string[] = [];
    for await (const w of api.deps.temporal.workflow.list({ query })) ids.push(w.workflowId);
    return ids;
  }, (ids) => ids.includes(payoutId));

  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  try {
    const url = `http://127.0.0.1:${TEST_ENV.temporalUiPort}/namespaces/default/workflows?query=${encodeURIComponent(query)}`;
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    await page.getByText(payoutId).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'temporal-ui-stuck-payouts.png');

    // The workflow page shows the operator-facing summary.
    await page.goto(`http://127.0.0.1:${TEST_ENV.temporalUiPort}/namespaces/default/workflows/${payoutId}`, { waitUntil: 'domcontentloaded' });
    await page.getByText('UI Shop: payout of 2500 EUR').first().waitFor({ timeout: 30_000 });
    expect(await page.textContent('body')).toContain('PayoutWorkflow');
    await screenshot(page, 'temporal-ui-payout.png');
  } finally {
    await page.close();
  }
}, 120_000);

it('a Payment\'s workflow page shows its input decrypted through the codec server', async () => {
  const merchant = await createMerchant(api, { name: 'Codec Shop' });
  const holder = 'Wilhelmina Codecworth';
  const res = await call(api, 'POST', '/v1/payments', { key: merchant.testKey, body: directPaymentBody({ description: 'Brass astrolabe' }, { holder_name: holder }) });
  expect(res.status).toBe(201);
  const paymentId: string = res.json.id;
  // Stored encrypted: only the codec server can show it.
  expect(await rawHistoryText(api.deps.temporal, paymentId)).not.toContain(holder);

  const page = await browser.newPage({ viewport: { width: 1440, height: 1400 } });
  const decodeCalls: string[] = [];
  page.on('request', (request) => { if (request.url().startsWith(`http://127.0.0.1:${TEST_ENV.codecPort}/decode`)) decodeCalls.push(request.method()); });
  try {
    await page.goto(`http://127.0.0.1:${TEST_ENV.temporalUiPort}/namespaces/default/workflows/${paymentId}`, { waitUntil: 'domcontentloaded' });
    await page.getByText('Codec Shop: 4999 USD').first().waitFor({ timeout: 30_000 });
    await page.getByText(holder).first().waitFor({ timeout: 30_000 });
    const body = await page.textContent('body');
    expect(body).toContain('Brass astrolabe');
    expect(body).toContain(paymentId);
    expect(decodeCalls.filter((m) => m === 'POST').length).toBeGreaterThan(0);
    await screenshot(page, 'temporal-ui-payment-decoded.png');
  } finally {
    await page.close();
  }
}, 120_000);
