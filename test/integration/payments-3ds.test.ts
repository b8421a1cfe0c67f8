// 3D Secure on Direct Payments (docs/quickstart.md, "Test cards"): the sandbox page completed by
// plain HTTP, the browser return through the service to the merchant's return_url, the device step
// that changes the redirect URL, a decline after the challenge, and expiry after
// PAYMENT_ACTION_TTL.
import { failureMessage } from '../../src/domain/failure-codes';
import { useTestApi } from '../helpers/api';
import { createDirectPayment, getPayment, nowSeconds, waitForStatus } from '../helpers/payments';
import { signNotification } from '../../src/provider/sandbox/notify';
import { follow, openPage, sandboxRecords, submitOutcome } from '../helpers/sandbox';
import { TEST_ENV } from '../helpers/test-env';


const t = useTestApi();

const RETURN_URL = 'https://shop.example/checkout/done?order=42';

async function requiresAction(number: string) {
  const res = await createDirectPayment(t.api, t.merchant.testKey, { return_url: RETURN_URL }, { number });
  expect(res.status).toBe(201);
  expect(res.json.status).toBe('REQUIRES_ACTION');
  expect(res.json.next_action).toMatchObject({ type: 'redirect', reason: 'three_d_secure' });
  return res.json;
}

/** The browser leg after the 3DS form: sandbox -> service return -> merchant return_url. */
async function expectReturnToMerchant(location: string | null, paymentId: string): Promise<void> {
  expect(location).toBe(`${t.api.url}/checkout/return/${paymentId}`);
  const hop = await follow(location!);
  expect(hop.status).toBe(303);
  const merchantReturn = new URL(hop.location!);
  expect(`${merchantReturn.origin}${merchantReturn.pathname}`).toBe('https://shop.example/checkout/done');
  expect(merchantReturn.searchParams.get('order')).toBe('42');
  expect(merchantReturn.searchParams.get('payment_id')).toBe(paymentId);
}

describe('challenge (4000000000003220)', () => {
  it('authenticate -> PROCESSING -> SUCCEEDED, and the browser returns to the merchant with payment_id', async () => {
    const payment = await requiresAction('4000000000003220');
    const url = payment.next_action.redirect_url;

    const challenge = await openPage(url);
    expect(challenge.status).toBe(200);
    expect(challenge.text).toContain('value="authenticate"');
    expect(challenge.text).toContain('value="fail"');

    const submitted = await submitOutcome(url, 'authenticate');
    expect(submitted.status).toBe(303);
    await expectReturnToMerchant(submitted.location, payment.id);

    // The provider notification was taken before the redirect: the Payment already moved on.
    const afterReturn = await getPayment(t.api, t.merchant.testKey, payment.id);
    expect(['PROCESSING', 'SUCCEEDED']).toContain(afterReturn.json.status);
    expect(afterReturn.json.next_action).toBeNull();

    const done = await waitForStatus(t.api, t.merchant.testKey, payment.id, 'SUCCEEDED');
    expect(done).toMatchObject({ amount_refundable: payment.amount, failure_code: null, next_action: null });
    expect(done.status_transitions.requires_action_at).toBe(payment.status_transitions.requires_action_at);
    expect(done.status_transitions.processing_at).toBeGreaterThanOrEqual(payment.status_transitions.requires_action_at);
    expect(done.status_transitions.succeeded_at).toBeGreaterThanOrEqual(done.status_transitions.processing_at);
    expect(done.status_transitions).toMatchObject({ failed_at: null, expired_at: null });

    // The step is used up: a second submit is refused and changes nothing.
    expect((await submitOutcome(url, 'authenticate')).status).toBe(410);
    expect((await sandboxRecords(payment.id)).authorizations).toHaveLength(1);
  });

  it('fail -> FAILED three_d_secure_failed, and the browser still returns to the merchant', async () => {
    const payment = await requiresAction('4000000000003220');
    const submitted = await submitOutcome(payment.next_action.redirect_url, 'fail');
    expect(submitted.status).toBe(303);
    await expectReturnToMerchant(submitted.location, payment.id);
    const failed = await waitForStatus(t.api, t.merchant.testKey, payment.id, 'FAILED');
    expect(failed).toMatchObject({ failure_code: 'three_d_secure_failed', failure_message: failureMessage('three_d_secure_failed'), amount_refundable: 0, next_action: null });
    expect(failed.status_transitions.failed_at).toBeGreaterThanOrEqual(payment.status_transitions.requires_action_at);
    expect(failed.status_transitions.processing_at).toBeNull();
  });

  it('an unknown outcome is refused by the page and leaves the Payment waiting', async () => {
    const payment = await requiresAction('4000000000003220');
    expect((await submitOutcome(payment.next_action.redirect_url, 'maybe')).status).toBe(400);
    const read = await getPayment(t.api, t.merchant.testKey, payment.id);
    expect(read.json.status).toBe('REQUIRES_ACTION');
    expect(read.json.next_action.redirect_url).toBe(payment.next_action.redirect_url);
  });
});

describe('device step, then challenge (4000000000003063)', () => {
  it('after the device step the redirect_url changes to a new challenge; authenticate succeeds', async () => {
    const payment = await requiresAction('4000000000003063');
    const deviceUrl = payment.next_action.redirect_url;
    const device = await openPage(deviceUrl);
    expect(device.status).toBe(200);
    expect(device.text).toContain('name="outcome" value="continue"');

    const continued = await submitOutcome(deviceUrl, 'continue');
    expect(continued.status).toBe(303);
    const challengeUrl = continued.location!;
    expect(challengeUrl).not.toBe(deviceUrl);

    // The merchant, polling, sees the new URL and redirects the browser again (docs/hosted-page.md,
    // "The API part": the redirect URL always shows the latest step).
    const polled = await getPayment(t.api, t.merchant.testKey, payment.id);
    expect(polled.json.status).toBe('REQUIRES_ACTION');
    expect(polled.json.next_action).toEqual({ type: 'redirect', reason: 'three_d_secure', redirect_url: challengeUrl });
    expect(polled.json.status_transitions.requires_action_at).toBe(payment.status_transitions.requires_action_at);

    // The old device URL no longer works.
    expect((await openPage(deviceUrl)).status).toBe(410);

    const challenge = await openPage(challengeUrl);
    expect(challenge.status).toBe(200);
    expect(challenge.text).toContain('value="authenticate"');
    const submitted = await submitOutcome(challengeUrl, 'authenticate');
    expect(submitted.status).toBe(303);
    await expectReturnToMerchant(submitted.location, payment.id);
    const done = await waitForStatus(t.api, t.merchant.testKey, payment.id, 'SUCCEEDED');
    expect(done.amount_refundable).toBe(payment.amount);
    expect((await sandboxRecords(payment.id)).authorizations).toHaveLength(1);
  });
});

describe('challenge then decline (4000008400001629)', () => {
  it('authenticate still ends FAILED three_d_secure_failed', async () => {
    const payment = await requiresAction('4000008400001629');
    const submitted = await submitOutcome(payment.next_action.redirect_url, 'authenticate');
    expect(submitted.status).toBe(303);
    await expectReturnToMerchant(submitted.location, payment.id);
    const failed = await waitForStatus(t.api, t.merchant.testKey, payment.id, 'FAILED');
    expect(failed).toMatchObject({ failure_code: 'three_d_secure_failed', amount_refundable: 0, next_action: null, card: { last4: '1629', brand: 'VISA', country: 'US' } });
  });
});

describe('expiry', () => {
  it(`no action within PAYMENT_ACTION_TTL (${TEST_ENV.actionTtlSeconds} s) -> EXPIRED with expired_at`, async () => {
    const payment = await requiresAction('4000000000003220');
    const expired = await waitForStatus(t.api, t.merchant.testKey, payment.id, 'EXPIRED', (TEST_ENV.actionTtlSeconds + 15) * 1000);
    expect(expired).toMatchObject({ next_action: null, amount_refundable: 0, failure_code: null });
    expect(expired.status_transitions.expired_at).toBeGreaterThanOrEqual(payment.status_transitions.requires_action_at + TEST_ENV.actionTtlSeconds);
    expect(expired.status_transitions.expired_at).toBeLessThanOrEqual(nowSeconds());
    expect(expired.status_transitions).toMatchObject({ processing_at: null, succeeded_at: null, failed_at: null });

    // A late authentication cannot revive it: EXPIRED is terminal.
    await submitOutcome(payment.next_action.redirect_url, 'authenticate');
    await new Promise((r) => setTimeout(r, 1000));
    const after = await getPayment(t.api, t.merchant.testKey, payment.id);
    expect(after.json.status).toBe('EXPIRED');

    // The provider's notification about it is taken (not a 500 the provider would retry).
    const body = JSON.stringify({ type: 'authorization.updated', authorization_id: 'auth_late', reference: payment.id });
    const notified = await fetch(`${t.api.url}/internal/provider/notifications`, {
      method: 'POST', body, headers: { 'Content-Type': 'application/json', 'Sandbox-Signature': signNotification(body, TEST_ENV.notifySecret) },
    });
    expect(notified.status).toBe(204);
  });
});

describe('the browser return route', () => {
  it('an unknown payment id is a 404, not a redirect', async () => {
    const res = await fetch(`${t.api.url}/checkout/return/pay_AAAAAAAAAAAAAAAAAAAAAAAA`, { redirect: 'manual' });
    expect(res.status).toBe(404);
  });
});
