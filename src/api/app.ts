// The Koa application: request context and error boundary around the public routes. Anything no
// route matches (including a wrong method) is `404 resource_not_found`, before authentication.
import Router from '@koa/router';
import Koa from 'koa';
import { ApiError } from '../domain/errors';
import type { ApiLifecycle, RequestState } from './context';
import type { Deps } from '../services/context';
import { errorMiddleware } from './errors';
import { requestContext } from './middleware/request-context';
import { refuseTooManyHeaders } from './middleware/header-count';
import { closeAfterUnreadBody } from '../web/unread-body';
import { registerCheckoutRoutes } from './routes/checkout';
import { registerDocsRoutes } from './routes/docs';
import { registerEventRoutes } from './routes/events';
import { registerHealthRoutes } from './routes/health';
import { registerHostedPageRoutes } from './routes/hosted-page';
import { registerPaymentRoutes } from './routes/payments';
import { registerShapeBRefundRoute } from './routes/payments-shape-b';
import { registerPayoutRoutes } from './routes/payouts';
import { registerProviderNotificationRoutes } from './routes/provider-notifications';
import { registerRefundRoutes } from './routes/refunds';
import { registerWebhookEndpointRoutes } from './routes/webhook-endpoints';

export function createApp(deps: Deps, lifecycle: ApiLifecycle = { draining: false }): Koa<RequestState> {
  const app = new Koa<RequestState>();
  app.proxy = deps.config.trustProxy;
  // One balancer in front: the client is the address it appended to X-Forwarded-For, not one the
  // client wrote there itself (the per-address limit must not be dodged by a forged header).
  app.maxIpsCount = 1;
  const router = new Router<RequestState>();

  router.use(async (ctx, next) => {
    // Named routes give metrics a bounded label set.
    ctx.state.routeName = (ctx as unknown as { _matchedRouteName?: string })._matchedRouteName ?? ctx.routerPath ?? 'unnamed';
    await next();
  });
  registerHealthRoutes(router, deps, lifecycle);
  registerPaymentRoutes(router, deps);
  registerRefundRoutes(router, deps);
  registerShapeBRefundRoute(router, deps);
  registerPayoutRoutes(router, deps);
  registerEventRoutes(router, deps);
  registerWebhookEndpointRoutes(router, deps);
  registerProviderNotificationRoutes(router, deps);
  registerCheckoutRoutes(router, deps);
  registerHostedPageRoutes(router, deps);
  registerDocsRoutes(router, deps.config);

  // While the process stops, every answer ends its connection: a client on a kept-alive connection
  // opens a new one, which the balancer sends to a replica that is not stopping.
  app.use(async (ctx, next) => {
    await next();
    if (lifecycle.draining) ctx.set('Connection', 'close');
  });
  app.use(closeAfterUnreadBody());
  app.use(requestContext(deps.logger, deps.metrics, deps.config.http.bodyTimeoutMs));
  app.use(errorMiddleware(deps.config.publicBaseUrl));
  app.use(refuseTooManyHeaders(deps.config.http.maxHeaders));
  app.use(async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  });
  app.use(router.routes());
  app.use(() => {
    throw new ApiError('resource_not_found');
  });
  return app;
}
