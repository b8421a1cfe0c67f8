// Crashes during a Direct Payment create (docs/decisions.md, idempotency leases): a worker
// killed while the provider authorization is in flight, and an API process killed while it holds
// the Idempotency-Key claim. Either way the create (or its same-key retry) answers 201 and the
// provider sees one authorization.
import { randomUUID } from 'node:crypto';
import { call, type CallResult, directPaymentBody, eventually, useTestApi } from '../helpers/api';
import { boundPaymentId, createDirectPayment, waitForStatus } from '../helpers/payments';
import type { ManagedProcess } from '../helpers/processes';
import { clearSandboxFaults, sandboxRecords, setSandboxFaults } from '../helpers/sandbox';
import { authorizationInFlight, killHard, startApiProcess, startWorkerProcess, workflowTaskWorkers } from '../helpers/temporal';

const TASK_QUEUE = 'payments-crash';

const started: ManagedProcess[] = [];

// Declared before the fixture, whose afterAll closes the API: the workers stop first.
afterAll(async () => {
  await clearSandboxFaults();
  for (const managed of started) await managed.stop();
});
// This API starts Payment workflows on a queue only this file's workers poll.
const t = useTestApi({ config: { taskQueue: TASK_QUEUE }, merchant: { name: 'Crash Shop' }, timeoutMs: 60_000 });

/** Same-key retries, as docs/quickstart.md tells a merchant to do after a 409 in use or a 5xx. */
async function retryUntilCreated(send: () => Promise<CallResult>): Promise<CallResult> {
  return eventually(send, (res) => res.status === 201 || (res.status !== 409 && res.status < 500), 90_000, 1000);
}

it('a worker killed during the authorization still yields one provider authorization and a 201', async () => {
  const first = await startWorkerProcess(`payments-crash-worker-${Date.now()}`, TASK_QUEUE);
  started.push(first);
  // The acquirer takes the request at once and answers 3 s later: time to kill the worker mid-call.
  await setSandboxFaults({ latency_ms: 3000, path_prefix: '/v1/authorizations', method: 'POST' });
  const key = randomUUID();
  const inFlight = createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);

  const paymentId = await eventually(() => boundPaymentId(t.api, key), (id) => id !== null);
  await eventually(() => authorizationInFlight(t.api.deps.temporal, paymentId!), (running) => running);
  await killHard(first);
  await clearSandboxFaults();
  const second = await startWorkerProcess(`payments-crash-worker-${Date.now()}`, TASK_QUEUE);
  started.push(second);

  // The workflow task holding the local authorization times out and runs again on the second
  // worker, with the same provider key.
  let answer = await inFlight;
  if (answer.status !== 201) {
    expect([409, 503]).toContain(answer.status);
    answer = await retryUntilCreated(() => createDirectPayment(t.api, t.merchant.testKey, {}, {}, key));
  }
  expect(answer.status).toBe(201);
  expect(answer.json.id).toBe(paymentId);
  expect(['PROCESSING', 'SUCCEEDED']).toContain(answer.json.status);

  const records = await sandboxRecords(paymentId!);
  expect(records.authorizations).toHaveLength(1);
  expect(records.authorizations[0]!.idempotency_key).toBe(`${paymentId}:authorize`);
  await waitForStatus(t.api, t.merchant.testKey, paymentId!, 'SUCCEEDED', 60_000);
  expect((await sandboxRecords(paymentId!)).authorizations).toHaveLength(1);
  // A second worker finished what the first began.
  expect((await workflowTaskWorkers(t.api.deps.temporal, paymentId!)).size).toBeGreaterThanOrEqual(2);
  // The card was used once and shredded.
  const vaulted = () => t.api.deps.dataSource.query('SELECT token FROM card_vault WHERE token = ?', [`tok_${paymentId!.slice(4)}`]) as Promise<unknown[]>;
  await eventually(vaulted, (rows) => rows.length === 0);
}, 240_000);

it('an API process killed while holding the Idempotency-Key: the same-key retry finishes the same Payment', async () => {
  // The doomed API starts workflows on the shared test queue and holds claims for 2 s.
  const doomed = await startApiProcess(`payments-crash-api-${Date.now()}`, { IDEMPOTENCY_LEASE_MS: '2000' });
  started.push(doomed.process);
  await setSandboxFaults({ latency_ms: 2000, path_prefix: '/v1/authorizations', method: 'POST' });
  const key = randomUUID();
  const body = directPaymentBody({ description: 'crash' });
  const lost = fetch(`${doomed.url}/v1/payments`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.merchant.testKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
    body: JSON.stringify(body),
  }).then((res) => res.status, () => 'connection lost');

  const paymentId = await eventually(() => boundPaymentId(t.api, key), (id) => id !== null);
  // Killed after the claim and the workflow start, before any answer was saved.
  await eventually(() => authorizationInFlight(t.api.deps.temporal, paymentId!), (running) => running);
  await killHard(doomed.process);
  expect(await lost).toBe('connection lost');
  await clearSandboxFaults();
  const [claim] = await t.api.deps.dataSource.query('SELECT state, response_status FROM idempotency_records WHERE idempotency_key = ?', [key]);
  expect(claim).toMatchObject({ state: 'processing', response_status: null });

  // This API's workflows run on another queue, but the Payment's workflow already exists and keeps
  // running on its own.
  const retried = await retryUntilCreated(() => call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body, idempotencyKey: key }));
  expect(retried.status).toBe(201);
  expect(retried.json.id).toBe(paymentId);
  expect(retried.headers.get('idempotent-replayed')).toBeNull();
  const replay = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body, idempotencyKey: key });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.text).toBe(retried.text);
  expect((await sandboxRecords(paymentId!)).authorizations).toHaveLength(1);
}, 240_000);
