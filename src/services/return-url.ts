// The one place that builds the browser's way back to the merchant after the hosted page.
import { SHAPE_B_VERSION } from '../representations/versions';
import { shapeBStatus } from '../domain/payment-shape-b';
import type { PaymentView } from '../domain/payment';

/**
 * The merchant's `return_url` with `payment_id` added (kept alongside the merchant's own query
 * parameters). A Payment created under Shape B returns to its `redirect_url` with `status` too,
 * spelled as Shape B spells it, as it stands when the browser leaves (the server still reads the
 * Payment for the result).
 */
export function merchantReturnUrl(payment: Pick<PaymentView, 'id' | 'return_url' | 'api_version' | 'status' | 'refunded_at'>): string | null {
  if (!payment.return_url) return null;
  const target = new URL(payment.return_url);
  target.searchParams.set('payment_id', payment.id);
  if (payment.api_version === SHAPE_B_VERSION) target.searchParams.set('status', shapeBStatus(payment));
  return target.toString();
}
