// The sandbox acquirer driven through HttpProviderClient: every test-card row of docs/quickstart.md,
// idempotent replays, the 3DS pages by plain form POSTs, notifications and fault injection.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpProviderClient, parseRetryAfter } from '../../src/provider/http-client';
import { startSandbox, type RunningSandbox } from '../../src/provider/sandbox/app';
import type { AuthorizeRequest, PayoutRequest, UnansweredCause } from '../../src/provider/types';

const SECRET = 'test-notify-secret';
const unanswered = (cause: UnansweredCause, mayHaveActed: boolean, retryAfterSeconds: number | null = null) => ({ kind: 'unanswered', cause, mayHaveActed, retryAfterSeconds });
const SETTLE_MS = 150; // long enough to observe processing on a loaded machine
const TIMEOUT_DELAY_MS = 700;

interface Received {
  headers: http.IncomingHttpHeaders;
  raw: string;
}

// A stand-in for the service's notification endpoint.
class Receiver {
  received: Received[] = [];
  status = 204;
  delayMs = 0;
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      setTimeout(() => {
        res.statusCode = this.status;
        res.end();
      }, this.delayMs);
    });
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/notify`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 2000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(20);
  }
}

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let sandbox: RunningSandbox;
const CONTROL_TOKEN = 'unit-sandbox-control-token';

/** The control endpoints (`/_sandbox/...`) want the bearer token. */
function control(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${sandbox.url}${path}`, { ...init, headers: { ...init.headers as Record<string, string>, Authorization: `Bearer ${CONTROL_TOKEN}` } });
}
let receiver: Receiver;
let client: HttpProviderClient;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  sandbox = await startSandbox({
    port: 0,
    settleMs: SETTLE_MS,
    notifySecret: SECRET,
    timeoutDelayMs: TIMEOUT_DELAY_MS,
    notifyTimeoutMs: 1000,
    notifyRetryDelaysMs: [30, 60],
    controlToken: CONTROL_TOKEN,
  });
  // The production timeout: a loaded machine must not turn an answer into a time-out here.
  client = new HttpProviderClient({ baseUrl: sandbox.url });
});

afterAll(async () => {
  await sandbox.close();
  await receiver.stop();
});

beforeEach(async () => {
  await control('/_sandbox/reset', { method: 'POST' });
  receiver.received = [];
  receiver.status = 204;
  receiver.delayMs = 0;
});

function authRequest(number: string, overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  const id = randomUUID().replace(/-/g, '').slice(0, 24);
  return {
    idempotencyKey: `pay_${id}:authorize`,
    reference: `pay_${id}`,
    amount: 1234,
    currency: 'EUR',
    card: { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123', holder_name: 'Ana Díaz' },
    returnUrl: `https://merchant.example/return?order=${id}`,
    notifyUrl: receiver.url,
    ...overrides,
  };
}

function payoutRequest(cardNumber: string, overrides: Partial<PayoutRequest> = {}): PayoutRequest {
  const id = randomUUID().replace(/-/g, '').slice(0, 24);
  return {
    idempotencyKey: `po_${id}:payout`,
    reference: `po_${id}`,
    amount: 2500,
    currency: 'EUR',
    cardNumber,
    recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' },
    ...overrides,
  };
}

interface Records {
  authorizations: Array<{ idempotency_key: string; id: string; reference: string; status: string }>;
  refunds: Array<{ idempotency_key: string; id: string; reference: string; status: string }>;
  payouts: Array<{ idempotency_key: string; id: string; reference: string; status: string }>;
}

async function records(reference?: string): Promise<Records> {
  const query = reference ? `?reference=${encodeURIComponent(reference)}` : '';
  const res = await control(`/_sandbox/records${query}`);
  return (await res.json()) as Records;
}

async function setFaults(faults: Record<string, unknown>): Promise<Response> {
  return control('/_sandbox/faults', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(faults),
  });
}

async function submitOutcome(url: string, outcome: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ outcome }).toString(),
    redirect: 'manual',
  });
}

async function authorizeSucceeded(number = '4242424242424242'): Promise<string> {
  const result = await client.authorize(authRequest(number));
  if (result.kind !== 'processing') throw new Error(`expected processing, got ${result.kind}`);
  const settled = await waitFor(() => client.getAuthorization(result.providerId), (r) => r.kind === 'succeeded');
  expect(settled.kind).toBe('succeeded');
  return result.providerId;
}

async function requiresAction(number: string): Promise<{ req: AuthorizeRequest; providerId: string; url: string }> {
  const req = authRequest(number);
  const result = await client.authorize(req);
  if (result.kind !== 'requires_action') throw new Error(`expected requires_action, got ${result.kind}`);
  return { req, providerId: result.providerId, url: result.redirectUrl };
}

describe('payments', () => {
  it('an authorization can be looked up by its idempotency key; an unknown key is not_found', async () => {
    const req = authRequest('4242424242424242');
    const result = await client.authorize(req);
    expect(result.kind).toBe('processing');
    expect(await client.getAuthorizationByKey(req.idempotencyKey)).toMatchObject({ kind: 'processing', providerId: (result as { providerId: string }).providerId });
    expect(await client.getAuthorizationByKey(`${req.idempotencyKey}-other`)).toEqual({ kind: 'not_found' });
    expect((await fetch(`${sandbox.url}/v1/authorizations`)).status).toBe(400);
  });

  it.each([
    ['4242424242424242', 'VISA'],
    ['5555555555554444', 'MASTERCARD'],
    ['378282246310005', 'AMEX'],
    ['6011111111111117', 'DISCOVER'],
    ['4111111111111111', 'VISA'], // any other Luhn-valid number
    ['4000000000005126', 'VISA'], // refund-behaviour cards authorize normally
    ['4000009000000003', 'VISA'],
  ])('%s is processing, then succeeded', async (number, brand) => {
    const before = Date.now();
    const result = await client.authorize(authRequest(number));
    expect(result).toEqual({
      kind: 'processing',
      providerId: expect.stringMatching(/^auth_/),
      card: { brand, last4: number.slice(-4), country: 'US' },
      settleAt: expect.any(Number),
    });
    if (result.kind !== 'processing') return;
    expect(result.settleAt).toBeGreaterThanOrEqual(before + SETTLE_MS);
    expect(await client.getAuthorization(result.providerId)).toMatchObject({ kind: 'processing' });
    await sleep(SETTLE_MS + 20);
    expect(await client.getAuthorization(result.providerId)).toEqual({
      kind: 'succeeded', providerId: result.providerId, card: { brand, last4: number.slice(-4), country: 'US' },
    });
  });

  it.each([
    ['4000000000000002', 'generic_decline'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000101', 'do_not_honor'],
    ['4000000000000069', 'expired_card'],
    ['4000000000009987', 'lost_card'],
    ['4000000000009979', 'stolen_card'],
    ['4100000000000019', 'fraud_filter'],
    ['4000000000000127', 'issuer_declined'],
    ['4000000000000119', 'processor_error'],
  ])('%s is declined with %s', async (number, code) => {
    const req = authRequest(number);
    const result = await client.authorize(req);
    expect(result).toMatchObject({ kind: 'declined', failureCode: code, card: { brand: 'VISA', last4: number.slice(-4) } });
    const recorded = await records(req.reference);
    expect(recorded.authorizations).toEqual([
      expect.objectContaining({ idempotency_key: req.idempotencyKey, status: 'declined' }),
    ]);
  });

  it('answers 429 with Retry-After for 4000004290000003 and records nothing', async () => {
    const req = authRequest('4000004290000003');
    expect(await client.authorize(req)).toEqual(unanswered('rate_limited', false, 1));
    expect(await client.authorize(req)).toEqual(unanswered('rate_limited', false, 1));
    expect((await records()).authorizations).toHaveLength(0);
  });

  it('answers 502 with an HTML body for 4000005020000007 (an answer that does not validate: the provider may have acted) and records nothing', async () => {
    const req = authRequest('4000005020000007');
    const raw = await fetch(`${sandbox.url}/v1/authorizations`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'raw-502' },
      body: JSON.stringify({ ...req, card: req.card, return_url: req.returnUrl, notify_url: req.notifyUrl }),
    });
    expect(raw.status).toBe(502);
    expect(raw.headers.get('content-type')).toMatch(/text\/html/);
    expect(await client.authorize(req)).toEqual(unanswered('invalid_answer', true));
    expect((await records()).authorizations).toHaveLength(0);
  });

  it('answers 503 for 4000005030000005 (unavailable) and records nothing', async () => {
    expect(await client.authorize(authRequest('4000005030000005'))).toEqual(unanswered('unavailable', false));
    expect((await records()).authorizations).toHaveLength(0);
  });

  it('declines an expired card and a Luhn-invalid number', async () => {
    const expired = await client.authorize(authRequest('4242424242424242', {
      card: { number: '4242424242424242', exp_month: 1, exp_year: 2020, cvc: '123' },
    }));
    expect(expired).toMatchObject({ kind: 'declined', failureCode: 'expired_card' });
    const badMonth = await client.authorize(authRequest('4242424242424242', {
      card: { number: '4242424242424242', exp_month: 13, exp_year: 2099, cvc: '123' },
    }));
    expect(badMonth).toMatchObject({ kind: 'declined', failureCode: 'invalid_expiry' });
    const invalid = await client.authorize(authRequest('4242424242424241'));
    expect(invalid).toMatchObject({ kind: 'declined', failureCode: 'invalid_number' });
  });

  it('replays the same record for the same idempotency key, never a second one', async () => {
    const req = authRequest('4242424242424242');
    const first = await client.authorize(req);
    const second = await client.authorize(req);
    expect(first.kind).toBe('processing');
    expect(second).toEqual(first);
    await sleep(SETTLE_MS + 20);
    const third = await client.authorize(req);
    expect(third).toMatchObject({ kind: 'succeeded', providerId: (first as { providerId: string }).providerId });
    expect((await records(req.reference)).authorizations).toHaveLength(1);
    expect(sandbox.state.authorizations.size).toBe(1);
  });

  it('requires an Idempotency-Key and a valid body', async () => {
    const noKey = await fetch(`${sandbox.url}/v1/authorizations`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}',
    });
    expect(noKey.status).toBe(400);
    const badJson = await fetch(`${sandbox.url}/v1/authorizations`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'k' }, body: '{"card":{"number":"4242424242424242"',
    });
    expect(badJson.status).toBe(400);
    const text = await badJson.text();
    expect(text).not.toContain('4242424242424242');
    const missing = await fetch(`${sandbox.url}/v1/authorizations`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'k' },
      body: JSON.stringify({ reference: 'pay_x', amount: 100, currency: 'EUR' }),
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: 'invalid_request', message: 'card is missing or invalid' });
    expect((await records()).authorizations).toHaveLength(0);
  });

  it('keeps neither the card number nor the CVC', async () => {
    const req = authRequest('4000000000003220', {
      card: { number: '4000000000003220', exp_month: 12, exp_year: 2099, cvc: '987' },
    });
    await client.authorize(req);
    await client.payout(payoutRequest('5555555555554444'));
    const dump = JSON.stringify({
      a: [...sandbox.state.authorizations.values()],
      p: [...sandbox.state.payouts.values()],
    });
    expect(dump).not.toContain('4000000000003220');
    expect(dump).not.toContain('5555555555554444');
    // As a value of its own: a random id may hold the digits 987 (pay_a8a6a9bb987f... once did).
    expect(dump).not.toMatch(/\b987\b/);
    // Field names, not the dump: a random 3DS token once held "cVc" (8ljDjBnpuEvN5XIhkHOZp70cVc1D...).
    const keys: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) { keys.push(key); walk(value); }
      }
    };
    walk(JSON.parse(dump));
    expect(keys).toContain('card');
    expect(keys.filter((key) => /cvc|number/i.test(key))).toEqual([]);
  });

  it('404s an unknown authorization', async () => {
    expect(await client.getAuthorization('auth_nope')).toEqual({ kind: 'not_found' });
  });

  it('succeeds at once with settleMs 0', async () => {
    const instant = await startSandbox({ port: 0, settleMs: 0, notifySecret: SECRET });
    try {
      const instantClient = new HttpProviderClient({ baseUrl: instant.url });
      const result = await instantClient.authorize(authRequest('4242424242424242'));
      expect(result).toMatchObject({ kind: 'succeeded' });
    } finally {
      await instant.close();
    }
  });
});

describe('3D Secure', () => {
  function expectSignedNotification(received: Received, providerId: string, reference: string): void {
    const expected = createHmac('sha256', SECRET).update(received.raw).digest('hex');
    expect(received.headers['sandbox-signature']).toBe(expected);
    expect(received.headers['content-type']).toMatch(/application\/json/);
    expect(JSON.parse(received.raw)).toEqual({ type: 'authorization.updated', authorization_id: providerId, reference });
  }

  it('challenge page: authenticate -> notify, 303 to return_url, processing, then succeeded', async () => {
    const { req, providerId, url } = await requiresAction('4000000000003220');
    expect(url.startsWith(`${sandbox.url}/3ds/${providerId}/`)).toBe(true);

    const pageRes = await fetch(url);
    expect(pageRes.status).toBe(200);
    expect(pageRes.headers.get('content-type')).toMatch(/text\/html/);
    const html = await pageRes.text();
    expect(html).toMatch(/<form method="post"/);
    expect(html).toContain('name="outcome" value="authenticate"');
    expect(html).toContain('name="outcome" value="fail"');
    expect(html).toMatch(/>Authenticate</);
    expect(html).toMatch(/>Fail</);
    expect(html).toContain('€12.34');
    expect(html).not.toMatch(/<link|src=/); // no external assets

    const res = await submitOutcome(url, 'authenticate');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(req.returnUrl);
    // The notification was delivered before the redirect was answered.
    expect(receiver.received).toHaveLength(1);
    expectSignedNotification(receiver.received[0], providerId, req.reference);

    expect(await client.getAuthorization(providerId)).toMatchObject({ kind: 'processing' });
    await sleep(SETTLE_MS + 20);
    expect(await client.getAuthorization(providerId)).toMatchObject({ kind: 'succeeded' });

    // The step is used up: a second submit (double click, back button) is refused.
    const again = await submitOutcome(url, 'authenticate');
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('This authentication step is no longer valid');
    expect((await fetch(url)).status).toBe(410);
    expect((await records(req.reference)).authorizations).toHaveLength(1);
  });

  it('challenge page: fail -> declined three_d_secure_failed', async () => {
    const { req, providerId, url } = await requiresAction('4000000000003220');
    const res = await submitOutcome(url, 'fail');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(req.returnUrl);
    expect(await client.getAuthorization(providerId)).toMatchObject({ kind: 'declined', failureCode: 'three_d_secure_failed' });
    expect(receiver.received).toHaveLength(1);
  });

  it.each([['challenge', '4000000000003220'], ['device step', '4000000000003063'], ['unknown step', null]] as const)(
    'the %s page may not be framed by another site (frame-ancestors and X-Frame-Options)', async (_label, number) => {
      const url = number ? (await requiresAction(number)).url : `${sandbox.url}/3ds/auth_unknown/step`;
      for (const res of [await fetch(url), await submitOutcome(url, 'maybe')]) {
        expect(res.headers.get('content-type')).toMatch(/text\/html/);
        expect(res.headers.get('x-frame-options')).toBe('DENY');
        expect(res.headers.get('content-security-policy')).toMatch(/(^|; )frame-ancestors 'none'(;|$)/);
      }
    },
  );

  it('rejects an unknown outcome without using up the step', async () => {
    const { providerId, url } = await requiresAction('4000000000003220');
    const res = await submitOutcome(url, 'maybe');
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Choose Authenticate or Fail.');
    expect(await client.getAuthorization(providerId)).toMatchObject({ kind: 'requires_action', redirectUrl: url });
  });

  it('device step, then a new challenge URL', async () => {
    const { req, providerId, url } = await requiresAction('4000000000003063');
    const html = await (await fetch(url)).text();
    expect(html).toContain('Checking your device…');
    expect(html).toContain('name="outcome" value="continue"');
    expect(html).toMatch(/<script nonce="[^"]+">/);
    expect(html).toMatch(/>Continue</);

    const res = await submitOutcome(url, 'continue');
    expect(res.status).toBe(303);
    const challengeUrl = res.headers.get('location') as string;
    expect(challengeUrl).not.toBe(url);
    expect(challengeUrl.startsWith(`${sandbox.url}/3ds/${providerId}/`)).toBe(true);
    expect(await client.getAuthorization(providerId)).toMatchObject({ kind: 'requires_action', redirectUrl: challengeUrl });
    expect(receiver.received).toHaveLength(1);
    expectSignedNotification(receiver.received[0], providerId, req.reference);

    expect((await submitOutcome(url, 'continue')).status).toBe(410);
    expect(await (await fetch(challengeUrl)).text()).toMatch(/>Authenticate</);
    const done = await submitOutcome(challengeUrl, 'authenticate');
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(req.returnUrl);
    expect(receiver.received).toHaveLength(2);
    expect(await client.getAuthorization(providerId)).toMatchObject({ kind: 'processing' });
  });

  it('device step only continues', async () => {
    const { url } = await requiresAction('4000000000003063');
    expect((await submitOutcome(url, 'authenticate')).status).toBe(400);
  });

  it.each(['authenticate', 'fail'])('4000008400001629 is declined three_d_secure_failed after %s', async (outcome) => {
    const { req, providerId, url } = await requiresAction('4000008400001629');
    const res = await submitOutcome(url, outcome);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(req.returnUrl);
    expect(await client.getAuthorization(providerId)).toMatchObject({ kind: 'declined', failureCode: 'three_d_secure_failed' });
  });

  it('replaying the authorization returns the current step URL', async () => {
    const { req, url } = await requiresAction('4000000000003063');
    const res = await submitOutcome(url, 'continue');
    const replay = await client.authorize(req);
    expect(replay).toMatchObject({ kind: 'requires_action', redirectUrl: res.headers.get('location') });
  });

  it('still redirects when the notification fails, and retries it in the background (bounded)', async () => {
    receiver.status = 500;
    const { req, providerId, url } = await requiresAction('4000000000003220');
    const res = await submitOutcome(url, 'authenticate');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(req.returnUrl);
    // First attempt plus two background retries (30 ms, 60 ms), then it gives up.
    await waitFor(async () => receiver.received.length, (n) => n >= 3);
    await sleep(150);
    expect(receiver.received).toHaveLength(3);
    for (const r of receiver.received) expectSignedNotification(r, providerId, req.reference);
    expect(sandbox.state.notifications).toEqual([
      { authorizationId: providerId, reference: req.reference, attempts: 3, delivered: false },
    ]);
  });

  it('stops retrying once a background retry is delivered', async () => {
    receiver.status = 503;
    const { url } = await requiresAction('4000000000003220');
    await submitOutcome(url, 'authenticate');
    receiver.status = 204;
    await waitFor(async () => sandbox.state.notifications[0]?.delivered, (d) => d === true);
    expect(sandbox.state.notifications[0]).toMatchObject({ attempts: 2, delivered: true });
  });

  it('still redirects when the notify URL is unreachable', async () => {
    const port = await freePort();
    const req = authRequest('4000000000003220', { notifyUrl: `http://127.0.0.1:${port}/notify` });
    const result = await client.authorize(req);
    if (result.kind !== 'requires_action') throw new Error('expected requires_action');
    const res = await submitOutcome(result.redirectUrl, 'fail');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(req.returnUrl);
  });

  it('waits for a slow notification endpoint before redirecting', async () => {
    receiver.delayMs = 150;
    const { url } = await requiresAction('4000000000003220');
    const started = Date.now();
    const res = await submitOutcome(url, 'authenticate');
    expect(res.status).toBe(303);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(sandbox.state.notifications[0]).toMatchObject({ delivered: true, attempts: 1 });
  });

  it('404s a page for an unknown authorization', async () => {
    expect((await fetch(`${sandbox.url}/3ds/auth_nope/token`)).status).toBe(404);
    expect((await submitOutcome(`${sandbox.url}/3ds/auth_nope/token`, 'fail')).status).toBe(404);
  });
});

describe('refunds', () => {
  function refundRequest(authorizationId: string, amount = 1234) {
    const id = randomUUID().replace(/-/g, '').slice(0, 24);
    return { idempotencyKey: `ref_${id}:refund`, reference: `ref_${id}`, authorizationId, amount, currency: 'EUR' };
  }

  it.each(['4242424242424242', '5555555555554444', '378282246310005', '6011111111111117'])(
    'a refund of %s is processing, then succeeded',
    async (number) => {
      const authorizationId = await authorizeSucceeded(number);
      const result = await client.refund(refundRequest(authorizationId));
      expect(result).toEqual({ kind: 'processing', providerId: expect.stringMatching(/^rfnd_/), settleAt: expect.any(Number) });
      if (result.kind !== 'processing') return;
      expect(await client.getRefund(result.providerId)).toMatchObject({ kind: 'processing' });
      await sleep(SETTLE_MS + 20);
      expect(await client.getRefund(result.providerId)).toEqual({ kind: 'succeeded', providerId: result.providerId });
    },
  );

  it.each(['4000000000003220', '4000000000003063'])('a refund after 3DS (%s) succeeds', async (number) => {
    const { providerId, url } = await requiresAction(number);
    let step = url;
    if (number === '4000000000003063') step = (await submitOutcome(url, 'continue')).headers.get('location') as string;
    await submitOutcome(step, 'authenticate');
    await waitFor(() => client.getAuthorization(providerId), (r) => r.kind === 'succeeded');
    const result = await client.refund(refundRequest(providerId));
    expect(result.kind).toBe('processing');
    if (result.kind !== 'processing') return;
    expect(await waitFor(() => client.getRefund(result.providerId), (r) => r.kind !== 'processing')).toMatchObject({ kind: 'succeeded' });
  });

  it('4000000000005126: processing, then failed processor_error', async () => {
    const authorizationId = await authorizeSucceeded('4000000000005126');
    const result = await client.refund(refundRequest(authorizationId));
    expect(result.kind).toBe('processing');
    if (result.kind !== 'processing') return;
    await sleep(SETTLE_MS + 20);
    expect(await client.getRefund(result.providerId)).toEqual({
      kind: 'failed', providerId: result.providerId, failureCode: 'processor_error',
    });
  });

  it('4000009000000003: rejected not_permitted, recorded as rejected, replayed the same', async () => {
    const authorizationId = await authorizeSucceeded('4000009000000003');
    const req = refundRequest(authorizationId);
    expect(await client.refund(req)).toEqual({ kind: 'rejected', failureCode: 'not_permitted' });
    expect(await client.refund(req)).toEqual({ kind: 'rejected', failureCode: 'not_permitted' });
    const recorded = await records(req.reference);
    expect(recorded.refunds).toEqual([expect.objectContaining({ idempotency_key: req.idempotencyKey, status: 'rejected' })]);
    // A rejected refund takes nothing: the full amount can still be asked for (and is rejected again).
    expect(await client.refund(refundRequest(authorizationId))).toEqual({ kind: 'rejected', failureCode: 'not_permitted' });
  });

  it('the same key gives the same refund record', async () => {
    const authorizationId = await authorizeSucceeded();
    const req = refundRequest(authorizationId, 500);
    const first = await client.refund(req);
    const second = await client.refund(req);
    expect(second).toEqual(first);
    expect((await records(req.reference)).refunds).toHaveLength(1);
  });

  it('rejects refunds beyond the authorized amount, in another currency, or of a declined authorization', async () => {
    const authorizationId = await authorizeSucceeded();
    expect((await client.refund(refundRequest(authorizationId, 1000))).kind).toBe('processing');
    expect(await client.refund(refundRequest(authorizationId, 235))).toEqual({ kind: 'rejected', failureCode: 'invalid_amount' });
    expect(await client.refund({ ...refundRequest(authorizationId, 10), currency: 'USD' }))
      .toEqual({ kind: 'rejected', failureCode: 'invalid_currency' });
    expect((await client.refund(refundRequest(authorizationId, 234))).kind).toBe('processing');

    const declined = await client.authorize(authRequest('4000000000000002'));
    if (declined.kind !== 'declined') throw new Error('expected declined');
    expect(await client.refund(refundRequest(declined.providerId))).toEqual({ kind: 'rejected', failureCode: 'not_permitted' });
  });

  it('an unknown authorization is rejected not_found and not recorded', async () => {
    const req = refundRequest('auth_nope');
    expect(await client.refund(req)).toEqual({ kind: 'rejected', failureCode: 'not_found' });
    expect((await records()).refunds).toHaveLength(0);
    expect(await client.getRefund('rfnd_nope')).toEqual({ kind: 'not_found' });
  });
});

describe('payouts', () => {
  it.each([
    ['4242424242424242', 'VISA'],
    ['5555555555554444', 'MASTERCARD'],
    ['4111111111111111', 'VISA'],
    ['2223003122003222', 'MASTERCARD'],
  ])('%s is processing, then succeeded', async (number) => {
    const req = payoutRequest(number);
    const result = await client.payout(req);
    expect(result).toEqual({ kind: 'processing', providerId: expect.stringMatching(/^pout_/), settleAt: expect.any(Number) });
    if (result.kind !== 'processing') return;
    await sleep(SETTLE_MS + 20);
    expect(await client.getPayoutByKey(req.idempotencyKey)).toEqual({ kind: 'succeeded', providerId: result.providerId });
    const byId = await (await fetch(`${sandbox.url}/v1/payouts/${result.providerId}`)).json();
    expect(byId).toMatchObject({ id: result.providerId, status: 'succeeded', card: { last4: number.slice(-4), country: 'US' } });
  });

  it.each([
    ['4000000000000002', 'generic_decline'],
    ['4000000000009995', 'insufficient_funds'],
  ])('%s fails at once with %s', async (number, code) => {
    const req = payoutRequest(number);
    const result = await client.payout(req);
    expect(result).toEqual({ kind: 'failed', providerId: expect.stringMatching(/^pout_/), failureCode: code });
    expect(await client.getPayoutByKey(req.idempotencyKey)).toEqual(result);
  });

  it.each(['4000004290000003', '5555554290000003'])('%s: 429 first (not recorded), accepted on the next submission', async (number) => {
    const req = payoutRequest(number);
    expect(await client.payout(req)).toEqual(unanswered('rate_limited', false, 1));
    expect(await client.getPayoutByKey(req.idempotencyKey)).toEqual({ kind: 'not_found' });
    const second = await client.payout(req);
    expect(second.kind).toBe('processing');
    await sleep(SETTLE_MS + 20);
    expect(await client.getPayoutByKey(req.idempotencyKey)).toMatchObject({ kind: 'succeeded' });
    expect((await records(req.reference)).payouts).toHaveLength(1);
  });

  it('4000005020000007: recorded, but the first answer is a 502 HTML page', async () => {
    const req = payoutRequest('4000005020000007');
    expect(await client.payout(req)).toEqual(unanswered('invalid_answer', true));
    const looked = await client.getPayoutByKey(req.idempotencyKey);
    expect(looked.kind).toBe('processing');
    const again = await client.payout(req);
    expect(again).toMatchObject({ providerId: (looked as { providerId: string }).providerId });
    await sleep(SETTLE_MS + 20);
    expect(await client.getPayoutByKey(req.idempotencyKey)).toMatchObject({ kind: 'succeeded' });
    expect((await records(req.reference)).payouts).toHaveLength(1);
  });

  it('4000005030000005: 503 first (not recorded), accepted on the next submission', async () => {
    const req = payoutRequest('4000005030000005');
    expect(await client.payout(req)).toEqual(unanswered('unavailable', true));
    expect(await client.getPayoutByKey(req.idempotencyKey)).toEqual({ kind: 'not_found' });
    expect((await client.payout(req)).kind).toBe('processing');
    await sleep(SETTLE_MS + 20);
    expect(await client.getPayoutByKey(req.idempotencyKey)).toMatchObject({ kind: 'succeeded' });
  });

  it('4000007000000007: recorded, answered after the client timeout, then succeeded', async () => {
    const impatient = new HttpProviderClient({ baseUrl: sandbox.url, timeoutMs: 200 });
    const req = payoutRequest('4000007000000007');
    expect(await impatient.payout(req)).toEqual(unanswered('timeout', true));
    await sleep(SETTLE_MS + 20);
    expect(await client.getPayoutByKey(req.idempotencyKey)).toMatchObject({ kind: 'succeeded' });
    // Later submissions with the key answer at once.
    expect(await impatient.payout(req)).toMatchObject({ kind: 'succeeded' });
    expect((await records(req.reference)).payouts).toHaveLength(1);
  });

  it('4000007100000006: recorded, first answer 503, then failed processor_unavailable', async () => {
    const req = payoutRequest('4000007100000006');
    expect(await client.payout(req)).toEqual(unanswered('unavailable', true));
    expect((await client.getPayoutByKey(req.idempotencyKey)).kind).toBe('processing');
    await sleep(SETTLE_MS + 20);
    expect(await client.getPayoutByKey(req.idempotencyKey)).toMatchObject({ kind: 'failed', failureCode: 'processor_unavailable' });
  });

  it.each([
    ['378282246310005', 'unsupported_card'],
    ['6011111111111117', 'unsupported_card'],
    ['4242424242424241', 'invalid_card'],
  ])('%s answers 422 %s, mapped to failed invalid_number, nothing recorded', async (number, error) => {
    const req = payoutRequest(number);
    const raw = await fetch(`${sandbox.url}/v1/payouts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'raw-422' },
      body: JSON.stringify({ reference: req.reference, amount: 100, currency: 'EUR', card_number: number, recipient: req.recipient }),
    });
    expect(raw.status).toBe(422);
    expect(await raw.json()).toEqual({ error });
    expect(await client.payout(req)).toEqual({ kind: 'failed', providerId: '', failureCode: 'invalid_number' });
    expect((await records()).payouts).toHaveLength(0);
  });

  it('the same key gives the same payout record', async () => {
    const req = payoutRequest('4242424242424242');
    const first = await client.payout(req);
    expect(await client.payout(req)).toEqual(first);
    expect((await records(req.reference)).payouts).toHaveLength(1);
    expect(sandbox.state.payouts.size).toBe(1);
  });

  it('an unknown key or id is not found', async () => {
    expect(await client.getPayoutByKey('po_nope:payout')).toEqual({ kind: 'not_found' });
    expect((await fetch(`${sandbox.url}/v1/payouts/pout_nope`)).status).toBe(404);
  });
});

describe('records', () => {
  it('lists effects, filtered by reference, and reset clears them', async () => {
    const a = authRequest('4242424242424242');
    const b = authRequest('4000000000000002');
    await client.authorize(a);
    await client.authorize(b);
    expect((await records()).authorizations).toHaveLength(2);
    expect((await records(a.reference)).authorizations).toEqual([
      expect.objectContaining({ idempotency_key: a.idempotencyKey, reference: a.reference, status: expect.stringMatching(/^(processing|succeeded)$/) }),
    ]);
    await control('/_sandbox/reset', { method: 'POST' });
    expect(await records()).toEqual({ authorizations: [], refunds: [], payouts: [] });
  });
});

describe('control endpoints', () => {
  const CALLS: Array<[string, string, string?]> = [
    ['POST', '/_sandbox/reset'], ['GET', '/_sandbox/records'], ['GET', '/_sandbox/faults'],
    ['POST', '/_sandbox/faults', '{"fail_next":3}'], ['DELETE', '/_sandbox/faults'],
    // The router matches paths regardless of case and a trailing slash; the guard goes with the route.
    ['POST', '/_SANDBOX/Reset/'],
  ];
  const asWho: Array<[string, Record<string, string>]> = [
    ['no credential', {}],
    ['a wrong token', { Authorization: 'Bearer not-the-token' }],
    ['the published development notify secret', { Authorization: 'Bearer sandbox-dev-secret' }],
    ['the token without its scheme', { Authorization: CONTROL_TOKEN }],
  ];

  it.each(asWho)('answer 401 to a call with %s, and change nothing', async (_who, headers) => {
    const kept = authRequest('4242424242424242');
    await client.authorize(kept);
    for (const [method, path, body] of CALLS) {
      const res = await fetch(`${sandbox.url}${path}`, { method, headers: { ...headers, 'Content-Type': 'application/json' }, body });
      expect({ call: `${method} ${path}`, status: res.status }).toEqual({ call: `${method} ${path}`, status: 401 });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.json()).toEqual({ error: 'unauthorized' });
    }
    expect((await records(kept.reference)).authorizations).toHaveLength(1);
    expect(await (await control('/_sandbox/faults')).json()).toMatchObject({ fail_next: 0 });
  });

  it('answer with the bearer token', async () => {
    for (const [method, path, body] of CALLS) {
      const res = await control(path, { method, headers: { 'Content-Type': 'application/json' }, body });
      expect({ call: `${method} ${path}`, status: res.status }).toEqual({ call: `${method} ${path}`, status: 200 });
    }
  });

  it('are off (404) when the sandbox has no token, while the acquirer API works', async () => {
    const open = await startSandbox({ port: 0, settleMs: 0, notifySecret: SECRET });
    try {
      for (const [method, path, body] of CALLS) {
        const res = await fetch(`${open.url}${path}`, { method, headers: { Authorization: `Bearer ${CONTROL_TOKEN}` }, body });
        expect({ call: `${method} ${path}`, status: res.status }).toEqual({ call: `${method} ${path}`, status: 404 });
      }
      const result = await new HttpProviderClient({ baseUrl: open.url }).authorize(authRequest('4242424242424242'));
      expect(result.kind).toBe('succeeded');
    } finally {
      await open.close();
    }
  });
});

describe('transport mapping', () => {
  it('maps a refused connection', async () => {
    const port = await freePort();
    const down = new HttpProviderClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1000 });
    expect(await down.authorize(authRequest('4242424242424242'))).toEqual(unanswered('not_sent', false));
    expect(await down.payout(payoutRequest('4242424242424242'))).toEqual(unanswered('not_sent', false));
    expect(await down.refund({ idempotencyKey: 'k', reference: 'ref_x', authorizationId: 'auth_x', amount: 1, currency: 'EUR' }))
      .toEqual(unanswered('not_sent', false));
    expect(await down.getAuthorization('auth_x')).toEqual(unanswered('not_sent', true));
    expect(await down.getRefund('rfnd_x')).toEqual(unanswered('not_sent', true));
    expect(await down.getPayoutByKey('k')).toEqual(unanswered('not_sent', true));
  });

  it('maps a timeout', async () => {
    await setFaults({ latency_ms: 400 });
    const impatient = new HttpProviderClient({ baseUrl: sandbox.url, timeoutMs: 150 });
    const req = authRequest('4242424242424242');
    expect(await impatient.authorize(req)).toEqual(unanswered('timeout', true));
    const payoutReq = payoutRequest('4242424242424242');
    expect(await impatient.payout(payoutReq)).toEqual(unanswered('timeout', true));
    expect(await impatient.getAuthorization('auth_x')).toEqual(unanswered('timeout', true));
    await control('/_sandbox/faults', { method: 'DELETE' });
    // The slow call was still processed: it surfaces on lookup, and a retry with the key replays it.
    const seen = await waitFor(async () => (await records(req.reference)).authorizations.length, (n) => n === 1);
    expect(seen).toBe(1);
    // Let the late payout land here rather than in a later test.
    expect((await waitFor(() => client.getPayoutByKey(payoutReq.idempotencyKey), (r) => r.kind !== 'not_found')).kind)
      .not.toBe('not_found');
    expect((await client.authorize(req)).kind).toMatch(/processing|succeeded/);
    expect((await records(req.reference)).authorizations).toHaveLength(1);
  });

  describe('strict validation against a misbehaving provider', () => {
    let stub: http.Server;
    let stubUrl = '';
    let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: '{}' };

    beforeAll(async () => {
      stub = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
          res.end(answer.body);
        });
      });
      await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
      stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => {
        stub.close(() => resolve());
        stub.closeAllConnections();
      });
    });

    const card = { brand: 'VISA', last4: '4242', country: 'US' };

    it.each([
      ['non-JSON 200', 200, 'ok'],
      ['unknown status', 200, JSON.stringify({ id: 'auth_1', reference: 'REF', status: 'maybe', card })],
      ['another reference', 200, JSON.stringify({ id: 'auth_1', reference: 'pay_other', status: 'succeeded', card })],
      ['no card', 200, JSON.stringify({ id: 'auth_1', reference: 'REF', status: 'succeeded' })],
      ['bad brand', 200, JSON.stringify({ id: 'auth_1', reference: 'REF', status: 'succeeded', card: { ...card, brand: 'NOPE' } })],
      ['processing without settle_at', 200, JSON.stringify({ id: 'auth_1', reference: 'REF', status: 'processing', card })],
      ['requires_action without url', 200, JSON.stringify({ id: 'auth_1', reference: 'REF', status: 'requires_action', card, action: { type: 'three_d_secure' } })],
      ['500', 500, '{}'],
      ['400', 400, '{}'],
    ])('authorize: %s is an invalid answer the provider may have acted on', async (_name, status, body) => {
      const req = authRequest('4242424242424242');
      answer = { status, body: body.replace('REF', req.reference) };
      const stubClient = new HttpProviderClient({ baseUrl: stubUrl });
      expect(await stubClient.authorize(req)).toEqual(unanswered('invalid_answer', true));
    });

    it('maps unknown failure codes to processor_error and parses Retry-After', async () => {
      const stubClient = new HttpProviderClient({ baseUrl: stubUrl });
      const req = authRequest('4242424242424242');
      answer = { status: 200, body: JSON.stringify({ id: 'auth_1', reference: req.reference, status: 'declined', decline_code: 'weird', card }) };
      expect(await stubClient.authorize(req)).toMatchObject({ kind: 'declined', failureCode: 'processor_error' });
      answer = { status: 429, body: '{}' };
      expect(await stubClient.authorize(req)).toEqual(unanswered('rate_limited', false));
      answer = { status: 503, body: '{}', headers: { 'Retry-After': '7' } };
      expect(await stubClient.authorize(req)).toEqual(unanswered('unavailable', false, 7));
      answer = { status: 404, body: 'not json' };
      expect(await stubClient.getAuthorization('auth_1')).toEqual(unanswered('invalid_answer', true));
      answer = { status: 200, body: JSON.stringify({ id: 'auth_2', status: 'succeeded', card }) };
      expect(await stubClient.getAuthorization('auth_1')).toEqual(unanswered('invalid_answer', true));
      answer = { status: 200, body: JSON.stringify({ id: 'pout_1', reference: 'x', status: 'failed', failure_code: 'made_up' }) };
      expect(await stubClient.getPayoutByKey('k')).toEqual({ kind: 'failed', providerId: 'pout_1', failureCode: 'processor_error' });
      answer = { status: 409, body: '{}' };
      expect(await stubClient.payout(payoutRequest('4242424242424242'))).toEqual(unanswered('invalid_answer', true));
    });

    it('parses Retry-After as seconds or an HTTP date', () => {
      expect(parseRetryAfter(null)).toBeNull();
      expect(parseRetryAfter('3')).toBe(3);
      expect(parseRetryAfter('soon')).toBeNull();
      const now = Date.parse('2026-01-01T00:00:00Z');
      expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5);
      expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    });
  });
});

describe('fault injection', () => {
  it('fail_next answers the next N calls with fail_status, unprocessed', async () => {
    const res = await setFaults({ fail_next: 2, fail_status: 503 });
    expect(await res.json()).toMatchObject({ fail_next: 2, fail_status: 503 });
    const req = authRequest('4242424242424242');
    expect(await client.authorize(req)).toEqual(unanswered('unavailable', false));
    expect(await client.authorize(req)).toEqual(unanswered('unavailable', false));
    expect((await records()).authorizations).toHaveLength(0);
    expect((await client.authorize(req)).kind).toBe('processing');
    expect((await records()).authorizations).toHaveLength(1);
  });

  it.each([
    [429, unanswered('rate_limited', false, 1)],
    [500, unanswered('invalid_answer', true)],
    [502, unanswered('invalid_answer', true)],
  ])('fail_status %s', async (status, expected) => {
    await setFaults({ fail_next: 1, fail_status: status });
    expect(await client.authorize(authRequest('4242424242424242'))).toEqual(expected);
  });

  it('reset_next drops the connection before processing', async () => {
    await setFaults({ reset_next: 2 });
    const req = authRequest('4242424242424242');
    expect(await client.authorize(req)).toEqual(unanswered('connection_lost', true));
    expect(await client.payout(payoutRequest('4242424242424242'))).toEqual(unanswered('connection_lost', true));
    expect(await records()).toEqual({ authorizations: [], refunds: [], payouts: [] });
  });

  it('reset_after_next processes the call, then drops the connection', async () => {
    await setFaults({ reset_after_next: 1 });
    const req = payoutRequest('4242424242424242');
    expect(await client.payout(req)).toEqual(unanswered('connection_lost', true));
    expect((await client.getPayoutByKey(req.idempotencyKey)).kind).toBe('processing');
    expect((await records(req.reference)).payouts).toHaveLength(1);
  });

  it('duplicate_answer delivers the next call twice; the key keeps it to one record', async () => {
    await setFaults({ duplicate_answer: true });
    const req = payoutRequest('4242424242424242');
    const result = await client.payout(req);
    expect(result.kind).toBe('processing');
    expect((await records(req.reference)).payouts).toHaveLength(1);
    expect(sandbox.state.payoutAttempts.get(req.idempotencyKey)).toBe(1); // the replay found the record
    const faults = await (await control('/_sandbox/faults')).json();
    expect(faults).toMatchObject({ duplicate_next: 0 });
  });

  it('latency applies until cleared; faults never touch /_sandbox or the 3DS pages', async () => {
    await setFaults({ latency_ms: 1000, fail_next: 5 });
    expect((await control('/_sandbox/records')).status).toBe(200);
    const { url } = await (async () => {
      await control('/_sandbox/faults', { method: 'DELETE' });
      const found = await requiresAction('4000000000003220');
      await setFaults({ latency_ms: 1000, fail_next: 5 });
      return found;
    })();
    expect((await fetch(url)).status).toBe(200);
    expect((await submitOutcome(url, 'fail')).status).toBe(303);
    // The faults were set all along and none was spent on those calls.
    expect(await (await control('/_sandbox/faults')).json()).toMatchObject({ latency_ms: 1000, fail_next: 5 });
    const cleared = await control('/_sandbox/faults', { method: 'DELETE' });
    expect(await cleared.json()).toMatchObject({ latency_ms: 0, fail_next: 0 });
    expect((await client.authorize(authRequest('4242424242424242'))).kind).toBe('processing');
  });

  it('a reset drops calls held by latency: they never land in the state that follows', async () => {
    await setFaults({ latency_ms: 60_000 });
    const req = authRequest('4242424242424242');
    const held = fetch(`${sandbox.url}/v1/authorizations`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': req.idempotencyKey },
      body: JSON.stringify({ ...req, card: req.card, return_url: req.returnUrl, notify_url: req.notifyUrl }),
    }).then(() => 'answered', () => 'dropped');
    expect(await waitFor(async () => (await (await control('/_sandbox/faults')).json()).held_calls, (n) => n === 1)).toBe(1);
    await control('/_sandbox/reset', { method: 'POST' });
    expect(await held).toBe('dropped');
    await setFaults({ fail_next: 1 });
    expect(await (await control('/_sandbox/faults')).json()).toMatchObject({ fail_next: 1, held_calls: 0 });
    expect(await records()).toEqual({ authorizations: [], refunds: [], payouts: [] });
  });

  it('new_objects_only: calls about objects recorded before the set pass untouched and uncounted', async () => {
    const before = authRequest('4242424242424242');
    const old = await client.authorize(before);
    if (old.kind !== 'processing') throw new Error(`expected processing, got ${old.kind}`);
    await sleep(5); // a later millisecond than the old record's
    const res = await setFaults({ fail_next: 1, path_prefix: '/v1/authorizations', method: 'GET', new_objects_only: true });
    expect(await res.json()).toMatchObject({ fail_next: 1, new_objects_only: true });
    expect((await client.getAuthorization(old.providerId)).kind).not.toBe('unanswered');
    expect((await client.getAuthorizationByKey(before.idempotencyKey)).kind).not.toBe('unanswered');
    const created = await client.authorize(authRequest('4242424242424242'));
    if (created.kind !== 'processing') throw new Error(`expected processing, got ${created.kind}`);
    expect(await client.getAuthorization(created.providerId)).toMatchObject({ kind: 'unanswered', cause: 'unavailable' });
    expect((await client.getAuthorization(created.providerId)).kind).not.toBe('unanswered');
  });

  it('rejects invalid fault settings', async () => {
    expect((await setFaults({ fail_status: 418 })).status).toBe(400);
    expect((await setFaults({ fail_next: -1 })).status).toBe(400);
    expect((await setFaults({ duplicate_answer: 'yes' })).status).toBe(400);
    expect((await setFaults({ new_objects_only: 1 })).status).toBe(400);
  });
});
