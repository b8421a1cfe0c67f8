// A worker killed while a refund is with the acquirer: the Payment's submitRefund activity is
// retried with the same provider key (derived from the refund id), so exactly one refund exists at
// the provider, the merchant gets one answer and the Refund still ends SUCCEEDED. Runs on its own
// task queue with its own worker process.
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { call, directPaymentBody, eventually, useTestApi } from '../helpers/api';
import { getPayment as getPaymentCall } from '../helpers/payments';
import type { ManagedProcess } from '../helpers/processes';
import { clearSandboxFaults, sandboxRecords, setSandboxFaults } from '../helpers/sandbox';
import { killHard, startWorkerProcess } from '../helpers/temporal';

const TASK_QUEUE = 'refunds-crash';

const workers: ManagedProcess[] = [];

// Declared before the fixture, whose afterAll closes the API: the workers stop first.
afterAll(async () => {
  await clearSandboxFaults();
  for (const worker of workers) await worker.stop();
});
// The create call outlives the crash and the activity's retry, so it gets a longer deadline.
const t = useTestApi({ config: { taskQueue: TASK_QUEUE, workflowUpdateTimeoutMs: 60_000 } });
beforeAll(async () => {
  workers.push(await startWorkerProcess('worker-refunds-crash-1', TASK_QUEUE));
}, 150_000);

const getPayment = async (id: string): Promise<any> => (await getPaymentCall(t.api, t.merchant.testKey, id)).json;

/** The refund id the Idempotency-Key was bound to, as soon as the claim row exists. */
async function boundRefundId(idempotencyKey: string): Promise<string> {
  const rows = await eventually(
    () => t.api.deps.dataSource.query("SELECT object_id FROM idempotency_records WHERE idempotency_key = ? AND operation = 'refunds.create'", [idempotencyKey]),
    (found: Array<{ object_id: string }>) => found.length === 1,
  );
  return rows[0]!.object_id;
}

/** True once a worker has picked up the Payment's submitRefund activity. */
async function submissionStarted(paymentId: string): Promise<boolean> {
  const { raw } = await t.api.deps.temporal.workflow.getHandle(paymentId).describe();
  return (raw.pendingActivities ?? []).some((activity) => activity.activityType?.name === 'submitRefund'
    && activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED);
}

it('a worker killed mid-refund yields exactly one provider refund, and the Refund ends SUCCEEDED', async () => {
  const created = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody({ amount: 1000 }) });
  expect(created.status).toBe(201);
  const paymentId: string = created.json.id;
  await eventually(() => getPayment(paymentId), (p) => p.status === 'SUCCEEDED');

  // The acquirer holds every call for a while: the submission is in flight when the worker dies.
  await setSandboxFaults({ latency_ms: 3000, path_prefix: '/v1/refunds', method: 'POST' });
  const idempotencyKey = randomUUID();
  const body = { payment_id: paymentId, amount: 1000, reason: 'crash test' };
  const answer = call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, body, idempotencyKey });
  const refundId = await boundRefundId(idempotencyKey);
  await eventually(() => submissionStarted(paymentId), (started) => started, 30_000, 100);

  await killHard(workers[0]!);
  await clearSandboxFaults();
  workers.push(await startWorkerProcess('worker-refunds-crash-2', TASK_QUEUE));

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
  const history = (await t.api.deps.temporal.workflow.getHandle(paymentId).fetchHistory()).events ?? [];
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
  const replay = await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, body, idempotencyKey });
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect((await sandboxRecords(refundId)).refunds).toHaveLength(1);
}, 120_000);
