// Shape A serializers (`Payment` and `Refund` in the OpenAPI document): the one way a Payment and a
// Refund look in the current shape.
import type { BillingDetails, PaymentView, RefundView } from '../domain/payment';

export function serializeRefundA(refund: RefundView, livemode: boolean) {
  return {
    id: refund.id,
    payment_id: refund.payment_id,
    amount: refund.amount,
    currency: refund.currency,
    merchant_reference: refund.merchant_reference,
    reason: refund.reason,
    refund_type: refund.refund_type,
    status: refund.status,
    ...(refund.status === 'FAILED' && refund.failure_code
      ? { failure: { code: refund.failure_code, message: refund.failure_message } }
      : {}),
    created_at: refund.created_at,
    updated_at: refund.updated_at,
    completed_at: refund.completed_at,
    livemode,
  };
}

function serializeBilling(billing: BillingDetails | null) {
  if (!billing) return null;
  return {
    email: billing.email ?? null,
    first_name: billing.first_name ?? null,
    last_name: billing.last_name ?? null,
    phone: billing.phone ?? null,
    address: billing.address
      ? {
        line1: billing.address.line1 ?? null,
        city: billing.address.city ?? null,
        postal_code: billing.address.postal_code ?? null,
        country: billing.address.country ?? null,
      }
      : null,
  };
}

export function serializePaymentA(payment: PaymentView) {
  return {
    id: payment.id,
    amount: payment.amount,
    currency: payment.currency,
    status: payment.status,
    integration_type: payment.integration_type,
    merchant_reference: payment.merchant_reference,
    description: payment.description,
    card: payment.card
      ? {
        brand: payment.card.brand,
        last4: payment.card.last4,
        exp_month: payment.card.exp_month,
        exp_year: payment.card.exp_year,
        cardholder_name: payment.card.cardholder_name,
        country: payment.card.country,
      }
      : null,
    billing_details: serializeBilling(payment.billing_details),
    failure_code: payment.failure_code,
    failure_message: payment.failure_message,
    amount_refunded: payment.amount_refunded,
    amount_refundable: payment.amount_refundable,
    refunds: payment.refunds.map((refund) => serializeRefundA(refund, payment.livemode)),
    status_transitions: payment.status_transitions,
    created_at: payment.created_at,
    livemode: payment.livemode,
    next_action: payment.status === 'REQUIRES_ACTION' && payment.next_action
      ? { type: 'redirect', reason: payment.next_action.reason, redirect_url: payment.next_action.redirect_url }
      : null,
  };
}
