// A worker's SIGTERM (CONTRACT 16): it stops taking tasks at once and finishes the activities it is
// running before it exits. Before, an authorization in flight was abandoned to its task time-out
// (+10 s on another worker, and with no other worker the create waited for the API's deadline).
import os from 'node:os';
import { call, directPaymentBody, eventually, useTestApi } from '../helpers/api';
import { boundPaymentId } from '../helpers/payments';
import { waitForLog, type ManagedProcess } from '../helpers/processes';
import { clearSandboxFaults, sandboxRecords, setSandboxFaults } from '../helpers/sandbox';
import { authorizationInFlight, runningActivities, startWorkerProcess, workflowTaskWorkers } from '../helpers/temporal';

const TASK_QUEUE = `worker-shutdown-${Date.now()}`;

const started: ManagedProcess[] = [];

// Declared before the fixture, whose afterAll closes the API: the workers stop first.
afterAll(async () => {
  await clearSandboxFaults();
  for (const managed of started) await managed.stop();
});
const t = useTestApi({ config: { taskQueue: TASK_QUEUE }, merchant: { name: 'Shutdown Shop' }, timeoutMs: 60_000 });

const identityOf = (managed: ManagedProcess) => `${managed.child.pid}@${os.hostname()}`;

it('SIGTERM during a refund submission: the activity finishes on its worker, in its first attempt', async () => {
  const pair = [
    await startWorkerProcess(`worker-shutdown-a-${Date.now()}`, TASK_QUEUE),
    await startWorkerProcess(`worker-shutdown-b-${Date.now()}`, TASK_QUEUE),
  ];
  started.push(...pair);
  const created = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody({ amount: 1000 }) });
  expect(created.status).toBe(201);
  const paymentId = created.json.id as string;
  await eventually(() => call(t.api, 'GET', `/v1/payments/${paymentId}`, { key: t.merchant.testKey }), (r) => r.json.status === 'SUCCEEDED');

  // The acquirer answers the refund after 4 s: the worker running the submission gets the signal
  // while it waits (the other one takes the workflow task that answers the refund).
  await setSandboxFaults({ latency_ms: 4000, path_prefix: '/v1/refunds', method: 'POST' });
  const refund = call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, body: { payment_id: paymentId, amount: 400, reason: 'shutdown test' } });
  const submitting = await eventually(async () => {
    const { raw } = await t.api.deps.temporal.workflow.getHandle(paymentId).describe();
    return (raw.pendingActivities ?? []).find((a) => a.activityType?.name === 'submitRefund' && Number(a.state) === 2)?.lastWorkerIdentity ?? null;
  }, (identity) => identity !== null, 20_000, 50);
  const stopping = pair.find((w) => identityOf(w) === submitting)!;
  const exited = new Promise<number | null>((resolve) => stopping.child.once('exit', (code) => resolve(code)));
  stopping.child.kill('SIGTERM');
  await clearSandboxFaults();

  const answer = await refund;
  expect(answer.status).toBe(201);
  expect(await exited).toBe(0);
  // One submission, started once (attempt 1, by the stopped worker) and completed: not cancelled and retried elsewhere.
  const events = (await t.api.deps.temporal.workflow.getHandle(paymentId).fetchHistory()).events ?? [];
  const submissions = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'submitRefund');
  expect(submissions).toHaveLength(1);
  const of = (id: unknown) => Number(id) === Number(submissions[0]!.eventId);
  expect(events.filter((e) => e.activityTaskStartedEventAttributes && of(e.activityTaskStartedEventAttributes.scheduledEventId))
    .map((e) => [e.activityTaskStartedEventAttributes!.identity, e.activityTaskStartedEventAttributes!.attempt])).toEqual([[submitting, 1]]);
  expect(events.filter((e) => e.activityTaskCompletedEventAttributes && of(e.activityTaskCompletedEventAttributes.scheduledEventId))).toHaveLength(1);
  expect((await sandboxRecords(answer.json.id)).refunds).toHaveLength(1);
  await pair.find((w) => w !== stopping)!.stop();
}, 180_000);

it('SIGTERM during an authorization: the worker answers it, takes nothing new, and exits', async () => {
  const worker = await startWorkerProcess(`worker-shutdown-${Date.now()}`, TASK_QUEUE);
  started.push(worker);
  const exited = new Promise<number | null>((resolve) => worker.child.once('exit', (code) => resolve(code)));

  // The acquirer answers after 4 s: the signal comes while the worker waits for it.
  await setSandboxFaults({ latency_ms: 4000, path_prefix: '/v1/authorizations', method: 'POST' });
  const key = `shutdown-${Date.now()}`;
  const inFlight = call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody(), idempotencyKey: key });
  const paymentId = (await eventually(() => boundPaymentId(t.api, key), (id) => id !== null))!;
  await eventually(() => authorizationInFlight(t.api.deps.temporal, paymentId), (running) => running);
  worker.child.kill('SIGTERM');
  await clearSandboxFaults();

  // A create sent once the worker has taken the signal is not taken by it.
  await waitForLog(worker.logFile, 'worker stopping');
  const afterKey = `after-${key}`;
  const body = directPaymentBody();
  const after = call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body, idempotencyKey: afterKey });

  const answer = await inFlight;
  expect(answer.status).toBe(201);
  expect(answer.json.id).toBe(paymentId);
  expect(await exited).toBe(0);
  expect([...await workflowTaskWorkers(t.api.deps.temporal, paymentId)]).toEqual([identityOf(worker)]);
  expect((await sandboxRecords(paymentId)).authorizations).toHaveLength(1);

  // The next worker serves it.
  const next = await startWorkerProcess(`worker-shutdown-next-${Date.now()}`, TASK_QUEUE);
  started.push(next);
  // (Its first answer may be the API's 503 at its deadline, if the next worker took longer to start: then the same-key retry.)
  const served = (await after).status === 201 ? await after
    : await eventually(() => call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body, idempotencyKey: afterKey }), (r) => r.status !== 503 && r.status !== 409, 60_000, 1000);
  expect(served.status).toBe(201);
  expect([...await workflowTaskWorkers(t.api.deps.temporal, served.json.id)]).toEqual([identityOf(next)]);
}, 180_000);
