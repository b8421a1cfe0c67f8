// GET /v1/health: real checks of the database and of Temporal, no authentication; GET /metrics.
import type { AppRouter } from '../context';
import type { Deps } from '../../services/context';
import { checkHealth } from '../../services/health';

export function registerHealthRoutes(router: AppRouter, deps: Deps): void {
  router.get('health', '/v1/health', async (ctx) => {
    const checks = await checkHealth(deps);
    const ok = checks.database === 'ok' && checks.temporal === 'ok';
    ctx.status = ok ? 200 : 503;
    ctx.body = { status: ok ? 'ok' : 'unavailable', checks };
  });

  // With API_METRICS_PORT set, metrics are served on that port only and not to the public.
  if (deps.config.apiMetricsPort !== null) return;
  router.get('metrics', '/metrics', async (ctx) => {
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });
}
