// The HTTP transport's bounds (docs/configuration.md, "HTTP limits"): a declared oversize body is
// refused at once, a body or headers that take too long are answered 408, headers that are too large
// or too many 431, malformed framing 400, and connections past the cap are closed on arrival. Every
// refusal carries the JSON envelope and its Request-Id, the transport's own included. Raw sockets:
// an HTTP client would not send these requests.
import net from 'node:net';
import { startTestApi, testConfig, useTestApi } from '../helpers/api';
import { exchange, head, type RawExchange } from '../helpers/raw-http';

const LIMITS = { ...testConfig().http, headersTimeoutMs: 600, bodyTimeoutMs: 600, maxHeaders: 30 };
const REQUEST_ID = /^req_[A-Za-z0-9]{24}$/;

const t = useTestApi({ config: { http: LIMITS }, timeoutMs: 60_000 });
let host: string;
beforeAll(() => { host = new URL(t.api.url).host; });

function expectEnvelope(result: RawExchange, status: number, code: string) {
  const answer = result.answer;
  expect({ status: answer?.status, code: answer?.json?.error?.code, body: answer?.body }).toEqual({ status, code, body: answer?.body });
  expect(answer!.headers['content-type']).toMatch(/^application\/json/);
  expect(answer!.headers['request-id']).toMatch(REQUEST_ID);
  expect(answer!.json.error.request_id).toBe(answer!.headers['request-id']);
  expect(answer!.json.error.message.length).toBeGreaterThan(10);
  return answer!;
}

const createHeaders = (extra: Record<string, string> = {}) => ({
  Host: host, Authorization: `Bearer ${t.merchant.testKey}`, 'Idempotency-Key': `transport-${Date.now()}-${Math.random()}`,
  'Content-Type': 'application/json', Connection: 'close', ...extra,
});

describe('bodies', () => {
  it.each([
    ['POST /v1/payments', '/v1/payments', {}],
    ['POST /v1/payments (Shape B)', '/v1/payments', { 'Service-Version': '2024-06-01' }],
    ['POST /v1/payouts', '/v1/payouts', {}],
    ['POST /internal/provider/notifications', '/internal/provider/notifications', {}],
  ])('%s: a declared length over the limit is refused at once, before the body arrives', async (_label, path, extra) => {
    const result = await exchange(t.api.url, [head('POST', path, createHeaders({ 'Content-Length': '70000', Connection: 'keep-alive', ...extra })), '{"amount":1}'.padEnd(200)], { waitMs: 300 });
    const answer = expectEnvelope(result, 400, 'request_body_invalid');
    expect(answer.json.error.message).toMatch(/at most \d+ bytes/);
    // The rest of that body is no next request: the connection ends after it (unread-body.ts).
    expect(answer.headers.connection).toBe('close');
  });

  it.each([
    ['Content-Length', { 'Content-Length': '300' }, '{"amount":1,'],
    ['chunked', { 'Transfer-Encoding': 'chunked' }, 'c\r\n{"amount":1,\r\n'],
  ])('a body (%s) that stops half way is answered 408 request_body_invalid after HTTP_BODY_TIMEOUT_MS', async (_label, framing, part) => {
    const result = await exchange(t.api.url, [head('POST', '/v1/payments', createHeaders(framing)), part], { waitMs: 5_000 });
    const answer = expectEnvelope(result, 408, 'request_body_invalid');
    expect(answer.ms).toBeGreaterThanOrEqual(LIMITS.bodyTimeoutMs - 50);
    expect(answer.headers.connection).toBe('close');
    expect(result.closed).toBe(true);
  });

  it('a slow Shape B body is answered in the Shape B envelope (by the API, not the transport)', async () => {
    const result = await exchange(t.api.url, [head('POST', '/v1/payments', createHeaders({ 'Content-Length': '300', 'Service-Version': '2024-06-01' })), '{'], { waitMs: 5_000 });
    const answer = expectEnvelope(result, 408, 'request_body_invalid');
    expect(answer.json.error.type).toBe('invalid_request_error');
    expect(answer.ms).toBeLessThan(LIMITS.headersTimeoutMs + LIMITS.bodyTimeoutMs);
  });

  it('a body sent in slow pieces that end within the bound is read as usual', async () => {
    const body = '{"amount":1}';
    const result = await exchange(t.api.url, [head('POST', '/v1/payments', createHeaders({ 'Content-Length': String(body.length) })), body.slice(0, 5), body.slice(5)], { gapMs: 200, waitMs: 3_000 });
    // The body arrived: the answer is about its content.
    expectEnvelope(result, 400, 'request_body_invalid');
    expect(result.answer!.json.error.param).toBe('currency');
  });

  it('malformed chunking -> 400 request_body_invalid from the transport', async () => {
    const result = await exchange(t.api.url, [head('POST', '/v1/payments', createHeaders({ 'Transfer-Encoding': 'chunked' })), 'zz\r\n{}\r\n0\r\n\r\n']);
    expectEnvelope(result, 400, 'request_body_invalid');
    expect(result.closed).toBe(true);
  });

  it('both Content-Length and Transfer-Encoding -> 400 request_body_invalid', async () => {
    const result = await exchange(t.api.url, [head('POST', '/v1/payments', createHeaders({ 'Content-Length': '2', 'Transfer-Encoding': 'chunked' })), '2\r\n{}\r\n0\r\n\r\n']);
    expectEnvelope(result, 400, 'request_body_invalid');
  });
});

describe('headers', () => {
  it('headers that do not end within HTTP_HEADERS_TIMEOUT_MS -> 408 from the transport', async () => {
    const result = await exchange(t.api.url, [`GET /v1/payments HTTP/1.1\r\nHost: ${host}\r\nX-Slow: 1\r\n`], { waitMs: 5_000 });
    const answer = expectEnvelope(result, 408, 'request_body_invalid');
    expect(answer.ms).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50);
    expect(result.closed).toBe(true);
  });

  it('headers over HTTP_MAX_HEADER_BYTES -> 431 parameter_invalid', async () => {
    const result = await exchange(t.api.url, [head('GET', '/v1/payments', { Host: host, 'X-Big': 'a'.repeat(LIMITS.maxHeaderBytes + 100) })]);
    const answer = expectEnvelope(result, 431, 'parameter_invalid');
    expect(answer.json.error.message).toContain(`${LIMITS.maxHeaderBytes} bytes`);
  });

  it('a request line over HTTP_MAX_HEADER_BYTES -> 431 parameter_invalid', async () => {
    const result = await exchange(t.api.url, [head('GET', `/v1/payments?search=${'a'.repeat(LIMITS.maxHeaderBytes)}`, { Host: host })]);
    expectEnvelope(result, 431, 'parameter_invalid');
  });

  it('more than HTTP_MAX_HEADERS header lines -> 431 parameter_invalid; as many are allowed', async () => {
    const lines = (count: number) => Object.fromEntries(Array.from({ length: count - 3 }, (_, i) => [`X-Extra-${i}`, '1']));
    const atLimit = await exchange(t.api.url, [head('GET', '/v1/payments', { Host: host, Connection: 'close', Authorization: `Bearer ${t.merchant.testKey}`, ...lines(LIMITS.maxHeaders) })]);
    expect(atLimit.answer?.status).toBe(200);
    for (const count of [LIMITS.maxHeaders + 1, LIMITS.maxHeaders + 50]) {
      const over = await exchange(t.api.url, [head('GET', '/v1/payments', { Host: host, Connection: 'close', Authorization: `Bearer ${t.merchant.testKey}`, ...lines(count) })]);
      expectEnvelope(over, 431, 'parameter_invalid');
    }
  });

  it('a malformed header -> 400 parameter_invalid from the transport', async () => {
    const result = await exchange(t.api.url, [`GET /v1/payments HTTP/1.1\r\nHost: ${host}\r\nBad Header: x\r\n\r\n`]);
    expectEnvelope(result, 400, 'parameter_invalid');
  });
});

describe('connections', () => {
  it('connections past HTTP_MAX_CONNECTIONS are closed on arrival, and served again once one closes', async () => {
    const capped = await startTestApi({ http: { ...testConfig().http, maxConnections: 3 } });
    const url = new URL(capped.url);
    const open: net.Socket[] = [];
    try {
      for (let i = 0; i < 3; i += 1) {
        const socket = net.connect(Number(url.port), url.hostname);
        await new Promise((resolve) => socket.once('connect', resolve));
        open.push(socket);
      }
      // The kernel accepts the fourth; the server closes it without a byte.
      const refused = await exchange(capped.url, [head('GET', '/v1/health', { Host: url.host })], { waitMs: 3_000 });
      expect(refused.answer).toBeNull();
      expect(refused.closed).toBe(true);
      open.pop()!.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const served = await exchange(capped.url, [head('GET', '/v1/payments', { Host: url.host, Connection: 'close' })], { waitMs: 3_000 });
      expect(served.answer?.status).toBe(401);
    } finally {
      for (const socket of open) socket.destroy();
      await capped.close();
    }
  });
});
