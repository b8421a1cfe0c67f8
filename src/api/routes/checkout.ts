// Browser-facing returns: after 3D Secure the provider sends the shopper here, and we forward them
// to the merchant's return URL with the payment id (Shape B also gets the status).
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { Payment } from '../../db/entities';
import type { AppRouter, Deps } from '../context';

export function registerCheckoutRoutes(router: AppRouter, deps: Deps): void {
  router.get('checkoutReturn', '/checkout/return/:id', async (ctx) => {
    const id = ctx.params.id!;
    const row = isId('payment', id) ? await deps.dataSource.getRepository(Payment).findOneBy({ id }) : null;
    if (!row || !row.return_url) throw new ApiError('resource_not_found');
    const target = new URL(row.return_url);
    target.searchParams.set('payment_id', row.id);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.redirect(target.toString());
    ctx.status = 303;
  });
}
