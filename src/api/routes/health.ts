// GET /v1/health: real checks of the database and of Temporal, no authentication; GET /metrics.
import type { ApiLifecycle, AppRouter } from '../context';
import { route } from '../operations/operation';
import { getHealth, getMetrics } from '../operations/service';
import type { Deps } from '../../services/context';
import { checkHealth } from '../../services/health';

export function registerHealthRoutes(router: AppRouter, deps: Deps, lifecycle: ApiLifecycle): void {
  route(router, getHealth, async (ctx) => {
    // A stopping process is taken out of the balancer at once, whatever its dependencies say.
    if (lifecycle.draining) {
      ctx.status = 503;
      ctx.body = { status: 'shutting_down' };
      return;
    }
    const checks = await checkHealth(deps);
    const ok = checks.database === 'ok' && checks.temporal === 'ok';
    ctx.status = ok ? 200 : 503;
    ctx.body = { status: ok ? 'ok' : 'unavailable', checks };
  });

  // With API_METRICS_PORT set (always in production), metrics are served on that port only and not to the public.
  if (deps.config.apiMetricsPort !== null) return;
  route(router, getMetrics, async (ctx) => {
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });
}
