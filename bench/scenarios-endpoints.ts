// Webhook endpoints in the bench: what more endpoints per merchant cost a create, and
// whether one endpoint that is down delays the others. Every seeded merchant already has its
// operator endpoint on the receiver (`/webhooks`); the steps add endpoints through the API for their
// duration and delete them afterwards, so the other scenarios see one endpoint per merchant.
//
// - CPU per create with three healthy endpoints against one, the same frictionless creates at the
//   same rate, in alternating order (target: three within 1.2x of one, API and worker CPU); their
//   webhook lag is the control for the next step.
// - Webhook lag (create 201 -> arrival of payment.succeeded) at each healthy endpoint with three
//   endpoints per merchant, one of them down (the receiver answers 503 under /down), at 20
//   creates/s (target: p99 under 1 s at every healthy endpoint, every event delivered).
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { webhookDeliveryWorkflow } from '../workflows/contracts/webhook-delivery';
import { meterCpu } from './lib/cpu';
import { latencyStats, runLoad } from './lib/load';
import { connectionsFor, createSpec, receiverEvents, receiverQuiet, receiverReset, type Context, type ReceivedEvent, type StepResult } from './scenarios';

export const ENDPOINTS_CPU_SCENARIO = 'CPU per create by webhook endpoints per merchant (all answering)';
export const ENDPOINTS_LAG_SCENARIO = 'webhook lag, three endpoints per merchant, one down';

const PLANS = {
  short: { rate: 20, cpuSeconds: 8, lagSeconds: 10, repetitions: 1 },
  full: { rate: 20, cpuSeconds: 20, lagSeconds: 30, repetitions: 2 },
} as const;

/** Adds an endpoint taking every event to each seeded merchant; answers a function that deletes them. */
async function addEndpoints(ctx: Context, url: string): Promise<() => Promise<void>> {
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
  return async () => {
    for (const { key, id } of added) {
      await fetch(`${ctx.env.apiUrl}/v1/webhook_endpoints/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } });
    }
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
async function createStep(ctx: Context, scenario: string, name: string, durationSeconds: number, answered: Map<string, number>): Promise<StepResult> {
  const rate = PLANS[ctx.plan.mode].rate;
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
      const removers = endpoints === 3 ? [await addEndpoints(ctx, `${ctx.env.receiverUrl}/webhooks/b`), await addEndpoints(ctx, `${ctx.env.receiverUrl}/webhooks/c`)] : [];
      try {
        await receiverQuiet(ctx);
        await receiverReset(ctx);
        answered.clear();
        const step = await createStep(ctx, `${ENDPOINTS_CPU_SCENARIO}, ${endpoints}`, `${plan.rate}/s #${i}`, plan.cpuSeconds, answered);
        // The lag with every endpoint answering: the control for the step with one down.
        step.webhookLag = await lagAt(ctx, endpoints === 3 ? ['/webhooks', '/webhooks/b', '/webhooks/c'] : ['/webhooks'], answered);
        results.push(step);
      } finally {
        for (const remove of removers) await remove();
      }
    }
  }

  const removers = [await addEndpoints(ctx, `${ctx.env.receiverUrl}/webhooks/b`), await addEndpoints(ctx, `${ctx.env.receiverUrl}/down`)];
  try {
    await receiverQuiet(ctx);
    await receiverReset(ctx);
    answered.clear();
    const step = await createStep(ctx, ENDPOINTS_LAG_SCENARIO, `${plan.rate}/s creates`, plan.lagSeconds, answered);
    step.webhookLag = await lagAt(ctx, ['/webhooks', '/webhooks/b'], answered);
    results.push(step);
  } finally {
    for (const remove of removers) await remove();
    await endDownRetries(ctx);
    await receiverReset(ctx);
  }
  return results;
}

/**
 * Ends the delivery workflows the step with one endpoint down leaves retrying. Their schedule (5 s,
 * doubling) brings every one of them back at once minutes later, inside whichever step then runs:
 * in `full-s16` a wave of some 600 attempts most likely fell into the hot Payment's 10/s step
 * (bench/NOTES.md, method section). Healthy deliveries are done by now (receiverQuiet).
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
    ctx.log(`  ended ${ended.size} delivery workflows still retrying the endpoint taken down`);
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

/** The report's target rows for these scenarios (the lag row comes from the webhook lag rule). */
export function endpointTargets(steps: StepResult[]): Array<{ target: string; measured: string; met: boolean | null }> {
  const one = serviceCpuPerCreate(steps, 1);
  const three = serviceCpuPerCreate(steps, 3);
  if (one === null || three === null) return [];
  return [{
    target: 'CPU per create (API + worker) with three webhook endpoints <= 1.2x one',
    measured: `${three.toFixed(1)} vs ${one.toFixed(1)} ms = ${(three / one).toFixed(2)}x`,
    met: three <= 1.2 * one,
  }];
}
