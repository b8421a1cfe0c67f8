// The SDK's retries (CONTRACT 17) against the real service behind a small proxy that fails the
// first requests: an injected 503, 429 or 409 idempotency_key_in_use is retried with the same
// Idempotency-Key, after Retry-After when it is given; a connection dropped before the request
// reaches the service, or after the service answered (the answer lost on the way back), is
// retried with the same key, and either way one Payment exists for the key. No other 4xx is ever
// retried, and after maxRetries the error is thrown with the key to retry with later.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PaymentsApiError, PaymentsClient, PaymentsConnectionError, type PaymentCreateParams } from '../../sdk/src';
import { useTestApi } from '../helpers/api';

/** What the proxy does with the next request; the last fault repeats until the list is empty. */
type Fault =
  | { kind: 'status'; status: number; code: string; retryAfter?: number }
  /** The connection closes before the request is forwarded: the service never sees it. */
  | { kind: 'drop-before' }
  /** The request is forwarded and answered, then the connection closes before the answer is sent on. */
  | { kind: 'drop-after' }
  /** A page of something else in front of the service (a captive portal, a misrouted proxy). */
  | { kind: 'html'; status: number };

interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  at: number;
  /** What the client got: a status, or `dropped`. */
  outcome: number | 'dropped';
}

class FaultyProxy {
  readonly seen: Seen[] = [];
  private faults: Fault[] = [];
  private server: http.Server;
  url = '';

  constructor(private readonly target: string) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The next requests meet these faults, one each, then pass. */
  failNext(...faults: Fault[]): void {
    this.faults = faults;
  }

  forPath(path: string): Seen[] {
    return this.seen.filter((entry) => entry.path === path);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const seen: Seen = { method: req.method!, path: req.url!.split('?')[0]!, idempotencyKey: req.headers['idempotency-key'] as string | undefined, at: Date.now(), outcome: 'dropped' };
    this.seen.push(seen);
    const fault = this.faults.shift();
    if (fault?.kind === 'drop-before') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'html') {
      seen.outcome = fault.status;
      res.writeHead(fault.status, { 'Content-Type': 'text/html' });
      res.end('<html><body>Welcome to the hotel network</body></html>');
      return;
    }
    if (fault?.kind === 'status') {
      seen.outcome = fault.status;
      res.writeHead(fault.status, { 'Content-Type': 'application/json', ...(fault.retryAfter !== undefined ? { 'Retry-After': String(fault.retryAfter) } : {}) });
      res.end(JSON.stringify({ error: { code: fault.code, message: `Injected by the test proxy: ${fault.code}.`, doc_url: 'https://x.test/docs', request_id: 'req_injectedByTheTestProxy00' } }));
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name)).map(([name, value]) => [name, String(value)]));
    const answer = await fetch(`${this.target}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const body = Buffer.from(await answer.arrayBuffer());
    if (fault?.kind === 'drop-after') {
      req.socket.destroy();
      return;
    }
    seen.outcome = answer.status;
    res.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([name]) => name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection')));
    res.end(body);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const t = useTestApi({ merchant: { name: 'Flaky Network Shop' } });
let proxy: FaultyProxy;

beforeAll(async () => { proxy = await new FaultyProxy(t.api.url).start(); });
afterAll(async () => { await proxy.close(); });

beforeEach(() => {
  proxy.seen.length = 0;
  proxy.failNext();
});

const client = (options: { maxRetries?: number } = {}) => new PaymentsClient({ apiKey: t.merchant.testKey, baseUrl: proxy.url, ...options });
/** A direct client, past the proxy, to count what the service holds. */
const direct = () => new PaymentsClient({ apiKey: t.merchant.testKey, baseUrl: t.api.url });

/** A body whose description marks the Payments of one test. */
const paymentParams = (description: string, overrides: Partial<PaymentCreateParams> = {}): PaymentCreateParams => ({
  amount: 1500,
  currency: 'USD',
  customer_ip_address: '203.0.113.7',
  return_url: 'https://shop.example/return',
  description,
  payment_method_data: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123', holder_name: 'Ada Lovelace' } },
  ...overrides,
});

/** The Payments the service holds with this description. */
async function paymentsDescribed(description: string): Promise<string[]> {
  const found: string[] = [];
  for await (const payment of direct().payments.list({ limit: 100, 'created[gte]': Math.floor(Date.now() / 1000) - 300 })) {
    if (payment.description === description) found.push(payment.id);
  }
  return found;
}

const keysOf = (entries: Seen[]) => [...new Set(entries.map((entry) => entry.idempotencyKey))];

describe('retried with the same key', () => {
  it('503 twice (the first with Retry-After: 1): retried, one Payment, after waiting the second asked for', async () => {
    const marker = randomUUID();
    proxy.failNext({ kind: 'status', status: 503, code: 'service_unavailable', retryAfter: 1 }, { kind: 'status', status: 503, code: 'service_unavailable' });
    const started = Date.now();
    const payment = await client().payments.create(paymentParams(marker));
    const attempts = proxy.forPath('/v1/payments');
    expect(attempts.map((entry) => entry.outcome)).toEqual([503, 503, 201]);
    expect(keysOf(attempts)).toEqual([payment.lastResponse.idempotencyKey]);
    expect(payment.lastResponse.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(payment.lastResponse.attempts).toBe(3);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(await paymentsDescribed(marker)).toEqual([payment.id]);
  });

  it('the answer lost after the service created the Payment: the retry gets the same Payment, replayed', async () => {
    const marker = randomUUID();
    proxy.failNext({ kind: 'drop-after' });
    const payment = await client().payments.create(paymentParams(marker));
    const attempts = proxy.forPath('/v1/payments');
    expect(attempts.map((entry) => entry.outcome)).toEqual(['dropped', 201]);
    expect(keysOf(attempts)).toHaveLength(1);
    expect(payment.lastResponse).toMatchObject({ replayed: true, attempts: 2 });
    expect(await paymentsDescribed(marker)).toEqual([payment.id]);
  });

  it('a connection dropped before the service saw the request, and the caller\'s own key: retried with that key', async () => {
    const marker = randomUUID();
    const idempotencyKey = `order-${marker}`;
    proxy.failNext({ kind: 'drop-before' }, { kind: 'drop-before' });
    const payment = await client().payments.create(paymentParams(marker), { idempotencyKey });
    expect(proxy.forPath('/v1/payments').map((entry) => entry.outcome)).toEqual(['dropped', 'dropped', 201]);
    expect(keysOf(proxy.forPath('/v1/payments'))).toEqual([idempotencyKey]);
    expect(payment.lastResponse).toMatchObject({ replayed: false, idempotencyKey });
    expect(await paymentsDescribed(marker)).toEqual([payment.id]);
  });

  it('429 with Retry-After and 409 idempotency_key_in_use are retried; 500 and 502 too, and reads as well as creates', async () => {
    const marker = randomUUID();
    proxy.failNext({ kind: 'status', status: 429, code: 'rate_limit_exceeded', retryAfter: 1 }, { kind: 'status', status: 409, code: 'idempotency_key_in_use', retryAfter: 1 });
    const payout = await client().payouts.create({
      amount: 2500, currency: 'EUR', initiator_ip_address: '203.0.113.7', merchant_reference: 1234567890,
      recipient: { first_name: 'Ana', last_name: marker, country: 'ES' }, destination: { card_number: '4242424242424242' },
    });
    const attempts = proxy.forPath('/v1/payouts');
    expect(attempts.map((entry) => entry.outcome)).toEqual([429, 409, 201]);
    expect(keysOf(attempts)).toHaveLength(1);
    expect(attempts[2]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(2000);
    expect((await direct().payouts.list({ search: marker })).data.map((item) => item.id)).toEqual([payout.id]);

    proxy.seen.length = 0;
    proxy.failNext({ kind: 'status', status: 500, code: 'internal_error' }, { kind: 'status', status: 502, code: 'processing_error' });
    expect((await client().payouts.retrieve(payout.id)).id).toBe(payout.id);
    expect(proxy.forPath(`/v1/payouts/${payout.id}`).map((entry) => entry.outcome)).toEqual([500, 502, 200]);
  });
});

describe('not retried, or no longer', () => {
  it('a 4xx other than 409 in use is answered at once: one request, the error as the service gave it', async () => {
    const invalid = await client().payments.create(paymentParams('x', { currency: 'US' })).catch((error: unknown) => error) as PaymentsApiError;
    expect(invalid).toBeInstanceOf(PaymentsApiError);
    expect(invalid).toMatchObject({ status: 400, code: 'parameter_invalid', param: 'currency' });
    const unsupported = await client().payments.create(paymentParams('x', { currency: 'NOK' })).catch((error: unknown) => error) as PaymentsApiError;
    expect(unsupported).toMatchObject({ status: 422, code: 'currency_not_supported' });
    const missing = await client().payments.retrieve(`pay_${'0'.repeat(24)}`).catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 404, code: 'object_not_found' });
    expect(proxy.seen.map((entry) => entry.outcome)).toEqual([400, 422, 404]);

    // The same key with another body is idempotency_key_reused: a 409 that must not be retried.
    proxy.seen.length = 0;
    const idempotencyKey = randomUUID();
    await client().payments.create(paymentParams('first'), { idempotencyKey });
    const reused = await client().payments.create(paymentParams('second'), { idempotencyKey }).catch((error: unknown) => error);
    expect(reused).toMatchObject({ status: 409, code: 'idempotency_key_reused', idempotencyKey });
    expect(proxy.seen.map((entry) => entry.outcome)).toEqual([201, 409]);
  });

  it('after maxRetries the last error is thrown; with no answer at all, a PaymentsConnectionError with the key to retry with', async () => {
    proxy.failNext(...Array.from({ length: 5 }, () => ({ kind: 'status', status: 503, code: 'service_unavailable' }) as const));
    const unavailable = await client({ maxRetries: 1 }).payments.list().catch((error: unknown) => error);
    expect(unavailable).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(proxy.seen).toHaveLength(2);

    const marker = randomUUID();
    proxy.seen.length = 0;
    proxy.failNext({ kind: 'drop-after' }, { kind: 'drop-after' }, { kind: 'drop-after' });
    const lost = await client().payments.create(paymentParams(marker)).catch((error: unknown) => error) as PaymentsConnectionError;
    expect(lost).toBeInstanceOf(PaymentsConnectionError);
    expect(lost).toBeInstanceOf(PaymentsApiError);
    expect(lost).toMatchObject({ status: 0, code: 'connection_error', idempotencyKey: expect.any(String) });
    expect(proxy.seen).toHaveLength(3);
    // The service created it once; repeating with the error's key gets that Payment.
    const [created] = await paymentsDescribed(marker);
    const again = await client().payments.create(paymentParams(marker), { idempotencyKey: lost.idempotencyKey! });
    expect(again.id).toBe(created);
    expect(again.lastResponse.replayed).toBe(true);
    expect(await paymentsDescribed(marker)).toEqual([created]);

    // A 2xx that is not the service's JSON is an error, not an answer; a 502 page without the envelope is retried.
    proxy.seen.length = 0;
    proxy.failNext({ kind: 'html', status: 200 });
    expect(await client().payments.list().catch((error: unknown) => error)).toMatchObject({ status: 200, code: 'invalid_response' });
    proxy.failNext({ kind: 'html', status: 502 });
    expect((await client().payments.list()).object).toBe('list');
    expect(proxy.seen.map((entry) => entry.outcome)).toEqual([200, 502, 200]);

    // A Retry-After longer than a minute is not slept through: the error says how long to wait.
    proxy.failNext({ kind: 'status', status: 503, code: 'service_unavailable', retryAfter: 3600 });
    const later = await client().payments.list().catch((error: unknown) => error);
    expect(later).toMatchObject({ status: 503, retryAfterSeconds: 3600 });
  });
});
