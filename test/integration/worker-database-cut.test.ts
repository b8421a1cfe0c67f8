// A worker cut from its database but not from Temporal (CONTRACT 16): its `GET /health` (metrics
// port) answers 503 and it stops polling within 5 s, creates meanwhile are served by the healthy
// worker, and it polls again once the database is back. The cut worker reaches MariaDB through a
// TCP proxy the test cuts; the healthy one and the API reach it directly.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { call, type CallResult, directPaymentBody, eventually, useTestApi } from '../helpers/api';
import { freePort, type ManagedProcess } from '../helpers/processes';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { startWorkerProcess, workflowTaskWorkers } from '../helpers/temporal';
import { TEST_ENV } from '../helpers/test-env';

const TASK_QUEUE = `db-cut-${Date.now()}`;

let proxy: TcpProxy;
const started: ManagedProcess[] = [];

// Declared before the fixture, whose afterAll closes the API: workers and proxy stop first.
afterAll(async () => {
  for (const managed of started) await managed.stop();
  await proxy.close();
});
const t = useTestApi({ config: { taskQueue: TASK_QUEUE }, merchant: { name: 'Cut Shop' }, timeoutMs: 60_000 });
beforeAll(async () => {
  const db = new URL(TEST_ENV.databaseUrl);
  proxy = await startTcpProxy({ host: db.hostname, port: Number(db.port || 3306) });
}, 60_000);

interface Health { status: number; body: any }

async function health(port: number): Promise<Health> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    return { status: res.status, body: await res.json() };
  } catch (error) {
    return { status: 0, body: String(error) };
  }
}

const identityOf = (managed: ManagedProcess) => `${managed.child.pid}@${os.hostname()}`;

interface TimedCreate { res: CallResult; ms: number; sentAt: number; idempotencyKey: string }

/** A create, with when it was sent and how long its answer took. */
async function timedCreate(idempotencyKey: string = randomUUID()): Promise<TimedCreate> {
  const sentAt = Date.now();
  const res = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody(), idempotencyKey });
  return { res, ms: Date.now() - sentAt, sentAt, idempotencyKey };
}

it('stops polling within 5 s of losing its database, the other worker serves the creates, and it polls again when the database is back', async () => {
  const [cutPort, healthyPort] = await Promise.all([freePort(), freePort()]);
  const db = new URL(TEST_ENV.databaseUrl);
  const cut = await startWorkerProcess(`db-cut-worker-${Date.now()}`, TASK_QUEUE, {
    DATABASE_URL: `mysql://${db.username || 'root'}@${proxy.address}${db.pathname}`, WORKER_METRICS_PORT: String(cutPort),
  });
  started.push(cut);
  const healthy = await startWorkerProcess(`db-healthy-worker-${Date.now()}`, TASK_QUEUE, { WORKER_METRICS_PORT: String(healthyPort) });
  started.push(healthy);

  const before = await health(cutPort);
  expect(before).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok', temporal: 'ok' }, polling: true } });
  expect((await timedCreate()).res.status).toBe(201);

  proxy.cut();
  const cutAt = Date.now();
  // Creates go on during the cut, one every 250 ms.
  const during: Array<Promise<TimedCreate>> = [];
  const sending = setInterval(() => { during.push(timedCreate()); }, 250);
  const down = await eventually(() => health(cutPort), (h) => h.status === 503 && h.body.polling === false, 10_000, 100);
  const suspendedAfterMs = Date.now() - cutAt;
  expect(down.body.checks).toEqual({ database: 'unavailable', temporal: 'ok' });
  expect(suspendedAfterMs).toBeLessThanOrEqual(5_000);
  expect((await health(healthyPort)).status).toBe(200);

  await new Promise((resolve) => setTimeout(resolve, 6_000));
  clearInterval(sending);

  // No create waits for the database to come back: every one is answered while it is still cut.
  // (Before, a create whose task went to the cut worker hung until then, or until the API's 25 s
  // deadline.) One whose task the cut worker had taken before it stopped polling may fail on the
  // database there: it is answered 503 with Retry-After, and its same-key retry reaches the healthy
  // worker. Those sent once the worker had stopped polling are answered 201, each by the healthy worker.
  const answers = await Promise.all(during);
  for (const failed of answers.filter((a) => a.res.status !== 201)) {
    expect({ status: failed.res.status, retryAfter: failed.res.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '1' });
    expect(failed.sentAt - cutAt).toBeLessThan(suspendedAfterMs);
    const retried = await eventually(() => timedCreate(failed.idempotencyKey), (r) => r.res.status !== 503, 60_000, 1000);
    expect(retried.res.status).toBe(201);
  }
  const afterSuspension = answers.filter((a) => a.sentAt > cutAt + suspendedAfterMs);
  expect(afterSuspension.map((a) => a.res.status)).toEqual(afterSuspension.map(() => 201));
  expect(afterSuspension.length).toBeGreaterThan(5);
  proxy.restore();
  for (const { res } of afterSuspension) {
    expect([...await workflowTaskWorkers(t.api.deps.temporal, res.json.id)]).toEqual([identityOf(healthy)]);
  }

  // Back: healthy and polling again (its next check after the database answers); with the other
  // worker gone, it serves creates.
  await eventually(() => health(cutPort), (h) => h.status === 200 && h.body.polling === true, 15_000, 100);
  await healthy.stop();
  const served = await timedCreate();
  expect(served.res.status).toBe(201);
  expect([...await workflowTaskWorkers(t.api.deps.temporal, served.res.json.id)]).toEqual([identityOf(cut)]);
}, 180_000);
