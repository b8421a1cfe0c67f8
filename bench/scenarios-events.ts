// The Events API under a million events of one merchant: the first page, an
// object's events, an exact type and a wildcard, a deep cursor. The events are seeded in bulk SQL
// beside the payouts' merchant, and reused when a kept database already holds them.
import type { StepPlan } from './scenarios';
import { auth, steps, type Context, type StepResult } from './scenarios';
import { connect, idSql, withDb } from './lib/seed';

const EVENTS_PLAN: Record<'short' | 'full', { events: number; queries: StepPlan }> = {
  short: { events: 20_000, queries: { rates: [10], durationSeconds: 2, saturationConnections: null, saturationSeconds: 0 } },
  full: { events: 1_000_000, queries: { rates: [20], durationSeconds: 10, saturationConnections: null, saturationSeconds: 0 } },
};

/** Every `seq` % 20 picks a type: mostly payment events, some refunds and payouts, few payout.failed. */
const TYPE_CYCLE = [
  'payment.processing', 'payment.succeeded', 'payment.processing', 'payment.succeeded', 'payment.failed',
  'payment.processing', 'payment.succeeded', 'refund.processing', 'refund.succeeded', 'payment.refunded',
  'payout.pending', 'payout.processing', 'payout.succeeded', 'payment.processing', 'payment.succeeded',
  'payment.requires_action', 'payment.expired', 'payout.processing', 'payout.succeeded', 'payment.succeeded',
];
const CHUNK = 100_000;

/**
 * `count` test-mode events of the merchant, two per object, one every two seconds up to now (all
 * within retention), each with a body of about 900 bytes like a Payment snapshot. No deliveries:
 * the measured queries do not read them.
 */
async function seedEvents(ctx: Context, merchantId: string, count: number): Promise<{ reused: boolean; seconds: number }> {
  const existing = await withDb(ctx.databaseUrl, async (db) => {
    const [rows] = await db.query('SELECT COUNT(*) AS n FROM events WHERE merchant_id = ? AND livemode = 0', [merchantId]);
    return Number((rows as Array<{ n: number }>)[0]!.n);
  });
  if (existing >= count) return { reused: true, seconds: 0 };
  const start = Date.now();
  const db = await connect(ctx.databaseUrl);
  try {
    const now = Math.floor(Date.now() / 1000) - 60;
    const types = TYPE_CYCLE.map((type) => `'${type}'`).join(', ');
    for (let from = 1; from <= count; from += CHUNK) {
      const to = Math.min(count, from + CHUNK - 1);
      await db.query(`
        INSERT INTO events (id, merchant_id, livemode, type, object_id, payload, payload_b, endpoint, created_at, relay_lease_until_ms)
        SELECT x.id, ?, 0, x.type, x.object_id,
          CONCAT('{"id":"', x.id, '","type":"', x.type, '","created_at":', x.created, ',"livemode":false,"data":{"object":{"id":"', x.object_id,
            '","amount":4999,"currency":"USD","status":"SUCCEEDED","description":"', REPEAT('x', 700), '"}}}'),
          NULL, NULL, x.created, NULL
        FROM (
          SELECT s.seq, ${idSql('evt_', 'e', 's.seq')} AS id, ELT(1 + s.seq % ${TYPE_CYCLE.length}, ${types}) AS type,
            ${now} - (${count} - s.seq) * 2 AS created,
            CASE
              WHEN ELT(1 + s.seq % ${TYPE_CYCLE.length}, ${types}) LIKE 'payout.%' THEN ${idSql('po_', 'eo', 'FLOOR(s.seq / 2)')}
              WHEN ELT(1 + s.seq % ${TYPE_CYCLE.length}, ${types}) LIKE 'refund.%' THEN ${idSql('ref_', 'er', 'FLOOR(s.seq / 2)')}
              ELSE ${idSql('pay_', 'ep', 'FLOOR(s.seq / 2)')}
            END AS object_id
          FROM seq_${from}_to_${to} s
        ) x ORDER BY x.seq`, [merchantId]);
    }
    await db.query('ANALYZE TABLE events');
  } finally {
    await db.end();
  }
  return { reused: false, seconds: (Date.now() - start) / 1000 };
}

/** An object with events about 60% deep, and the event id 90% deep (for a cursor far from the newest). */
async function sampleIds(ctx: Context, merchantId: string, count: number): Promise<{ objectId: string; deepEventId: string }> {
  return withDb(ctx.databaseUrl, async (db) => {
    const at = async (depth: number) => {
      const [rows] = await db.query('SELECT id, object_id AS objectId FROM events WHERE merchant_id = ? AND livemode = 0 ORDER BY seq DESC LIMIT 1 OFFSET ?', [merchantId, depth]);
      return (rows as Array<{ id: string; objectId: string }>)[0]!;
    };
    return { objectId: (await at(Math.floor(count * 0.6))).objectId, deepEventId: (await at(Math.floor(count * 0.9))).id };
  });
}

export async function listEventsRun(ctx: Context): Promise<StepResult[]> {
  const plan = { ...EVENTS_PLAN[ctx.plan.mode] };
  // A short run at the full size: the million events without the rest of the full mode.
  if (process.env.BENCH_EVENTS) plan.events = Number(process.env.BENCH_EVENTS);
  if (process.env.BENCH_EVENTS_SECONDS) plan.queries = { ...plan.queries, rates: [20], durationSeconds: Number(process.env.BENCH_EVENTS_SECONDS) };
  const merchant = ctx.seeded.payoutMerchant;
  const seeded = await seedEvents(ctx, merchant.merchantId, plan.events);
  ctx.log(seeded.reused ? `  ${plan.events} events already seeded` : `  seeded ${plan.events} events in ${seeded.seconds.toFixed(1)} s`);
  const { objectId, deepEventId } = await sampleIds(ctx, merchant.merchantId, plan.events);
  const queries = [
    { label: 'first page', query: 'limit=10' },
    { label: 'object_id filter', query: `object_id=${objectId}` },
    { label: 'type filter, common type', query: 'type=payment.succeeded' },
    { label: 'type filter, rare type', query: 'type=payment.expired' },
    { label: 'type wildcard', query: 'type=payout.*' },
    { label: 'type wildcard, most events', query: 'type=payment.*' },
    { label: 'deep cursor page (90%)', query: `limit=100&starting_after=${deepEventId}` },
  ];
  const results: StepResult[] = [];
  for (const q of queries) {
    results.push(...await steps(ctx, `GET /v1/events ${q.label}: ?${q.query}`, plan.queries, 0.05, {
      baseUrl: ctx.env.apiUrl,
      repeatable: true,
      next: () => ({ method: 'GET', path: `/v1/events?${q.query}`, headers: auth(merchant.testKey) }),
    }));
  }
  return results;
}
