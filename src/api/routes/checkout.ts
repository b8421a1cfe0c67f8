// Browser-facing returns: after 3D Secure the provider sends the shopper here, and we forward them
// to the merchant's return URL, built where the hosted page builds it (payment_id; Shape B status).
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { Payment } from '../../db/entities';
import { merchantReturnUrl } from '../../hosted-page/return-url';
import { rowToPayment } from '../../read-models/payments';
import type { AppRouter, Deps } from '../context';

export function registerCheckoutRoutes(router: AppRouter, deps: Deps): void {
  router.get('checkoutReturn', '/checkout/return/:id', async (ctx) => {
    const id = ctx.params.id!;
    const row = isId('payment', id) ? await deps.dataSource.getRepository(Payment).findOneBy({ id }) : null;
    const target = row ? merchantReturnUrl(rowToPayment(row, [])) : null;
    if (!target) throw new ApiError('resource_not_found');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.redirect(target);
    ctx.status = 303;
  });
}
