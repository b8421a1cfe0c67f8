// Capability checks, before the Idempotency-Key and the body (docs/api-reference.md, "Order of
// checks"): what the key may do, then what the merchant's account may do.
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import { authOf, type AppContext } from '../context';

/**
 * `accept_payments` and `submit_payouts` are switched per merchant by the operator. The others are
 * what a restricted key (admin `key create --no-refunds`) may not do: move money back or out, or
 * change where events go and how they are signed (docs/api-reference.md, "Restricted keys").
 */
export type Capability = 'accept_payments' | 'submit_payouts' | 'create_refunds' | 'manage_webhooks';

const RESTRICTED_REFUSALS: Partial<Record<Capability, string>> = {
  create_refunds: 'This API key is restricted: it cannot create refunds. Use an unrestricted key of this account.',
  submit_payouts: 'This API key is restricted: it cannot submit payouts. Use an unrestricted key of this account.',
  manage_webhooks: 'This API key is restricted: it cannot create, change, delete or rotate webhook endpoints, nor resend events. Use an unrestricted key of this account.',
};

export function requireCapability(capability: Capability) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const auth = authOf(ctx);
    const refusal = auth.restricted ? RESTRICTED_REFUSALS[capability] : undefined;
    if (refusal) throw new ApiError('actor_forbidden', { message: refusal });
    if (capability === 'accept_payments' && !auth.merchant.payments_enabled) throw new ApiError('payment_acceptance_unavailable');
    if (capability === 'submit_payouts' && !auth.merchant.payouts_enabled) throw new ApiError('payout_submission_unavailable');
    await next();
  };
}
