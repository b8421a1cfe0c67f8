// A request refused before its body is read still gets its answer: the API reads and drops the
// rest of the body before answering, so that Node does not close the socket on bytes still
// arriving (a TCP reset, which can discard the answer before the client reads it).
import http from 'node:http';
import net from 'node:net';
import Koa from 'koa';
import type { RunningApi } from '../../src/api/server';
import { drainUnreadBody, UNREAD_BODY_LIMITS } from '../../src/api/middleware/unread-body';
import { createMerchant, startTestApi, type TestMerchant } from '../helpers/api';

let api: RunningApi;
let merchant: TestMerchant;
beforeAll(async () => {
  api = await startTestApi();
  merchant = await createMerchant(api);
}, 60_000);
afterAll(async () => { await api.close(); });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends the head and part of a body on a raw connection; the caller sends the rest, or not. */
function openPost(headers: Record<string, string>, declaredLength: number, firstPart: string, baseUrl = api.url) {
  const url = new URL(baseUrl);
  const socket = net.connect(Number(url.port), url.hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1'); });
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const head = Object.entries({ Host: url.host, 'Content-Type': 'application/json', 'Content-Length': String(declaredLength), Connection: 'close', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.write(`POST /v1/payments HTTP/1.1\r\n${head}\r\n${firstPart}`);
  return { socket, ended, received: () => received };
}

it.each([
  ['refused before the body is read (no API key)', () => ({}), 200_000, /^HTTP\/1\.1 401 /],
  ['a declared length over the body limit', () => ({ Authorization: `Bearer ${merchant.testKey}`, 'Idempotency-Key': `unread-${Date.now()}` }), 200_000, /^HTTP\/1\.1 400 /],
])('%s: answered once the whole body has arrived', async (_label, headers, length, status) => {
  const first = '{"description":"' + 'x'.repeat(1000);
  const post = openPost(headers(), length, first);
  await sleep(500);
  // Without the drain the answer is already here, and the socket closes under the bytes still coming.
  expect(post.received()).toBe('');
  post.socket.write('x'.repeat(length - first.length));
  await post.ended;
  expect(post.received()).toMatch(status);
});

describe('the bounds (a bare Koa app that refuses every request unread)', () => {
  async function refusingApp(limits: typeof UNREAD_BODY_LIMITS) {
    const app = new Koa();
    app.use(drainUnreadBody(limits));
    app.use((ctx) => { ctx.status = 401; ctx.body = 'no'; });
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` };
  }

  it.each([
    // Without the byte bound it would wait for a body that never comes (the time bound is a minute).
    ['a body declared over the byte bound is answered without waiting for it', { maxBytes: 10, maxMs: 60_000 }],
    // Without the time bound it would wait for ever.
    ['a client that stops sending is answered after the time bound', { maxBytes: 1_000_000, maxMs: 200 }],
  ])('%s', async (_label, limits) => {
    const { server, url } = await refusingApp(limits);
    try {
      const post = openPost({}, 100, '{', url);
      await post.ended;
      expect(post.received()).toMatch(/^HTTP\/1\.1 401 /);
    } finally {
      server.close();
    }
  });
});
