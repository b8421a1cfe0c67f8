// The Payout in Shape A (docs/api-reference.md, "Payouts"), for responses and event snapshots
// alike. The destination is masked; failure fields appear only on a FAILED Payout.
import type { PayoutView } from '../domain/payout';

export function serializePayout(payout: PayoutView) {
  return {
    id: payout.id,
    amount: payout.amount,
    currency: payout.currency,
    status: payout.status,
    merchant_reference: payout.merchant_reference,
    recipient: {
      first_name: payout.recipient.first_name,
      last_name: payout.recipient.last_name,
      country: payout.recipient.country,
    },
    destination: {
      brand: payout.destination.brand,
      last4: payout.destination.last4,
      country: payout.destination.country,
    },
    ...(payout.status === 'FAILED'
      ? { failure_code: payout.failure_code, failure_message: payout.failure_message }
      : {}),
    created_at: payout.created_at,
    updated_at: payout.updated_at,
    completed_at: payout.completed_at,
    livemode: payout.livemode,
  };
}
