// GET /v1/health: real checks of the database and of Temporal, no authentication; GET /metrics.
import type { AppRouter, Deps } from '../context';

async function check(fn: () => Promise<unknown>, timeoutMs = 2000): Promise<'ok' | 'unavailable'> {
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

export function registerHealthRoutes(router: AppRouter, deps: Deps): void {
  router.get('health', '/v1/health', async (ctx) => {
    const [database, temporal] = await Promise.all([
      check(() => deps.dataSource.query('SELECT 1')),
      check(() => deps.temporal.workflowService.getSystemInfo({})),
    ]);
    const ok = database === 'ok' && temporal === 'ok';
    ctx.status = ok ? 200 : 503;
    ctx.body = { status: ok ? 'ok' : 'unavailable', checks: { database, temporal } };
  });

  // With API_METRICS_PORT set, metrics are served on that port only and not to the public.
  if (deps.config.apiMetricsPort !== null) return;
  router.get('metrics', '/metrics', async (ctx) => {
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });
}
