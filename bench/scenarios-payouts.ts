// Payout submissions and payment lists at scale: POST /v1/payouts with a card the
// provider answers at once, at a paced rate and at saturation, and with the card whose provider
// holds its answer back 15 s (the answer must come within 2 s, PENDING); GET /v1/payments pages of
// one merchant holding a million payments. Their targets are checked beside the create's.
import { randomUUID } from 'node:crypto';
import querystring from 'node:querystring';
import type { LoadSpec } from './lib/load';
import type { TargetCheck } from './lib/target-check';
import { ensurePaymentListMerchant, paymentIdAtDepth } from './lib/seed-payment-list';
import { withDb } from './lib/seed';
import { roundRobin, steps, type Context, type StepPlan, type StepResult } from './scenarios';

interface PayoutPlans {
  hanging: StepPlan;
  list: StepPlan;
}

const none = { saturationConnections: null, saturationSeconds: 0 };

/** Rates per mode of the steps that do not follow the create's plan. */
export const PAYOUT_PLANS: Record<'short' | 'full', PayoutPlans> = {
  short: {
    hanging: { rates: [5], durationSeconds: 3, ...none },
    list: { rates: [50], durationSeconds: 3, ...none },
  },
  full: {
    hanging: { rates: [10], durationSeconds: 20, ...none },
    list: { rates: [100], durationSeconds: 15, ...none },
  },
};

export const PAYOUT_SUBMIT_SCENARIO = 'POST /v1/payouts (4242...)';
export const PAYOUT_HANGING_SCENARIO = 'POST /v1/payouts, provider holds its answer 15 s (4000007000000007)';
export const PAYMENT_LIST_SCENARIO = 'GET /v1/payments list';

function payoutSpec(ctx: Context, card: string): Omit<LoadSpec, 'name' | 'rate' | 'durationSeconds' | 'connections'> {
  const nextMerchant = roundRobin(ctx.seeded.merchants);
  const body = JSON.stringify({
    amount: 2500,
    currency: 'USD',
    initiator_ip_address: '203.0.113.7',
    recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' },
    destination: { card_number: card },
  });
  return {
    baseUrl: ctx.env.apiUrl,
    next: () => ({
      method: 'POST',
      path: '/v1/payouts',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${nextMerchant().testKey}`, 'Idempotency-Key': randomUUID() },
      body,
    }),
  };
}

/**
 * Submissions the provider answers at once: the payout path a merchant waits on. At 10/s and, when
 * the plan's creates have one, at saturation, with the create's step lengths (so the two compare
 * one to one, and --create-seconds and --saturate apply to both).
 */
export function submitPayouts(ctx: Context): Promise<StepResult[]> {
  const { durationSeconds, saturationConnections, saturationSeconds } = ctx.plan.create;
  return steps(ctx, PAYOUT_SUBMIT_SCENARIO, { rates: [10], durationSeconds, saturationConnections, saturationSeconds }, 0.3, payoutSpec(ctx, '4242424242424242'));
}

/**
 * A provider that does not answer: every submission is answered PENDING at the answer deadline
 * (PAYOUT_ANSWER_WITHIN_MS) while it goes on in the background. Run last of the payout steps: the
 * provider holds each first answer 15 s, past the step's end.
 */
export async function submitPayoutsHanging(ctx: Context): Promise<StepResult[]> {
  return steps(ctx, PAYOUT_HANGING_SCENARIO, PAYOUT_PLANS[ctx.plan.mode].hanging, 2, payoutSpec(ctx, '4000007000000007'));
}

export interface PaymentListQuery {
  label: string;
  query: string;
}

/** The list steps' merchant (seeded on first use) and its queries. */
export async function paymentListQueries(ctx: Context): Promise<{ merchant: { merchantId: string; testKey: string; payments: number }; queries: PaymentListQuery[] }> {
  // As many as the seeded table holds; BENCH_LIST_PAYMENTS sets it for a short run at full scale.
  const count = Number(process.env.BENCH_LIST_PAYMENTS || ctx.plan.seed.payments);
  const merchant = await ensurePaymentListMerchant(ctx.databaseUrl, count, ctx.log);
  const deep = await paymentIdAtDepth(ctx.databaseUrl, merchant.merchantId, Math.floor(merchant.payments * 0.9));
  return {
    merchant,
    queries: [
      { label: 'first page', query: 'limit=10' },
      { label: 'status filter (5%)', query: 'status=FAILED&limit=10' },
      { label: 'deep cursor page (90%)', query: `limit=100&starting_after=${deep}` },
    ],
  };
}

export async function listPaymentsAtScale(ctx: Context): Promise<StepResult[]> {
  const { merchant, queries } = await paymentListQueries(ctx);
  // A database in service holds its hot index pages in memory; a freshly seeded one reads them from
  // disk on first use. The indexes the pages read are walked once first.
  await withDb(ctx.databaseUrl, async (db) => {
    await db.query('SELECT COUNT(*) FROM payments FORCE INDEX (idx_payments_scope) WHERE merchant_id = ?', [merchant.merchantId]);
    await db.query('SELECT COUNT(*) FROM payments FORCE INDEX (idx_payments_scope_status) WHERE merchant_id = ?', [merchant.merchantId]);
  });
  const results: StepResult[] = [];
  for (const q of queries) {
    results.push(...await steps(ctx, `${PAYMENT_LIST_SCENARIO} (${merchant.payments.toLocaleString('en')} payments of one merchant) ${q.label}: ?${q.query}`,
      PAYOUT_PLANS[ctx.plan.mode].list, 0.05, {
        baseUrl: ctx.env.apiUrl,
        repeatable: true,
        next: () => ({ method: 'GET', path: `/v1/payments?${q.query}`, headers: { Authorization: `Bearer ${merchant.testKey}` } }),
      }));
  }
  return results;
}

/** The list query as the route builds it (status filters in Shape A's spelling), for EXPLAIN. */
export function parsePaymentListQuery(query: string): { limit: number; startingAfter?: string; status?: string } {
  const parsed = querystring.parse(query);
  return {
    limit: Number(parsed.limit ?? 10),
    ...(typeof parsed.starting_after === 'string' ? { startingAfter: parsed.starting_after } : {}),
    ...(typeof parsed.status === 'string' ? { status: parsed.status } : {}),
  };
}

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));

/** Issue 26's targets, on one server's steps. */
export function payoutTargets(steps: StepResult[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const create = steps.find((s) => s.scenario.startsWith('POST /v1/payments frictionless') && s.targetRate === 10);
  const payout = steps.find((s) => s.scenario === PAYOUT_SUBMIT_SCENARIO && s.targetRate === 10);
  if (payout && create) {
    checks.push({ target: 'POST /v1/payouts (4242...) p50 <= 1.5x frictionless create p50 at 10/s', measured: `${ms(payout.p50)} vs ${ms(create.p50)} ms = ${(payout.p50 / create.p50).toFixed(2)}x`, met: payout.p50 <= 1.5 * create.p50 });
  }
  for (const s of steps.filter((x) => x.scenario === PAYOUT_SUBMIT_SCENARIO && x.targetRate === null)) {
    checks.push({ target: 'POST /v1/payouts (4242...) at saturation (no target)', measured: `${s.throughput.toFixed(1)}/s, p50 ${ms(s.p50)} ms`, met: null });
  }
  for (const s of steps.filter((x) => x.scenario === PAYOUT_HANGING_SCENARIO)) {
    checks.push({ target: `POST /v1/payouts with a provider that holds its answer: p99 < 2 s at ${s.targetRate}/s`, measured: `${ms(s.p99)} ms (${s.ok} answered, ${s.non2xx + s.errors} not)`, met: s.p99 < 2000 && s.non2xx + s.errors === 0 });
  }
  for (const s of steps.filter((x) => x.scenario.startsWith(PAYMENT_LIST_SCENARIO) && x.targetRate !== null)) {
    checks.push({ target: `GET /v1/payments list p99 < 20 ms: ${s.scenario.replace(`${PAYMENT_LIST_SCENARIO} `, '')}`, measured: `${ms(s.p99)} ms at ${s.targetRate}/s`, met: s.p99 < 20 });
  }
  return checks;
}
