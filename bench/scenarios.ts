// What the bench measures. Each scenario runs paced steps (fixed request rates) and, when the plan
// asks, one saturation step, and returns its steps' results. Nothing here asserts on timing.
import { randomUUID } from 'node:crypto';
import { meterCpu, settle, type CpuUse } from './lib/cpu';
import { meterStatements } from './lib/statements';
import { latencyStats, prepareLoad, runLoad, type LatencyStats, type LoadResult, type LoadSpec, type RequestSpec } from './lib/load';
import { ACTION_TTL_SECONDS, type BenchEnv } from './lib/env';
import { payoutIdsAtDepth, samplePayments, withDb, RARE_SURNAME, type Seeded, type SeededMerchant } from './lib/seed';

export interface StepPlan {
  rates: number[];
  durationSeconds: number;
  /** Connections of the saturation step; null skips it. */
  saturationConnections: number | null;
  saturationSeconds: number;
}

export interface Plan {
  mode: 'short' | 'full';
  seed: { merchants: number; payments: number; payouts: number };
  warmupSeconds: number;
  baseline: StepPlan;
  sandbox: StepPlan;
  create: StepPlan;
  create3ds: StepPlan;
  getById: StepPlan;
  payoutQueries: StepPlan;
  refundsHot: StepPlan;
  refundsSpread: StepPlan;
  webhook: { rate: number; durationSeconds: number };
  /** Creates with and without the payload codec, alternating, `repetitions` steps of each. */
  codec: { rate: number; durationSeconds: number; repetitions: number };
}

export interface StepResult extends LoadResult {
  scenario: string;
  /** Webhook lag of the step's creates: receiver arrival minus the create's 201 at the client. */
  webhookLag?: LatencyStats & { expected: number; delivered: number };
  /** CPU seconds by part of the system from the step's first request until it was quiet again (bench/lib/cpu.ts). */
  cpu?: CpuUse;
  /** Statements MariaDB ran for every client over the same time (bench/lib/statements.ts). */
  statements?: number;
  /** Seconds the work the step's requests left behind took after its last request (settle). */
  settleSeconds?: number;
  /** With an endpoint of every merchant down: what those endpoints cost from the step's start (bench/scenarios-endpoints.ts). */
  failingEndpoints?: FailingEndpointWork;
}

export interface FailingEndpointWork {
  /** Down endpoints that had an event to deliver. */
  endpoints: number;
  /** Deliveries planned to them. */
  deliveries: number;
  /** Attempts they refused (503). */
  attempts: number;
  /** Temporal actions they caused: their circuits have no workflow, so the delivery workflows started meanwhile. */
  actions: number;
  /** Delivery workflows of their own started meanwhile (the circuit makes none). */
  deliveryWorkflows: number;
  minutes: number;
}

export interface Context {
  env: BenchEnv;
  seeded: Seeded;
  plan: Plan;
  databaseUrl: string;
  log(message: string): void;
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const CARD_YEAR = new Date().getFullYear() + 3;

export function auth(key: string): Record<string, string> {
  return { Authorization: `Bearer ${key}` };
}

function paymentBody(cardNumber: string, amount = 4999): string {
  return JSON.stringify({
    amount,
    currency: 'usd',
    payment_method_data: { type: 'card', card: { number: cardNumber, exp_month: 12, exp_year: CARD_YEAR, cvc: '123', holder_name: 'Ada Lovelace' } },
    customer_ip_address: '203.0.113.7',
    return_url: 'https://shop.example/return',
  });
}

const WARM_UP_CONNECTIONS = 4;

/** Connections for a paced step: enough that a slow answer does not hold back the next request. */
export function connectionsFor(rate: number, expectedSeconds: number): number {
  return Math.min(512, Math.max(32, Math.ceil(rate * expectedSeconds * 10)));
}

export async function steps(ctx: Context, scenario: string, plan: StepPlan, expectedSeconds: number, base: Omit<LoadSpec, 'name' | 'rate' | 'durationSeconds' | 'connections'>,
  hooks: { before?: () => Promise<void>; after?: (step: StepResult) => Promise<void> } = {}): Promise<StepResult[]> {
  const { before, after } = hooks;
  const results: StepResult[] = [];
  const run = async (name: string, rate: number | null, durationSeconds: number, connections: number) => {
    ctx.log(`  ${scenario}: ${name}`);
    if (before) await before();
    const load = prepareLoad({ ...base, name, rate, durationSeconds, connections });
    // Each step starts on a quiet machine and is charged the work its own requests leave behind.
    await settle();
    const endStatements = await meterStatements(ctx.databaseUrl);
    const endMeter = meterCpu();
    const attack = await load.run();
    const settleSeconds = (await settle()) / 1000;
    const cpu = endMeter() ?? undefined;
    const statements = await endStatements();
    const result: StepResult = { scenario, ...await attack.result(), cpu, statements, settleSeconds };
    if (after) await after(result);
    results.push(result);
    ctx.log(`    ${result.ok} ok, ${result.non2xx} non-2xx, ${result.errors} errors; ${result.throughput.toFixed(1)}/s; p50 ${result.p50.toFixed(1)} p95 ${result.p95.toFixed(1)} p99 ${result.p99.toFixed(1)} ms${result.sendLateness ? `; sent late p99 ${result.sendLateness.p99.toFixed(1)} ms` : ''}; quiet ${settleSeconds.toFixed(1)} s later`);
  };
  // Warm-up: a few requests back to back, so that the code path is compiled and its first garbage
  // collected before anything is measured: thousands of cheap reads, some tens of creates. A closed
  // loop cannot leave a queue behind for the first step, as a fixed rate above capacity would.
  if (ctx.plan.warmupSeconds > 0 && plan.rates.length) {
    await runLoad({ ...base, name: 'warm-up', rate: null, durationSeconds: ctx.plan.warmupSeconds, connections: WARM_UP_CONNECTIONS });
  }
  for (const rate of plan.rates) await run(`${rate}/s`, rate, plan.durationSeconds, connectionsFor(rate, expectedSeconds));
  if (plan.saturationConnections !== null) await run(`saturation (${plan.saturationConnections} connections)`, null, plan.saturationSeconds, plan.saturationConnections);
  return results;
}

export function roundRobin<T>(items: T[]): () => T {
  let i = 0;
  return () => items[i++ % items.length]!;
}

// --- Baselines ---------------------------------------------------------------------------------

export function baselineTemporal(ctx: Context): Promise<StepResult[]> {
  return steps(ctx, 'baseline (a): Update-with-Start + no-op activity', ctx.plan.baseline, 0.2, {
    baseUrl: ctx.env.baselineUrl,
    repeatable: true,
    next: () => ({ method: 'POST', path: '/run' }),
  });
}

export function baselineSandbox(ctx: Context): Promise<StepResult[]> {
  return steps(ctx, 'baseline (b): sandbox POST /v1/authorizations', ctx.plan.sandbox, 0.02, {
    baseUrl: ctx.env.sandboxUrl,
    // Above its saturation on the fastest machine seen (about 13,000/s in a warm-up of 4 connections).
    maxRate: 25_000,
    next: () => {
      const reference = `pay_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
      return {
        method: 'POST',
        path: '/v1/authorizations',
        headers: { ...JSON_HEADERS, 'Idempotency-Key': `${reference}:authorize` },
        body: JSON.stringify({
          reference, amount: 4999, currency: 'USD',
          card: { number: '4242424242424242', exp_month: 12, exp_year: CARD_YEAR, cvc: '123', holder_name: 'Ada Lovelace' },
          return_url: 'http://127.0.0.1:13350/checkout/return/x', notify_url: 'http://127.0.0.1:13350/internal/provider/notifications',
        }),
      };
    },
  });
}

// --- Creates and webhook lag -------------------------------------------------------------------

export interface ReceivedEvent { objectId: string; type: string; createdAt: number; arrivedAtMs: number; path?: string }

export async function receiverReset(ctx: Context): Promise<void> {
  await fetch(`${ctx.env.receiverUrl}/received`, { method: 'DELETE' });
}

export async function receiverEvents(ctx: Context): Promise<ReceivedEvent[]> {
  return (await (await fetch(`${ctx.env.receiverUrl}/received`)).json()) as ReceivedEvent[];
}

/**
 * Waits for the events of `answered` (payment id -> 201 arrival) and measures their lag. The
 * status change happened before the 201 left the API, so this slightly understates the lag.
 */
async function webhookLag(ctx: Context, answered: Map<string, number>, type: string, waitMs = 30_000): Promise<StepResult['webhookLag']> {
  const deadline = Date.now() + waitMs;
  let events: ReceivedEvent[] = [];
  for (;;) {
    events = (await receiverEvents(ctx)).filter((e) => e.type === type && answered.has(e.objectId));
    if (new Set(events.map((e) => e.objectId)).size >= answered.size || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const firstArrival = new Map<string, number>();
  for (const e of events) if (!firstArrival.has(e.objectId) || firstArrival.get(e.objectId)! > e.arrivedAtMs) firstArrival.set(e.objectId, e.arrivedAtMs);
  const lags = [...firstArrival].map(([id, at]) => at - answered.get(id)!);
  return { ...latencyStats(lags), expected: answered.size, delivered: firstArrival.size };
}

export function createSpec(ctx: Context, card: string, answered: Map<string, number>, baseUrl = ctx.env.apiUrl): Omit<LoadSpec, 'name' | 'rate' | 'durationSeconds' | 'connections'> {
  const nextMerchant = roundRobin(ctx.seeded.merchants);
  const body = paymentBody(card);
  return {
    baseUrl,
    next: (): RequestSpec => ({
      method: 'POST',
      path: '/v1/payments',
      headers: { ...JSON_HEADERS, ...auth(nextMerchant().testKey), 'Idempotency-Key': randomUUID() },
      body,
    }),
    onAnswer: (status, text, arrivedAtMs) => {
      if (status !== 201) return;
      try {
        answered.set((JSON.parse(text) as { id: string }).id, arrivedAtMs);
      } catch {
        // not JSON: counted by status only
      }
    },
  };
}

export async function createFrictionless(ctx: Context): Promise<StepResult[]> {
  const answered = new Map<string, number>();
  return steps(ctx, 'POST /v1/payments frictionless (4242...)', ctx.plan.create, 0.3, createSpec(ctx, '4242424242424242', answered), {
    before: async () => {
      answered.clear();
      await receiverReset(ctx);
    },
    after: async (step) => {
      step.webhookLag = await webhookLag(ctx, answered, 'payment.succeeded');
    },
  });
}

export const CODEC_SCENARIO = 'codec cost: POST /v1/payments frictionless';

/**
 * What the payload codec costs a create: the same frictionless creates at the same rate against
 * the API and worker with the codec and against a second pair with TEMPORAL_CODEC=off (the same
 * settings otherwise, both pairs up all along), step by step in alternating order, so that both
 * configurations see the same machine. Webhooks are delivered by both, as in any create.
 */
export async function codecCost(ctx: Context): Promise<StepResult[]> {
  const plainApiUrl = ctx.env.plainApiUrl;
  if (!plainApiUrl) throw new Error('the environment has no API without the codec (startEnv plainCodec)');
  const { rate, durationSeconds, repetitions } = ctx.plan.codec;
  const answered = new Map<string, number>();
  const configurations = { on: ctx.env.apiUrl, off: plainApiUrl };
  const results: StepResult[] = [];
  for (let i = 1; i <= repetitions; i += 1) {
    const order: Array<'on' | 'off'> = i % 2 === 1 ? ['on', 'off'] : ['off', 'on'];
    for (const codec of order) {
      const plan: StepPlan = { rates: [rate], durationSeconds, saturationConnections: null, saturationSeconds: 0 };
      const [step] = await steps({ ...ctx, plan: { ...ctx.plan, warmupSeconds: i === 1 ? ctx.plan.warmupSeconds : 0 } }, `${CODEC_SCENARIO}, codec ${codec}`, plan, 0.3,
        createSpec(ctx, '4242424242424242', answered, configurations[codec]));
      results.push({ ...step!, name: `${step!.name} #${i}` });
    }
  }
  return results;
}

export async function create3ds(ctx: Context): Promise<StepResult[]> {
  const answered = new Map<string, number>();
  const startedAt = Math.floor(Date.now() / 1000);
  const results = await steps(ctx, 'POST /v1/payments 3DS challenge (4000000000003220)', ctx.plan.create3ds, 0.3, createSpec(ctx, '4000000000003220', answered), {
    before: async () => answered.clear(),
  });
  await challengesExpired(ctx, startedAt);
  return results;
}

/**
 * Waits until every challenge the 3DS steps left unanswered has expired (ACTION_TTL_SECONDS), so
 * that their expiries (a workflow task, a change record and an event each) run here and not inside
 * a later step.
 */
async function challengesExpired(ctx: Context, sinceSeconds: number): Promise<void> {
  const deadline = Date.now() + (ACTION_TTL_SECONDS + 300) * 1000;
  let waiting = 0;
  while (Date.now() < deadline) {
    waiting = await withDb(ctx.databaseUrl, async (db) => {
      const [rows] = await db.query("SELECT COUNT(*) AS n FROM payments WHERE status = 'REQUIRES_ACTION' AND created_at >= ?", [sinceSeconds]);
      return Number((rows as Array<{ n: number }>)[0]!.n);
    });
    if (!waiting) break;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  ctx.log(waiting ? `  ${waiting} 3DS challenges still waiting to expire` : '  every 3DS challenge of the scenario has expired');
}

/**
 * Waits until deliveries stop arriving at the receiver: a saturation step just before leaves
 * thousands of events queued, and a lag step started then would measure that backlog.
 */
export async function receiverQuiet(ctx: Context, quietMs = 3000, maxMs = 120_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let seen = -1;
  let since = Date.now();
  while (Date.now() < deadline) {
    const count = (await receiverEvents(ctx)).length;
    if (count !== seen) {
      seen = count;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) {
      return;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A dedicated paced run for webhook lag: creates at a steady rate, every event waited for. */
export async function webhookLagRun(ctx: Context): Promise<StepResult[]> {
  const answered = new Map<string, number>();
  await receiverQuiet(ctx);
  await receiverReset(ctx);
  const plan = ctx.plan.webhook;
  const result: StepResult = {
    scenario: 'webhook lag (payment.succeeded, create 201 -> receiver)',
    ...(await runLoad({ ...createSpec(ctx, '4242424242424242', answered), name: `${plan.rate}/s creates`, rate: plan.rate, durationSeconds: plan.durationSeconds, connections: connectionsFor(plan.rate, 0.3) })),
  };
  result.webhookLag = await webhookLag(ctx, answered, 'payment.succeeded');
  ctx.log(`  webhook lag: p50 ${result.webhookLag!.p50} p95 ${result.webhookLag!.p95} p99 ${result.webhookLag!.p99} ms (${result.webhookLag!.delivered}/${result.webhookLag!.expected})`);
  await receiverReset(ctx);
  return [result];
}

// --- Reads --------------------------------------------------------------------------------------

export async function getPaymentById(ctx: Context): Promise<StepResult[]> {
  const sample = await samplePayments(ctx.databaseUrl, ctx.seeded.payments, 20_000);
  // A database in service holds its hot rows in memory; a freshly seeded one has them on disk, and
  // the first step would measure page reads instead of the read path. Both indexes the read uses
  // (the id and the refunds' payment) and the rows are read once first.
  await withDb(ctx.databaseUrl, async (db) => {
    await db.query('SELECT COUNT(*) FROM payments FORCE INDEX (uq_payments_id)');
    await db.query('SELECT SUM(amount) FROM payments');
    await db.query('SELECT COUNT(*) FROM refunds FORCE INDEX (idx_refunds_payment)');
  });
  const keyOf = new Map(ctx.seeded.merchants.map((m) => [m.merchantId, m.testKey]));
  let i = 0;
  return steps(ctx, `GET /v1/payments/{id} (${ctx.seeded.payments.toLocaleString('en')} payments, ${ctx.seeded.merchants.length} merchants)`, ctx.plan.getById, 0.01, {
    baseUrl: ctx.env.apiUrl,
    repeatable: true,
    next: () => {
      const pick = sample[i++ % sample.length]!;
      return { method: 'GET', path: `/v1/payments/${pick.id}`, headers: auth(keyOf.get(pick.merchantId)!) };
    },
  });
}

export interface PayoutQuery {
  label: string;
  query: string;
}

/** The payout list queries measured, with values chosen from the seeded data. */
export async function payoutQueries(ctx: Context): Promise<PayoutQuery[]> {
  const merchant = ctx.seeded.payoutMerchant.merchantId;
  const total = ctx.seeded.payouts;
  const [deep, middle] = await payoutIdsAtDepth(ctx.databaseUrl, merchant, [Math.floor(total * 0.9), Math.floor(total / 2)]);
  const { reference, createdAt, someId } = await withDb(ctx.databaseUrl, async (db) => {
    const [rows] = await db.query('SELECT merchant_reference AS reference, created_at AS createdAt, id AS someId FROM payouts WHERE merchant_id = ? AND merchant_reference IS NOT NULL ORDER BY seq DESC LIMIT 1 OFFSET ?', [merchant, Math.floor(total / 3)]);
    return (rows as Array<{ reference: number; createdAt: number; someId: string }>)[0]!;
  });
  return [
    { label: 'first page, no filter', query: 'limit=10' },
    { label: 'name search, common first name', query: 'search=maria' },
    { label: 'name search, accented surname', query: `search=${encodeURIComponent('garcía')}` },
    { label: 'name search, rare surname', query: `search=${encodeURIComponent(RARE_SURNAME.toLowerCase().slice(0, 7))}` },
    { label: 'name search, full name', query: `search=${encodeURIComponent('maria garcía')}` },
    { label: 'last-four search', query: 'search=4242' },
    { label: 'amount search, one currency', query: 'search=25.50&currency=EUR' },
    { label: 'payout id search', query: `search=${someId}` },
    { label: 'merchant reference search', query: `search=${reference}` },
    { label: 'two-character search', query: 'search=an' },
    { label: 'search + status filter', query: 'search=maria&status=FAILED' },
    { label: 'deep cursor page (90%)', query: `limit=100&starting_after=${deep}` },
    { label: 'cursor page backwards (50%)', query: `limit=10&ending_before=${middle}` },
    { label: 'status filter (3%)', query: 'status=FAILED' },
    { label: 'currency + status filter', query: 'currency=JPY&status=SUCCEEDED' },
    { label: 'card_last4 filter', query: 'card_last4=1234' },
    { label: 'created window (1 day)', query: `created[gte]=${createdAt - 86_400}&created[lt]=${createdAt}` },
    { label: 'amount range', query: 'amount[gte]=1000&amount[lte]=1100' },
  ];
}

export async function listPayouts(ctx: Context, queries: PayoutQuery[]): Promise<StepResult[]> {
  const key = ctx.seeded.payoutMerchant.testKey;
  const results: StepResult[] = [];
  for (const q of queries) {
    results.push(...await steps(ctx, `GET /v1/payouts ${q.label}: ?${decodeURIComponent(q.query)}`, ctx.plan.payoutQueries, 0.05, {
      baseUrl: ctx.env.apiUrl,
      repeatable: true,
      next: () => ({ method: 'GET', path: `/v1/payouts?${q.query}`, headers: auth(key) }),
    }));
  }
  return results;
}

// --- Refunds ------------------------------------------------------------------------------------

async function createPayment(ctx: Context, merchant: SeededMerchant, amount: number): Promise<string> {
  const response = await fetch(`${ctx.env.apiUrl}/v1/payments`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...auth(merchant.testKey), 'Idempotency-Key': randomUUID() },
    body: paymentBody('4242424242424242', amount),
  });
  const body = (await response.json()) as { id: string; status: string };
  if (response.status !== 201 || body.status !== 'SUCCEEDED') throw new Error(`setup payment answered ${response.status} ${JSON.stringify(body)}`);
  return body.id;
}

function refundSpec(ctx: Context, targets: Array<{ paymentId: string; key: string }>): Omit<LoadSpec, 'name' | 'rate' | 'durationSeconds' | 'connections'> {
  const next = roundRobin(targets);
  return {
    baseUrl: ctx.env.apiUrl,
    next: () => {
      const target = next();
      return {
        method: 'POST',
        path: '/v1/refunds',
        headers: { ...JSON_HEADERS, ...auth(target.key), 'Idempotency-Key': randomUUID() },
        body: JSON.stringify({ payment_id: target.paymentId, amount: 1, reason: 'requested_by_customer' }),
      };
    },
  };
}

export async function refundsHot(ctx: Context): Promise<StepResult[]> {
  const merchant = ctx.seeded.merchants[0]!;
  const paymentId = await createPayment(ctx, merchant, 50_000_000);
  return steps(ctx, `POST /v1/refunds, one hot Payment (${paymentId})`, ctx.plan.refundsHot, 0.5, refundSpec(ctx, [{ paymentId, key: merchant.testKey }]));
}

export async function refundsSpread(ctx: Context, payments = 100): Promise<StepResult[]> {
  const targets: Array<{ paymentId: string; key: string }> = [];
  for (let i = 0; i < payments; i += 1) {
    const merchant = ctx.seeded.merchants[i % ctx.seeded.merchants.length]!;
    targets.push({ paymentId: await createPayment(ctx, merchant, 1_000_000), key: merchant.testKey });
  }
  return steps(ctx, `POST /v1/refunds, spread over ${payments} Payments`, ctx.plan.refundsSpread, 0.5, refundSpec(ctx, targets));
}
