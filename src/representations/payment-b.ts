// Shape B serializer (docs/shape-b.md): the one way a Payment looks under Service-Version
// 2024-06-01, for API answers and for `callback_url` deliveries alike.
import { shapeBDecline, shapeBStatus } from '../domain/payment-shape-b';
import type { PaymentView } from '../domain/payment';

function customerName(first: string | null | undefined, last: string | null | undefined): string | null {
  const name = [first, last].filter((part) => part).join(' ');
  return name === '' ? null : name;
}

/** Kept at creation; Payments created before it was kept still show it while the page is open. */
function hostedPageUrl(payment: PaymentView): string | null {
  if (payment.hosted_page_url) return payment.hosted_page_url;
  return payment.next_action?.reason === 'hosted_payment_page' ? payment.next_action.redirect_url : null;
}

export function serializePaymentB(payment: PaymentView) {
  const billing = payment.billing_details;
  const decline = shapeBDecline(payment);
  return {
    id: payment.id,
    object: 'payment' as const,
    amount: payment.amount,
    currency: payment.currency.toLowerCase(),
    status: shapeBStatus(payment),
    description: payment.description,
    card: payment.card
      ? {
        brand: payment.card.brand.toLowerCase(),
        last4: payment.card.last4,
        exp_month: payment.card.exp_month,
        exp_year: payment.card.exp_year,
        country: payment.card.country,
      }
      : null,
    customer: { email: billing?.email ?? null, name: customerName(billing?.first_name, billing?.last_name) },
    metadata: payment.metadata ?? {},
    decline_code: decline?.code ?? null,
    decline_message: decline?.message ?? null,
    redirect_url: payment.integration_type === 'HOSTED_PAYMENT_PAGE' ? hostedPageUrl(payment) : null,
    refunded_at: payment.refunded_at,
    succeeded_at: payment.status_transitions.succeeded_at,
    failed_at: payment.status_transitions.failed_at ?? payment.status_transitions.expired_at,
    created: payment.created_at,
    livemode: payment.livemode,
  };
}

export type PaymentB = ReturnType<typeof serializePaymentB>;
