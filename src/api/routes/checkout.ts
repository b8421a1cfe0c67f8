// Browser-facing returns: after 3D Secure the provider sends the shopper here, and we forward them
// to the merchant's return URL, built where the hosted page builds it (payment_id; Shape B status).
import { ApiError } from '../../domain/errors';
import { HostedPaymentService } from '../../services/hosted-payments';
import type { AppRouter } from '../context';
import type { Deps } from '../../services/context';

export function registerCheckoutRoutes(router: AppRouter, deps: Deps): void {
  const service = new HostedPaymentService(deps);

  router.get('checkoutReturn', '/checkout/return/:id', async (ctx) => {
    const target = await service.returnUrl(ctx.params.id!);
    if (!target) throw new ApiError('resource_not_found');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.redirect(target);
    ctx.status = 303;
  });
}
