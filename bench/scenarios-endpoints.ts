// Webhook endpoints in the bench: what more endpoints per merchant cost a create, and
// whether one endpoint that is down delays the others. Every seeded merchant already has its
// operator endpoint on the receiver (`/webhooks`); the steps add endpoints through the API for their
// duration and delete them afterwards, so the other scenarios see one endpoint per merchant.
//
// - CPU per create with three healthy endpoints against one, the same frictionless creates at the
//   same rate, in alternating order (target: three within 1.2x of one, API and worker CPU); their
//   webhook lag is the control for the next step.
// - Three endpoints per merchant, one of them down for the whole step (the receiver answers 503
//   under /down), at 20 creates/s and at 5/s. Targets: at 20/s creates answer p50 and p99 within
//   1.2x of the steps with all three answering; the webhook lag (create 201 -> arrival of
//   payment.succeeded) at every healthy endpoint has p99 under 1 s, every event delivered; and the
//   work a failing endpoint causes per minute (attempts, Temporal actions) is no more at 20/s than
//   at 5/s: its circuit probes on one backoff whatever waits behind it (docs/webhooks.md).
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { webhookDeliveryWorkflow } from '../contracts/webhook-delivery';
import { meterCpu } from './lib/cpu';
import { latencyStats, runLoad } from './lib/load';
import type { TargetCheck } from './lib/target-check';
import { withDb } from './lib/seed';
import { connectionsFor, createSpec, receiverEvents, receiverQuiet, receiverReset, type Context, type FailingEndpointWork, type ReceivedEvent, type StepResult } from './scenarios';

export const ENDPOINTS_CPU_SCENARIO = 'CPU per create by webhook endpoints per merchant (all answering)';
export const ENDPOINTS_LAG_SCENARIO = 'webhook lag, three endpoints per merchant, one down';

const PLANS = {
  short: { rate: 20, cpuSeconds: 8, lagSeconds: 10, repetitions: 1 },
  full: { rate: 20, cpuSeconds: 20, lagSeconds: 30, repetitions: 2 },
} as const;

/** Adds an endpoint taking every event to each seeded merchant; answers their ids and a function that deletes them. */
async function addEndpoints(ctx: Context, url: string): Promise<{ ids: string[]; remove(): Promise<void> }> {
  const added: Array<{ key: string; id: string }> = [];
  for (const merchant of ctx.seeded.merchants) {
    const res = await fetch(`${ctx.env.apiUrl}/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${merchant.testKey}`, 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({ url, enabled_events: ['*'] }),
    });
    if (res.status !== 201) throw new Error(`creating a webhook endpoint answered ${res.status}: ${await res.text()}`);
    added.push({ key: merchant.testKey, id: ((await res.json()) as { id: string }).id });
  }
  return {
    ids: added.map((a) => a.id),
    remove: async () => {
      for (const { key, id } of added) {
        await fetch(`${ctx.env.apiUrl}/v1/webhook_endpoints/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } });
      }
    },
  };
}

/**
 * Webhook lag of payment.succeeded at each of `paths` (first arrival per payment), waiting for
 * every event or 30 s; answers the worse endpoint's figures and logs each.
 */
async function lagAt(ctx: Context, paths: string[], answered: Map<string, number>): Promise<NonNullable<StepResult['webhookLag']>> {
  const deadline = Date.now() + 30_000;
  const firstArrivals = (arrivals: ReceivedEvent[], path: string) => {
    const first = new Map<string, number>();
    for (const e of arrivals) {
      if (e.path !== path || e.type !== 'payment.succeeded' || !answered.has(e.objectId)) continue;
      if (!first.has(e.objectId) || first.get(e.objectId)! > e.arrivedAtMs) first.set(e.objectId, e.arrivedAtMs);
    }
    return first;
  };
  let arrivals = await receiverEvents(ctx);
  while (!paths.every((p) => firstArrivals(arrivals, p).size >= answered.size) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    arrivals = await receiverEvents(ctx);
  }
  const perEndpoint = paths.map((p) => {
    const first = firstArrivals(arrivals, p);
    return { ...latencyStats([...first].map(([id, at]) => at - answered.get(id)!)), expected: answered.size, delivered: first.size };
  });
  ctx.log(`    webhook lag: ${perEndpoint.map((e, n) => `${paths[n]} p50 ${e.p50.toFixed(0)} p99 ${e.p99.toFixed(0)} ms (${e.delivered}/${e.expected})`).join('; ')}`);
  // The worse endpoint is the figure (report.ts holds it to the webhook lag target).
  return perEndpoint.reduce((worse, e) => (e.delivered < worse.delivered || e.p99 > worse.p99 ? e : worse));
}

/** One paced step of frictionless creates, CPU metered. */
async function createStep(ctx: Context, scenario: string, name: string, rate: number, durationSeconds: number, answered: Map<string, number>): Promise<StepResult> {
  ctx.log(`  ${scenario}: ${name}`);
  const endMeter = meterCpu();
  const load = await runLoad({ ...createSpec(ctx, '4242424242424242', answered), name, rate, durationSeconds, connections: connectionsFor(rate, 0.3) });
  const step: StepResult = { scenario, ...load, cpu: endMeter() ?? undefined };
  ctx.log(`    ${step.ok} ok, ${step.non2xx} non-2xx, ${step.errors} errors; p50 ${step.p50.toFixed(1)} p99 ${step.p99.toFixed(1)} ms`);
  return step;
}

export async function endpointScenarios(ctx: Context): Promise<StepResult[]> {
  const plan = PLANS[ctx.plan.mode];
  const results: StepResult[] = [];
  const answered = new Map<string, number>();
  // Warm-up (closed loop, as in the other scenarios), so the first measured step is not the one
  // that compiles the path.
  if (ctx.plan.warmupSeconds > 0) {
    await runLoad({ ...createSpec(ctx, '4242424242424242', new Map()), name: 'warm-up', rate: null, durationSeconds: ctx.plan.warmupSeconds, connections: 4 });
  }

  for (let i = 1; i <= plan.repetitions; i += 1) {
    const order = i % 2 === 1 ? [1, 3] : [3, 1];
    for (const endpoints of order) {
      const added = endpoints === 3 ? [await addEndpoints(ctx, `${ctx.env.receiverUrl}/webhooks/b`), await addEndpoints(ctx, `${ctx.env.receiverUrl}/webhooks/c`)] : [];
      try {
        await receiverQuiet(ctx);
        await receiverReset(ctx);
        answered.clear();
        const step = await createStep(ctx, `${ENDPOINTS_CPU_SCENARIO}, ${endpoints}`, `${plan.rate}/s #${i}`, plan.rate, plan.cpuSeconds, answered);
        // The lag with every endpoint answering: the control for the step with one down.
        step.webhookLag = await lagAt(ctx, endpoints === 3 ? ['/webhooks', '/webhooks/b', '/webhooks/c'] : ['/webhooks'], answered);
        results.push(step);
      } finally {
        for (const endpoint of added) await endpoint.remove();
      }
    }
  }

  // Fresh endpoints for each rate, so that both circuits start closed.
  for (const rate of [plan.rate, plan.rate / 4]) results.push(await oneDownStep(ctx, rate, plan.lagSeconds, answered));
  return results;
}

async function oneDownStep(ctx: Context, rate: number, durationSeconds: number, answered: Map<string, number>): Promise<StepResult> {
  const healthy = await addEndpoints(ctx, `${ctx.env.receiverUrl}/webhooks/b`);
  const down = await addEndpoints(ctx, `${ctx.env.receiverUrl}/down`);
  try {
    await receiverQuiet(ctx);
    await receiverReset(ctx);
    answered.clear();
    const startedMs = Date.now();
    const step = await createStep(ctx, ENDPOINTS_LAG_SCENARIO, `${rate}/s creates`, rate, durationSeconds, answered);
    step.webhookLag = await lagAt(ctx, ['/webhooks', '/webhooks/b'], answered);
    step.failingEndpoints = await failingEndpointWork(ctx, down.ids, startedMs);
    const w = step.failingEndpoints;
    ctx.log(`    down endpoints: ${w.endpoints} with ${w.deliveries} deliveries, ${w.attempts} attempts and ${w.actions} Temporal actions in ${w.minutes.toFixed(2)} min; ${w.deliveryWorkflows} delivery workflows`);
    return step;
  } finally {
    await healthy.remove();
    await down.remove();
    await endDownRetries(ctx);
    await receiverReset(ctx);
  }
}

/** What the down endpoints cost from `startedMs` until now: their deliveries, the attempts they refused, and any Temporal work they caused. */
async function failingEndpointWork(ctx: Context, endpointIds: string[], startedMs: number): Promise<FailingEndpointWork> {
  const minutes = (Date.now() - startedMs) / 60_000;
  const { attempts } = (await (await fetch(`${ctx.env.receiverUrl}/down`)).json()) as { attempts: number };
  const planned = await withDb(ctx.databaseUrl, async (db) => {
    const [rows] = await db.query('SELECT endpoint_id, COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id IN (?) GROUP BY endpoint_id', [endpointIds]);
    return rows as Array<{ endpoint_id: string; n: number }>;
  });
  // A circuit has no workflow (src/webhooks/circuit-sweeper.ts): what a failing endpoint can cause
  // in Temporal is a workflow per delivery, counted here as its actions.
  const connection = await Connection.connect({ address: ctx.env.temporalAddress });
  try {
    const since = new Date(startedMs).toISOString();
    const { count } = await connection.workflowService.countWorkflowExecutions({ namespace: 'default', query: `WorkflowType = '${webhookDeliveryWorkflow.name}' AND StartTime >= '${since}'` });
    const deliveryWorkflows = Number(String(count ?? 0));
    return { endpoints: planned.length, deliveries: planned.reduce((n, r) => n + Number(r.n), 0), attempts, actions: deliveryWorkflows, deliveryWorkflows, minutes };
  } finally {
    await connection.close();
  }
}

/**
 * Ends whatever still retries the endpoints taken down after they were deleted: their circuits
 * ended with the delete (a deleted endpoint's pending deliveries are marked failed), and there
 * should be no delivery workflow. A retry wave that outlived its step would land inside whichever step
 * then runs (in `full-s16`, before the circuit, some 600 attempts fell into the hot Payment's 10/s
 * step; bench/NOTES.md, method section). Healthy deliveries are done by now (receiverQuiet).
 */
async function endDownRetries(ctx: Context): Promise<void> {
  const connection = await Connection.connect({ address: ctx.env.temporalAddress });
  try {
    const query = `WorkflowType = '${webhookDeliveryWorkflow.name}' AND ExecutionStatus = 'Running'`;
    const ended = new Set<string>();
    for (let round = 0; round < 30; round += 1) {
      const { executions } = await connection.workflowService.listWorkflowExecutions({ namespace: 'default', query, pageSize: 1000 });
      const left = (executions ?? []).filter((e) => !ended.has(e.execution?.runId ?? ''));
      if (!left.length) break;
      for (const execution of left) {
        ended.add(execution.execution?.runId ?? '');
        await connection.workflowService.terminateWorkflowExecution({
          namespace: 'default', workflowExecution: execution.execution, reason: 'bench: the endpoint taken down for the step is gone',
        }).catch(() => undefined); // ended meanwhile
      }
      // Visibility lags the terminations a little; wait for it before listing again.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    ctx.log(`  ended ${ended.size} delivery workflows still retrying the endpoints taken down`);
  } finally {
    await connection.close();
  }
}

/** API and worker CPU per create (ms), over the steps of one endpoint count. */
function serviceCpuPerCreate(steps: StepResult[], endpoints: 1 | 3): number | null {
  const mine = steps.filter((s) => s.scenario === `${ENDPOINTS_CPU_SCENARIO}, ${endpoints}` && s.cpu && s.ok > 0);
  if (!mine.length) return null;
  const creates = mine.reduce((n, s) => n + s.ok, 0);
  const seconds = mine.reduce((n, s) => n + Object.entries(s.cpu!.seconds).filter(([k]) => k === 'api' || k.startsWith('worker-')).reduce((a, [, v]) => a + v, 0), 0);
  return (1000 * seconds) / creates;
}

/** Per down endpoint per minute. */
function perEndpointMinute(w: FailingEndpointWork): { events: number; attempts: number; actions: number } {
  const per = (n: number) => (w.endpoints && w.minutes ? n / w.endpoints / w.minutes : 0);
  return { events: per(w.deliveries), attempts: per(w.attempts), actions: per(w.actions) };
}

/** The report's target rows for these scenarios (the lag rows come from the webhook lag rule). */
export function endpointTargets(steps: StepResult[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const one = serviceCpuPerCreate(steps, 1);
  const three = serviceCpuPerCreate(steps, 3);
  if (one !== null && three !== null) {
    checks.push({
      target: 'CPU per create (API + worker) with three webhook endpoints <= 1.2x one',
      measured: `${three.toFixed(1)} vs ${one.toFixed(1)} ms = ${(three / one).toFixed(2)}x`,
      met: three <= 1.2 * one,
    });
  }
  const answering = steps.filter((s) => s.scenario === `${ENDPOINTS_CPU_SCENARIO}, 3` && s.ok > 0);
  const down = steps.filter((s) => s.scenario === ENDPOINTS_LAG_SCENARIO && s.failingEndpoints).sort((a, b) => (b.targetRate ?? 0) - (a.targetRate ?? 0));
  const [fast, slow] = down;
  if (fast && answering.length) {
    const mean = (pick: (s: StepResult) => number) => answering.reduce((n, s) => n + pick(s), 0) / answering.length;
    for (const [label, pick] of [['p50', (s: StepResult) => s.p50], ['p99', (s: StepResult) => s.p99]] as const) {
      const control = mean(pick);
      checks.push({
        target: `create ${label} at ${fast.targetRate}/s, one endpoint of every merchant down, <= 1.2x all three answering`,
        measured: `${pick(fast).toFixed(1)} vs ${control.toFixed(1)} ms = ${(pick(fast) / control).toFixed(2)}x`,
        met: pick(fast) <= 1.2 * control,
      });
    }
  }
  if (fast && slow) {
    const f = perEndpointMinute(fast.failingEndpoints!);
    const s = perEndpointMinute(slow.failingEndpoints!);
    const at = (step: StepResult, p: { events: number; attempts: number; actions: number }) =>
      `${step.targetRate}/s: ${p.events.toFixed(1)} events, ${p.attempts.toFixed(1)} attempts, ${p.actions.toFixed(1)} Temporal actions`;
    checks.push({
      target: 'work per failing endpoint per minute does not grow with its event rate (attempts and Temporal actions <= 1.2x at 4x the events; no delivery workflow of its own)',
      measured: `per endpoint per minute, ${at(slow, s)}; ${at(fast, f)}; delivery workflows ${slow.failingEndpoints!.deliveryWorkflows + fast.failingEndpoints!.deliveryWorkflows}`,
      met: f.attempts <= 1.2 * s.attempts && f.actions <= 1.2 * s.actions && slow.failingEndpoints!.deliveryWorkflows + fast.failingEndpoints!.deliveryWorkflows === 0,
    });
  }
  return checks;
}
