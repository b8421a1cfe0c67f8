// API shutdown under traffic (CONTRACT 16): on SIGTERM `/v1/health` answers 503 at once, every
// answer on a kept-alive connection says `Connection: close`, a request in flight finishes, and the
// process exits while clients keep sending (before, requests on kept-alive connections kept being
// served and the process only exited when the client stopped).
import http from 'node:http';
import { directPaymentBody, useTestApi } from '../helpers/api';
import { clearSandboxFaults, setSandboxFaults } from '../helpers/sandbox';
import { startApiProcess } from '../helpers/temporal';

const t = useTestApi();
afterAll(async () => { await clearSandboxFaults(); });

interface Answer { at: number; status: number; connection: string | undefined; retryAfter: string | undefined; body: string }

function get(url: string, path: string, agent: http.Agent | false, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}${path}`, { agent, headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      res.on('end', () => resolve({ at: Date.now(), status: res.statusCode ?? 0, connection: res.headers.connection, retryAfter: res.headers['retry-after'] as string | undefined, body }));
    });
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('SIGTERM: health 503 at once, Connection: close on kept-alive connections, in-flight requests finish, exit under continuous traffic', async () => {
  const drainDelayMs = 1500;
  // Back-to-back traffic from one address: neither the per-key nor the per-address limit may answer it.
  const { process: proc, url } = await startApiProcess(`api-shutdown-${Date.now()}`, {
    API_DRAIN_DELAY_MS: String(drainDelayMs), RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000',
    RATE_LIMIT_PER_ADDRESS_PER_SECOND: '100000', RATE_LIMIT_ADDRESS_BURST: '100000',
  });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => proc.child.once('exit', (code) => resolve({ code, at: Date.now() })));
  let running = true;
  void exited.then(() => { running = false; });

  // Four clients on kept-alive connections, back to back, until the process is gone.
  const answers: Answer[] = [];
  let refused = 0;
  const clients = Array.from({ length: 4 }, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    while (running) {
      try {
        answers.push(await get(url, '/v1/payments?limit=1', agent, { Authorization: `Bearer ${t.merchant.testKey}` }));
      } catch {
        refused += 1; // the listener is closed: a client would go to another replica
        await sleep(20);
      }
    }
    agent.destroy();
  });
  await sleep(500);

  // A create whose acquirer answers in 4 s is in flight when the signal comes.
  await setSandboxFaults({ latency_ms: 4000, path_prefix: '/v1/authorizations', method: 'POST' });
  const create = fetch(`${url}/v1/payments`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.merchant.testKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': `shutdown-${Date.now()}` },
    body: JSON.stringify(directPaymentBody()),
  }).then(async (res) => ({ status: res.status, body: await res.text() }), (error: unknown) => ({ status: 0, body: String(error) }));
  await sleep(500);

  const signalledAt = Date.now();
  proc.child.kill('SIGTERM');
  await sleep(100);
  const health = await get(url, '/v1/health', false);

  let timer: NodeJS.Timeout | undefined;
  const end = await Promise.race([exited, new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), 28_000); })]);
  clearTimeout(timer);
  running = false;
  await Promise.all(clients);
  await clearSandboxFaults();

  expect(health.status).toBe(503);
  expect(JSON.parse(health.body)).toEqual({ status: 'shutting_down' });
  expect(health.retryAfter).toBeDefined();

  // It exited by itself while the clients kept sending: the drain delay, then the create's 4 s.
  expect(end).not.toBeNull();
  expect(end!.code).toBe(0);
  expect(end!.at - signalledAt).toBeLessThan(drainDelayMs + 8_000);

  const created = await create;
  expect(created.status).toBe(201);

  // Traffic went on during the drain delay, every answer of it (once the signal had arrived) on a closing connection.
  const afterSignal = answers.filter((a) => a.at > signalledAt + 200);
  expect(afterSignal.length).toBeGreaterThan(4);
  expect(afterSignal.filter((a) => a.connection !== 'close')).toEqual([]);
  expect(answers.filter((a) => a.status !== 200)).toEqual([]);
  expect(refused).toBeGreaterThan(0);
}, 90_000);
