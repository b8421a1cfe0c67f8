// Process faults during a run of mixed merchant traffic through the API process: the worker killed
// with SIGKILL at random moments, the Temporal dev server (file-backed) restarted, the API process
// killed and restarted, and the private MariaDB stopped and started. Afterwards every object must
// be where the provider says, once, with the read model equal to the workflow's own state. The
// merchant has two webhook endpoints: one healthy, which must get every event, and one that always
// fails, whose deliveries must each be planned and left pending behind its circuit, which goes on probing.
import { In } from 'typeorm';
import { Event, WebhookDelivery, WebhookEndpoint } from '../../src/db/entities';
import { COUNTS, LONG_MODE } from '../helpers/reliability/config';
import { recordFigure, recordMeasurement, sectionDone } from '../helpers/reliability/figures';
import { Ledger, expectClean, problemsAmong, type AuditReport } from '../helpers/reliability/ledger';
import type { ReliabilityStack } from '../helpers/reliability/stack';
import { clearSandboxFaults, sandboxRecords, setSandboxFaults } from '../helpers/sandbox';
import { call } from '../helpers/api';
import { rememberWebhookSecrets } from '../helpers/reliability/secrets';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { createUntilSettled, newCreate } from '../helpers/reliability/client';
import {
  PAYMENT_AMOUNT, createsIn, merchantClient, newMerchant, mixedScenarios, refundBody, runWorkload, seededRandom, succeededPayment, type MerchantClient, type WorkloadProgress,
} from '../helpers/reliability/workload';

export const PROCESS_FAULTS = 'process faults';

type FaultKind = 'worker' | 'temporal' | 'api' | 'database';

const FAULT_NAMES: Record<FaultKind, string> = {
  worker: 'kill -9 of the worker at a random moment',
  temporal: 'Temporal dev server (file-backed) stopped and started',
  api: 'kill -9 of the API process, restarted',
  database: 'MariaDB stopped and started',
};

interface FaultEvent {
  kind: FaultKind;
  at: number;
  endedAt: number;
  workerRestartedItself: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function faultPlan(random: () => number): FaultKind[] {
  const plan: FaultKind[] = [
    ...Array<FaultKind>(COUNTS.workerKills).fill('worker'),
    ...Array<FaultKind>(COUNTS.temporalRestarts).fill('temporal'),
    ...Array<FaultKind>(COUNTS.apiRestarts).fill('api'),
    ...Array<FaultKind>(COUNTS.databaseRestarts).fill('database'),
  ];
  for (let i = plan.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [plan[i], plan[j]] = [plan[j]!, plan[i]!];
  }
  return plan;
}

async function inject(stack: ReliabilityStack, kind: FaultKind, random: () => number): Promise<boolean> {
  switch (kind) {
    case 'worker':
      await stack.killWorker();
      await sleep(random() * 2000);
      await stack.startWorker();
      return false;
    case 'temporal':
      await stack.restartTemporal(500 + random() * 1500);
      return stack.ensureWorker();
    case 'api':
      await stack.restartApiProcess(200 + random() * 1500);
      return false;
    case 'database':
      await stack.restartDatabase(1000 + random() * 2000);
      return stack.ensureWorker();
  }
}

/**
 * Strikes each planned fault once the run has started a share of its creates, after a random
 * further delay, so faults land while requests, activities and 3DS steps are in flight.
 */
async function driveFaults(stack: ReliabilityStack, plan: FaultKind[], progress: WorkloadProgress, totalCreates: number, random: () => number): Promise<FaultEvent[]> {
  const events: FaultEvent[] = [];
  for (const [index, kind] of plan.entries()) {
    const threshold = Math.floor(totalCreates * (0.05 + (0.8 * (index + random())) / plan.length));
    while (progress.startedCreates < threshold) await sleep(100);
    await sleep(random() * 1500);
    const at = Date.now();
    const workerRestartedItself = await inject(stack, kind, random);
    events.push({ kind, at, endedAt: Date.now(), workerRestartedItself });
  }
  return events;
}

/** Waits until every event recorded for the merchant has reached the receiver; says which did not. */
async function auditWebhooks(stack: ReliabilityStack, merchantId: string, receiver: WebhookReceiver, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await stack.api.deps.dataSource.getRepository(Event).find({ select: { id: true }, where: { merchant_id: merchantId } });
    const arrivals = new Map<string, number>();
    for (const w of receiver.received) arrivals.set(w.headers['webhook-id']!, (arrivals.get(w.headers['webhook-id']!) ?? 0) + 1);
    const undelivered = events.map((e) => e.id).filter((id) => !arrivals.has(id));
    if (!undelivered.length || Date.now() > deadline) {
      return { events: events.length, undelivered, deliveredTwice: [...arrivals.values()].filter((n) => n > 1).length };
    }
    await sleep(1000);
  }
}

/**
 * Waits until every event of the merchant has a delivery to the failing endpoint that waits pending
 * behind the endpoint's open circuit, which has probed and has its next drain set (whatever the
 * kills did to the worker draining it; docs/webhooks.md, "A failing endpoint"); or until the
 * timeout. Says what was not so.
 */
async function auditFailingEndpoint(stack: ReliabilityStack, merchantId: string, endpointId: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  const { dataSource } = stack.api.deps;
  for (;;) {
    const events = await dataSource.getRepository(Event).find({ select: { id: true }, where: { merchant_id: merchantId } });
    const deliveries = events.length
      ? await dataSource.getRepository(WebhookDelivery).find({ where: { event_id: In(events.map((e) => e.id)), endpoint_id: endpointId } })
      : [];
    const byEvent = new Map(deliveries.map((d) => [d.event_id, d]));
    const unplanned = events.filter((e) => !byEvent.has(e.id)).map((e) => e.id);
    const notPending = deliveries.filter((d) => d.status !== 'pending').map((d) => d.id);
    const endpoint = await dataSource.getRepository(WebhookEndpoint).findOneByOrFail({ id: endpointId });
    const probed = deliveries.some((d) => d.attempts > 0);
    const circuit = endpoint.failing_since === null ? 'closed' : endpoint.next_drain_at === null ? 'open, no drain due' : !probed ? 'open, never probed' : 'open, probing';
    if ((!unplanned.length && !notPending.length && circuit === 'open, probing') || Date.now() > deadline) {
      return { events: events.length, unplanned, notPending, circuit };
    }
    await sleep(2000);
  }
}

function recordRows(ledger: Ledger, report: AuditReport, events: FaultEvent[]): void {
  for (const kind of Object.keys(FAULT_NAMES) as FaultKind[]) {
    const ofKind = events.filter((e) => e.kind === kind);
    const inFlight = ledger.objects.filter((o) => ofKind.some((e) => o.startedAt <= e.endedAt && o.settledAt >= e.at));
    recordFigure({ section: PROCESS_FAULTS, fault: `${FAULT_NAMES[kind]} (objects: in flight at the fault)`, tried: ofKind.length, objects: inFlight.length, ...problemsAmong(report, inFlight) });
  }
  recordFigure({
    section: PROCESS_FAULTS,
    fault: `the whole mixed run (payments with and without 3DS, declines, refunds, payouts), every fault above`,
    tried: ledger.objects.length,
    objects: report.objects,
    lost: report.lost,
    duplicated: report.duplicated,
    wrong: report.wrong,
  });
}

/** Refunds sent at once, each until it settles; 2xx answers tracked, 422 amount_exceeds_refundable counted. */
async function concurrentRefunds(client: MerchantClient, paymentId: string, amounts: number[], label: string): Promise<{ accepted: number[]; refused: number }> {
  const accepted: number[] = [];
  let refused = 0;
  await Promise.all(amounts.map(async (amount) => {
    const create = newCreate('/v1/refunds', client.key, refundBody(paymentId, amount));
    const startedAt = Date.now();
    const { answer, retries } = await createUntilSettled(client.baseUrl, create, client.deadlineMs);
    if (answer?.status === 422 && answer.json?.error?.code === 'amount_exceeds_refundable') {
      refused += 1;
      return;
    }
    if (!client.ledger.settle(create, answer, label)) return;
    accepted.push(amount);
    client.ledger.track({
      kind: 'refund', scenario: label, merchantId: client.merchantId, create, first: answer, id: answer.json.id,
      outcome: { status: 'SUCCEEDED', failureCode: null }, providerEffects: 1, retries, startedAt, settledAt: Date.now(),
    });
  }));
  return { accepted, refused };
}

/**
 * Refunds on a few Payments at once, more than each can take, while the worker is killed again and
 * again: the acquirer holds each submission a while, so kills land between the Payment's local
 * submission and the answer of its update.
 */
function refundKillsTest(stack: ReliabilityStack): void {
  it(`refund submissions through ${COUNTS.refundWorkerKills} worker kills: one provider refund under its key per accepted refund, no balance overdrawn`, async () => {
    const seed = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 1e9));
    const random = seededRandom(seed);
    const merchant = await newMerchant(stack, 'Refund Kill Shop');
    const ledger = new Ledger();
    const client = merchantClient(() => stack.apiProcessUrl, merchant, ledger);
    const payments = [];
    for (let i = 0; i < COUNTS.refundKillPayments; i += 1) {
      const payment = await succeededPayment(client, 'visa', 'refunds through worker kills');
      if (payment) payments.push(payment);
    }
    // Six refunds of a quarter on each Payment: four fit, two must be refused, whatever dies when.
    const quarter = PAYMENT_AMOUNT / 4;
    await setSandboxFaults({ latency_ms: 400, path_prefix: '/v1/refunds', method: 'POST' });
    const started = Date.now();
    let refunds: Array<{ accepted: number[]; refused: number }>;
    let kills = 0;
    try {
      const load = Promise.all(payments.map((p) => concurrentRefunds(client, p.id, Array<number>(6).fill(quarter), `refunds of ${p.id} through worker kills`)));
      let loadDone = false;
      void load.finally(() => { loadDone = true; });
      while (kills < COUNTS.refundWorkerKills && !loadDone) {
        await sleep(200 + random() * 600);
        await stack.killWorker();
        kills += 1;
        await sleep(random() * 1000);
        await stack.startWorker();
      }
      refunds = await load;
    } finally {
      await clearSandboxFaults();
    }
    await stack.ensureWorker();

    const report = await stack.audit(ledger, [merchant], 240_000);
    const refundObjects = ledger.objects.filter((o) => o.kind === 'refund');
    // How many submissions a kill cut short (retried activities), and workflow tasks lost to kills.
    let retriedSubmissions = 0;
    let lostTasks = 0;
    for (const p of payments) {
      const events = (await stack.api.deps.temporal.workflow.getHandle(p.id).fetchHistory()).events ?? [];
      const submissions = new Set(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'submitRefund').map((e) => String(e.eventId)));
      retriedSubmissions += events.filter((e) => submissions.has(String(e.activityTaskStartedEventAttributes?.scheduledEventId)) && (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1).length;
      lostTasks += events.filter((e) => e.workflowTaskTimedOutEventAttributes || e.workflowTaskFailedEventAttributes).length;
    }
    recordFigure({ section: PROCESS_FAULTS, fault: `${FAULT_NAMES.worker}, during concurrent refund submissions (objects: refunds accepted)`, tried: kills, objects: refundObjects.length, ...problemsAmong(report, refundObjects) });
    recordMeasurement(PROCESS_FAULTS, `refunds through worker kills (seed ${seed}): ${payments.length} Payments, ${refunds.reduce((n, r) => n + r.accepted.length, 0)} refunds accepted and `
      + `${refunds.reduce((n, r) => n + r.refused, 0)} refused in ${Math.round((Date.now() - started) / 1000)} s, ${kills} worker kills, ${retriedSubmissions} submissions retried after one, ${lostTasks} workflow tasks of the Payments lost; `
      + `${refundObjects.filter((o) => o.retries.length > 0).length} refunds needed same-key retries.`);
    expectClean(report);
    // No Payment took more than it holds, and each took exactly what fits: four quarters.
    for (const r of refunds) expect([r.accepted.length, r.refused]).toEqual([4, 2]);
    // Every accepted refund is one provider refund, under the key derived from its id.
    for (const object of refundObjects) {
      expect((await sandboxRecords(object.id)).refunds.map((x) => (x as { idempotency_key: string }).idempotency_key)).toEqual([`${object.id}:refund`]);
    }
  }, LONG_MODE ? 1_800_000 : 600_000);
}

export function processFaultsSection(stack: ReliabilityStack): void {
  describe(PROCESS_FAULTS, () => {
    refundKillsTest(stack);

    it(`${COUNTS.chaosOperations}+ mixed creates through ${COUNTS.workerKills} worker kills, Temporal, API and MariaDB restarts`, async () => {
      const seed = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 1e9));
      const random = seededRandom(seed);
      // Every event of the run must reach the merchant's endpoint, whichever process died when; a
      // second endpoint of the merchant fails throughout, and must neither lose an event nor hold
      // the first one up.
      const receiver = await startWebhookReceiver();
      const failing = await startWebhookReceiver();
      failing.respondWith(503);
      const merchant = await newMerchant(stack, 'Chaos Shop', receiver.url);
      const failingEndpoint = await call(stack.api, 'POST', '/v1/webhook_endpoints', { key: merchant.testKey, body: { url: failing.url, enabled_events: ['*'] } });
      expect(failingEndpoint.status).toBe(201);
      rememberWebhookSecrets(failingEndpoint.json.secret);
      const ledger = new Ledger();
      const client = merchantClient(() => stack.apiProcessUrl, merchant, ledger);
      const scenarios = mixedScenarios(random, COUNTS.chaosOperations);
      const totalCreates = scenarios.reduce((sum, s) => sum + createsIn(s), 0);
      const progress: WorkloadProgress = { startedCreates: 0, finishedScenarios: 0 };

      const started = Date.now();
      const workload = runWorkload(client, scenarios, COUNTS.chaosLanes, progress);
      let events: FaultEvent[];
      try {
        events = await driveFaults(stack, faultPlan(random), progress, totalCreates, random);
      } catch (error) {
        // A fault that could not be healed ends the run: no traffic may outlive this test.
        progress.stopped = true;
        await workload;
        throw error;
      }
      await workload;
      const runSeconds = (Date.now() - started) / 1000;
      await stack.ensureWorker();

      const report = await stack.audit(ledger, [merchant], 240_000);
      recordRows(ledger, report, events);
      const webhooks = await auditWebhooks(stack, merchant.merchantId, receiver, 120_000).finally(() => receiver.close());
      recordFigure({ section: PROCESS_FAULTS, fault: 'webhook events of the run to the healthy endpoint (relay first attempts, sweeper, delivery workflows), every fault above', tried: webhooks.events, objects: webhooks.events, lost: webhooks.undelivered.length, duplicated: 0, wrong: 0 });
      const toFailing = await auditFailingEndpoint(stack, merchant.merchantId, failingEndpoint.json.id, 120_000);
      // Its retries end: a deleted endpoint's pending deliveries are marked failed, and its circuit closes.
      await call(stack.api, 'DELETE', `/v1/webhook_endpoints/${failingEndpoint.json.id}`, { key: merchant.testKey });
      await failing.close();
      const failingLost = toFailing.circuit === 'open, probing' ? toFailing.unplanned.length + toFailing.notPending.length : toFailing.events;
      recordFigure({ section: PROCESS_FAULTS, fault: 'webhook events of the run to the second endpoint, failing throughout (each planned and pending behind its open circuit, which probes)', tried: toFailing.events, objects: toFailing.events, lost: failingLost, duplicated: 0, wrong: 0 });
      const selfRestarts = events.filter((e) => e.workerRestartedItself).length;
      recordMeasurement(PROCESS_FAULTS, `seed ${seed}: ${totalCreates} creates in ${scenarios.length} scenarios on ${COUNTS.chaosLanes} concurrent clients took ${Math.round(runSeconds)} s; `
        + `${report.retriedCreates} creates needed same-key retries (${JSON.stringify(report.retryReasons)}); ${report.objects} final same-key replays compared byte for byte with the first 2xx`
        + `${selfRestarts ? `; the worker exited by itself after ${selfRestarts} fault(s) and was started again` : ''}; `
        + `${webhooks.events} webhook events, ${webhooks.events - webhooks.undelivered.length} delivered, ${webhooks.deliveredTwice} of them more than once (at least once is the contract).`);
      sectionDone(PROCESS_FAULTS);
      expectClean(report);
      expect(webhooks.undelivered).toEqual([]);
      expect(toFailing).toEqual({ events: webhooks.events, unplanned: [], notPending: [], circuit: 'open, probing' });
      // Outages are temporary, and say so: 503 service_unavailable, never 500 internal_error.
      expect(report.retryReasons['500'] ?? 0).toBe(0);
    }, LONG_MODE ? 3_600_000 : 900_000);
  });
}
