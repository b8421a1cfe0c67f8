// Merchant capability checks, before the Idempotency-Key and the body (docs/api-reference.md,
// "Order of checks").
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import { authOf, type AppContext } from '../context';

export type Capability = 'accept_payments' | 'submit_payouts' | 'create_refunds';

export function requireCapability(capability: Capability) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const auth = authOf(ctx);
    if (capability === 'accept_payments' && !auth.merchant.payments_enabled) throw new ApiError('payment_acceptance_unavailable');
    if (capability === 'submit_payouts' && !auth.merchant.payouts_enabled) throw new ApiError('payout_submission_unavailable');
    if (capability === 'create_refunds' && !auth.canRefund) throw new ApiError('actor_forbidden');
    await next();
  };
}
