// Request and response examples. Bodies and error envelopes of both shapes come from the real
// serializers and `errorBody`, so they look exactly like answers. A unit test validates every
// example against the schema it illustrates.
import { ApiError, type ErrorCode } from '../../domain/errors';
import { failureMessage } from '../../domain/failure-codes';
import { emptyTransitions, type PaymentView, type RefundView } from '../../domain/payment';
import type { PayoutView } from '../../domain/payout';
import type { RequestState } from '../context';
import { errorBody } from '../errors';
import { serializePaymentA, serializeRefundA } from '../../representations/payment-a';
import { serializePaymentB } from '../../representations/payment-b';
import { serializePayout } from '../../representations/payout';
import { serializeDeletedWebhookEndpoint, serializeWebhookEndpoint } from '../../representations/webhook-endpoint';
import type { WebhookEndpointView } from '../../domain/webhook-endpoints';
import type { Shape } from '../../representations/versions';
import type { ExampleObject } from './types';

const BASE_URL = 'https://payments.example.com';
const CREATED = 1767225600;
const PAYMENT_ID = 'pay_7Yq2mXk9LpR4sT1vW8zB3nCd';
const HOSTED_PAYMENT_ID = 'pay_Hq83nVb2KdLs0PzX5wRt7YcE';
const REFUND_ID = 'ref_2Fh7Kp9QmZx4Lw8Rt3Vb6NcY';
const PAYOUT_ID = 'po_9Kd3Lm7Qx2Zp5Rt8Vw4Bn6Hc';
const REQUEST_ID = 'req_4mT8qZ2xK9pL3vR7wB5nC1dF';

const WEBHOOK_ENDPOINT_ID = 'we_3Jk8Lp2Qm7Zx5Rt9Vw4Bn6Hc';
const WEBHOOK_SECRET = 'whsec_ZXhhbXBsZSBzZWNyZXQsIG5vdCBhIHJlYWwgb25l';

function webhookEndpoint(overrides: Partial<WebhookEndpointView>, secret?: string) {
  return serializeWebhookEndpoint({
    id: WEBHOOK_ENDPOINT_ID, livemode: false, url: 'https://shop.example/webhooks', enabledEvents: ['payment.succeeded', 'payment.failed'],
    description: 'Order fulfilment', apiVersion: '2025-09-01', status: 'enabled', disabledReason: null, createdAt: CREATED, ...overrides,
  }, secret);
}

const card = { brand: 'VISA' as const, last4: '4242', exp_month: 12, exp_year: 2030, cardholder_name: 'Ada Lovelace', country: 'US' };

function payment(overrides: Partial<PaymentView>): PaymentView {
  return {
    id: PAYMENT_ID,
    merchant_id: 'mer_Qw3Er5Ty7Ui9Op1As2Df4Gh6',
    livemode: false,
    amount: 4999,
    currency: 'USD',
    status: 'PROCESSING',
    integration_type: 'DIRECT',
    merchant_reference: 1234567890,
    description: 'Order 1042',
    card,
    billing_details: null,
    failure_code: null,
    failure_message: null,
    amount_refunded: 0,
    amount_refundable: 0,
    refunds: [],
    status_transitions: { ...emptyTransitions(), processing_at: CREATED },
    next_action: null,
    refunded_at: null,
    return_url: 'https://shop.example/return',
    customer_ip_address: '203.0.113.7',
    merchant_customer_id: null,
    metadata: null,
    customer: null,
    callback_url: null,
    hosted_token: null,
    created_at: CREATED,
    updated_at: CREATED,
    version: 1,
    ...overrides,
  };
}

function refund(overrides: Partial<RefundView>): RefundView {
  return {
    id: REFUND_ID,
    payment_id: PAYMENT_ID,
    amount: 1500,
    currency: 'USD',
    merchant_reference: null,
    reason: 'Damaged item',
    refund_type: 'PARTIAL',
    status: 'PROCESSING',
    failure_code: null,
    failure_message: null,
    created_at: CREATED + 3600,
    updated_at: CREATED + 3600,
    completed_at: null,
    ...overrides,
  };
}

function payout(overrides: Partial<PayoutView>): PayoutView {
  return {
    id: PAYOUT_ID,
    merchant_id: 'mer_Qw3Er5Ty7Ui9Op1As2Df4Gh6',
    livemode: false,
    amount: 2500,
    currency: 'EUR',
    status: 'PENDING',
    merchant_reference: 1234567890,
    recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' },
    destination: { brand: 'VISA', last4: '4242', country: 'US' },
    initiator_ip_address: '203.0.113.7',
    failure_code: null,
    failure_message: null,
    poll_attempts: 0,
    last_polled_at: null,
    created_at: CREATED,
    updated_at: CREATED,
    completed_at: null,
    version: 1,
    ...overrides,
  };
}

const succeededWithRefund = payment({
  status: 'SUCCEEDED',
  amount_refunded: 1500,
  amount_refundable: 3499,
  refunds: [refund({ status: 'SUCCEEDED', completed_at: CREATED + 3700, updated_at: CREATED + 3700 })],
  status_transitions: { ...emptyTransitions(), processing_at: CREATED, succeeded_at: CREATED + 1 },
});

const succeededB = payment({
  status: 'SUCCEEDED',
  merchant_reference: null,
  description: null,
  amount_refundable: 4999,
  status_transitions: { ...emptyTransitions(), processing_at: CREATED, succeeded_at: CREATED + 1 },
});
const paymentB = serializePaymentB(succeededB);

export const EXAMPLES: Record<string, ExampleObject> = {
  directPaymentRequest: {
    summary: 'Direct Payment (Shape A)',
    value: {
      amount: 4999,
      currency: 'USD',
      merchant_reference: 1234567890,
      payment_method_data: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123', holder_name: 'Ada Lovelace' } },
      customer_ip_address: '203.0.113.7',
      billing_details: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', phone: '+442071234567', address: { line1: '12 St James\'s Square', city: 'London', postal_code: 'SW1Y 4JH', country: 'GB' } },
      description: 'Order 1042',
      return_url: 'https://shop.example/return',
    },
  },
  directPaymentRequestB: {
    summary: 'Direct payment (Shape B)',
    value: { amount: 4999, currency: 'usd', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } },
  },
  hostedPaymentRequest: {
    summary: 'Hosted Payment Page payment (Shape A)',
    value: {
      amount: 12000,
      currency: 'EUR',
      customer_ip_address: '2001:db8::7',
      return_url: 'https://shop.example/return',
      billing_details: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
      description: 'Annual plan',
    },
  },
  hostedPaymentRequestB: {
    summary: 'Hosted payment (Shape B)',
    value: {
      amount: 12000,
      currency: 'eur',
      redirect_url: 'https://shop.example/return',
      customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', country: 'GB' },
      metadata: { order_id: '1042' },
      callback_url: 'https://shop.example/payment-callback',
    },
  },
  refundRequest: {
    summary: 'Partial refund',
    value: { payment_id: PAYMENT_ID, amount: 1500, reason: 'Damaged item' },
  },
  retryEventRequest: {
    summary: 'Send again to one endpoint',
    value: { webhook_endpoint_id: 'we_4mQx8Rk2Lp7ZtV1cN9bH3sWd' },
  },
  payoutRequest: {
    summary: 'Payout to a Visa card',
    value: {
      amount: 2500,
      currency: 'EUR',
      initiator_ip_address: '203.0.113.7',
      recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' },
      destination: { card_number: '4242424242424242' },
      merchant_reference: 1234567890,
    },
  },
  paymentProcessing: {
    summary: 'PROCESSING: authenticated, being processed',
    description: 'Follow with `GET /v1/payments/{id}` until `SUCCEEDED` or `FAILED`.',
    value: serializePaymentA(payment({})),
  },
  paymentRequiresAction: {
    summary: 'REQUIRES_ACTION: 3D Secure',
    description: 'Redirect the browser to `next_action.redirect_url`.',
    value: serializePaymentA(payment({
      status: 'REQUIRES_ACTION',
      next_action: { reason: 'three_d_secure', redirect_url: 'https://acquirer.example/3ds/att_Zx8Cv6Bn4Mq2Wl9Er7Ty5Ui3' },
      status_transitions: { ...emptyTransitions(), requires_action_at: CREATED },
    })),
  },
  paymentFailed: {
    summary: 'FAILED: declined (an outcome, not an HTTP error)',
    value: serializePaymentA(payment({
      status: 'FAILED',
      failure_code: 'generic_decline',
      failure_message: failureMessage('generic_decline'),
      card: { ...card, last4: '0002' },
      status_transitions: { ...emptyTransitions(), failed_at: CREATED },
    })),
  },
  paymentSucceededB: { summary: 'Shape B: succeeded', value: paymentB },
  paymentListB: {
    summary: 'Shape B: a page of one payment, more to come',
    value: { object: 'list', data: [paymentB], has_more: true, url: '/v1/payments' },
  },
  hostedPaymentRequiresAction: {
    summary: 'REQUIRES_ACTION: hosted payment page',
    value: serializePaymentA(payment({
      id: HOSTED_PAYMENT_ID,
      amount: 12000,
      currency: 'EUR',
      status: 'REQUIRES_ACTION',
      integration_type: 'HOSTED_PAYMENT_PAGE',
      merchant_reference: null,
      description: 'Annual plan',
      card: null,
      billing_details: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', phone: null, address: null },
      next_action: { reason: 'hosted_payment_page', redirect_url: `${BASE_URL}/checkout/hpp_Rk4Tn8Wq2Zm6Lp0Xv3Cs7Bd9Yf1Hj5Ga` },
      status_transitions: { ...emptyTransitions(), requires_action_at: CREATED },
    })),
  },
  hostedPaymentPendingB: {
    summary: 'Shape B: pending, redirect the browser',
    value: serializePaymentB(payment({
      id: HOSTED_PAYMENT_ID,
      amount: 12000,
      currency: 'EUR',
      status: 'REQUIRES_ACTION',
      integration_type: 'HOSTED_PAYMENT_PAGE',
      merchant_reference: null,
      description: null,
      card: null,
      billing_details: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', phone: null, address: null },
      metadata: { order_id: '1042' },
      next_action: { reason: 'hosted_payment_page', redirect_url: `${BASE_URL}/checkout/hpp_Rk4Tn8Wq2Zm6Lp0Xv3Cs7Bd9Yf1Hj5Ga` },
      status_transitions: { ...emptyTransitions(), requires_action_at: CREATED },
    })),
  },
  paymentList: {
    summary: 'A page of one Payment, more to come',
    value: { object: 'list', data: [serializePaymentA(succeededWithRefund)], has_more: true, url: '/v1/payments' },
  },
  paymentSucceededWithRefund: {
    summary: 'SUCCEEDED, partly refunded',
    value: serializePaymentA(succeededWithRefund),
  },
  refundProcessing: {
    summary: 'PROCESSING: submitted, funds not yet returned',
    value: serializeRefundA(refund({}), false),
  },
  refundFailed: {
    summary: 'FAILED: rejected at submission',
    value: serializeRefundA(refund({
      status: 'FAILED',
      failure_code: 'not_permitted',
      failure_message: failureMessage('not_permitted'),
      completed_at: CREATED + 3600,
    }), false),
  },
  paymentRefundedB: {
    summary: 'Shape B: refunded',
    value: serializePaymentB({
      ...succeededB,
      amount_refunded: 4999,
      amount_refundable: 0,
      refunds: [refund({ amount: 4999, refund_type: 'FULL', status: 'SUCCEEDED', completed_at: CREATED + 3600, updated_at: CREATED + 3600 })],
      refunded_at: CREATED + 3600,
    }),
  },
  payoutPending: {
    summary: 'PENDING: the provider answer was uncertain; resolved later',
    value: serializePayout(payout({})),
  },
  payoutFailed: {
    summary: 'FAILED: declined',
    value: serializePayout(payout({
      status: 'FAILED',
      destination: { brand: 'VISA', last4: '0002', country: 'US' },
      failure_code: 'generic_decline',
      failure_message: failureMessage('generic_decline'),
      completed_at: CREATED,
    })),
  },
  payoutSucceeded: {
    summary: 'SUCCEEDED',
    value: serializePayout(payout({ status: 'SUCCEEDED', updated_at: CREATED + 5, completed_at: CREATED + 5 })),
  },
  payoutList: {
    summary: 'One page of Payouts',
    value: { object: 'list', data: [serializePayout(payout({}))], has_more: false, total_count: 1, url: '/v1/payouts' },
  },
  webhookEndpointRequest: {
    summary: 'Payment outcomes to one URL',
    value: { url: 'https://shop.example/webhooks', enabled_events: ['payment.succeeded', 'payment.failed'], description: 'Order fulfilment' },
  },
  webhookEndpointUpdateRequest: { summary: 'Pause an endpoint', value: { status: 'disabled' } },
  rotateWebhookSecretRequest: { summary: 'Keep the old secret for an hour', value: { grace_period_seconds: 3600 } },
  webhookEndpointCreated: { summary: 'Created, with its secret', value: webhookEndpoint({}, WEBHOOK_SECRET) },
  webhookEndpoint: { summary: 'An endpoint', value: webhookEndpoint({}) },
  webhookEndpointDisabled: { summary: 'Disabled', value: webhookEndpoint({ status: 'disabled' }) },
  webhookEndpointRotated: { summary: 'With its new secret', value: webhookEndpoint({}, 'whsec_Zm9yIGV4YW1wbGUgb25seSwgbm90IGEga2V5') },
  webhookEndpointList: { summary: 'One page of endpoints', value: { object: 'list', data: [webhookEndpoint({})], has_more: false, url: '/v1/webhook_endpoints' } },
  webhookEndpointDeleted: { summary: 'Deleted', value: serializeDeletedWebhookEndpoint(WEBHOOK_ENDPOINT_ID) },
  healthOk: { summary: 'Healthy', value: { status: 'ok', checks: { database: 'ok', temporal: 'ok' } } },
  healthUnavailable: { summary: 'Temporal unreachable', value: { status: 'unavailable', checks: { database: 'ok', temporal: 'unavailable' } } },
  healthShuttingDown: { summary: 'Stopping (SIGTERM)', value: { status: 'shutting_down' } },
};

export function example(name: string): ExampleObject {
  const found = EXAMPLES[name];
  if (!found) throw new Error(`unknown OpenAPI example ${name}`);
  return found;
}

/** What `param` usually names for a code, so error examples read like real answers. */
const EXAMPLE_PARAMS: Partial<Record<ErrorCode, string>> = {
  amount_exceeds_refundable: 'amount',
  currency_not_supported: 'currency',
  idempotency_key_in_use: 'Idempotency-Key',
  idempotency_key_reused: 'Idempotency-Key',
  invalid_card: 'destination.card_number',
  invalid_request: 'id',
  invalid_search_criteria: 'limit',
  object_not_found: 'id',
  parameter_invalid: 'amount',
  parameter_missing: 'Idempotency-Key',
  payment_not_refundable: 'payment_id',
  request_body_invalid: 'payment_method_data.card.number',
  unsupported_card: 'destination.card_number',
};

/** An error envelope exactly as the API would send it. */
export function errorExample(code: ErrorCode, shape: Shape): ExampleObject {
  const error = new ApiError(code, {
    param: EXAMPLE_PARAMS[code],
    declineCode: code === 'card_declined' ? 'insufficient_funds' : undefined,
  });
  const state = { requestId: REQUEST_ID, shape } as RequestState;
  return { summary: `\`${code}\` (Shape ${shape})`, value: errorBody(error, state, BASE_URL) };
}
