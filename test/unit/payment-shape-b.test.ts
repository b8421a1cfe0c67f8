// Shape B rules over the one Payment model: status mapping, decline codes, list filters, ids, and
// the serializer's exact field set (docs/shape-b.md).
import { serializePaymentB } from '../../src/representations/payment-b';
import { FAILURE_CODES } from '../../src/domain/failure-codes';
import { emptyTransitions, PAYMENT_STATUSES, type PaymentView } from '../../src/domain/payment';
import {
  declineOf, isShapeBPaymentId, SHAPE_B_DECLINE_CODES, shapeBDecline, shapeBStatus, statusFilterB,
} from '../../src/domain/payment-shape-b';

function view(patch: Partial<PaymentView> = {}): PaymentView {
  return {
    id: 'pay_0123456789abcdefABCDEF01', merchant_id: 'mer_1', livemode: false, amount: 4999, currency: 'USD', status: 'SUCCEEDED',
    integration_type: 'DIRECT', merchant_reference: null, description: null,
    card: { brand: 'MASTERCARD', last4: '4444', exp_month: 12, exp_year: 2030, cardholder_name: 'Ada', country: 'US' },
    billing_details: null, failure_code: null, failure_message: null, amount_refunded: 0, amount_refundable: 4999, refunds: [],
    status_transitions: { ...emptyTransitions(), processing_at: 100, succeeded_at: 101 }, next_action: null, refunded_at: null,
    return_url: null, customer_ip_address: null, merchant_customer_id: null, metadata: null, customer: null, callback_url: null,
    hosted_token: null, hosted_page_url: null, api_version: '2024-06-01', created_at: 99, updated_at: 101, version: 3,
    ...patch,
  };
}

describe('Shape B status', () => {
  it.each([
    ['PENDING', 'pending'], ['REQUIRES_ACTION', 'pending'], ['PROCESSING', 'pending'],
    ['SUCCEEDED', 'succeeded'], ['FAILED', 'failed'], ['EXPIRED', 'failed'],
  ] as const)('%s reads as %s', (status, expected) => {
    expect(shapeBStatus({ status, refunded_at: null })).toBe(expected);
  });

  it('is refunded exactly when refunded_at is set', () => {
    expect(shapeBStatus({ status: 'SUCCEEDED', refunded_at: 123 })).toBe('refunded');
  });

  it('list filters select the same Payments the status reads as', () => {
    for (const status of PAYMENT_STATUSES) {
      for (const refundedAt of status === 'SUCCEEDED' ? [null, 5] : [null]) {
        const reads = shapeBStatus({ status, refunded_at: refundedAt });
        const filter = statusFilterB(reads);
        expect(filter.statuses).toContain(status);
        if (filter.refunded !== undefined) expect(filter.refunded).toBe(refundedAt !== null);
      }
    }
  });
});

describe('Shape B decline codes', () => {
  it.each([
    ['generic_decline', 'generic_decline'], ['insufficient_funds', 'insufficient_funds'], ['expired_card', 'expired_card'],
    ['do_not_honor', 'do_not_honor'], ['issuer_declined', 'incorrect_cvc'], ['processor_error', 'processing_error'],
    ['lost_card', 'generic_decline'], ['three_d_secure_failed', 'generic_decline'], [null, 'generic_decline'],
  ] as const)('%s declines as %s', (failureCode, expected) => {
    expect(declineOf(failureCode).code).toBe(expected);
  });

  it('every failure code maps to one of the six Shape B codes, with a message', () => {
    for (const code of FAILURE_CODES) {
      const decline = declineOf(code);
      expect(SHAPE_B_DECLINE_CODES).toContain(decline.code);
      expect(decline.message.length).toBeGreaterThan(0);
    }
  });

  it('only a FAILED Payment has a decline', () => {
    expect(shapeBDecline({ status: 'FAILED', failure_code: 'issuer_declined' })?.code).toBe('incorrect_cvc');
    expect(shapeBDecline({ status: 'EXPIRED', failure_code: null })).toBeNull();
    expect(shapeBDecline({ status: 'SUCCEEDED', failure_code: null })).toBeNull();
  });
});

describe('Shape B payment ids', () => {
  it('are pay_ then letters, digits and hyphens', () => {
    expect(isShapeBPaymentId('pay_0123456789abcdefABCDEF01')).toBe(true);
    expect(isShapeBPaymentId('pay_abc-123')).toBe(true);
    expect(isShapeBPaymentId('pay_')).toBe(false);
    expect(isShapeBPaymentId('pay_abc_123')).toBe(false);
    expect(isShapeBPaymentId('ref_abc')).toBe(false);
  });
});

describe('serializePaymentB', () => {
  it('has exactly the fields of a Shape B payment, lowercase currency and brand', () => {
    expect(serializePaymentB(view())).toEqual({
      id: 'pay_0123456789abcdefABCDEF01', object: 'payment', amount: 4999, currency: 'usd', status: 'succeeded', description: null,
      card: { brand: 'mastercard', last4: '4444', exp_month: 12, exp_year: 2030, country: 'US' },
      customer: { email: null, name: null }, metadata: {}, decline_code: null, decline_message: null, redirect_url: null,
      refunded_at: null, succeeded_at: 101, failed_at: null, created: 99, livemode: false,
    });
  });

  it('a hosted payment shows its page as redirect_url and its customer', () => {
    const body = serializePaymentB(view({
      integration_type: 'HOSTED_PAYMENT_PAGE', status: 'REQUIRES_ACTION', card: null, hosted_page_url: 'https://pay.example/checkout/abc',
      next_action: { reason: 'three_d_secure', redirect_url: 'https://acs.example/3ds' },
      billing_details: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' }, metadata: { order: '42' },
      status_transitions: emptyTransitions(),
    }));
    expect(body).toMatchObject({
      status: 'pending', card: null, redirect_url: 'https://pay.example/checkout/abc',
      customer: { email: 'ada@example.com', name: 'Ada Lovelace' }, metadata: { order: '42' }, succeeded_at: null,
    });
  });

  it('a declined payment carries the Shape B decline; an expired one its expiry as failed_at', () => {
    const declined = serializePaymentB(view({ status: 'FAILED', failure_code: 'processor_error', status_transitions: { ...emptyTransitions(), failed_at: 7 } }));
    expect(declined).toMatchObject({ status: 'failed', decline_code: 'processing_error', failed_at: 7 });
    const expired = serializePaymentB(view({ status: 'EXPIRED', card: null, status_transitions: { ...emptyTransitions(), expired_at: 8 } }));
    expect(expired).toMatchObject({ status: 'failed', decline_code: null, decline_message: null, failed_at: 8 });
  });

  it('a fully refunded payment reads refunded with refunded_at', () => {
    expect(serializePaymentB(view({ refunded_at: 200 }))).toMatchObject({ status: 'refunded', refunded_at: 200 });
  });
});
