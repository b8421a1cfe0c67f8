// A worker killed while a refund is with the acquirer: the Payment's submitRefund activity is
// retried with the same provider key (derived from the refund id), so exactly one refund exists at
// the provider, the merchant gets one answer and the Refund still ends SUCCEEDED. Runs on its own
// task queue with its own worker process.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { temporal } from '@temporalio/proto';
import type { RunningApi } from '../../src/api/server';
import { call, createMerchant, directPaymentBody, eventually, startTestApi, type TestMerchant } from '../helpers/api';
import { spawnTs, waitForLog, type ManagedProcess } from '../helpers/processes';
import { clearSandboxFaults, sandboxRecords, setSandboxFaults } from '../helpers/sandbox';
import { workerEnv } from '../helpers/test-env';

const TASK_QUEUE = 'refunds-crash';

let api: RunningApi;
let merchant: TestMerchant;
const workers: ManagedProcess[] = [];

async function startWorker(name: string): Promise<ManagedProcess> {
  const worker = spawnTs(name, 'workers/main.ts', workerEnv({ TEMPORAL_TASK_QUEUE: TASK_QUEUE }));
  workers.push(worker);
  await waitForLog(worker.logFile, 'worker running', 120_000);
  return worker;
}

beforeAll(async () => {
  // The create call outlives the crash and the activity's retry, so it gets a longer deadline.
  api = await startTestApi({ taskQueue: TASK_QUEUE, workflowUpdateTimeoutMs: 60_000 });
  merchant = await createMerchant(api);
  await startWorker('worker-refunds-crash-1');
}, 150_000);

afterAll(async () => {
  await clearSandboxFaults();
  for (const worker of workers) await worker.stop();
  await api.close();
});

async function getPayment(id: string): Promise<any> {
  return (await call(api, 'GET', `/v1/payments/${id}`, { key: merchant.testKey })).json;
}

/** The process and its descendants (tsx runs the worker in a child process), by pid. */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** kill -9 of the worker itself, not only of its tsx launcher. */
async function killHard(worker: ManagedProcess): Promise<void> {
  const pid = worker.child.pid!;
  for (const child of descendants(pid).reverse()) process.kill(child, 'SIGKILL');
  await worker.stop('SIGKILL');
}

/** The refund id the Idempotency-Key was bound to, as soon as the claim row exists. */
async function boundRefundId(idempotencyKey: string): Promise<string> {
  const rows = await eventually(
    () => api.deps.dataSource.query("SELECT object_id FROM idempotency_records WHERE idempotency_key = ? AND operation = 'refunds.create'", [idempotencyKey]),
    (found: Array<{ object_id: string }>) => found.length === 1,
  );
  return rows[0]!.object_id;
}

/** True once a worker has picked up the Payment's submitRefund activity. */
async function submissionStarted(paymentId: string): Promise<boolean> {
  const { raw } = await api.deps.temporal.workflow.getHandle(paymentId).describe();
  return (raw.pendingActivities ?? []).some((activity) => activity.activityType?.name === 'submitRefund'
    && activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED);
}

it('a worker killed mid-refund yields exactly one provider refund, and the Refund ends SUCCEEDED', async () => {
  const created = await call(api, 'POST', '/v1/payments', { key: merchant.testKey, body: directPaymentBody({ amount: 1000 }) });
  expect(created.status).toBe(201);
  const paymentId: string = created.json.id;
  await eventually(() => getPayment(paymentId), (p) => p.status === 'SUCCEEDED');

  // The acquirer holds every call for a while: the submission is in flight when the worker dies.
  await setSandboxFaults({ latency_ms: 3000, path_prefix: '/v1/refunds', method: 'POST' });
  const idempotencyKey = randomUUID();
  const body = { payment_id: paymentId, amount: 1000, reason: 'crash test' };
  const answer = call(api, 'POST', '/v1/refunds', { key: merchant.testKey, body, idempotencyKey });
  const refundId = await boundRefundId(idempotencyKey);
  await eventually(() => submissionStarted(paymentId), (started) => started, 30_000, 100);

  await killHard(workers[0]!);
  await clearSandboxFaults();
  await startWorker('worker-refunds-crash-2');

  // The activity is retried once its start-to-close timeout has passed, with the same provider key.
  const res = await answer;
  expect(res.status).toBe(201);
  expect(res.json.id).toBe(refundId);
  expect(res.json.refund_type).toBe('FULL');
  expect((await getPayment(paymentId)).refunds).toEqual([res.json]);

  const after = await eventually(() => getPayment(paymentId), (p) => p.refunds[0]?.status === 'SUCCEEDED', 40_000);
  expect(after.refunds).toHaveLength(1);
  expect(after.amount_refunded).toBe(1000);
  expect(after.amount_refundable).toBe(0);

  // The submission really was cut short: the one recorded in history is a retry; the update was
  // accepted and answered once.
  const history = (await api.deps.temporal.workflow.getHandle(paymentId).fetchHistory()).events ?? [];
  const submissions = history.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'submitRefund');
  expect(submissions).toHaveLength(1);
  const started = history.find((event) => event.activityTaskStartedEventAttributes
    && event.activityTaskStartedEventAttributes.scheduledEventId?.toString() === submissions[0]!.eventId?.toString());
  expect(started?.activityTaskStartedEventAttributes?.attempt).toBeGreaterThan(1);
  expect(history.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'refund')).toHaveLength(1);
  expect(history.filter((event) => event.workflowExecutionUpdateCompletedEventAttributes)).toHaveLength(2); // the create and the refund

  const records = await sandboxRecords(refundId);
  expect(records.refunds).toEqual([expect.objectContaining({ idempotency_key: `${refundId}:refund`, amount: 1000, status: 'succeeded' })]);

  // A same-key retry replays the answer and sends nothing more to the acquirer.
  const replay = await call(api, 'POST', '/v1/refunds', { key: merchant.testKey, body, idempotencyKey });
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect((await sandboxRecords(refundId)).refunds).toHaveLength(1);
}, 120_000);
