// EXPLAIN of the payment list pages the bench measures, through the read model's own function
// (as bench/lib/explain.ts does for the payout lists): the plans show which index each page reads.
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/db/data-source';
import { listPayments } from '../src/read-models/payments';
import { SecretBox } from '../src/vault/crypto';
import { VAULT_KEY } from './lib/env';
import { PAYMENT_SHAPES } from '../src/representations/payment-shapes';
import type { Context } from './scenarios';
import { PAYMENT_LIST_SCENARIO, parsePaymentListQuery, paymentListQueries } from './scenarios-payouts';
import { explainAll, Recorder, type Explained } from './lib/explain';

export async function explainPaymentLists(ctx: Context): Promise<Explained[]> {
  const { merchant, queries } = await paymentListQueries(ctx);
  const recorder = new Recorder();
  const dataSource = new DataSource({ ...dataSourceOptions(ctx.databaseUrl), logging: true, logger: recorder } as never);
  await dataSource.initialize();
  try {
    const results: Explained[] = [];
    for (const q of queries) {
      const { limit, startingAfter, status } = parsePaymentListQuery(q.query);
      const statusFilter = status ? PAYMENT_SHAPES.A.statusFilter(status) : null;
      recorder.queries = [];
      await listPayments(dataSource, new SecretBox(VAULT_KEY), { merchantId: merchant.merchantId, livemode: false }, {
        limit, ...(startingAfter ? { startingAfter } : {}), ...(statusFilter ? { statusFilters: [statusFilter] } : {}),
      });
      results.push({ label: `${PAYMENT_LIST_SCENARIO} (${merchant.payments.toLocaleString('en')} payments of one merchant) ${q.label}: ?${q.query}`, queries: await explainAll(dataSource, recorder) });
    }
    return results;
  } finally {
    await dataSource.destroy();
  }
}
