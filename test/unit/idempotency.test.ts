// The idempotency rules of src/domain/idempotency.ts: which fields make a retry the same request,
// and the provider key of each request that moves money. The pinned fingerprints are the ones
// claims already stored hold: a change to an identity would turn every retry of those into
// `idempotency_key_reused`.
import { describe, expect, it } from '@jest/globals';
import {
  actingRequest,
  eventRetryIdentity,
  fingerprintOf,
  paymentCreateIdentity,
  payoutCreateIdentity,
  payoutDestinationDigest,
  providerKey,
  refundCreateIdentity,
  secretRotationIdentity,
  shapeBDirectCreateIdentity,
  shapeBHostedCreateIdentity,
  shapeBRefundIdentity,
  webhookEndpointCreateIdentity,
} from '../../src/domain/idempotency';

const KEY = '00'.repeat(32);
const OTHER_KEY = '11'.repeat(32);
const directA = {
  amount: 4999,
  currency: 'eur',
  billing_details: { name: 'Ada' },
  customer_ip_address: '203.0.113.7',
  description: 'x',
  merchant_reference: 7,
  return_url: 'https://shop.example/r',
};
const payout = {
  amount: 1000,
  currency: 'EUR',
  initiator_ip_address: '2001:db8::1',
  recipient: { first_name: 'Ana', last_name: 'Ruiz', country: 'ES' },
  destination: { card_number: '4242424242424242' },
};

describe('an identity keeps the fingerprints stored claims hold', () => {
  it.each([
    ['a Direct create', paymentCreateIdentity('DIRECT', directA), '508ef75229c1bc7f5ce757f2a605becab4f1fcd85ca8f83bc9a6e98eecb8027f'],
    [
      'a Hosted create',
      paymentCreateIdentity('HOSTED_PAYMENT_PAGE', { amount: 4999, currency: ' eur ', billing_details: null, customer_ip_address: '203.0.113.7', merchant_customer_id: 'c1', return_url: 'https://shop.example/r' }),
      '913772a553fa1d97a508cf6aa48ca89ba0c01a07f2dbf843c99bd083631649fb',
    ],
    ['a Shape B Direct create', shapeBDirectCreateIdentity({ amount: 100, currency: 'EUR' }), '8222d09363bee03cde6fff22934cd904cbc989721e8d0aeb623a1e015f55c4a7'],
    ['a refund', refundCreateIdentity({ payment_id: 'pay_abc', amount: 50, reason: 'dup' }), '263959a202caad964abb4b2e925471d58a72b788d8be015381c88cad32a0a16f'],
    ['a payout', payoutCreateIdentity(KEY, payout), 'd7d118747b48028e81294de30d7b6764085e12d9fb021bc2b39cb1a896ed0e33'],
  ])('%s', (_name, identity, stored) => {
    expect(fingerprintOf(identity)).toBe(stored);
  });
});

describe('a payment create', () => {
  it('is scoped to its integration type', () => {
    expect(paymentCreateIdentity('DIRECT', directA).operation).toBe('payments.create');
    expect(paymentCreateIdentity('HOSTED_PAYMENT_PAGE', directA).operation).toBe('payments.create_hosted');
  });

  it('never holds card fields: a card-only change is the same request', () => {
    const withCard = { ...directA, payment_method_data: { type: 'card', card: { number: '4242424242424242', cvc: '123' } } };
    const otherCard = { ...directA, payment_method_data: { type: 'card', card: { number: '4000056655665556', cvc: '999' } } };
    expect(fingerprintOf(paymentCreateIdentity('DIRECT', withCard))).toBe(fingerprintOf(paymentCreateIdentity('DIRECT', otherCard)));
    expect(JSON.stringify(paymentCreateIdentity('DIRECT', withCard))).not.toContain('4242');
  });

  it('compares a Hosted currency normalized and a Direct one as submitted', () => {
    const hosted = (currency: string) => fingerprintOf(paymentCreateIdentity('HOSTED_PAYMENT_PAGE', { ...directA, currency }));
    const direct = (currency: string) => fingerprintOf(paymentCreateIdentity('DIRECT', { ...directA, currency }));
    expect(hosted(' eur')).toBe(hosted('EUR'));
    expect(direct('eur')).not.toBe(direct('EUR'));
  });

  it('treats an omitted field and null as one value, and any other change as another request', () => {
    expect(fingerprintOf(paymentCreateIdentity('DIRECT', { ...directA, description: null }))).toBe(
      fingerprintOf(paymentCreateIdentity('DIRECT', { ...directA, description: undefined })),
    );
    expect(fingerprintOf(paymentCreateIdentity('DIRECT', { ...directA, amount: 5000 }))).not.toBe(fingerprintOf(paymentCreateIdentity('DIRECT', directA)));
  });
});

describe('Shape B', () => {
  it('shares the key scope of Shape A but names its fields apart, so a key reused across shapes is refused', () => {
    const a = paymentCreateIdentity('DIRECT', { amount: 100, currency: 'EUR' });
    const b = shapeBDirectCreateIdentity({ amount: 100, currency: 'EUR' });
    expect(b.operation).toBe(a.operation);
    expect(fingerprintOf(b)).not.toBe(fingerprintOf(a));
    const hosted = shapeBHostedCreateIdentity({ amount: 100, currency: 'EUR', redirect_url: 'https://shop.example/r' });
    expect(hosted.operation).toBe(paymentCreateIdentity('HOSTED_PAYMENT_PAGE', directA).operation);
    expect(hosted.name).not.toBe(hosted.operation);
  });

  it('refunds a Payment in full by its id alone', () => {
    expect(shapeBRefundIdentity('pay_1')).toEqual({ operation: 'payments.refund_b', name: 'payments.refund_b', fields: { payment_id: 'pay_1' } });
  });
});

describe('a payout', () => {
  it('holds the destination card only as a digest keyed with the vault key', () => {
    const identity = payoutCreateIdentity(KEY, payout);
    expect(JSON.stringify(identity)).not.toContain('4242424242424242');
    expect(identity.fields.destination).toEqual({ card_number: payoutDestinationDigest(KEY, '4242424242424242') });
    expect(payoutDestinationDigest(KEY, '4242424242424242')).not.toBe(payoutDestinationDigest(OTHER_KEY, '4242424242424242'));
    expect(fingerprintOf(payoutCreateIdentity(KEY, { ...payout, destination: { card_number: '4000056655665556' } }))).not.toBe(fingerprintOf(identity));
  });

  it('compares the initiator IP, the currency and the recipient country parsed', () => {
    const same = payoutCreateIdentity(KEY, {
      ...payout,
      currency: ' eur',
      initiator_ip_address: '2001:DB8:0:0:0:0:0:1',
      recipient: { ...payout.recipient, country: 'es' },
    });
    expect(fingerprintOf(same)).toBe(fingerprintOf(payoutCreateIdentity(KEY, payout)));
  });

  it('keeps recipient names exactly as sent', () => {
    const other = payoutCreateIdentity(KEY, { ...payout, recipient: { ...payout.recipient, first_name: 'ana' } });
    expect(fingerprintOf(other)).not.toBe(fingerprintOf(payoutCreateIdentity(KEY, payout)));
  });
});

describe('refunds, webhook endpoints and events', () => {
  it('a refund is its Payment, amount and labels', () => {
    expect(refundCreateIdentity({ payment_id: 'pay_1', amount: 5 })).toEqual({
      operation: 'refunds.create', name: 'refunds.create', fields: { payment_id: 'pay_1', amount: 5, merchant_reference: undefined, reason: undefined },
    });
  });

  it('an endpoint is its URL, events, description and the version asked for', () => {
    expect(webhookEndpointCreateIdentity({ url: 'https://a.example/h', enabledEvents: ['*'], description: null }, undefined).fields)
      .toEqual({ url: 'https://a.example/h', enabled_events: ['*'], description: null, api_version: undefined });
  });

  it('a rotation and a resend name their objects', () => {
    expect(secretRotationIdentity('we_1', 60)).toMatchObject({ operation: 'webhook_endpoints.rotate_secret', fields: { webhook_endpoint_id: 'we_1', grace_period_seconds: 60 } });
    expect(eventRetryIdentity('evt_1', undefined)).toMatchObject({ operation: 'events.retry', fields: { event_id: 'evt_1' } });
  });
});

describe('the provider key', () => {
  it('is one per object and operation, so a retried activity can never act twice', () => {
    expect(providerKey('pay_1', 'authorize')).toBe('pay_1:authorize');
    expect(providerKey('ref_1', 'refund')).toBe('ref_1:refund');
    expect(providerKey('po_1', 'payout')).toBe('po_1:payout');
  });

  it('starts every request that moves money, with our object as the reference', () => {
    expect(actingRequest('po_1', 'payout', { amount: 10, currency: 'EUR' })).toEqual({ idempotencyKey: 'po_1:payout', reference: 'po_1', amount: 10, currency: 'EUR' });
  });
});
