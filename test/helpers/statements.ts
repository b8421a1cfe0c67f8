// The SQL a piece of code sends, for tests that pin how many statements a write costs.
import type { DataSource } from 'typeorm';

/**
 * The statements `work` sends through `dataSource`'s query runners, in order, with their white
 * space folded; transaction control (START, BEGIN, COMMIT, ROLLBACK) is left out.
 */
export async function statementsOf(dataSource: DataSource, work: () => Promise<unknown>): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  const query = jest.spyOn(Object.getPrototypeOf(runner) as { query: (sql: string) => Promise<unknown> }, 'query');
  await runner.release();
  try {
    await work();
    return query.mock.calls.map(([sql]) => String(sql).trim().replace(/\s+/g, ' ')).filter((sql) => !/^(START|COMMIT|BEGIN|ROLLBACK)/i.test(sql));
  } finally {
    query.mockRestore();
  }
}
