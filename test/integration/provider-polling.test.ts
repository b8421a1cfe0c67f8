// The one poll schedule of the workflows (src/domain/polling.ts), as the Payment, Refund and Payout
// workflows run it against the sandbox acquirer: a Retry-After the provider sends holds the next look
// back, and a Refund or Payout the provider takes long to settle continues as new, its history bounded.
// The waits are read from the workflows' histories (their timers), not from the clock.
import type { temporal } from '@temporalio/proto';
import type { RunningApi } from '../../src/api/server';
import { CONTINUE_AS_NEW_PATCH } from '../../workflows/refund/state';
import { call, directPaymentBody, eventually, startTestApi, useTestApi } from '../helpers/api';
import { readPayment, succeededPayment as paid } from '../helpers/payments';
import { clearSandboxFaults, sandboxRecords, setSandboxFaults } from '../helpers/sandbox';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Longer than the backoff's second wait (2 s, src/domain/polling.ts): what a look waits without it. */
const RETRY_AFTER_SECONDS = 5;

const t = useTestApi();
afterEach(async () => { await clearSandboxFaults(); });

async function history(workflowId: string, runId?: string): Promise<HistoryEvent[]> {
  return (await t.api.deps.temporal.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
}

const seconds = (timeout: { seconds?: unknown; nanos?: number | null }) => Number(timeout.seconds ?? 0) + (timeout.nanos ?? 0) / 1e9;

/** The durations (s) of the timers a run started, in order. */
function timerSeconds(events: HistoryEvent[]): number[] {
  return events.flatMap((e) => (e.timerStartedEventAttributes?.startToFireTimeout ? [seconds(e.timerStartedEventAttributes.startToFireTimeout)] : []));
}

/** The wait before each provider call of this activity: the last timer the run started before scheduling it. */
function waitsBefore(events: HistoryEvent[], activity: string): number[] {
  let last: number | null = null;
  const waits: number[] = [];
  for (const e of events) {
    if (e.timerStartedEventAttributes?.startToFireTimeout) last = seconds(e.timerStartedEventAttributes.startToFireTimeout);
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === activity && last !== null) waits.push(last);
  }
  return waits;
}

/** Every run of a workflow, oldest first. */
async function runsOf(workflowId: string): Promise<string[]> {
  const runs: { runId: string; start: number }[] = [];
  for await (const run of t.api.deps.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push({ runId: run.runId, start: run.startTime.getTime() });
  return runs.sort((a, b) => a.start - b.start).map((r) => r.runId);
}

const getPayment = (id: string, on = t.api) => readPayment(on, t.merchant.testKey, id);
const succeededPayment = (on = t.api) => paid(on, t.merchant.testKey, { body: { amount: 1000 } });

async function refund(paymentId: string, on = t.api): Promise<any> {
  const res = await call(on, 'POST', '/v1/refunds', { key: t.merchant.testKey, body: { payment_id: paymentId, amount: 400, reason: 'returned' } });
  expect([res.status, res.json.status]).toEqual([201, 'PROCESSING']);
  return res.json;
}

function payoutBody() {
  return { amount: 2500, currency: 'EUR', initiator_ip_address: '203.0.113.7', recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' }, destination: { card_number: '4242424242424242' }, merchant_reference: 1234567890 };
}

/**
 * The provider answers the next look-ups of these objects 429 with a Retry-After longer than the
 * backoff. Only objects created from now on: other suites' objects may still be looked up.
 */
function rateLimitLookups(pathPrefix: string, count = 1): Promise<void> {
  return setSandboxFaults({ fail_next: count, fail_status: 429, retry_after: RETRY_AFTER_SECONDS, path_prefix: pathPrefix, method: 'GET', new_objects_only: true });
}

describe('a Retry-After on a look-up holds the next look back', () => {
  it('a Payment settling', async () => {
    await rateLimitLookups('/v1/authorizations/');
    const created = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody({ amount: 1000 }) });
    expect(created.json.status).toBe('PROCESSING');
    await eventually(() => getPayment(created.json.id), (p) => p.status === 'SUCCEEDED', 30_000);
    // First at the settle time the provider gave; then, answered 429, not before its Retry-After.
    const waits = waitsBefore(await history(created.json.id), 'getAuthorization');
    expect(waits).toHaveLength(2);
    expect(waits[1]).toBeGreaterThanOrEqual(RETRY_AFTER_SECONDS);
  });

  it('a Refund settling', async () => {
    const payment = await succeededPayment();
    await rateLimitLookups('/v1/refunds/');
    const taken = await refund(payment.id);
    await eventually(() => getPayment(payment.id), (p) => p.refunds[0]?.status === 'SUCCEEDED', 30_000);
    const waits = waitsBefore(await history(taken.id), 'getRefund');
    expect(waits).toHaveLength(2);
    expect(waits[1]).toBeGreaterThanOrEqual(RETRY_AFTER_SECONDS);
  });

  it('a Refund resubmitted after a submission the provider left unanswered', async () => {
    const payment = await succeededPayment();
    // The Payment's submission and the first resubmission are both answered 429 (Retry-After 5).
    await setSandboxFaults({ fail_next: 2, fail_status: 429, retry_after: RETRY_AFTER_SECONDS, path_prefix: '/v1/refunds', method: 'POST', new_objects_only: true });
    const taken = await refund(payment.id);
    await eventually(() => getPayment(payment.id), (p) => p.refunds[0]?.status === 'SUCCEEDED', 40_000);
    const waits = waitsBefore(await history(taken.id), 'submitRefund');
    expect(waits).toHaveLength(2);
    expect(waits.every((s) => s >= RETRY_AFTER_SECONDS)).toBe(true);
    expect((await sandboxRecords(taken.id)).refunds).toHaveLength(1);
  }, 60_000);

  it('a Payout resolving', async () => {
    await rateLimitLookups('/v1/payouts');
    const created = await call(t.api, 'POST', '/v1/payouts', { key: t.merchant.testKey, body: payoutBody() });
    expect(created.json.status).toBe('PROCESSING');
    await eventually(async () => (await call(t.api, 'GET', `/v1/payouts/${created.json.id}`, { key: t.merchant.testKey })).json, (p) => p.status === 'SUCCEEDED', 30_000);
    const waits = waitsBefore(await history(created.json.id), 'pollPayoutStatus');
    expect(waits).toHaveLength(2);
    expect(waits[1]).toBeGreaterThanOrEqual(RETRY_AFTER_SECONDS);
  });
});

describe('with PROVIDER_POLLS_PER_RUN=2, a provider slow to settle', () => {
  let patient: RunningApi;
  beforeAll(async () => { patient = await startTestApi({ providerPollsPerRun: 2 }); });
  afterAll(async () => { await patient.close(); });

  it('a Refund continues as new after two look-ups, goes on from where it was, and reports to its Payment', async () => {
    const payment = await succeededPayment(patient);
    // The first two look-ups get no answer (503): the refund is still PROCESSING after the run's two calls.
    await setSandboxFaults({ fail_next: 2, fail_status: 503, path_prefix: '/v1/refunds/', method: 'GET', new_objects_only: true });
    const taken = await refund(payment.id, patient);
    const settled = await eventually(() => getPayment(payment.id, patient), (p) => p.refunds[0]?.status === 'SUCCEEDED', 40_000);
    expect([settled.amount_refunded, settled.amount_refundable]).toEqual([400, 600]);

    const [first, second, ...more] = await runsOf(taken.id);
    expect(more).toEqual([]);
    const firstRun = await history(taken.id, first);
    // The new command goes through its patch (runs of 1.0.0 never continue as new).
    expect(firstRun.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')).toHaveLength(1);
    expect(firstRun.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    expect(firstRun.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'getRefund')).toHaveLength(2);
    // The second run goes on with the backoff where the first left it (1 s, 2 s, then 4 s).
    const secondRun = await history(taken.id, second);
    expect(timerSeconds(secondRun)[0]).toBe(4);
    expect(secondRun.at(-1)?.workflowExecutionCompletedEventAttributes).toBeTruthy();
    expect((await sandboxRecords(taken.id)).refunds).toHaveLength(1);
  }, 60_000);

  it('a Payout continues as new after two look-ups and resolves in the next run', async () => {
    await setSandboxFaults({ fail_next: 2, fail_status: 503, path_prefix: '/v1/payouts', method: 'GET', new_objects_only: true });
    const created = await call(patient, 'POST', '/v1/payouts', { key: t.merchant.testKey, body: payoutBody() });
    await eventually(async () => (await call(patient, 'GET', `/v1/payouts/${created.json.id}`, { key: t.merchant.testKey })).json, (p) => p.status === 'SUCCEEDED', 40_000);
    const runs = await runsOf(created.json.id);
    expect(runs).toHaveLength(2);
    expect((await history(created.json.id, runs[0])).at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    expect((await sandboxRecords(created.json.id)).payouts).toHaveLength(1);
  }, 60_000);
});
