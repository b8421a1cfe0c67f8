// Real checks of what a request needs: the database answers a query, and Temporal its system info.
import type { DataSource } from 'typeorm';
import { databaseProbe, type DatabaseProbe } from '../db/probe';
import type { Deps } from './context';

export type CheckResult = 'ok' | 'unavailable';

async function check(fn: () => Promise<unknown>, timeoutMs = 2000): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([fn(), new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timeout')), timeoutMs); })]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

export async function checkHealth(deps: Pick<Deps, 'dataSource' | 'temporal'>): Promise<{ database: CheckResult; temporal: CheckResult }> {
  const [database, temporal] = await Promise.all([
    check(() => deps.dataSource.query('SELECT 1')),
    check(() => deps.temporal.workflowService.getSystemInfo({})),
  ]);
  return { database, temporal };
}

/**
 * A worker's checks (its `/health`, and the watchdog that stops it polling while the database is
 * away): the database on a connection of its own (src/db/probe.ts), Temporal through the worker's
 * own connection.
 */
export class WorkerChecks {
  private readonly probe: DatabaseProbe;

  constructor(dataSource: DataSource, private readonly pingTemporal: () => Promise<unknown>) {
    this.probe = databaseProbe(dataSource);
  }

  async database(timeoutMs: number): Promise<CheckResult> {
    return (await this.probe.check(timeoutMs)) ? 'ok' : 'unavailable';
  }

  temporal(timeoutMs: number): Promise<CheckResult> {
    return check(this.pingTemporal, timeoutMs);
  }

  close(): Promise<void> {
    return this.probe.close();
  }
}
