// Real checks of what a request needs: the database answers a query, and Temporal its system info.
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
