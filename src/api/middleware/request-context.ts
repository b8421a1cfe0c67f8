// First middleware: request id, the time by which the body must have arrived, response headers,
// access log and metrics.
import type { Context, Next } from 'koa';
import { newId } from '../../domain/ids';
import type { Logger } from '../../observability/logger';
import type { ApiMetrics } from '../../observability/metrics';
import type { RequestState } from '../context';

export function requestContext(logger: Logger, metrics: ApiMetrics, bodyTimeoutMs: number) {
  return async (ctx: Context & { state: RequestState }, next: Next): Promise<void> => {
    const started = process.hrtime.bigint();
    const requestId = newId('request');
    ctx.state.requestId = requestId;
    ctx.state.bodyDeadline = { at: Date.now() + bodyTimeoutMs, afterMs: bodyTimeoutMs };
    ctx.state.shape = 'A';
    ctx.state.logger = logger.child({ request_id: requestId });
    ctx.set('Request-Id', requestId);
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = ctx.state.routeName ?? 'unmatched';
      const labels = { route, method: ctx.method, status: String(ctx.status) };
      metrics.requests.inc(labels);
      metrics.latency.observe(labels, seconds);
      if (ctx.state.version) ctx.set('Service-Version', ctx.state.version);
      ctx.state.logger.info({ method: ctx.method, route, status: ctx.status, ms: Math.round(seconds * 1000) }, 'request');
    }
  };
}
