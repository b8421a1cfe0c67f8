// A request answered before its body has all arrived gets its answer at once, and the connection
// closes only after the rest of the body (a lingering close): closing a socket with bytes still
// arriving sends a TCP reset, which can discard the answer before the client reads it.
import http from 'node:http';
import net from 'node:net';
import Koa from 'koa';
import { closeAfterUnreadBody, UNREAD_BODY_LIMITS } from '../../src/web/unread-body';
import { useTestApi } from '../helpers/api';

const t = useTestApi({ timeoutMs: 60_000 });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends the head and part of a body on a raw connection; the caller sends the rest, or not. The
 * client keeps sending after the server's FIN (half-open), as a client still uploading does. A
 * `writeFirst` client reads nothing until it has written everything, as many synchronous clients do.
 */
function openPost(headers: Record<string, string>, declaredLength: number, firstPart: string, baseUrl = t.api.url, writeFirst = false) {
  const url = new URL(baseUrl);
  const socket = net.connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
  let received = '';
  let error: string | null = null;
  if (writeFirst) socket.pause();
  socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1'); });
  socket.on('error', (e: NodeJS.ErrnoException) => { error = e.code ?? e.message; });
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const head = Object.entries({ Host: url.host, 'Content-Type': 'application/json', 'Content-Length': String(declaredLength), Connection: 'close', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.write(`POST /v1/payments HTTP/1.1\r\n${head}\r\n${firstPart}`);
  const sendRest = (text: string) => new Promise<void>((resolve) => socket.end(text, () => resolve()));
  return { socket, ended, sendRest, received: () => received, error: () => error };
}

describe('the API', () => {
  it.each([
    ['refused before the body is read (no API key)', () => ({}), /^HTTP\/1\.1 401 /],
    ['a declared length over the body limit', () => ({ Authorization: `Bearer ${t.merchant.testKey}`, 'Idempotency-Key': `unread-${Date.now()}` }), /^HTTP\/1\.1 400 /],
  ])('%s: answered at once, closed once the rest of the body has arrived', async (_label, headers, status) => {
    const length = 200_000;
    const first = '{"description":"' + 'x'.repeat(1000);
    const post = openPost(headers(), length, first);
    await sleep(300);
    expect(post.received()).toMatch(status);
    expect(post.received()).toMatch(/\r\nconnection: close\r\n/i);
    // Had the server closed the socket, the rest would meet a reset.
    await post.sendRest('x'.repeat(length - first.length));
    await post.ended;
    expect(post.error()).toBeNull();
  });

  it('a client that reads only after writing its whole body still gets the answer', async () => {
    const length = 2_000_000;
    const first = '{"description":"';
    const post = openPost({}, length, first, t.api.url, true);
    await sleep(200);
    await post.sendRest('x'.repeat(length - first.length));
    post.socket.resume();
    await post.ended;
    expect(post.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(post.error()).toBeNull();
  });
});

describe('the bounds (a bare Koa app that refuses every request unread)', () => {
  async function refusingApp(limits: typeof UNREAD_BODY_LIMITS) {
    const app = new Koa();
    app.use(closeAfterUnreadBody(limits));
    app.use((ctx) => { ctx.status = 401; ctx.body = 'no'; });
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` };
  }

  /** When the server closed its side of the one connection of a request (ms after the answer). */
  async function serverClose(limits: typeof UNREAD_BODY_LIMITS, declaredLength: number, rest?: string) {
    const { server, url } = await refusingApp(limits);
    try {
      const closed = new Promise<number>((resolve) => server.once('connection', (socket: net.Socket) => socket.once('close', () => resolve(Date.now()))));
      const post = openPost({}, declaredLength, '{', url);
      while (post.received() === '') await sleep(10);
      const answeredAt = Date.now();
      expect(post.received()).toMatch(/^HTTP\/1\.1 401 /);
      if (rest !== undefined) {
        await sleep(300);
        await post.sendRest(rest);
      }
      const ms = (await closed) - answeredAt;
      post.socket.destroy();
      return { ms, error: post.error() };
    } finally {
      server.close();
    }
  }

  it('the connection stays open for the rest of the body, and closes cleanly when it has arrived', async () => {
    const { ms, error } = await serverClose({ maxBytes: 1_000_000, maxMs: 60_000 }, 100, 'x'.repeat(99));
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(5_000);
    expect(error).toBeNull();
  });

  // Without the byte bound it would wait a minute for a body that never comes.
  it('a body declared over the byte bound is not waited for', async () => {
    expect((await serverClose({ maxBytes: 10, maxMs: 60_000 }, 100)).ms).toBeLessThan(150);
  });

  // Without the time bound it would wait for ever.
  it('a client that stops sending is closed after the time bound', async () => {
    const { ms } = await serverClose({ maxBytes: 1_000_000, maxMs: 300 }, 100);
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(2_000);
  });
});
