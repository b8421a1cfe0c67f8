// The one place that builds the browser's way back to the merchant after the hosted page.
import type { PaymentView } from '../domain/payment';

/**
 * The merchant's `return_url` with `payment_id` added (kept alongside the merchant's own query
 * parameters). Shape B's `redirect_url` also gets `status`; that belongs here too.
 */
export function merchantReturnUrl(payment: Pick<PaymentView, 'id' | 'return_url'>): string | null {
  if (!payment.return_url) return null;
  const target = new URL(payment.return_url);
  target.searchParams.set('payment_id', payment.id);
  return target.toString();
}
