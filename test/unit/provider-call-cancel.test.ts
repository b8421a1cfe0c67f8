// A provider call stops waiting when its caller cancels it (an activity past its deadline), so a
// provider that holds its answer does not keep the worker's slot for the client's own time-out.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpProviderClient } from '../../src/provider/http-client';

let server: http.Server;
let baseUrl: string;
const held: http.ServerResponse[] = [];

beforeAll(async () => {
  // Reads the request and never answers, like the sandbox's hanging card.
  server = http.createServer((req, res) => {
    req.resume();
    held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const payout = {
  idempotencyKey: 'po_cancel:payout', reference: 'po_cancel', amount: 2500, currency: 'EUR',
  cardNumber: '4000007000000007', recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' },
};

describe('a provider call and its caller cancelling it', () => {
  it('a cancelled payout stops waiting at once and is an answer that proves nothing (may have acted)', async () => {
    const client = new HttpProviderClient({ baseUrl, timeoutMs: 8000 });
    const started = Date.now();
    const result = await client.payout(payout, { signal: AbortSignal.timeout(100) });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result).toEqual({ kind: 'unanswered', cause: 'timeout', mayHaveActed: true, retryAfterSeconds: null });
  });

  it('a cancelled look-up stops waiting at once', async () => {
    const client = new HttpProviderClient({ baseUrl, timeoutMs: 8000 });
    const started = Date.now();
    const result = await client.getPayoutByKey('po_cancel:payout', { signal: AbortSignal.timeout(100) });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.kind).toBe('unanswered');
  });

  it('without a signal the client waits for its own time-out', async () => {
    const client = new HttpProviderClient({ baseUrl, timeoutMs: 300 });
    const started = Date.now();
    const result = await client.payout(payout);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(result.kind).toBe('unanswered');
  });
});
