// A worker killed (SIGKILL) while a payout is PENDING, or after the provider took the submission but
// before its answer was in history: once a worker is back, the payout still ends terminal, with
// exactly one provider payout. A dedicated task queue keeps the shared worker out.
import { call, type CallResult, eventually, startTestApi, useTestApi } from '../helpers/api';
import type { ManagedProcess } from '../helpers/processes';
import { clearSandboxFaults, sandboxControl, setSandboxFaults } from '../helpers/sandbox';
import { killHard, startWorkerProcess } from '../helpers/temporal';
import { TEST_ENV } from '../helpers/test-env';

const TASK_QUEUE = 'payouts-crash';

let worker: ManagedProcess | undefined;

// Declared before the fixture, whose afterAll closes the API: the worker stops first.
afterAll(async () => {
  await clearSandboxFaults();
  await worker?.stop();
});
const t = useTestApi({ config: { taskQueue: TASK_QUEUE }, merchant: { name: 'Crash Shop' }, timeoutMs: 60_000 });

it('a worker killed while a payout is PENDING: it still ends SUCCEEDED with one provider payout', async () => {
  worker = await startWorkerProcess(`payouts-crash-worker-${Date.now()}`, TASK_QUEUE);
  // The submission and the first two look-ups meet a 503 that nothing records: the payout is PENDING
  // for seconds after its 201, time enough to kill the worker before it can move on.
  await setSandboxFaults({ fail_next: 3, fail_status: 503, path_prefix: '/v1/payouts' });
  const res = await call(t.api, 'POST', '/v1/payouts', {
    key: t.merchant.testKey,
    body: {
      amount: 1500,
      currency: 'USD',
      initiator_ip_address: '192.0.2.44',
      recipient: { first_name: 'Crash', last_name: 'Test', country: 'US' },
      destination: { card_number: '4242424242424242' },
    },
  });
  expect(res.status).toBe(201);
  expect(res.json.status).toBe('PENDING');
  const payoutId: string = res.json.id;

  await killHard(worker);
  expect((await call(t.api, 'GET', `/v1/payouts/${payoutId}`, { key: t.merchant.testKey })).json.status).toBe('PENDING');
  // The operators' query of docs/operations.md finds it.
  const stuck = await eventually(async () => {
    const found: string[] = [];
    for await (const execution of t.api.deps.temporal.workflow.list({ query: `ObjectType="payout" AND ObjectStatus="PENDING" AND MerchantId="${t.merchant.merchantId}"` })) {
      found.push(execution.workflowId);
    }
    return found;
  }, (found) => found.includes(payoutId));
  expect(stuck).toEqual([payoutId]);

  worker = await startWorkerProcess(`payouts-crash-worker-${Date.now()}`, TASK_QUEUE);
  const done = await eventually(() => call(t.api, 'GET', `/v1/payouts/${payoutId}`, { key: t.merchant.testKey }),
    (r) => r.json.status === 'SUCCEEDED' || r.json.status === 'FAILED', 90_000, 500);
  expect(done.json.status).toBe('SUCCEEDED');
  expect(done.json.completed_at).toEqual(expect.any(Number));

  const records = await (await sandboxControl(`/_sandbox/records?reference=${payoutId}`)).json() as { payouts: Array<{ idempotency_key: string }> };
  expect(records.payouts).toEqual([expect.objectContaining({ idempotency_key: `${payoutId}:payout` })]);
  // Workers name themselves pid@host in the history: a second worker finished what the first began.
  const history = await t.api.deps.temporal.workflow.getHandle(payoutId).fetchHistory();
  const workers = new Set(history.events!.map((e) => e.workflowTaskCompletedEventAttributes?.identity).filter(Boolean));
  expect(workers.size).toBeGreaterThanOrEqual(2);
  const [row] = await t.api.deps.dataSource.query('SELECT poll_attempts FROM payouts WHERE id = ?', [payoutId]);
  expect(Number(row.poll_attempts)).toBeGreaterThanOrEqual(3);
  await eventually(() => t.api.deps.dataSource.query('SELECT token FROM card_vault WHERE token = ?', [`tok_${payoutId.slice(3)}`]),
    (rows: unknown[]) => rows.length === 0);
}, 300_000);

it('a worker killed after the provider took the submission, before the answer was in history: the merchant gets the provider\'s answer, one provider payout', async () => {
  // The first attempt may wait 5 s for the provider here, so the kill lands while it waits on a
  // payout the provider has already recorded (the slow card holds its answer back 15 s).
  const patient = await startTestApi({ taskQueue: TASK_QUEUE, payoutAnswerWithinMs: 5000 });
  try {
    await worker?.stop();
    worker = await startWorkerProcess(`payouts-crash-worker-${Date.now()}`, TASK_QUEUE);
    const amount = 1000 + Math.floor(Math.random() * 8000);
    const answer: Promise<CallResult> = call(patient, 'POST', '/v1/payouts', {
      key: t.merchant.testKey,
      body: {
        amount,
        currency: 'USD',
        initiator_ip_address: '192.0.2.45',
        recipient: { first_name: 'Crash', last_name: 'Held', country: 'US' },
        destination: { card_number: '4000007000000007' },
      },
    });
    const taken = await eventually(async () => {
      const records = await (await sandboxControl('/_sandbox/records')).json() as { payouts: Array<{ reference: string; amount: number }> };
      return records.payouts.filter((p) => p.amount === amount);
    }, (found) => found.length === 1);
    const payoutId = taken[0]!.reference;
    await killHard(worker);
    worker = await startWorkerProcess(`payouts-crash-worker-${Date.now()}`, TASK_QUEUE);

    // The workflow task with the lost attempt times out; the next worker runs the attempt again under
    // the same provider key and the provider answers with the payout it holds.
    const res = await answer;
    expect(res.status).toBe(201);
    expect(res.json.id).toBe(payoutId);
    expect(['PROCESSING', 'SUCCEEDED']).toContain(res.json.status);
    const right = await call(patient, 'GET', `/v1/payouts/${payoutId}`, { key: t.merchant.testKey });
    if (right.json.status === res.json.status) expect(right.json).toEqual(res.json);
    else expect(right.json.status).toBe('SUCCEEDED');
    const done = await eventually(() => call(patient, 'GET', `/v1/payouts/${payoutId}`, { key: t.merchant.testKey }),
      (r) => r.json.status === 'SUCCEEDED' || r.json.status === 'FAILED', 60_000, 500);
    expect(done.json.status).toBe('SUCCEEDED');
    const records = await (await sandboxControl(`/_sandbox/records?reference=${payoutId}`)).json() as { payouts: Array<{ idempotency_key: string }> };
    expect(records.payouts).toEqual([expect.objectContaining({ idempotency_key: `${payoutId}:payout` })]);
    const history = await patient.deps.temporal.workflow.getHandle(payoutId).fetchHistory();
    const workers = new Set(history.events!.map((e) => e.workflowTaskCompletedEventAttributes?.identity).filter(Boolean));
    expect(workers.size).toBe(1); // the killed worker completed no task: the attempt it ran is not in history
    expect(history.events!.filter((e) => e.markerRecordedEventAttributes).length).toBe(1);
  } finally {
    await patient.close();
  }
}, 300_000);
