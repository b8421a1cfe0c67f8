// EXPLAIN of the SQL the read models really issue: the read-model functions run against the bench
// database through a DataSource whose logger records each query, and every recorded SELECT is
// explained with its parameters. So the plans shown are those of the code under test.
import querystring from 'node:querystring';
import { DataSource, type Logger as TypeOrmLogger } from 'typeorm';
import { dataSourceOptions } from '../../src/db/data-source';
import { validateQuery } from '../../src/api/validation';
import { listPayoutsQuerySchema, payoutListQuery } from '../../src/api/schemas/payouts';
import { findPayment } from '../../src/read-models/payments';
import { SecretBox } from '../../src/vault/crypto';
import { VAULT_KEY } from './env';
import { listPayouts } from '../../src/read-models/payouts';

export interface ExplainedQuery {
  sql: string;
  parameters: unknown[];
  plan: Array<Record<string, unknown>>;
  ms: number;
}

export interface Explained {
  label: string;
  queries: ExplainedQuery[];
}

export class Recorder implements TypeOrmLogger {
  queries: Array<{ sql: string; parameters: unknown[] }> = [];
  logQuery(query: string, parameters?: unknown[]): void {
    if (/^\s*(SELECT|WITH)/i.test(query)) this.queries.push({ sql: query, parameters: parameters ?? [] });
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

export async function explainAll(dataSource: DataSource, recorder: Recorder): Promise<ExplainedQuery[]> {
  const recorded = recorder.queries;
  recorder.queries = [];
  const out: ExplainedQuery[] = [];
  for (const q of recorded) {
    const started = process.hrtime.bigint();
    await dataSource.query(q.sql, q.parameters);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const plan = (await dataSource.query(`EXPLAIN ${q.sql}`, q.parameters)) as Array<Record<string, unknown>>;
    out.push({ sql: q.sql, parameters: q.parameters.map((p) => (Buffer.isBuffer(p) ? `0x${p.toString('hex')} (${JSON.stringify(p.toString('utf8'))})` : p)), plan, ms });
  }
  recorder.queries = [];
  return out;
}

export async function explainReadPaths(databaseUrl: string, payment: { id: string; merchantId: string }, payoutMerchantId: string, payoutQueries: Array<{ label: string; query: string }>): Promise<Explained[]> {
  const recorder = new Recorder();
  const dataSource = new DataSource({ ...dataSourceOptions(databaseUrl), logging: true, logger: recorder } as never);
  await dataSource.initialize();
  try {
    const results: Explained[] = [];
    recorder.queries = [];
    await findPayment(dataSource, new SecretBox(VAULT_KEY), { merchantId: payment.merchantId, livemode: false }, payment.id);
    results.push({ label: 'GET /v1/payments/{id} (findPayment)', queries: await explainAll(dataSource, recorder) });
    for (const q of payoutQueries) {
      const query = validateQuery(listPayoutsQuerySchema, querystring.parse(q.query));
      recorder.queries = [];
      await listPayouts(dataSource, { merchantId: payoutMerchantId, livemode: false }, payoutListQuery(query));
      results.push({ label: `GET /v1/payouts ${q.label}: ?${decodeURIComponent(q.query)}`, queries: await explainAll(dataSource, recorder) });
    }
    return results;
  } finally {
    await dataSource.destroy();
  }
}
