// The refund's answer path (docs/architecture.md, "Request path of a refund"): the Payment's
// `refund` update submits the refund itself once it is accepted, answers with the provider's answer,
// and has the projector start the RefundWorkflow with it; the API projects the answer before replying.
// Also: a hot Payment continuing as new while refunds keep arriving loses and duplicates nothing,
// and a steady stream of refunds on one Payment never outgrows its workflow.
import type { RunningApi } from '../../src/api/server';
import { call, type CallResult, eventually, startTestApi, useTestApi } from '../helpers/api';
import { readPayment, succeededPayment as paid } from '../helpers/payments';
import { clearSandboxFaults, sandboxRecords, setSandboxFaults } from '../helpers/sandbox';
import { paymentQuery, refundUpdate, resumeProjectionSignal } from '../../contracts/payment';
import { newId } from '../../src/domain/ids';
import { Client, Connection } from '@temporalio/client';
import { replayHistories } from '../../src/replay/histories';
import { workflowBundle } from '../../workers/worker';

const t = useTestApi();
afterEach(async () => { await clearSandboxFaults(); });

function refund(on: RunningApi, body: Record<string, unknown>, idempotencyKey?: string): Promise<CallResult> {
  return call(on, 'POST', '/v1/refunds', { key: t.merchant.testKey, body, idempotencyKey });
}

// Shape A requests, whatever the merchant's default version; `on` is this file's API or one started in a test.
const SHAPE_A = '2025-09-01';
const getPayment = (on: RunningApi, id: string) => readPayment(on, t.merchant.testKey, id, SHAPE_A);
const succeededPayment = (on: RunningApi, amount: number) => paid(on, t.merchant.testKey, { body: { amount }, version: SHAPE_A });

async function historyEvents(workflowId: string, runId?: string) {
  return (await t.api.deps.temporal.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
}

const terminal = (status: string) => status === 'SUCCEEDED' || status === 'FAILED';

describe('the answer path', () => {
  it('a refund answers with what GET /v1/payments/{id} shows right after, submitted by the Payment once accepted', async () => {
    const payment = await succeededPayment(t.api, 1000);
    const res = await refund(t.api, { payment_id: payment.id, amount: 400, reason: 'answer path' });
    expect(res.status).toBe(201);
    expect(res.json.status).toBe('PROCESSING');

    // No wait: the API projected the update's answer before replying.
    const right = await getPayment(t.api, payment.id);
    expect(right.refunds).toEqual([res.json]);
    expect(right.amount_refundable).toBe(600);

    // The Payment submitted it after the update's acceptance was in history; the RefundWorkflow only
    // follows the refund to its end.
    const paymentHistory = await historyEvents(payment.id);
    const accepted = paymentHistory.findIndex((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'refund');
    const submitted = paymentHistory.findIndex((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'submitRefund');
    expect(accepted).toBeGreaterThan(0);
    expect(submitted).toBeGreaterThan(accepted);
    await eventually(() => getPayment(t.api, payment.id), (p) => p.refunds[0].status === 'SUCCEEDED');
    const refundHistory = await historyEvents(res.json.id);
    const activities = refundHistory.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : []));
    expect(activities).not.toContain('submitRefund');
    expect(activities).toContain('getRefund');
    expect((await sandboxRecords(res.json.id)).refunds).toEqual([expect.objectContaining({ idempotency_key: `${res.json.id}:refund`, amount: 400 })]);
  });

  it('resumeProjection, the operator\'s signal for a stopped projector, is a Payment handler that changes nothing while its projector runs', async () => {
    const payment = await succeededPayment(t.api, 1000);
    const handle = t.api.deps.temporal.workflow.getHandle(payment.id);
    // Registered (a signal of a name with no handler would be buffered, silently).
    const metadata = await handle.query<{ definition?: { signalDefinitions?: Array<{ name?: string }> } }>('__temporal_workflow_metadata');
    expect(metadata.definition?.signalDefinitions?.map((d) => d.name)).toContain(resumeProjectionSignal.name);
    await handle.signal(resumeProjectionSignal);
    const res = await refund(t.api, { payment_id: payment.id, amount: 400, reason: 'after resume' });
    expect(res.status).toBe(201);
    const settled = await eventually(() => getPayment(t.api, payment.id), (p) => p.refunds[0]?.status === 'SUCCEEDED');
    expect([settled.refunds.length, settled.amount_refunded, settled.amount_refundable]).toEqual([1, 400, 600]);
  });

  it('a submission the provider leaves unanswered answers PROCESSING, and the RefundWorkflow resubmits under the same key', async () => {
    const payment = await succeededPayment(t.api, 1000);
    // Every attempt of the Payment's local submission gets a 503; the RefundWorkflow's later resubmission goes through.
    await setSandboxFaults({ fail_next: 2, fail_status: 503, path_prefix: '/v1/refunds', method: 'POST' });
    const res = await refund(t.api, { payment_id: payment.id, amount: 1000, reason: 'unanswered' });
    expect(res.status).toBe(201);
    expect(res.json.status).toBe('PROCESSING');
    expect((await getPayment(t.api, payment.id)).amount_refundable).toBe(0);

    const after = await eventually(() => getPayment(t.api, payment.id), (p) => p.refunds[0].status === 'SUCCEEDED', 30_000);
    expect(after.amount_refunded).toBe(1000);
    const refundHistory = await historyEvents(res.json.id);
    expect(refundHistory.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'submitRefund')).toBe(true);
    expect((await sandboxRecords(res.json.id)).refunds).toEqual([expect.objectContaining({ idempotency_key: `${res.json.id}:refund`, amount: 1000, status: 'succeeded' })]);
  });

  it('Shape B POST /v1/payments/{id}/refund answers with the Payment GET shows right after', async () => {
    const payment = await succeededPayment(t.api, 700);
    const res = await call(t.api, 'POST', `/v1/payments/${payment.id}/refund`, { key: t.merchant.testKey, headers: { 'Service-Version': '2024-06-01' } });
    expect(res.status).toBe(200);
    const right = await call(t.api, 'GET', `/v1/payments/${payment.id}`, { key: t.merchant.testKey, headers: { 'Service-Version': '2024-06-01' } });
    expect(right.json).toEqual(res.json);
  });
});

describe('a hot Payment', () => {
  it('continuing as new every few refunds while refunds keep arriving loses, duplicates and overdraws nothing', async () => {
    // A run takes 3 refunds, then continues as new with its balance; the refunds keep coming.
    const lowThreshold = await startTestApi({ refundsPerRun: 3 });
    try {
      const payment = await succeededPayment(lowThreshold, 1000);
      const firstRun = (await t.api.deps.temporal.workflow.getHandle(payment.id).describe()).runId;
      const waves = [8, 8, 8]; // 24 refunds of 50 on 1000: exactly 20 fit
      const answers: CallResult[] = [];
      for (const size of waves) {
        answers.push(...await Promise.all(Array.from({ length: size }, (_, i) => refund(lowThreshold, { payment_id: payment.id, amount: 50, reason: `hot ${answers.length + i}` }))));
      }
      const accepted = answers.filter((a) => a.status === 201);
      const refused = answers.filter((a) => a.status !== 201);
      expect(accepted).toHaveLength(20);
      for (const answer of refused) expect([answer.status, answer.json.error?.code]).toEqual([422, 'amount_exceeds_refundable']);
      expect(new Set(accepted.map((a) => a.json.id)).size).toBe(20);

      const handle = t.api.deps.temporal.workflow.getHandle(payment.id);
      const after = await eventually(() => getPayment(lowThreshold, payment.id), (p) => p.refunds.length === 20 && p.refunds.every((r: any) => terminal(r.status)), 60_000);
      expect(after.refunds.map((r: any) => r.id).sort()).toEqual(accepted.map((a) => a.json.id).sort());
      expect(after.amount_refunded).toBe(1000);
      expect(after.amount_refundable).toBe(0);
      // The workflow's own state, several runs later, is what the read model shows.
      const current = await handle.describe();
      expect(current.runId).not.toBe(firstRun);
      const firstRunEvents = await historyEvents(payment.id, firstRun);
      expect(firstRunEvents.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
      const state = await handle.query(paymentQuery);
      expect(state.refunds.map((r) => [r.id, r.status])).toEqual(after.refunds.map((r: any) => [r.id, r.status]));
      // One provider refund per accepted refund, under its own key.
      const records = await Promise.all(accepted.map((a) => sandboxRecords(a.json.id)));
      expect(records.map((r) => r.refunds.length)).toEqual(Array(20).fill(1));
    } finally {
      await lowThreshold.close();
    }
  }, 120_000);

  it('a steady stream of concurrent refunds takes every one and never outgrows the workflow', async () => {
    // Eight clients refunding one Payment back to back leave it no quiet moment. The run must still
    // continue as new (refunds arriving meanwhile are sent again to the next run), and no activity
    // input may carry every refund: either would let history outgrow the server's limits, and the
    // server terminates such a workflow, after which no refund of the Payment can be taken.
    const payment = await succeededPayment(t.api, 100_000);
    const firstRun = (await t.api.deps.temporal.workflow.getHandle(payment.id).describe()).runId;
    const [clients, each] = [8, 40];
    const answers = (await Promise.all(Array.from({ length: clients }, async (_, c) => {
      const mine: CallResult[] = [];
      for (let i = 0; i < each; i += 1) mine.push(await refund(t.api, { payment_id: payment.id, amount: 1, reason: `stream ${c}.${i}` }));
      return mine;
    }))).flat();
    expect(answers.filter((a) => a.status !== 201).map((a) => [a.status, a.json.error?.code])).toEqual([]);
    expect(new Set(answers.map((a) => a.json.id)).size).toBe(clients * each);

    const handle = t.api.deps.temporal.workflow.getHandle(payment.id);
    const after = await eventually(() => getPayment(t.api, payment.id), (p) => p.refunds.length === clients * each && p.refunds.every((r: any) => terminal(r.status)), 120_000);
    expect(after.amount_refunded).toBe(clients * each);
    const current = await handle.describe();
    expect(current.status.name).toBe('RUNNING');
    expect(current.runId).not.toBe(firstRun);
    const state = await handle.query(paymentQuery);
    expect(state.refunds).toHaveLength(clients * each);
    // Every run replays from its history: when a run turned to continuing as new is decided from
    // the run's own counts, the same on replay.
    // A page of such a history passes gRPC's default 4 MB for one message.
    const connection = await Connection.connect({ address: t.api.deps.config.temporalAddress, channelArgs: { 'grpc.max_receive_message_length': 64 * 1024 * 1024 } });
    const runs: Array<{ workflowId: string; history: unknown }> = [];
    try {
      const client = new Client({ connection, namespace: t.api.deps.config.temporalNamespace });
      for await (const run of t.api.deps.temporal.workflow.list({ query: `WorkflowId = '${payment.id}'` })) {
        runs.push({ workflowId: payment.id, history: await client.workflow.getHandle(payment.id, run.runId).fetchHistory() });
        // Far below the server's 10 MB warning and 50 MB limit: each run continued as new in time
        // (at about 4 MB by its own count; 2.8 MB measured).
        expect((await t.api.deps.temporal.workflow.getHandle(payment.id, run.runId).describe()).historySize).toBeLessThan(6 * 1024 * 1024);
      }
    } finally {
      await connection.close();
    }
    expect(runs.length).toBeGreaterThan(1);
    const outcomes = await replayHistories(await workflowBundle(), runs, t.api.deps.config.temporalCodec);
    expect(outcomes.filter((o) => !o.ok)).toEqual([]);

    // Each `payment.refunded` shows the Payment after its refund with every refund before it,
    // although past the first few the workflow handed it over with only the refunds that moved.
    const events = (await t.api.deps.dataSource.query(
      'SELECT payload FROM events WHERE object_id = ? AND type = ? ORDER BY seq', [payment.id, 'payment.refunded'],
    )) as Array<{ payload: string }>;
    expect(events).toHaveLength(clients * each);
    const order = state.refunds.map((r) => r.id);
    events.forEach((row, i) => {
      const shown = JSON.parse(row.payload).data.object as { amount_refunded: number; refunds: Array<{ id: string; status: string }> };
      expect(shown.amount_refunded).toBe(i + 1);
      expect(shown.refunds.filter((r) => r.status === 'SUCCEEDED')).toHaveLength(i + 1);
      expect(shown.refunds.map((r) => r.id)).toEqual(order.slice(0, shown.refunds.length));
    });
  }, 240_000);
});

describe('the projector\'s hold on refund submissions', () => {
  it('ends on a timer: a refund the validator rejects after it leaves nothing that replay cannot explain', async () => {
    const payment = await succeededPayment(t.api, 1000);
    const handle = t.api.deps.temporal.workflow.getHandle(payment.id);
    // The acquirer holds the submission well past the projector's 250 ms hold.
    await setSandboxFaults({ latency_ms: 1500, path_prefix: '/v1/refunds', method: 'POST' });
    const slow = refund(t.api, { payment_id: payment.id, amount: 600, reason: 'slow submission' });
    await eventually(async () => (await handle.describe()).raw.pendingActivities ?? [], (pending) => pending.some((a) => a.activityType?.name === 'submitRefund'), 20_000, 50);
    await new Promise((r) => setTimeout(r, 500));
    // Sent to the workflow itself, so the API's own balance check cannot answer first: the
    // validator rejects it in a workflow task history does not keep.
    const over = { refundId: newId('refund'), amount: 600, reason: 'over the balance', merchantReference: null };
    const rejected = await handle.executeUpdate(refundUpdate, { args: [over] }).then(() => null, (error: { cause?: Error }) => error);
    expect(rejected?.cause?.message).toBe('amount_exceeds_refundable');
    await clearSandboxFaults();
    expect((await slow).status).toBe(201);

    const history = await handle.fetchHistory();
    const names = (history.events ?? []).map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes')));
    expect(names).toContain('timerFiredEventAttributes');
    // Without a cause in history (the hold ending on the clock inside that task) replay fails.
    const outcomes = await replayHistories(await workflowBundle(), [{ workflowId: payment.id, history }], t.api.deps.config.temporalCodec);
    expect(outcomes.filter((o) => !o.ok)).toEqual([]);
  });
});
