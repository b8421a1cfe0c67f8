// How every Payment and Payout starts (newPayment, newPayout): what a create decides is kept, and
// the rest is the same for all.
import { describe, expect, it } from '@jest/globals';
import { emptyTransitions, newPayment, type NewPaymentFields } from '../../src/domain/payment';
import { newPayout, type NewPayoutFields } from '../../src/domain/payout';

const payment: NewPaymentFields = {
  id: 'pay_1', merchant_id: 'mer_1', livemode: false, amount: 1000, currency: 'EUR', integration_type: 'DIRECT', merchant_reference: 7,
  description: 'd', card: null, billing_details: null, next_action: null, return_url: 'https://shop.example/r', customer_ip_address: '203.0.113.7',
  merchant_customer_id: null, metadata: null, customer: null, callback_url: null, hosted_token: null, hosted_page_url: null, api_version: '2025-09-01',
};
const payout: NewPayoutFields = {
  id: 'po_1', merchant_id: 'mer_1', livemode: false, amount: 500, currency: 'EUR', merchant_reference: null,
  recipient: { first_name: 'Ana', last_name: 'Ruiz', country: 'ES' }, destination: { brand: 'VISA', last4: '4242', country: 'ES' }, initiator_ip_address: '2001:db8::1',
};

describe('a new Payment', () => {
  it('is PENDING with nothing refunded, no failure, no transition, version 0, created and updated now', () => {
    expect(newPayment(payment, 1_800_000_000)).toEqual({
      ...payment,
      status: 'PENDING', failure_code: null, failure_message: null, amount_refunded: 0, amount_refundable: 0, refunds: [],
      status_transitions: emptyTransitions(), refunded_at: null, created_at: 1_800_000_000, updated_at: 1_800_000_000, version: 0,
    });
  });
});

describe('a new Payout', () => {
  it('is PENDING, never polled, not completed, version 0, created and updated now', () => {
    expect(newPayout(payout, 1_800_000_000)).toEqual({
      ...payout,
      status: 'PENDING', failure_code: null, failure_message: null, poll_attempts: 0, last_polled_at: null,
      created_at: 1_800_000_000, updated_at: 1_800_000_000, completed_at: null, version: 0,
    });
  });
});
